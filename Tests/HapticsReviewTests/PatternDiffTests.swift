import HapticsCore
import HapticsReview
import OrderedCollections
import Testing

@Suite struct PatternDiffTests {
    typealias S = Support

    /// A: two transients, a continuous event and an intensity curve.
    static let base = HapticPattern(elements: [
        S.transient(0.0, 1, 0.5),
        S.transient(0.5, 0.8, 0.3),
        S.continuous(1.0, 0.5, 0.6, 0.2),
        .curve(
            ParameterCurve(
                .hapticIntensityControl, time: 0,
                controlPoints: [.init(time: 0, value: 1), .init(time: 0.5, value: 0.5), .init(time: 1, value: 1)])),
    ])

    static func edited(_ edit: (inout [PatternElement]) -> Void) -> HapticPattern {
        var pattern = base
        edit(&pattern.elements)
        return pattern
    }

    @Test func identicalPatternsHaveNoDifferences() {
        let diff = PatternDiff.compare(Self.base, Self.base)
        #expect(diff.isEmpty)
        #expect(diff.changes.isEmpty)
        #expect(diff.unchangedCount == 4)
        #expect(diff.text == "No differences.\n")
    }

    @Test func omittedParametersEqualTheirDefaults() {
        let explicit = HapticPattern(elements: [S.transient(0.2, 1, 0.5)])
        let implicit = HapticPattern(elements: [.event(HapticEvent(time: 0.2, type: .hapticTransient))])
        #expect(PatternDiff.compare(explicit, implicit).isEmpty)
    }

