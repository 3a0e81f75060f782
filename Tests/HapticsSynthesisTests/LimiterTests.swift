import Testing
import _HapticsTestSupport

@testable import HapticsSynthesis

/// The soft limiter works sixteen samples at a time, then one at a time; every sample must come
/// out as the formula gives it one at a time (the same bits), whatever the buffer's length and
/// alignment, and with either build of the loops (baseline, AVX2) this CPU runs.
@Suite struct LimiterTests {
    /// The limiter's curve, one sample at a time: the reference (an infinite sample is ±1,
    /// NaN is 0).
    static func reference(_ x: Float) -> Float {
        if x.isNaN { return 0 }
        let threshold = Synthesizer.limiterThreshold
        let magnitude = x.magnitude
        guard magnitude > threshold else { return x }
        let u = (magnitude - threshold) / (1 - threshold)
        let y = magnitude == .infinity ? 1 : min(threshold + (1 - threshold) * (u / (1 + u)), 1)
        return x < 0 ? -y : y
    }

    /// Random samples in -2...2, with the special values both in the eight-wide part and in the
    /// scalar tail when there is room.
    static func samples(_ count: Int) -> [Float] {
        var random = SplitMix64(seed: UInt64(count) + 1)
        var samples = (0..<count).map { _ in Float(Double(random.next() % 4_000_001) / 1_000_000 - 2) }
        let specials: [Float] = [.nan, .infinity, -.infinity, -0.0, Synthesizer.limiterThreshold, -Float.nan]
        for (k, special) in specials.enumerated() where count > 9 {
            samples[1 + k] = special
            samples[count - 1 - k] = special
        }
        return samples
    }

    /// The kernel sets this machine can run.
    static let kernelSets: [Kernels.Set] = Kernels.Set.avx2Available ? [.baseline, .avx2] : [.baseline]

    @Test(arguments: [0, 1, 7, 8, 9, 15, 16, 17, 24, 63, 1_000], kernelSets)
    func everySampleMatchesTheFormulaBitForBit(count: Int, kernels: Kernels.Set) {
        var samples = Self.samples(count)
        let expected = samples.map(Self.reference)
        samples.withUnsafeMutableBufferPointer { buffer in
            if let base = buffer.baseAddress { Synthesizer.limit(base, count: buffer.count, kernels: kernels) }
        }
        #expect(samples.map(\.bitPattern) == expected.map(\.bitPattern))
        #expect(samples.allSatisfy { $0.isFinite && $0.magnitude <= 1 })
    }

    /// Quiet stretches are copied as they are, in a pass that only looks for a loud lane: one
    /// loud sample at each position of 41 (both halves of two sixteens, the one-at-a-time tail) is
    /// limited, and every quiet sample around it comes out with the same bits.
    @Test(arguments: kernelSets)
    func oneLoudSampleInAQuietStretchIsLimitedAndTheRestPassAsTheyAre(kernels: Kernels.Set) {
        let count = 41
        let quiet = (0..<count).map { Float($0 % 7) * 0.1 - 0.3 }  // -0.3...0.3, under the threshold
        for position in 0..<count {
            for loud: Float in [1.5, -.infinity] {
                var samples = quiet
                samples[position] = loud
                let expected = samples.map(Self.reference)
                samples.withUnsafeMutableBufferPointer { buffer in
                    Synthesizer.limit(buffer.baseAddress!, count: count, kernels: kernels)
                }
                #expect(samples.map(\.bitPattern) == expected.map(\.bitPattern), "loud \(loud) at \(position)")
                #expect(samples[position].magnitude <= 1 && samples[position].magnitude > Synthesizer.limiterThreshold)
            }
        }
    }

    /// The render path limits its mix into the caller's buffer and leaves the mix all zero.
    @Test(arguments: [5, 8, 16, 31, 63, 1_000], kernelSets)
    func limitingIntoAnotherBufferClearsTheSource(count: Int, kernels: Kernels.Set) {
        var source = Self.samples(count)
        let expected = source.map(Self.reference)
        var out = [Float](repeating: 7, count: count)
        source.withUnsafeMutableBufferPointer { from in
            out.withUnsafeMutableBufferPointer { to in
                Synthesizer.limit(
                    from.baseAddress!, into: to.baseAddress!, count: count, clearingSource: true, kernels: kernels)
            }
        }
        #expect(out.map(\.bitPattern) == expected.map(\.bitPattern))
        #expect(source.allSatisfy { $0.bitPattern == 0 })
    }
}
