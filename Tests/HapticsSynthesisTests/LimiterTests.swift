import Testing
import _HapticsTestSupport

@testable import HapticsSynthesis

/// The soft limiter works eight samples at a time; every sample must come out as the formula
/// gives it one at a time (the same bits), whatever the buffer's length and alignment.
@Suite struct LimiterTests {
    /// The limiter's curve, one sample at a time: the reference (an infinite sample is ±1).
    static func reference(_ x: Float) -> Float {
        let threshold = Synthesizer.limiterThreshold
        let magnitude = x.magnitude
        guard magnitude > threshold else { return x }
        let u = (magnitude - threshold) / (1 - threshold)
        let y = magnitude == .infinity ? 1 : min(threshold + (1 - threshold) * (u / (1 + u)), 1)
        return x < 0 ? -y : y
    }

    @Test(arguments: [0, 1, 7, 8, 9, 63, 1_000])
    func everySampleMatchesTheFormulaBitForBit(count: Int) {
        var random = SplitMix64(seed: UInt64(count) + 1)
        var samples = (0..<count).map { _ in Float(Double(random.next() % 4_000_001) / 1_000_000 - 2) }
        if count > 5 {
            samples[1] = .nan
            samples[2] = .infinity
            samples[3] = -.infinity
            samples[4] = -0.0
            samples[5] = Synthesizer.limiterThreshold
        }
        let expected = samples.map(Self.reference)
        samples.withUnsafeMutableBufferPointer { buffer in
            if let base = buffer.baseAddress { Synthesizer.limit(base, count: buffer.count) }
        }
        #expect(samples.map(\.bitPattern) == expected.map(\.bitPattern))
        #expect(samples.allSatisfy { $0.isNaN || $0.magnitude <= 1 })
    }
}
