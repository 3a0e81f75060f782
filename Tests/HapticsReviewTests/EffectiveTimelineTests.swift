import HapticsCore
import HapticsReview
import Testing
import _HapticsTestSupport

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

    /// A 100-second pattern: overlapping continuous events under intensity curves, transients
    /// off the grid and sharpness controls, so a window starts inside sounding events.
    static let long: HapticPattern = {
        var elements: [PatternElement] = []
        var random = SplitMix64(seed: 28)
        for k in 0..<400 {
            let time = Double(k) * 0.25 + Double(random.next() % 1_000) / 7_919
            let intensity = Float(random.next() % 1_000) / 1_000
            if k % 3 == 0 {
                elements.append(
                    .event(
                        HapticEvent(
                            time: time, type: .hapticTransient,
                            parameters: [EventParameter(.hapticIntensity, intensity)])))
            } else {
                elements.append(
                    .event(
                        HapticEvent(
                            time: time, type: .hapticContinuous, duration: 0.6 + Double(k % 5) * 0.3,
                            parameters: [
                                EventParameter(.hapticIntensity, intensity), EventParameter(.hapticSharpness, 0.3),
                            ])))
            }
            if k % 10 == 0 {
                elements.append(
                    .curve(
                        ParameterCurve(
                            .hapticIntensityControl, time: time,
                            controlPoints: [
                                .init(time: 0, value: 1), .init(time: 1, value: 0.3), .init(time: 2, value: 1),
                            ]
                        )))
                elements.append(.parameter(DynamicParameter(.hapticSharpnessControl, value: -0.1, time: time + 0.5)))
            }
        }
        return HapticPattern(elements: elements)
    }()

    @Test(arguments: [(0.0, 3.0), (37.123, 41.5), (50.0025, 50.0075), (96.0, .infinity), (-5.0, 0.01)])
    func aWindowHasExactlyTheWholeSamplingsSamplesInIt(start: Double, last: Double) {
        let whole = EffectiveTimeline.samples(for: Self.long)
        let window = EffectiveTimeline.samples(for: Self.long, from: start, through: last)
        #expect(!window.isEmpty)
        #expect(window == whole.filter { $0.time >= start && $0.time <= last })
        let longer = EffectiveTimeline.samples(for: Self.long, until: 120)
        #expect(
            EffectiveTimeline.samples(for: Self.long, from: start, through: last, until: 120)
                == longer.filter { $0.time >= start && $0.time <= last })
    }
}
