import HapticsCore
import OrderedCollections
import Testing

@Suite struct PatternTransformTests {
    let pattern = HapticPattern(elements: [
        .event(HapticEvent(time: 1, type: .hapticContinuous, duration: 2, parameters: [.init(.hapticIntensity, 0.8)])),
        .event(HapticEvent(time: 0.5, type: .hapticTransient)),
        .parameter(DynamicParameter(.hapticSharpnessControl, value: 0.2, time: 1)),
        .curve(
            ParameterCurve(
                .hapticIntensityControl, time: 2, controlPoints: [.init(time: 0, value: 0), .init(time: 1, value: 1)])),
    ])

    @Test func scaledDividesTimesAndDurationsNotValues() throws {
        let fast = pattern.scaled(by: 2)
        #expect(fast.events.map(\.time) == [0.5, 0.25])
        #expect(fast.events.first?.duration == 1)
        #expect(fast.events.first?.value(of: .hapticIntensity) == 0.8)
        guard case .curve(let curve) = fast.elements[3] else { throw CurveMissing() }
        #expect(curve.time == 1 && curve.controlPoints.map(\.time) == [0, 0.5])
        #expect(pattern.scaled(by: 0) == pattern, "a rate <= 0 is ignored")
    }

    @Test func shiftedMovesEveryElementAndKeepsCurvePointsRelative() throws {
        let later = pattern.shifted(by: 0.25)
        #expect(later.events.map(\.time) == [1.25, 0.75])
        guard case .parameter(let parameter) = later.elements[2], case .curve(let curve) = later.elements[3] else {
            throw CurveMissing()
        }
        #expect(parameter.time == 1.25)
        #expect(curve.time == 2.25 && curve.controlPoints.map(\.time) == [0, 1])
    }

    @Test func scalingIntensityMultipliesGivenAndDefaultIntensities() {
        let soft = pattern.scalingIntensity(by: 0.5)
        #expect(soft.events.map { $0.value(of: .hapticIntensity) } == [0.4, 0.5])
        #expect(pattern.scalingIntensity(by: 1) == pattern)
    }

    struct CurveMissing: Error {}
}

@Suite struct JSONTextTests {
    @Test func oneLineJSONWithAHAPsEscapingAndNumbers() {
        let value: JSONValue = .object([
            "Project": .string("a \"b\"\n\u{1}"), "Count": .number(3), "Ratio": .number(0.1),
            "List": .array([.bool(true), .null]), "Empty": .object([:]),
        ])
        #expect(
            value.jsonText
                == #"{"Project": "a \"b\"\n\u0001", "Count": 3, "Ratio": 0.1, "List": [true, null], "Empty": {}}"#)
    }
}
