// The loops, written once and included by RenderKernels.c once per kernel set: with HK_SET (a name
// suffix), HK_TARGET (the target attribute, empty for the baseline), HK_ANY (whether any lane of
// a mask is set) and HK_ROUND8 (eight floats to int32, nearest, ties to even) defined. Not a public header: nothing outside RenderKernels.c includes it.

#define HK_JOIN2(a, b) a##_##b
#define HK_JOIN(a, b) HK_JOIN2(a, b)
#define HK_FN(name) HK_JOIN(name, HK_SET)

/// `sine + brightness × harmonics` at one phase, each linearly interpolated between the two
/// table points around it.
HK_TARGET static inline __attribute__((always_inline)) float HK_FN(wave1)(
    const float *table, uint32_t phase, float brightness) {
    const uint32_t i = (phase >> HK_FRACTION_BITS) * 2;
    const float fraction = (float)(int32_t)(phase & HK_FRACTION_MASK) * HK_FRACTION_SCALE;
    const float s = table[i] + fraction * (table[i + 2] - table[i]);
    const float h = table[i + 1] + fraction * (table[i + 3] - table[i + 1]);
    return s + brightness * h;
}

/// `wave1` for the eight phases `phase + k × increment` (k = 0...7), into `wave`. The table indices
/// are computed in general registers (moving eight lanes out of a vector costs more); each lane's
/// two points (sine, harmonics, sine, harmonics) are one 16-byte load, and the eight loads are
/// transposed into four vectors of eight.
HK_TARGET static inline __attribute__((always_inline)) void HK_FN(wave8)(
    hk_f8 *wave, const float *table, uint32_t phase, const hk_u8 *phases, const hk_steps *steps,
    const hk_f8 *brightness) {
    const uint32_t p1 = phase + steps->one;
    const uint32_t p2 = phase + steps->two;
    const uint32_t p3 = p1 + steps->two;
    const hk_f4 q0 = hk_load4(table + (phase >> HK_FRACTION_BITS) * 2);
    const hk_f4 q1 = hk_load4(table + (p1 >> HK_FRACTION_BITS) * 2);
    const hk_f4 q2 = hk_load4(table + (p2 >> HK_FRACTION_BITS) * 2);
    const hk_f4 q3 = hk_load4(table + (p3 >> HK_FRACTION_BITS) * 2);
    const hk_f4 q4 = hk_load4(table + ((phase + steps->four) >> HK_FRACTION_BITS) * 2);
    const hk_f4 q5 = hk_load4(table + ((p1 + steps->four) >> HK_FRACTION_BITS) * 2);
    const hk_f4 q6 = hk_load4(table + ((p2 + steps->four) >> HK_FRACTION_BITS) * 2);
    const hk_f4 q7 = hk_load4(table + ((p3 + steps->four) >> HK_FRACTION_BITS) * 2);
    // Below 2^21, so the signed conversion is exact.
    const hk_f8 fraction =
        __builtin_convertvector((hk_i8)(*phases & HK_FRACTION_MASK), hk_f8) * HK_FRACTION_SCALE;
    // Lanes 0-3 from q0-q3 and 4-7 from q4-q7: a 4x4 transpose within each 128-bit half.
    const hk_f8 a = __builtin_shufflevector(q0, q4, 0, 1, 2, 3, 4, 5, 6, 7);
    const hk_f8 b = __builtin_shufflevector(q1, q5, 0, 1, 2, 3, 4, 5, 6, 7);
    const hk_f8 c = __builtin_shufflevector(q2, q6, 0, 1, 2, 3, 4, 5, 6, 7);
    const hk_f8 d = __builtin_shufflevector(q3, q7, 0, 1, 2, 3, 4, 5, 6, 7);
    const hk_f8 ab0 = __builtin_shufflevector(a, b, 0, 8, 1, 9, 4, 12, 5, 13);
    const hk_f8 ab1 = __builtin_shufflevector(a, b, 2, 10, 3, 11, 6, 14, 7, 15);
    const hk_f8 cd0 = __builtin_shufflevector(c, d, 0, 8, 1, 9, 4, 12, 5, 13);
    const hk_f8 cd1 = __builtin_shufflevector(c, d, 2, 10, 3, 11, 6, 14, 7, 15);
    const hk_f8 s0 = __builtin_shufflevector(ab0, cd0, 0, 1, 8, 9, 4, 5, 12, 13);
    const hk_f8 h0 = __builtin_shufflevector(ab0, cd0, 2, 3, 10, 11, 6, 7, 14, 15);
    const hk_f8 s1 = __builtin_shufflevector(ab1, cd1, 0, 1, 8, 9, 4, 5, 12, 13);
    const hk_f8 h1 = __builtin_shufflevector(ab1, cd1, 2, 3, 10, 11, 6, 7, 14, 15);
    const hk_f8 s = s0 + fraction * (s1 - s0);
    const hk_f8 h = h0 + fraction * (h1 - h0);
    *wave = s + *brightness * h;
}

