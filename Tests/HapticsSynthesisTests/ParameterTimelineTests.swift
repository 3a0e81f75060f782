import HapticsCore
import HapticsSynthesis
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
        #expect(timeline.value(at: 2.2) == 1)  // a line from neutral (1) to the first point (1)
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

    @Test(arguments: [EventParameterID.attackTime, .decayTime, .releaseTime])
    func envelopeControlsAreSplitByEventKind(parameter: EventParameterID) {
        let haptic = DynamicParameterID.control(for: parameter, onHapticEvent: true)
        let audio = DynamicParameterID.control(for: parameter, onHapticEvent: false)
        #expect(haptic?.rawValue.hasPrefix("Haptic") == true)
        #expect(audio?.rawValue.hasPrefix("Audio") == true)
        #expect(DynamicParameterID.control(for: .hapticIntensity, onHapticEvent: false) == nil)
    }

    @Test func everyControlHasItsDenseIndexAndOneEntryInTheTable() {
        #expect(DynamicParameterID.allCases.count == ControlTable<Int>.count)
        for (position, id) in DynamicParameterID.allCases.enumerated() {
            #expect(id.index == position, "\(id)")
            #expect(DynamicParameterID.control(for: id.target, onHapticEvent: id.actsOnHaptics) == id)
            #expect(id.actsOnHaptics == id.rawValue.hasPrefix("Haptic"), "\(id)")
        }
        let neutral = ControlTable { $0.neutralValue }
        #expect(neutral[.hapticIntensityControl] == 1 && neutral[.audioVolumeControl] == 1)
        #expect(neutral.values.filter { $0 == 0 }.count == 10)
        #expect(EventParameterID.audioPan.control == .audioPanControl)
        #expect(EventParameterID.attackTime.control == .hapticAttackTimeControl)
        #expect(EventParameterID.sustained.control == nil)
    }

    /// A curve whose points are closer together than a sample (here 1e-320 s, a fuzzer's find)
    /// is a step: the value is never NaN or infinite.
    @Test func pointsCloserThanASampleMakeAStepNotANaN() throws {
        let text = #"""
            {"Pattern":[{"ParameterCurve":{"ParameterID":"HapticIntensityControl","Time":0,
            "ParameterCurveControlPoints":[{"Time":0,"ParameterValue":0},{"Time":1e-320}]}},
            {"Event":{"EventType":"HapticContinuous","Time":0,"EventDuration":1}}]}
            """#
        let pattern = try AHAP.decode(Array(text.utf8)).pattern
        let timeline = ParameterTimeline(.hapticIntensityControl, pattern: pattern)
        #expect(timeline.value(at: 0) == 0)
        #expect(timeline.value(at: 1.0 / 48_000) == 1)
        #expect(timeline.knots.allSatisfy { $0.slope.isFinite })
        let samples = try PatternRenderer.render(pattern, format: AudioFormat(sampleRate: 48_000))
        #expect(samples.allSatisfy { $0.isFinite })
        // Silent at frame 0 (intensity 0), then the buzz at full level.
        #expect(samples[0] == 0)
        #expect(AudioAnalysis.rmsDBFS(samples[4_800..<9_600]) > -13.9)
    }
}
