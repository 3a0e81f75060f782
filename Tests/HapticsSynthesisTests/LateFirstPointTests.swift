import HapticsCore
import HapticsSynthesis
import Testing

/// A parameter curve whose first control point comes after the curve's start: from the start,
/// the control moves in a line from the value it has then to the first point's value, reaching
/// it at the point's time (Apple: a point's time is when "the associated parameter reaches this
/// value"; docs/ahap-support.md). The same rule in the timeline, the render and a live player.
@Suite struct LateFirstPointTests {
    let format = AudioFormat(sampleRate: 48_000)

    func curve(_ time: Double, _ points: [(Double, Float)]) -> PatternElement {
        .curve(
            ParameterCurve(
                .hapticIntensityControl, time: time, controlPoints: points.map { .init(time: $0.0, value: $0.1) }))
    }

    func continuous(_ time: Double, _ duration: Double) -> PatternElement {
        .event(HapticEvent(time: time, type: .hapticContinuous, duration: duration))
    }

    @Test func theFirstPointIsReachedByALineFromTheCurrentValue() {
        // Nothing before: the line starts at neutral (1).
        let alone = ParameterTimeline(
            .hapticIntensityControl, pattern: HapticPattern(elements: [curve(7, [(9, 0), (10, 1)])]))
        #expect(alone.value(at: 7) == 1)
        #expect(abs(alone.value(at: 11.5) - 0.5) < 1e-6)
        #expect(abs(alone.value(at: 16)) < 1e-6)
        #expect(abs(alone.value(at: 16.5) - 0.5) < 1e-6)
        // After a Parameter: the line starts at its value.
        let afterStep = ParameterTimeline(
            .hapticIntensityControl,
            pattern: HapticPattern(elements: [
                .parameter(DynamicParameter(.hapticIntensityControl, value: 0.4, time: 0)), curve(1, [(2, 0)]),
            ]))
        #expect(abs(afterStep.value(at: 1) - 0.4) < 1e-6)
        #expect(abs(afterStep.value(at: 2) - 0.2) < 1e-6)
        #expect(afterStep.value(at: 3) == 0)
        // Over a curve still moving: from where that curve has got to.
        let overlapping = ParameterTimeline(
            .hapticIntensityControl,
            pattern: HapticPattern(elements: [curve(0, [(0, 0), (4, 1)]), curve(2, [(1, 0)])]))
        #expect(abs(overlapping.value(at: 2) - 0.5) < 1e-6)
        #expect(abs(overlapping.value(at: 2.5) - 0.25) < 1e-6)
        #expect(abs(overlapping.value(at: 3)) < 1e-6)
    }

    /// A curve at 0.7 s whose first point is 0 at 0.9 s after it: the buzz fades out over those
    /// 0.9 s rather than falling silent at 0.7 s (as it did when the first value was held from the
    /// curve's start), and comes back after 1.6 s.
    @Test func aLateFirstPointOfZeroFadesRatherThanSilences() throws {
        let pattern = HapticPattern(elements: [continuous(0, 1.8), curve(0.7, [(0.9, 0), (1.0, 1)])])
        let samples = try PatternRenderer.render(pattern, format: format)
        func level(at t: Double) -> Double {
            let start = Int(t * 48_000)
            return AudioAnalysis.rmsDBFS(Array(samples[start..<(start + 960)]))
        }
        let full = level(at: 0.6)
        #expect(full > -20)
        #expect(abs(level(at: 0.72) - full) < 1.5)  // intensity control 0.98
        #expect(level(at: 1.15) < full - 3 && level(at: 1.15) > full - 30)  // 0.5: quieter, still heard
        #expect(level(at: 1.58) < full - 20)  // near 0
        #expect(level(at: 1.7) > full - 12)  // back up towards 1
    }

    @Test func aCurveSentLiveRampsFromTheValueSentBefore() throws {
        let buzz = continuous(0, 3)
        let late: [ParameterCurve.ControlPoint] = [.init(time: 1, value: 0), .init(time: 2, value: 1)]
        let written = HapticPattern(elements: [
            buzz, .parameter(DynamicParameter(.hapticIntensityControl, value: 0.4, time: 0)),
            .curve(ParameterCurve(.hapticIntensityControl, time: 0.5, controlPoints: late)),
        ])
        let offline = try PatternRenderer.render(written, format: format)
        var synth = Synthesizer(format: format, voicing: .standard)
        let plain = try Synthesizer.prepare(
            HapticPattern(elements: [buzz]), clips: [:], format: format, voicing: .standard)
        synth.start(plain, layer: 0, atFrame: 0)
        synth.setControl(.hapticIntensityControl, 0.4, layer: 0, atFrame: 0)
        synth.scheduleCurve(
            ParameterCurve(.hapticIntensityControl, time: 0.5, controlPoints: late), layer: 0, atFrame: 0)
        var live: [Float] = []
        var block = [Float](repeating: 0, count: 1_000)
        while live.count < offline.count {
            block.withUnsafeMutableBufferPointer { synth.render(into: $0) }
            live += block.prefix(offline.count - live.count)
        }
        let worst = zip(live, offline).map { abs($0 - $1) }.max() ?? 0
        #expect(worst < 1e-5)
        // Between 0.5 s and 1.5 s the intensity falls from 0.4 to 0, so the buzz is heard at 0.6 s.
        #expect(AudioAnalysis.rmsDBFS(Array(live[28_800..<33_600])) > -40)
    }
}