/// One channel layout's loop. A span may begin between envelope anchors: frame by frame up to the
/// next anchor, then eight frames at a time from anchor to anchor, then frame by frame to the end.
/// A frame gets the same operations on either path, so its value does not depend on the span.
#define HK_OSCILLATOR_LOOP(FRAME1, FRAME8)                                                          \
    const float *a = v->envelope->a;                                                              \
    const float *b = v->envelope->b;                                                              \
    uint32_t phase = v->phase;                                                                    \
    const uint32_t increment = v->increment;                                                      \
    float anchor = v->env_anchor;                                                                 \
    int32_t since = v->env_since;                                                                 \
    const float brightness = v->brightness;                                                       \
    const float brightness_step = v->brightness_step;                                             \
    int64_t j = 0;                                                                                \
    while (j < n && since != 0) {                                                                 \
        const float t = ramp + (float)j;                                                          \
        const float e = anchor * a[since] + b[since];                                             \
        const float w = HK_FN(wave1)(table, phase, brightness + brightness_step * t);             \
        FRAME1;                                                                                   \
        phase += increment;                                                                       \
        j += 1;                                                                                   \
        if (++since == HK_ENVELOPE_STRIDE) {                                                      \
            anchor = anchor * a[HK_ENVELOPE_STRIDE] + b[HK_ENVELOPE_STRIDE];                      \
            since = 0;                                                                            \
        }                                                                                         \
    }                                                                                             \
    hk_f8 a8;                                                                                     \
    hk_f8 b8;                                                                                     \
    hk_load8(&a8, a);                                                                             \
    hk_load8(&b8, b);                                                                             \
    const hk_steps steps = {increment, increment * 2, increment * 4};                            \
    const hk_u8 phase_lanes = (hk_u8){0, 1, 2, 3, 4, 5, 6, 7} * increment;                        \
    hk_u8 phases = phase + phase_lanes;                                                           \
    /* t = ramp + j, lane by lane: whole numbers, exact in float below 2^24, where adding 8 */    \
    /* gives the same bits as the sum; past 2^24 (a ramp that long) the sum each time. */         \
    const hk_f8 lanes = {0, 1, 2, 3, 4, 5, 6, 7};                                                 \
    hk_f8 t = (ramp + (float)j) + lanes;                                                          \
    const int counted = ramp >= -16777216.0f && ramp + (float)n <= 16777216.0f;                   \
    for (; j + 8 <= n; j += 8) {                                                                  \
        if (!counted) t = (ramp + (float)j) + lanes;                                              \
        const hk_f8 e = anchor * a8 + b8;                                                         \
        anchor = anchor * a[HK_ENVELOPE_STRIDE] + b[HK_ENVELOPE_STRIDE];                          \
        const hk_f8 brightnesses = brightness + brightness_step * t;                              \
        hk_f8 w;                                                                                  \
        HK_FN(wave8)(&w, table, phase, &phases, &steps, &brightnesses);                           \
        FRAME8;                                                                                   \
        phase += increment * 8;                                                                   \
        phases += increment * 8;                                                                  \
        t += 8;                                                                                   \
    }                                                                                             \
    for (; j < n; j += 1) {                                                                       \
        const float t = ramp + (float)j;                                                          \
        const float e = anchor * a[since] + b[since];                                             \
        const float w = HK_FN(wave1)(table, phase, brightness + brightness_step * t);             \
        FRAME1;                                                                                   \
        phase += increment;                                                                       \
        if (++since == HK_ENVELOPE_STRIDE) {                                                      \
            anchor = anchor * a[HK_ENVELOPE_STRIDE] + b[HK_ENVELOPE_STRIDE];                      \
            since = 0;                                                                            \
        }                                                                                         \
    }                                                                                             \
    v->phase = phase;                                                                             \
    v->env_anchor = anchor;                                                                       \
    v->env_since = since;

