import HapticsCore
import Testing
import _HapticsTestSupport

@testable import HapticsSynthesis

/// The oscillator loops exist as a baseline build and an AVX2 build (CRenderKernels); which one a
/// machine runs must never change a single sample.
@Suite struct KernelSetTests {
    /// Haptic voices under intensity and sharpness curves, and a tone panned and brightened by
    /// curves, so every ramp the loops take is exercised.
    static func mixedPattern() -> HapticPattern {
        var elements = benchmarkLikePattern(seconds: 6).elements
        elements.append(
            .event(
                HapticEvent(
                    time: 0.25, type: .audioContinuous, duration: 3,
                    parameters: [.init(.audioPitch, 0.3), .init(.audioVolume, 0.7), .init(.audioBrightness, 0.2)])))
        elements.append(
            .curve(
                ParameterCurve(
                    .audioPanControl, time: 0.25,
                    controlPoints: [.init(time: 0, value: -1), .init(time: 2.5, value: 1)])))
        elements.append(
            .curve(
                ParameterCurve(
                    .audioBrightnessControl, time: 0.5,
                    controlPoints: [.init(time: 0, value: 0), .init(time: 2, value: 0.8)])))
        return HapticPattern(elements: elements)
    }

    static func render(_ pattern: HapticPattern, _ format: AudioFormat, _ kernels: Kernels.Set, block: Int) throws
        -> [Float]
    {
        var renderer = try PatternRenderer(pattern: pattern, format: format)
        renderer.synthesizer.kernels = kernels
        var out: [Float] = []
        var buffer = [Float](repeating: 0, count: block * format.channels)
        while true {
            let n = buffer.withUnsafeMutableBufferPointer { renderer.render(into: $0) }
            if n == 0 { break }
            out += buffer[..<(n * format.channels)]
        }
        return out
    }

    @Test(
        "The AVX2 loops give the baseline loops' bits, mono and stereo, whatever the blocks",
        .enabled(if: Kernels.Set.avx2Available, "this CPU has no AVX2"),
        arguments: [1, 2])
    func avx2MatchesBaseline(channels: Int) throws {
        let format = AudioFormat(sampleRate: 48_000, channels: channels)
        let pattern = Self.mixedPattern()
        let baseline = try Self.render(pattern, format, .baseline, block: 4_096)
        let avx2 = try Self.render(pattern, format, .avx2, block: 4_096)
        // Odd blocks start spans between envelope anchors and between groups of eight frames.
        let avx2Odd = try Self.render(pattern, format, .avx2, block: 1_001)
        #expect(AudioAnalysis.peak(baseline) > 0.3)
        #expect(baseline.count == avx2.count)
        // The first sample that differs, if any (not the whole arrays in the failure).
        #expect(baseline.indices.first { baseline[$0].bitPattern != avx2[$0].bitPattern } == nil)
        #expect(avx2Odd.count == avx2.count)
        #expect(avx2.indices.first { avx2Odd[$0].bitPattern != avx2[$0].bitPattern } == nil)
    }

    /// The encoders' formula one sample at a time, in Swift (the integer formats scale, clip the
    /// top code and round to nearest, ties to even, done in Double so the reference is exact).
    static func reference(_ x: Float, _ format: SampleFormat) -> [UInt8] {
        let y = x.isNaN ? 0 : Swift.min(Swift.max(x, -1), 1)
        switch format {
        case .f32: return withUnsafeBytes(of: y.bitPattern.littleEndian, Array.init)
        case .s16:
            let code = Int16((Swift.min(Double(y) * 32_768, 32_767)).rounded(.toNearestOrEven))
            return withUnsafeBytes(of: code.littleEndian, Array.init)
        case .s24:
            let code = Int32((Swift.min(Double(y) * 8_388_608, 8_388_607)).rounded(.toNearestOrEven))
            return Array(withUnsafeBytes(of: code.littleEndian, Array.init)[0..<3])
        }
    }

    @Test(
        "Every encoder gives the formula's bytes with either build of the loops, ties and specials included",
        arguments: SampleFormat.allCases)
    func encodersMatchTheFormula(format: SampleFormat) {
        var random = SplitMix64(seed: 7)
        // Random levels, exact halves between codes (ties) and the specials, 1,003 in all so the
        // last three take the one-at-a-time tail.
        var samples = (0..<1_003).map { _ in Float(Double(random.next() % 4_000_001) / 1_000_000 - 2) }
        for k in 0..<200 {
            let scale: Float = format == .s24 ? 8_388_608 : 32_768
            samples[k] = (Float(Int(random.next() % 60_000)) - 30_000 + 0.5) / scale
        }
        let specials: [Float] = [.nan, .infinity, -.infinity, -0.0, 1, -1, 0.99999994, -0.99999994]
        for (k, special) in specials.enumerated() {
            samples[300 + k] = special
            samples[1_000 + k % 3] = special
        }
        let expected = samples.flatMap { Self.reference($0, format) }
        for kernels in Kernels.Set.avx2Available ? [Kernels.Set.baseline, .avx2] : [.baseline] {
            var out = [UInt8](repeating: 0xAA, count: samples.count * format.bytesPerSample)
            samples.withUnsafeBufferPointer { source in
                out.withUnsafeMutableBytes { WAVEncoder.write(source, as: format, to: $0, kernels: kernels) }
            }
            #expect(out.indices.first { out[$0] != expected[$0] } == nil, "\(kernels)")
        }
    }
}
