#include "RenderKernels.h"

#include <string.h>

// The encoders store each lane's bytes as memory holds them: WAV data is little-endian.
#if __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "CRenderKernels' encoders assume a little-endian CPU"
#endif

// No fused multiply-adds: a contraction would round differently from the other kernel set (and
// from the Swift code that shares these formulas).
#pragma STDC FP_CONTRACT OFF
#pragma clang fp contract(off)

typedef float hk_f4 __attribute__((vector_size(16)));
typedef float hk_f8 __attribute__((vector_size(32)));
typedef int32_t hk_i8 __attribute__((vector_size(32)));
typedef uint32_t hk_u8 __attribute__((vector_size(32)));
typedef int16_t hk_s8 __attribute__((vector_size(16)));
typedef uint8_t hk_b32 __attribute__((vector_size(32)));

/// A phase increment times one, two and four, for the eight phases of `wave8`.
typedef struct {
    uint32_t one;
    uint32_t two;
    uint32_t four;
} hk_steps;

// The wavetable: 2^11 points a cycle, so the top 11 bits of the phase index it and the low 21 are
// the fraction between two points.
#define HK_FRACTION_BITS 21
#define HK_FRACTION_MASK ((1u << HK_FRACTION_BITS) - 1)
#define HK_FRACTION_SCALE (1.0f / (float)(1u << HK_FRACTION_BITS))

// Unaligned vector loads and stores; memcpy compiles to one move. Vectors of eight go by pointer:
// the baseline build has no 256-bit registers to pass them in (a different ABI, which clang warns
// about even for functions that are always inlined).
static inline __attribute__((always_inline)) hk_f4 hk_load4(const float *p) {
    hk_f4 x;
    memcpy(&x, p, sizeof x);
    return x;
}

static inline __attribute__((always_inline)) void hk_load8(hk_f8 *x, const float *p) { memcpy(x, p, sizeof *x); }

static inline __attribute__((always_inline)) void hk_store8(float *p, const hk_f8 *x) { memcpy(p, x, sizeof *x); }

/// NaN to 0, then -1...1.
static inline __attribute__((always_inline)) float hk_clamp1(float x) {
    const float y = x == x ? x : 0;
    return y < -1 ? -1 : (y > 1 ? 1 : y);
}

/// To the nearest integer, ties to even (the default rounding mode, which nothing here changes).
static inline __attribute__((always_inline)) int32_t hk_round1(float x) { return (int32_t)__builtin_lrintf(x); }

#if defined(__x86_64__)
#include <immintrin.h>
/// HK_ROUND8 for the baseline: SSE2's conversion, four lanes at a time.
static inline __attribute__((always_inline)) void hk_round8_sse2(hk_i8 *out, const hk_f8 *x) {
    __m128 low;
    __m128 high;
    memcpy(&low, x, 16);
    memcpy(&high, (const char *)x + 16, 16);
    const __m128i a = _mm_cvtps_epi32(low);
    const __m128i b = _mm_cvtps_epi32(high);
    memcpy(out, &a, 16);
    memcpy((char *)out + 16, &b, 16);
}
#define HK_ROUND8_BASELINE(out, x) hk_round8_sse2(out, x)

/// HK_ROUND8 for AVX2: one conversion.
__attribute__((target("avx2"))) static inline __attribute__((always_inline)) void hk_round8_avx2(
    hk_i8 *out, const hk_f8 *x) {
    __m256 v;
    memcpy(&v, x, 32);
    const __m256i r = _mm256_cvtps_epi32(v);
    memcpy(out, &r, 32);
}
#else
/// HK_ROUND8 elsewhere: lane by lane.
static inline __attribute__((always_inline)) void hk_round8_lanes(hk_i8 *out, const hk_f8 *x) {
    for (int i = 0; i < 8; i++) (*out)[i] = hk_round1((*x)[i]);
}
#define HK_ROUND8_BASELINE(out, x) hk_round8_lanes(out, x)
#endif

