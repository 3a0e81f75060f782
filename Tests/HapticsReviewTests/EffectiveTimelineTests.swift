import HapticsCore
import HapticsReview
import Testing

struct EffectiveTimelineTests {
    /// A continuous event (0.1 s to 0.3 s, intensity 0.8, sharpness 0.6) under an intensity curve
    /// dipping 1 → 0.5 → 1 from 0.1 s to 0.3 s, a sharpness control of −0.2 from 0.2 s, and a transient at 0.4 s.
    static let pattern = HapticPattern(elements: [
        .event(
            HapticEvent(
                time: 0.1, type: .hapticContinuous, duration: 0.2,
                parameters: [EventParameter(.hapticIntensity, 0.8), EventParameter(.hapticSharpness, 0.6)])),
        .curve(
            ParameterCurve(
                .hapticIntensityControl, time: 0.1,
                controlPoints: [.init(time: 0, value: 1), .init(time: 0.1, value: 0.5), .init(time: 0.2, value: 1)])),
        .parameter(DynamicParameter(.hapticSharpnessControl, value: -0.2, time: 0.2)),
        .event(
            HapticEvent(
                time: 0.4, type: .hapticTransient,
                parameters: [EventParameter(.hapticIntensity, 0.7), EventParameter(.hapticSharpness, 0.9)])),
    ])

    static func sample(_ samples: [EffectiveSample], at t: Double) throws -> EffectiveSample {
        try #require(samples.last { abs($0.time - t) < 1e-9 }, "the last sample at \(t) s")
    }

    @Test func continuousEventIsModulatedByTheCurveAndTheSharpnessControl() throws {
        let samples = EffectiveTimeline.samples(for: Self.pattern)
        #expect(samples.first?.time == 0)
        #expect(samples.last?.time == 0.4)
        #expect(zip(samples, samples.dropFirst()).allSatisfy { $0.time < $1.time }, "strictly ascending")
        let start = try Self.sample(samples, at: 0.1)
        #expect(abs(start.intensity - 0.8) < 1e-4)
        #expect(abs(start.sharpness - 0.6) < 1e-4)
        let middle = try Self.sample(samples, at: 0.2)
        #expect(abs(middle.intensity - 0.4) < 1e-3, "0.8 × curve value 0.5")
        let late = try Self.sample(samples, at: 0.25)
        #expect(abs(late.intensity - 0.6) < 1e-3, "0.8 × curve value 0.75")
        #expect(abs(middle.sharpness - 0.4) < 1e-4, "0.6 offset by −0.2")
    }

    @Test func silenceIsZeroIntensityAndTheControlOnTheDefaultSharpness() throws {
        let samples = EffectiveTimeline.samples(for: Self.pattern)
        let before = try Self.sample(samples, at: 0.05)
        #expect(before.intensity == 0)
        #expect(abs(before.sharpness - 0.5) < 1e-6)
        let after = try Self.sample(samples, at: 0.35)
        #expect(after.intensity == 0)
        #expect(abs(after.sharpness - 0.3) < 1e-6, "0.5 offset by the −0.2 still in force")
        let end = try Self.sample(samples, at: 0.3)
        #expect(end.intensity == 0, "a continuous event stops sounding at Time + EventDuration")
    }

    @Test func transientOffTheSamplingGridIsStillSampledAtItsOwnTime() throws {
        var pattern = Self.pattern
        pattern.elements.append(
            .event(
                HapticEvent(
                    time: 0.4123, type: .hapticTransient, parameters: [EventParameter(.hapticIntensity, 0.6)])))
        let samples = EffectiveTimeline.samples(for: pattern)
        let transient = try Self.sample(samples, at: 0.4123)
        #expect(abs(transient.intensity - 0.6) < 1e-6)
        #expect(abs(transient.sharpness - 0.3) < 1e-6, "default 0.5, offset −0.2")
        let grid = try Self.sample(samples, at: 0.4)
        #expect(abs(grid.intensity - 0.7) < 1e-6)
        #expect(abs(grid.sharpness - 0.7) < 1e-6, "0.9 offset −0.2")
    }

    @Test func longPatternsAreSampledCoarselyEnoughToStayBounded() {
        let pattern = HapticPattern(elements: [.event(HapticEvent(time: 600, type: .hapticTransient))])
        let samples = EffectiveTimeline.samples(for: pattern)
        #expect(samples.count <= EffectiveTimeline.maximumSamples + 3)
        #expect(samples.last?.time == 600)
        #expect(samples.last?.intensity == 1, "the default intensity of the last transient")
    }
}