HK_TARGET static void HK_FN(oscillator_mono)(
    hk_oscillator *restrict v, float *restrict out, int64_t n, const float *restrict table, float ramp) {
    const float gain = v->gain_left;
    const float gain_step = v->gain_left_step;
    HK_OSCILLATOR_LOOP(
        { out[j] += w * (e * (gain + gain_step * t)); },
        {
            hk_f8 o;
            hk_load8(&o, out + j);
            o += w * (e * (gain + gain_step * t));
            hk_store8(out + j, &o);
        })
}

HK_TARGET static void HK_FN(oscillator_stereo)(
    hk_oscillator *restrict v, float *restrict out, int64_t n, const float *restrict table, float ramp) {
    const float left = v->gain_left;
    const float left_step = v->gain_left_step;
    const float right = v->gain_right;
    const float right_step = v->gain_right_step;
    HK_OSCILLATOR_LOOP(
        {
            const float x = w * e;
            out[2 * j] += x * (left + left_step * t);
            out[2 * j + 1] += x * (right + right_step * t);
        },
        {
            const hk_f8 x = w * e;
            const hk_f8 l = x * (left + left_step * t);
            const hk_f8 r = x * (right + right_step * t);
            const hk_f8 lr0 = __builtin_shufflevector(l, r, 0, 8, 1, 9, 2, 10, 3, 11);
            const hk_f8 lr1 = __builtin_shufflevector(l, r, 4, 12, 5, 13, 6, 14, 7, 15);
            hk_f8 o0;
            hk_f8 o1;
            hk_load8(&o0, out + 2 * j);
            hk_load8(&o1, out + 2 * j + 8);
            o0 += lr0;
            o1 += lr1;
            hk_store8(out + 2 * j, &o0);
            hk_store8(out + 2 * j + 8, &o1);
        })
}

/// The soft limiter on one sample (RenderKernels.h gives the curve).
HK_TARGET static inline __attribute__((always_inline)) float HK_FN(limit1)(float x, float threshold) {
    const float magnitude = __builtin_fabsf(x);
    if (magnitude > threshold) {
        const float u = (magnitude - threshold) / (1 - threshold);
        float limited = threshold + (1 - threshold) * (u / (1 + u));
        if (!(u < __builtin_inff())) limited = 1;
        if (!(limited < 1)) limited = 1;
        return x < 0 ? -limited : limited;
    }
    return x != x ? 0 : x;
}