    @Test func movedEvent() {
        let diff = PatternDiff.compare(Self.base, Self.edited { $0[1] = S.transient(0.55, 0.8, 0.3) })
        #expect(diff.movedEvents.count == 1)
        #expect(diff.movedEvents.first?.properties == [.init("Time", from: "0.500 s", to: "0.550 s")])
        #expect(
            diff.text == """
                Events: 1 moved
                Unchanged elements: 3
                ~ moved HapticTransient 0.500 s -> 0.550 s (A Pattern[1] -> B Pattern[1])

                """)
    }

    @Test func addedEventAlsoLengthensThePattern() {
        let diff = PatternDiff.compare(Self.base, Self.edited { $0.append(S.transient(1.8, 1, 1)) })
        #expect(diff.addedEvents.map(\.afterIndex) == [4])
        #expect(diff.durationChanged)
        #expect(
            diff.text == """
                Duration: 1.500 s -> 1.800 s
                Events: 1 added
                Unchanged elements: 4
                + added HapticTransient at 1.800 s (B Pattern[4]): intensity 1, sharpness 1

                """)
    }

    @Test func removedEvent() {
        let diff = PatternDiff.compare(Self.base, Self.edited { $0.remove(at: 0) })
        #expect(diff.removedEvents.map(\.beforeIndex) == [0])
        #expect(
            diff.text == """
                Events: 1 removed
                Unchanged elements: 3
                - removed HapticTransient at 0.000 s (A Pattern[0]): intensity 1, sharpness 0.5

                """)
    }

    @Test func reparameterisedEvent() {
        let diff = PatternDiff.compare(Self.base, Self.edited { $0[1] = S.transient(0.5, 0.6, 0.5) })
        #expect(diff.reparameterisedEvents.count == 1)
        #expect(
            diff.reparameterisedEvents.first?.properties == [
                .init("HapticIntensity", from: "0.8", to: "0.6"), .init("HapticSharpness", from: "0.3", to: "0.5"),
            ])
        #expect(
            diff.text == """
                Events: 1 re-parameterised
                Unchanged elements: 3
                * re-parameterised HapticTransient at 0.500 s (A Pattern[1] -> B Pattern[1]): \
                HapticIntensity 0.8 -> 0.6; HapticSharpness 0.3 -> 0.5

                """)
    }

    @Test func continuousEventDurationChange() {
        let diff = PatternDiff.compare(Self.base, Self.edited { $0[2] = S.continuous(1.0, 0.75, 0.6, 0.2) })
        #expect(
            diff.text == """
                Duration: 1.500 s -> 1.750 s
                Events: 1 re-parameterised
                Unchanged elements: 3
                * re-parameterised HapticContinuous at 1.000 s (A Pattern[2] -> B Pattern[2]): \
                EventDuration 0.500 s -> 0.750 s

                """)
    }

    @Test func movedAndReparameterisedEvent() {
        let diff = PatternDiff.compare(Self.base, Self.edited { $0[1] = S.transient(0.6, 0.6, 0.3) })
        #expect(diff.changes.map(\.kind) == [.movedAndReparameterised])
        #expect(
            diff.changes.first?.line
                == "* moved and re-parameterised HapticTransient 0.500 s -> 0.600 s (A Pattern[1] -> B Pattern[1]): "
                + "HapticIntensity 0.8 -> 0.6")
    }

    @Test func movesBeyondTheToleranceAreRemovalPlusAddition() {
        let diff = PatternDiff.compare(Self.base, Self.edited { $0[1] = S.transient(0.9, 0.8, 0.3) }, tolerance: 0.25)
        #expect(diff.changes.map(\.kind) == [.removed, .added])
        let wider = PatternDiff.compare(Self.base, Self.edited { $0[1] = S.transient(0.9, 0.8, 0.3) }, tolerance: 0.5)
        #expect(wider.changes.map(\.kind) == [.moved])
    }

    @Test func curveControlPointChanged() {
        let diff = PatternDiff.compare(
            Self.base,
            Self.edited {
                $0[3] = .curve(
                    ParameterCurve(
                        .hapticIntensityControl, time: 0,
                        controlPoints: [
                            .init(time: 0, value: 1), .init(time: 0.5, value: 0.25), .init(time: 1, value: 1),
                        ]))
            })
        #expect(diff.controlChanges.count == 1)
        #expect(
            diff.text == """
                Parameter curves: 1 changed
                Unchanged elements: 3
                * changed ParameterCurve HapticIntensityControl at 0.000 s (A Pattern[3] -> B Pattern[3]): \
                ParameterCurveControlPoints[1] (0.5 s, 0.5) -> (0.5 s, 0.25)

                """)
    }

    @Test func curveGainedAPointAndADynamicParameterWasAdded() {
        let diff = PatternDiff.compare(
            Self.base,
            Self.edited {
                $0[3] = .curve(
                    ParameterCurve(
                        .hapticIntensityControl, time: 0,
                        controlPoints: [.init(time: 0, value: 1), .init(time: 1, value: 1)]))
                $0.append(.parameter(DynamicParameter(.hapticSharpnessControl, value: -0.5, time: 0.25)))
            })
        #expect(
            diff.text == """
                Dynamic parameters: 1 added
                Parameter curves: 1 changed
                Unchanged elements: 3
                * changed ParameterCurve HapticIntensityControl at 0.000 s (A Pattern[3] -> B Pattern[3]): \
                ParameterCurveControlPoints (0 s, 1), (0.5 s, 0.5), (1 s, 1) -> (0 s, 1), (1 s, 1)
                + added Parameter HapticSharpnessControl at 0.250 s (B Pattern[4]): value -0.5

                """)
    }

    @Test func metadataAndVersionChanges() {
        var a = Self.base
        a.metadata = ["Project": .string("Sampler"), "Created": .string("2019")]
        var b = a
        b.version = 2
        b.metadata["Project"] = .string("Sampler 2")
        b.metadata["Created"] = nil
        b.metadata["Rating"] = .number(5)
        let diff = PatternDiff.compare(a, b)
        #expect(!diff.isEmpty)
        #expect(
            diff.text == """
                Version: 1 -> 2
                Metadata Created: "2019" -> none
                Metadata Project: "Sampler" -> "Sampler 2"
                Metadata Rating: none -> 5
                Unchanged elements: 4

                """)
    }

    @Test func uniformShiftPairsEachEventWithItsTwin() {
        let a = HapticPattern(elements: (0..<6).map { S.transient(Double($0) * 0.1) })
        let b = HapticPattern(elements: (0..<6).map { S.transient(Double($0) * 0.1 + 0.04) })
        let diff = PatternDiff.compare(a, b)
        #expect(diff.movedEvents.count == 6)
        #expect(diff.movedEvents.map(\.beforeIndex) == diff.movedEvents.map(\.afterIndex))
        #expect(diff.addedEvents.isEmpty && diff.removedEvents.isEmpty)
    }

    @Test func insertionBetweenIdenticalEventsIsOneAddition() {
        let a = HapticPattern(elements: [S.transient(0), S.transient(0.1), S.transient(0.2)])
        let b = HapticPattern(elements: [S.transient(0), S.transient(0.05), S.transient(0.1), S.transient(0.2)])
        let diff = PatternDiff.compare(a, b)
        #expect(diff.changes.map(\.kind) == [.added])
        #expect(diff.addedEvents.first?.afterIndex == 1)
        #expect(diff.unchangedCount == 3)
    }

    @Test func reparameterisationPairsTheMostSimilarEventAtTheSameTime() {
        // Two transients at the same instant; B nudges only the quiet one.
        let a = HapticPattern(elements: [S.transient(0.3, 1, 0.9), S.transient(0.3, 0.2, 0.1)])
        let b = HapticPattern(elements: [S.transient(0.3, 0.25, 0.1), S.transient(0.3, 1, 0.9)])
        let diff = PatternDiff.compare(a, b)
        #expect(diff.unchangedCount == 1)
        #expect(diff.reparameterisedEvents.map { [$0.beforeIndex, $0.afterIndex] } == [[1, 0]])
        #expect(diff.reparameterisedEvents.first?.properties == [.init("HapticIntensity", from: "0.2", to: "0.25")])
    }

    @Test func typesAreNeverPairedAcrossEachOther() {
        let a = HapticPattern(elements: [S.transient(0.5)])
        let b = HapticPattern(elements: [.event(HapticEvent(time: 0.5, type: .hapticContinuous, duration: 0.1))])
        let diff = PatternDiff.compare(a, b)
        #expect(Set(diff.changes.map(\.kind)) == [.added, .removed])
    }

    /// Thousands of events at one time (issue 32: 5,000 impulses took 811 MB and 6.2 s, every pair
    /// within the window a candidate): paired in order, in bounded memory and time.
    @Test func thousandsOfEventsAtOneTimePairInOrderQuickly() {
        let count = 5_000
        let same = HapticPattern(elements: (0..<count).map { _ in S.transient(1, 0.5, 0.5) })
        let louder = HapticPattern(elements: (0..<count).map { _ in S.transient(1, 0.6, 0.5) })
        // 40 µs apart over 0.2 s (all inside the 0.25 s tolerance), and each moved 15 µs later.
        let spread = HapticPattern(elements: (0..<count).map { S.transient(2 + Double($0) * 4e-5, 0.5, 0.5) })
        let later = HapticPattern(elements: (0..<count).map { S.transient(2.000015 + Double($0) * 4e-5, 0.5, 0.5) })
        let started = ContinuousClock.now

        let unchanged = PatternDiff.compare(same, same)
        #expect(unchanged.isEmpty && unchanged.unchangedCount == count)

        let reparameterised = PatternDiff.compare(same, louder)
        #expect(reparameterised.reparameterisedEvents.count == count)
        #expect(reparameterised.changes.allSatisfy { $0.beforeIndex == $0.afterIndex })
        #expect(reparameterised.addedEvents.isEmpty && reparameterised.removedEvents.isEmpty)

        let moved = PatternDiff.compare(spread, later)
        #expect(moved.movedEvents.count == count)
        #expect(moved.changes.allSatisfy { $0.beforeIndex == $0.afterIndex })

        // Before: every pair a candidate, 25,000,000 per comparison (minutes in a debug build).
        #expect(ContinuousClock.now - started < .seconds(20))
    }
}
