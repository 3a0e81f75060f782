// The render path's inner loops (the oscillators, the soft limiter and the WAV encoders), in C so that one source compiles twice: for the
// baseline CPU and, on x86-64, for AVX2, chosen at run time (docs/ARCHITECTURE.md says why Swift
// cannot do this itself). Both builds do the same IEEE operations in the same order, with no
// contraction into fused multiply-adds, so they give the same bits: which one ran never changes
// what is heard or written.
#ifndef HAPTICS_RENDER_KERNELS_H
#define HAPTICS_RENDER_KERNELS_H

#include <stdint.h>

/// Frames between envelope anchors. Within a stage the envelope follows `e' = e·k + d`; its value
/// at `j` frames after an anchor is `anchor·a[j] + b[j]` (`hk_envelope`), and the next anchor is
/// `anchor·a[8] + b[8]`. So eight frames are computed side by side, and a
/// frame's value never depends on where a span or a block began.
#define HK_ENVELOPE_STRIDE 8

/// An envelope stage's coefficients: `a[j] = k^j` and `b[j] = d·(1 + k + … + k^(j−1))` for j in
/// 0 ... HK_ENVELOPE_STRIDE, each stepped from the one before as the recurrence steps. Computed
/// once per stage (`hk_envelope_table`), not per span.
typedef struct {
    float a[HK_ENVELOPE_STRIDE + 1];
    float b[HK_ENVELOPE_STRIDE + 1];
} hk_envelope;

/// What an oscillator's inner loop reads and advances. The ramped values are
/// `value + step × t`, with `t` counted from the voice's ramp origin.
typedef struct {
    uint32_t phase;
    uint32_t increment;
    /// The envelope at its latest anchor, and the frames since (0 ..< HK_ENVELOPE_STRIDE).
    float env_anchor;
    int32_t env_since;
    /// The stage's coefficients.
    const hk_envelope *envelope;
    float brightness;
    float brightness_step;
    float gain_left;
    float gain_left_step;
    float gain_right;
    float gain_right_step;
} hk_oscillator;

/// Which build of the loops runs.
typedef enum {
    HK_KERNELS_BASELINE = 0,
    HK_KERNELS_AVX2 = 1,
} hk_kernel_set;

/// The fastest set this CPU runs.
hk_kernel_set hk_best_kernel_set(void);

/// The coefficients of the recurrence `e' = e·k + d`.
void hk_envelope_table(float k, float d, hk_envelope *table);

/// The envelope `since` frames after an anchor (`since` below HK_ENVELOPE_STRIDE).
float hk_envelope_at(const hk_envelope *table, float anchor, int32_t since);

/// Adds `frames` frames of the voice (wavetable `table`: 2049 interleaved sine, harmonics pairs)
/// to `out`, mono; `ramp` is the first frame's position from the ramp origin.
void hk_oscillator_mono(
    hk_kernel_set set, hk_oscillator *voice, float *out, int64_t frames, const float *table, float ramp);

/// The same, into interleaved stereo with the left and right gains.
void hk_oscillator_stereo(
    hk_kernel_set set, hk_oscillator *voice, float *out, int64_t frames, const float *table, float ramp);

/// The anchor `steps` anchors later: `anchor·a[stride] + b[stride]` taken `steps` times, the step
/// the oscillator loops take once every HK_ENVELOPE_STRIDE frames, so the same bits. For a voice
/// that skipped a silent stretch (its phase and envelope advance, nothing is computed).
float hk_envelope_advance(const hk_envelope *table, float anchor, int64_t steps);

/// The soft limiter, memoryless: |x| <= threshold passes; above, `T + (1 − T)·u / (1 + u)` with
/// `u = (|x| − T) / (1 − T)`, smooth at T and never above 1. An infinite sample becomes ±1 and NaN
/// becomes 0. Limits `count` samples of `source` into `out` (the same memory, or apart) and, when
/// `clearing_source` is non-zero, sets the source's samples to 0 in the same pass.
void hk_limit(
    hk_kernel_set set, float *source, float *out, int64_t count, int clearing_source, float threshold);

/// How the encoder stores a sample.
typedef enum {
    HK_SAMPLES_F32 = 0,
    HK_SAMPLES_S16 = 1,
    HK_SAMPLES_S24 = 2,
} hk_sample_format;

/// Encodes `count` samples as little-endian WAV data into `out` (4, 2 or 3 bytes each): clamped to
/// -1...1 with NaN as 0; the integer formats scaled by 2^15 or 2^23 (+1 clips to the largest code)
/// and rounded to nearest, ties to even.
void hk_encode(hk_kernel_set set, hk_sample_format format, const float *source, uint8_t *out, int64_t count);

#endif
