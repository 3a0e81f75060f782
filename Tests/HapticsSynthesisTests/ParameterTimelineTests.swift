import HapticsCore
import Testing

@Suite struct ParameterTimelineTests {
    func pattern(_ elements: [PatternElement]) -> HapticPattern { HapticPattern(elements: elements) }

    @Test func neutralBeforeAnyElement() {
        let intensity = ParameterTimeline(.hapticIntensityControl, pattern: pattern([]))
        let sharpness = ParameterTimeline(.hapticSharpnessControl, pattern: pattern([]))
        #expect(intensity.value(at: 3) == 1)
        #expect(sharpness.value(at: 3) == 0)
        #expect(intensity.isEmpty)
    }

    @Test func intensityMultipliesAndSharpnessAddsThenClamps() {
        let p = pattern([
            .parameter(DynamicParameter(.hapticIntensityControl, value: 0.5, time: 1)),
            .parameter(DynamicParameter(.hapticSharpnessControl, value: 0.3, time: 1)),
        ])
        let controls = ParameterTimelines(p)
        let event = HapticEvent(
            time: 0, type: .hapticContinuous, duration: 5,
            parameters: [.init(.hapticIntensity, 0.8), .init(.hapticSharpness, 0.9)])
        #expect(controls.value(of: .hapticIntensity, for: event, at: 0.5) == 0.8)
        #expect(controls.value(of: .hapticIntensity, for: event, at: 1) == 0.4)
        #expect(controls.value(of: .hapticSharpness, for: event, at: 0.99) == 0.9)
        #expect(controls.value(of: .hapticSharpness, for: event, at: 2) == 1)  // 1.2 clamped
        // Haptic controls leave audio events alone.
        let audio = HapticEvent(time: 0, type: .audioContinuous, duration: 5, parameters: [.init(.audioVolume, 0.6)])
        #expect(controls.value(of: .audioVolume, for: audio, at: 2) == 0.6)
    }

    @Test func negativeOffsetClampsAtZero() {
        let timeline = ParameterTimeline(
            .hapticSharpnessControl,
            pattern: pattern([
                .parameter(DynamicParameter(.hapticSharpnessControl, value: -0.8, time: 0))
            ]))
        #expect(timeline.modulate(0.5, at: 0) == 0)
        #expect(timeline.modulate(0.9, at: 1) == Float(0.9) - Float(0.8))
    }

    @Test func curveInterpolatesRelativeToItsTimeAndHoldsLastValue() {
        let timeline = ParameterTimeline(
            .hapticIntensityControl,
            pattern: pattern([
                .curve(
                    ParameterCurve(
                        .hapticIntensityControl, time: 2,
                        controlPoints: [
                            .init(time: 0.5, value: 1), .init(time: 1.5, value: 0.2), .init(time: 2.5, value: 0.6),
                        ]))
            ]))
        #expect(timeline.value(at: 1.9) == 1)  // before the curve: neutral
        #expect(timeline.value(at: 2.2) == 1)  // holds the first point's value until it
        #expect(abs(timeline.value(at: 3.0) - 0.6) < 1e-6)  // halfway 1 -> 0.2
        #expect(abs(timeline.value(at: 3.5) - 0.2) < 1e-6)
        #expect(abs(timeline.value(at: 4.25) - 0.5) < 1e-6)  // three quarters 0.2 -> 0.6
        #expect(timeline.value(at: 100) == 0.6)  // last value holds
    }

    @Test func laterElementTakesOverAndEarlierResumesNothing() {
        let timeline = ParameterTimeline(
            .hapticIntensityControl,
            pattern: pattern([
                .curve(
                    ParameterCurve(
                        .hapticIntensityControl, time: 0,
                        controlPoints: [
                            .init(time: 0, value: 0), .init(time: 4, value: 1),
                        ])),
                .parameter(DynamicParameter(.hapticIntensityControl, value: 0.9, time: 1)),
                .curve(
                    ParameterCurve(
                        .hapticIntensityControl, time: 3,
                        controlPoints: [
                            .init(time: 0, value: 0.2), .init(time: 1, value: 0.4),
                        ])),
            ]))
        #expect(abs(timeline.value(at: 0.5) - 0.125) < 1e-6)  // first curve
        #expect(timeline.value(at: 2) == 0.9)  // parameter took over, curve gone
        #expect(abs(timeline.value(at: 3.5) - 0.3) < 1e-6)  // later curve took over
        #expect(abs(timeline.value(at: 10) - 0.4) < 1e-6)
        #expect(timeline.elementStart(at: 2) == 1)
    }

    @Test func equalStartTimesLaterInFileWins() {
        let timeline = ParameterTimeline(
            .hapticIntensityControl,
            pattern: pattern([
                .parameter(DynamicParameter(.hapticIntensityControl, value: 0.3, time: 1)),
                .parameter(DynamicParameter(.hapticIntensityControl, value: 0.7, time: 1)),
            ]))
        #expect(timeline.value(at: 1) == 0.7)
    }

    @Test func cursorMatchesBinarySearchForwardAndBackward() {
        let timeline = ParameterTimeline(
            .hapticSharpnessControl,
            pattern: pattern([
                .curve(
                    ParameterCurve(
                        .hapticSharpnessControl, time: 0.1,
                        controlPoints: [
                            .init(time: 0, value: -1), .init(time: 0.3, value: 1), .init(time: 0.3, value: -0.5),
                            .init(time: 0.9, value: 0),
                        ])),
                .parameter(DynamicParameter(.hapticSharpnessControl, value: 0.25, time: 0.8)),
            ]))
        var cursor = ParameterTimeline.Cursor()
        for step in 0..<1200 {
            let t = Double(step) / 1000
            #expect(cursor.value(in: timeline, at: t) == timeline.value(at: t))
        }
        #expect(cursor.value(in: timeline, at: 0.25) == timeline.value(at: 0.25))  // backwards
        #expect(cursor.nextChange(in: timeline, after: 0.85) == .infinity)
        #expect(cursor.nextChange(in: timeline, after: 0.05) == 0.1)
    }

    @Test func insertedStepRunsUntilTheNextLaterElement() {
        var timeline = ParameterTimeline(
            .hapticIntensityControl,
            pattern: pattern([
                .parameter(DynamicParameter(.hapticIntensityControl, value: 0.5, time: 0)),
                .parameter(DynamicParameter(.hapticIntensityControl, value: 0.8, time: 5)),
            ]))
        timeline.insert(.step(time: 2, value: 0.1))
        #expect(timeline.value(at: 1) == 0.5)
        #expect(timeline.value(at: 3) == 0.1)
        #expect(timeline.value(at: 6) == 0.8)
    }

    @Test(arguments: [EventParameterID.attackTime, .decayTime, .releaseTime])
    func envelopeControlsAreSplitByEventKind(parameter: EventParameterID) {
        let haptic = DynamicParameterID.control(for: parameter, onHapticEvent: true)
        let audio = DynamicParameterID.control(for: parameter, onHapticEvent: false)
        #expect(haptic?.rawValue.hasPrefix("Haptic") == true)
        #expect(audio?.rawValue.hasPrefix("Audio") == true)
        #expect(DynamicParameterID.control(for: .hapticIntensity, onHapticEvent: false) == nil)
    }
}
