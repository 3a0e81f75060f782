import HapticsCore
import HapticsSynthesis
import Testing

/// Controls sent to a layer (`setControl`, `scheduleCurve`) against the same controls written
/// in the pattern: a live performance of a pattern sounds like its offline render.
@Suite struct LiveControlTests {
    let format = AudioFormat(sampleRate: 48_000)

    /// Renders `frames` frames in uneven blocks.
    func render(_ synth: inout Synthesizer, frames: Int) -> [Float] {
        var out: [Float] = []
        var block = [Float](repeating: 0, count: 1_000)
        while out.count < frames {
            block.withUnsafeMutableBufferPointer { synth.render(into: $0) }
            out += block.prefix(frames - out.count)
        }
        return out
    }

    @Test func stepsSentInAnyOrderSoundLikeTheSameParametersInThePattern() throws {
        let buzz = continuous(0, 4)
        let written = HapticPattern(elements: [
            buzz,
            .parameter(DynamicParameter(.hapticIntensityControl, value: 0.5, time: 0)),
            .parameter(DynamicParameter(.hapticIntensityControl, value: 0.1, time: 1)),
            .parameter(DynamicParameter(.hapticIntensityControl, value: 0.8, time: 2.5)),
        ])
        let offline = try PatternRenderer.render(written, format: format)

        var synth = Synthesizer(format: format, voicing: .standard)
        let plain = try Synthesizer.prepare(
            HapticPattern(elements: [buzz]), clips: [:], format: format, voicing: .standard)
        synth.start(plain, layer: 3, atFrame: 0)
        synth.setControl(.hapticIntensityControl, 0.5, layer: 3, atFrame: 0)
        synth.setControl(.hapticIntensityControl, 0.8, layer: 3, atFrame: 120_000)
        // Sent last, lands between the two: it runs until the later-starting 0.8 takes over.
        synth.setControl(.hapticIntensityControl, 0.1, layer: 3, atFrame: 48_000)
        let live = render(&synth, frames: offline.count)
        #expect(live == offline)
    }

    @Test func aCurveSentLiveFollowsTheSameRampAsThePatternsCurve() throws {
        let buzz = continuous(0, 3)
        let points: [ParameterCurve.ControlPoint] = [
            .init(time: 0, value: 1), .init(time: 1, value: 0.2), .init(time: 2, value: 0.6),
        ]
        let written = HapticPattern(elements: [
            buzz, .curve(ParameterCurve(.hapticIntensityControl, time: 0.5, controlPoints: points)),
        ])
        let offline = try PatternRenderer.render(written, format: format)

        var synth = Synthesizer(format: format, voicing: .standard)
        let plain = try Synthesizer.prepare(
            HapticPattern(elements: [buzz]), clips: [:], format: format, voicing: .standard)
        synth.start(plain, layer: 0, atFrame: 0)
        synth.scheduleCurve(
            ParameterCurve(.hapticIntensityControl, time: 0.5, controlPoints: points), layer: 0, atFrame: 0)
        let live = render(&synth, frames: offline.count)
        // Same ramp, evaluated in frames rather than seconds: equal to rounding.
        let worst = zip(live, offline).map { abs($0 - $1) }.max() ?? 0
        #expect(worst < 1e-5)
        #expect(AudioAnalysis.rmsDBFS(Array(live[24_000..<28_800])) > -14)
        #expect(AudioAnalysis.rmsDBFS(Array(live[72_000..<76_800])) < -20)
    }

    /// Only the knots in force and those still to come are kept, so a player that is sent a
    /// value every few milliseconds for minutes keeps working (and never allocates).
    @Test func aLongStreamOfSentValuesKeepsTakingEffect() throws {
        var synth = Synthesizer(format: format, voicing: .standard)
        let long = try Synthesizer.prepare(
            HapticPattern(elements: [continuous(0, 30)]), clips: [:], format: format, voicing: .standard)
        synth.start(long, layer: 0, atFrame: 0)
        var block = [Float](repeating: 0, count: 480)
        var levels: [Double] = []
        for i in 0..<2_000 {
            // Ten ms each: loud, silent, loud, ...
            synth.setControl(.hapticIntensityControl, i % 2 == 0 ? 1 : 0, layer: 0, atFrame: synth.currentFrame)
            block.withUnsafeMutableBufferPointer { synth.render(into: $0) }
            if i >= 1_990 { levels.append(AudioAnalysis.rmsDBFS(Array(block[256...]))) }
        }
        #expect(levels.enumerated().allSatisfy { $0.offset % 2 == 0 ? $0.element > -20 : $0.element < -60 })
    }
}