/// `limit1`, in place, on the eight samples whose bits are `samples`; `over` marks the lanes above
/// the threshold (RenderKernels.h gives the curve), and the others keep their bits.
HK_TARGET static inline __attribute__((always_inline)) void HK_FN(limit8)(
    hk_i8 *samples, const hk_i8 *over_lanes, float threshold) {
    const hk_i8 bits = *samples;
    const hk_i8 over = *over_lanes;
    const int32_t infinity_bits = 0x7F800000;
    const hk_i8 magnitude_bits = bits & 0x7FFFFFFF;
    const hk_f8 magnitude = (hk_f8)magnitude_bits;
    const hk_f8 u = (magnitude - threshold) / (1 - threshold);
    const hk_f8 limited = threshold + (1 - threshold) * (u / (1 + u));
    const hk_f8 one = {1, 1, 1, 1, 1, 1, 1, 1};
    // Not below infinity (an infinite sample, whose u is inf / inf): 1.
    const hk_i8 finite = u < __builtin_inff();
    hk_i8 y = ((hk_i8)limited & finite) | ((hk_i8)one & ~finite);
    const hk_i8 below_one = (hk_f8)y < 1;
    y = (y & below_one) | ((hk_i8)one & ~below_one);
    y |= bits & (int32_t)0x80000000;
    y &= ~(magnitude_bits > infinity_bits);  // NaN becomes 0
    *samples = (y & over) | (bits & ~over);
}

/// The limiter's loop, with `clearing_source` a constant where it is inlined. Sixteen samples at a
/// time: most stretches never reach the threshold, which an integer compare of the magnitudes'
/// bits finds (they order as the magnitudes do, infinity and NaN above every finite value), and
/// then the samples are copied as they are. Loud lanes take limit1's operations, side by side.
HK_TARGET static inline __attribute__((always_inline)) void HK_FN(limit_loop)(
    float *source, float *out, int64_t count, const int clearing_source, float threshold) {
    int32_t threshold_bits;
    memcpy(&threshold_bits, &threshold, sizeof threshold_bits);
    const hk_f8 zero = {0};
    int64_t i = 0;
    for (; i + 16 <= count; i += 16) {
        hk_f8 x0;
        hk_f8 x1;
        hk_load8(&x0, source + i);
        hk_load8(&x1, source + i + 8);
        if (clearing_source) {
            hk_store8(source + i, &zero);
            hk_store8(source + i + 8, &zero);
        }
        hk_i8 bits0 = (hk_i8)x0;
        hk_i8 bits1 = (hk_i8)x1;
        const hk_i8 over0 = (bits0 & 0x7FFFFFFF) > threshold_bits;
        const hk_i8 over1 = (bits1 & 0x7FFFFFFF) > threshold_bits;
        if (HK_ANY(over0 | over1)) {
            HK_FN(limit8)(&bits0, &over0, threshold);
            HK_FN(limit8)(&bits1, &over1, threshold);
        }
        const hk_f8 y0 = (hk_f8)bits0;
        const hk_f8 y1 = (hk_f8)bits1;
        hk_store8(out + i, &y0);
        hk_store8(out + i + 8, &y1);
    }
    // The last 0-15 samples one at a time (mix blocks are whole sixteens; a sounding range's ends
    // need not be).
    for (; i < count; i += 1) {
        const float x = source[i];
        if (clearing_source) source[i] = 0;
        out[i] = HK_FN(limit1)(x, threshold);
    }
}

HK_TARGET static void HK_FN(limit)(
    float *source, float *out, int64_t count, int clearing_source, float threshold) {
    if (clearing_source) {
        HK_FN(limit_loop)(source, out, count, 1, threshold);
    } else {
        HK_FN(limit_loop)(source, out, count, 0, threshold);
    }
}

/// The encoders' clamp for eight samples: NaN to 0, then -1...1.
HK_TARGET static inline __attribute__((always_inline)) void HK_FN(clamp8)(hk_f8 *x) {
    const hk_f8 y = *x;
    const hk_f8 one = {1, 1, 1, 1, 1, 1, 1, 1};
    const hk_i8 number = y == y;
    hk_i8 z = (hk_i8)y & number;
    const hk_i8 low = (hk_f8)z < -one;
    z = (z & ~low) | ((hk_i8)(-one) & low);
    const hk_i8 high = (hk_f8)z > one;
    z = (z & ~high) | ((hk_i8)one & high);
    *x = (hk_f8)z;
}

