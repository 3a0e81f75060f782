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
    /// ``LoudnessMeter`` measures the same block by block.
    ///
    /// - Complexity: O(*n*); allocates one small array (a Double per 100 ms).
    public static func integratedLoudness(_ samples: UnsafeBufferPointer<Float>, format: AudioFormat) -> Double {
        var meter = LoudnessMeter(format: format)
        meter.add(samples)
        return meter.integratedLoudness
    }

    /// Integrated loudness in LUFS; see ``integratedLoudness(_:format:)-(UnsafeBufferPointer<Float>,_)``.
    public static func integratedLoudness(_ samples: [Float], format: AudioFormat) -> Double {
        samples.withUnsafeBufferPointer { integratedLoudness($0, format: format) }
    }
}

/// ITU-R BS.1770-4 integrated loudness measured block by block, so audio of any length is
/// measured without holding it: feed interleaved blocks of any size, then read the loudness.
///
/// The same figure, bit for bit, as ``AudioAnalysis/integratedLoudness(_:format:)-(UnsafeBufferPointer<Float>,_)``
/// over the concatenated blocks.
///
/// ```swift
/// var meter = LoudnessMeter(format: AudioFormat(sampleRate: 96_000, channels: 2))
/// while case let n = renderer.render(into: block), n > 0 { meter.add(block[..<(n * 2)]) }
/// print(meter.integratedLoudness)   // -23.0
/// ```
///
/// - Complexity: O(*n*) over the samples fed; memory: one Double per 100 ms of audio.
public struct LoudnessMeter: Sendable {
    public let format: AudioFormat
    private let filter: KWeighting
    /// Filter memory and energy of the unfinished 100 ms segment, per channel.
    private var states: [KWeighting.State]
    private var partial: [Double]
    /// Summed energy of every finished 100 ms segment.
    private var energy: [Double] = []
    /// Frames fed so far.
    private var frames = 0

    public init(format: AudioFormat) {
        self.format = format
        filter = KWeighting(sampleRate: format.sampleRate)
        states = Array(repeating: KWeighting.State(), count: format.channels)
        partial = Array(repeating: 0, count: format.channels)
    }

    /// Segment k (100 ms) spans frames segmentStart(k)..<segmentStart(k+1); exact for rates
    /// divisible by 10, within a frame otherwise.
    private func segmentStart(_ k: Int) -> Int { k * format.sampleRate / 10 }

    /// Feeds interleaved samples (whole frames).
    public mutating func add(_ samples: UnsafeBufferPointer<Float>) {
        let channels = format.channels
        let count = samples.count / channels
        var done = 0
        while done < count {
            // Up to the end of the current segment, channel by channel (as the standard sums).
            let boundary = segmentStart(energy.count + 1)
            let span = min(count - done, boundary - frames)
            for channel in 0..<channels {
                var state = states[channel]
                var sum = partial[channel]
                var index = done &* channels &+ channel
                for _ in 0..<span {
                    let y = filter.process(Double(samples[index]), &state)
                    sum += y * y
                    index &+= channels
                }
                states[channel] = state
                partial[channel] = sum
            }
            done += span
            frames += span
            if frames == boundary {
                var total: Double = 0
                for channel in 0..<channels {
                    total += partial[channel]
                    partial[channel] = 0
                }
                energy.append(total)
            }
        }
    }

    /// Feeds interleaved samples (whole frames).
    public mutating func add(_ samples: [Float]) {
        samples.withUnsafeBufferPointer { add($0) }
    }

    /// The integrated loudness of everything fed so far in LUFS; `-infinity` when no 400 ms block
    /// passes the gates (silence, or less than 400 ms of audio).
    public var integratedLoudness: Double {
        let segments = energy.count
        guard segments >= 4 else { return -.infinity }
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