void hk_envelope_table(float k, float d, hk_envelope *table) {
    table->a[0] = 1;
    table->b[0] = 0;
    for (int j = 1; j <= HK_ENVELOPE_STRIDE; j++) {
        table->a[j] = table->a[j - 1] * k;
        table->b[j] = table->b[j - 1] * k + d;
    }
}

float hk_envelope_at(const hk_envelope *table, float anchor, int32_t since) {
    return anchor * table->a[since] + table->b[since];
}

float hk_envelope_advance(const hk_envelope *table, float anchor, int64_t steps) {
    const float a = table->a[HK_ENVELOPE_STRIDE];
    const float b = table->b[HK_ENVELOPE_STRIDE];
    for (; steps > 0; steps--) anchor = anchor * a + b;
    return anchor;
}


#define HK_SET baseline
#define HK_TARGET
#define HK_ANY(mask) (__builtin_reduce_or(mask) != 0)
#define HK_ROUND8(out, x) HK_ROUND8_BASELINE(out, x)
#include "Loops.h"
#undef HK_SET
#undef HK_TARGET
#undef HK_ANY
#undef HK_ROUND8

#if defined(__x86_64__)
#define HK_SET avx2
#define HK_TARGET __attribute__((target("avx2")))
#define HK_ANY(mask) (!_mm256_testz_si256((__m256i)(mask), (__m256i)(mask)))
#define HK_ROUND8(out, x) hk_round8_avx2(out, x)
#include "Loops.h"
#undef HK_SET
#undef HK_TARGET
#undef HK_ANY
#undef HK_ROUND8
#endif

hk_kernel_set hk_best_kernel_set(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) return HK_KERNELS_AVX2;
#endif
    return HK_KERNELS_BASELINE;
}

/// One kernel set's loops, so that each entry point below picks a set in one place.
typedef struct {
    void (*oscillator_mono)(hk_oscillator *, float *, int64_t, const float *, float);
    void (*oscillator_stereo)(hk_oscillator *, float *, int64_t, const float *, float);
    void (*limit)(float *, float *, int64_t, int, float);
    void (*encode[3])(const float *, uint8_t *, int64_t);  // by hk_sample_format
} hk_loops;

#define HK_LOOPS(SET)                                                                              \
    {                                                                                              \
        .oscillator_mono = oscillator_mono_##SET, .oscillator_stereo = oscillator_stereo_##SET,    \
        .limit = limit_##SET,                                                                      \
        .encode = {                                                                                \
            [HK_SAMPLES_F32] = encode_f32_##SET, [HK_SAMPLES_S16] = encode_s16_##SET,              \
            [HK_SAMPLES_S24] = encode_s24_##SET                                                    \
        }                                                                                          \
    }

static const hk_loops hk_baseline_loops = HK_LOOPS(baseline);
#if defined(__x86_64__)
static const hk_loops hk_avx2_loops = HK_LOOPS(avx2);
#endif

static inline const hk_loops *hk_loops_of(hk_kernel_set set) {
#if defined(__x86_64__)
    if (set == HK_KERNELS_AVX2) return &hk_avx2_loops;
#endif
    (void)set;
    return &hk_baseline_loops;
}

void hk_oscillator_mono(
    hk_kernel_set set, hk_oscillator *voice, float *out, int64_t frames, const float *table, float ramp) {
    hk_loops_of(set)->oscillator_mono(voice, out, frames, table, ramp);
}

void hk_oscillator_stereo(
    hk_kernel_set set, hk_oscillator *voice, float *out, int64_t frames, const float *table, float ramp) {
    hk_loops_of(set)->oscillator_stereo(voice, out, frames, table, ramp);
}

void hk_limit(
    hk_kernel_set set, float *source, float *out, int64_t count, int clearing_source, float threshold) {
    hk_loops_of(set)->limit(source, out, count, clearing_source, threshold);
}

void hk_encode(hk_kernel_set set, hk_sample_format format, const float *source, uint8_t *out, int64_t count) {
    hk_loops_of(set)->encode[format](source, out, count);
}
