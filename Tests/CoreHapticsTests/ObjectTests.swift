import CoreHaptics
import Foundation
import HapticsSynthesis
import HapticsTesting
import Testing

/// An app's event subclass that names itself, as it would override `NSObject.description` on
/// Apple's platforms (`override` is required there, and here).
final class NamedEvent: CHHapticEvent {
    let name: String
    init(name: String) {
        self.name = name
        super.init(eventType: .hapticTransient, parameters: [], relativeTime: 0)
    }
    override var description: String { "NamedEvent(\(name))" }
}

/// Apple's pattern objects are `NSObject`s: described by class and address, equal and hashed
/// by identity.
@Suite struct ObjectTests {
    @Test func eachObjectIsDescribedByItsClassAndAddress() throws {
        let curve = CHHapticParameterCurve(
            parameterID: .hapticIntensityControl,
            controlPoints: [.init(relativeTime: 0, value: 1)], relativeTime: 0)
        let objects: [(NSObject, NSObject, String)] = [
            (tap(0, 1), tap(0, 1), "CHHapticEvent"),
            (
                CHHapticEventParameter(parameterID: .hapticIntensity, value: 1),
                CHHapticEventParameter(parameterID: .hapticIntensity, value: 1), "CHHapticEventParameter"
            ),
            (
                CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: 1, relativeTime: 0),
                CHHapticDynamicParameter(parameterID: .hapticIntensityControl, value: 1, relativeTime: 0),
                "CHHapticDynamicParameter"
            ),
            (
                curve,
                CHHapticParameterCurve(
                    parameterID: .hapticIntensityControl, controlPoints: curve.controlPoints, relativeTime: 0),
                "CHHapticParameterCurve"
            ),
            (
                CHHapticParameterCurve.ControlPoint(relativeTime: 0, value: 1),
                CHHapticParameterCurve.ControlPoint(relativeTime: 0, value: 1), "ControlPoint"
            ),
            (
                try CHHapticPattern(events: [tap(0, 1)], parameters: []),
                try CHHapticPattern(events: [tap(0, 1)], parameters: []), "CHHapticPattern"
            ),
        ]
        for (one, twin, name) in objects {
            let text = String(describing: one)
            #expect(text.hasPrefix("<\(name): 0x") && text.hasSuffix(">"), "\(text)")
            #expect(text != String(describing: twin), "two \(name)s are described apart")
            #expect("\(one)" == text)
        }
        #expect(String(describing: NamedEvent(name: "boing")) == "NamedEvent(boing)")
    }

    @Test func equalityAndHashingAreIdentity() throws {
        let one = tap(0.1, 0.5)
        let twin = tap(0.1, 0.5)
        #expect(one == one)
        #expect(one != twin)
        #expect(!one.isEqual(twin))
        #expect(Set([one, twin, one]).count == 2)
        let pattern = try CHHapticPattern(events: [one], parameters: [])
        let same = try CHHapticPattern(events: [one], parameters: [])
        #expect(pattern != same)
        #expect([pattern: 1, same: 2].count == 2)
    }

    /// An app's player cache keyed by `String(describing: pattern)`: each pattern gets its own
    /// player, so a loud pattern is heard loud after a soft one.
    @Test func aPlayerCacheKeyedByDescriptionPlaysEachPattern() throws {
        let rig = Rig()
        try rig.engine.start()
        var cache: [String: any CHHapticPatternPlayer] = [:]
        func player(for pattern: CHHapticPattern) throws -> any CHHapticPatternPlayer {
            if let cached = cache[String(describing: pattern)] { return cached }
            let player = try rig.engine.makePlayer(with: pattern)
            cache[String(describing: pattern)] = player
            return player
        }
        let soft = try CHHapticPattern(events: [tap(0, 0.1)], parameters: [])
        let loud = try CHHapticPattern(events: [tap(0, 1)], parameters: [])
        try player(for: soft).start(atTime: CHHapticTimeImmediate)
        rig.run(seconds: 0.25)
        let softEnd = rig.driver.samples.count
        try player(for: loud).start(atTime: CHHapticTimeImmediate)
        rig.run(seconds: 0.25)
        let samples = rig.driver.samples
        let softPeak = AudioAnalysis.peak(Array(samples[..<softEnd]))
        let loudPeak = AudioAnalysis.peak(Array(samples[softEnd...]))
        #expect(cache.count == 2)
        #expect(softPeak > 0 && loudPeak > 3 * softPeak, "peaks: soft \(softPeak), loud \(loudPeak)")
    }
}
