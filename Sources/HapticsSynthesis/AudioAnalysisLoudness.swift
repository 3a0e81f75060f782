#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension AudioAnalysis {
    /// ITU-R BS.1770-4 integrated loudness in LUFS (= LKFS) of mono or interleaved stereo audio.
    ///
    /// K-weighting (the standard's shelving pre-filter and RLB high-pass, derived for any sample
    /// rate so that 48 kHz reproduces the published coefficients), mean square per 400 ms gating
    /// block with 75 % overlap (100 ms steps), channel weights 1, then the absolute gate
    /// (-70 LUFS) and the relative gate (10 LU below the absolutely-gated loudness).
    /// A 997 Hz sine at 0 dBFS on one channel reads -3.01 LUFS.
    ///
    /// `-infinity` when no block passes the gates: silence, or audio shorter than one
    /// 400 ms block (the standard defines no loudness for that).
    ///
    /// - Complexity: O(*n*); allocates one small array (a Double per 100 ms).
    public static func integratedLoudness(_ samples: UnsafeBufferPointer<Float>, format: AudioFormat) -> Double {
        let channels = format.channels
        let rate = format.sampleRate
        let frames = samples.count / channels
        // Segment k (100 ms) spans frames segmentStart(k)..<segmentStart(k+1); exact for rates
        // divisible by 10, within a frame otherwise.
        func segmentStart(_ k: Int) -> Int { k * rate / 10 }
        var segments = 0
        while segmentStart(segments + 1) <= frames { segments += 1 }
        guard segments >= 4 else { return -.infinity }

        var energy = [Double](repeating: 0, count: segments)
        let filter = KWeighting(sampleRate: rate)
        for channel in 0..<channels {
            var state = KWeighting.State()
            for k in 0..<segments {
                var sum: Double = 0
                for frame in segmentStart(k)..<segmentStart(k + 1) {
                    let y = filter.process(Double(samples[frame &* channels &+ channel]), &state)
                    sum += y * y
                }
                energy[k] += sum
            }
        }

        // Mean square (summed over channels) of each 400 ms block.
        let blocks = (0...(segments - 4)).map { j in
            (energy[j] + energy[j + 1] + energy[j + 2] + energy[j + 3])
                / Double(segmentStart(j + 4) - segmentStart(j))
        }
        func loudness(_ meanSquare: Double) -> Double { -0.691 + 10 * log10(meanSquare) }
        func gatedMean(above gate: Double) -> Double? {
            var sum: Double = 0
            var count = 0
            for z in blocks where loudness(z) > gate {
                sum += z
                count += 1
            }
            return count > 0 ? sum / Double(count) : nil
        }
        guard let absoluteMean = gatedMean(above: -70) else { return -.infinity }
        let relativeGate = loudness(absoluteMean) - 10
        guard let gatedMean = gatedMean(above: max(-70, relativeGate)) else { return -.infinity }
        return loudness(gatedMean)
    }

    /// Integrated loudness in LUFS; see ``integratedLoudness(_:format:)-(UnsafeBufferPointer<Float>,_)``.
    public static func integratedLoudness(_ samples: [Float], format: AudioFormat) -> Double {
        samples.withUnsafeBufferPointer { integratedLoudness($0, format: format) }
    }
}

/// BS.1770's K-weighting as two biquads, with coefficients computed for any sample rate from the
/// analogue prototypes (shelf: 1681.97 Hz, +4.0 dB, Q 0.7072; high-pass: 38.14 Hz, Q 0.5003)
/// by the bilinear transform, as libebur128 does. At 48 kHz they equal the coefficients tabulated
/// in BS.1770-4; at other rates a 997 Hz tone reads within 0.01 LU of its 48 kHz loudness.
struct KWeighting: Sendable {
    /// b0, b1, b2, a1, a2 (a0 = 1) of one biquad.
    struct Biquad: Sendable {
        var b0, b1, b2, a1, a2: Double
    }

    /// Filter memory of both stages (transposed direct form II).
    struct State {
        var s1 = 0.0, s2 = 0.0, t1 = 0.0, t2 = 0.0
    }

    let shelf: Biquad
    let highPass: Biquad

    init(sampleRate: Int) {
        let fs = Double(sampleRate)
        do {
            let f0 = 1681.974450955533
            let gainDB = 3.999843853973347
            let q = 0.7071752369554196
            let k = tan(Double.pi * f0 / fs)
            let vh = pow(10, gainDB / 20)
            let vb = pow(vh, 0.4996667741545416)
            let a0 = 1 + k / q + k * k
            shelf = Biquad(
                b0: (vh + vb * k / q + k * k) / a0, b1: 2 * (k * k - vh) / a0, b2: (vh - vb * k / q + k * k) / a0,
                a1: 2 * (k * k - 1) / a0, a2: (1 - k / q + k * k) / a0)
        }
        do {
            let f0 = 38.13547087602444
            let q = 0.5003270373238773
            func a0(_ rate: Double) -> Double {
                let k = tan(Double.pi * f0 / rate)
                return 1 + k / q + k * k
            }
            let k = tan(Double.pi * f0 / fs)
            // The tabulated numerator 1, -2, 1 is unnormalised: its passband gain is a0(48 kHz),
            // +0.043 dB. Keep that gain at every rate (libebur128 keeps 1, -2, 1, which reads a
            // 997 Hz tone 0.02 LU low at 96 kHz); at 48 kHz the scale is exactly 1.
            let gain = a0(48_000) / a0(fs)
            highPass = Biquad(
                b0: gain, b1: -2 * gain, b2: gain, a1: 2 * (k * k - 1) / a0(fs), a2: (1 - k / q + k * k) / a0(fs))
        }
    }

    @inline(__always)
    func process(_ x: Double, _ state: inout State) -> Double {
        let y = shelf.b0 * x + state.s1
        state.s1 = shelf.b1 * x - shelf.a1 * y + state.s2
        state.s2 = shelf.b2 * x - shelf.a2 * y
        let z = highPass.b0 * y + state.t1
        state.t1 = highPass.b1 * y - highPass.a1 * z + state.t2
        state.t2 = highPass.b2 * y - highPass.a2 * z
        return z
    }
}