/// Little-endian f32, clamped.
HK_TARGET static void HK_FN(encode_f32)(const float *restrict source, uint8_t *restrict out, int64_t count) {
    int64_t i = 0;
    for (; i + 8 <= count; i += 8) {
        hk_f8 x;
        hk_load8(&x, source + i);
        HK_FN(clamp8)(&x);
        memcpy(out + 4 * i, &x, sizeof x);
    }
    for (; i < count; i += 1) {
        const float x = hk_clamp1(source[i]);
        memcpy(out + 4 * i, &x, sizeof x);
    }
}

/// The integer codes of eight samples: clamped, scaled by `scale` (2^15 or 2^23, exact in float),
/// the top clipped to `largest` (+1 would be one past it), rounded to nearest, ties to even.
HK_TARGET static inline __attribute__((always_inline)) void HK_FN(codes8)(
    hk_i8 *code, const float *source, float scale, float largest) {
    hk_f8 x;
    hk_load8(&x, source);
    HK_FN(clamp8)(&x);
    x *= scale;
    const hk_f8 top = {largest, largest, largest, largest, largest, largest, largest, largest};
    const hk_i8 over = x > top;
    x = (hk_f8)(((hk_i8)x & ~over) | ((hk_i8)top & over));
    HK_ROUND8(code, &x);
}

/// `codes8` for one sample.
static inline __attribute__((always_inline)) int32_t HK_FN(code1)(float source, float scale, float largest) {
    float x = hk_clamp1(source) * scale;
    if (x > largest) x = largest;
    return hk_round1(x);
}

/// Little-endian 16-bit PCM.
HK_TARGET static void HK_FN(encode_s16)(const float *restrict source, uint8_t *restrict out, int64_t count) {
    int64_t i = 0;
    for (; i + 8 <= count; i += 8) {
        hk_i8 code;
        HK_FN(codes8)(&code, source + i, 32768.0f, 32767.0f);
        const hk_s8 narrow = __builtin_convertvector(code, hk_s8);
        memcpy(out + 2 * i, &narrow, sizeof narrow);
    }
    for (; i < count; i += 1) {
        const int16_t code = (int16_t)HK_FN(code1)(source[i], 32768.0f, 32767.0f);
        memcpy(out + 2 * i, &code, sizeof code);
    }
}

/// Little-endian 24-bit PCM. The scaled value is exact in float (a power-of-two scale), so
/// rounding it is exactly rounding x·2^23.
HK_TARGET static void HK_FN(encode_s24)(const float *restrict source, uint8_t *restrict out, int64_t count) {
    int64_t i = 0;
    for (; i + 8 <= count; i += 8) {
        hk_i8 code;
        HK_FN(codes8)(&code, source + i, 8388608.0f, 8388607.0f);
        // The low three bytes of each lane, packed: 24 bytes.
        const hk_b32 bytes = (hk_b32)code;
        const hk_b32 packed = __builtin_shufflevector(
            bytes, bytes, 0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, 16, 17, 18, 20, 21, 22, 24, 25, 26, 28, 29, 30, 0, 0,
            0, 0, 0, 0, 0, 0);
        memcpy(out + 3 * i, &packed, 24);
    }
    for (; i < count; i += 1) {
        const int32_t code = HK_FN(code1)(source[i], 8388608.0f, 8388607.0f);
        out[3 * i] = (uint8_t)code;
        out[3 * i + 1] = (uint8_t)(code >> 8);
        out[3 * i + 2] = (uint8_t)(code >> 16);
    }
}

#undef HK_OSCILLATOR_LOOP
#undef HK_FN
#undef HK_JOIN
#undef HK_JOIN2
