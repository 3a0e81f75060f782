import CoreHaptics
import Foundation
import HapticsEngine
import HapticsSynthesis
import HapticsTesting
import Testing

let packageRoot = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

/// A CHHapticEngine on the shipped manual driver: a manual clock and a recording device.
final class Rig {
    let driver = ManualEngineDriver()
    let engine: CHHapticEngine

    init() {
        engine = CHHapticEngine(output: driver.output, clock: driver.clock, ticks: driver.ticks)
    }

    func run(seconds: Double) { driver.advance(by: .seconds(seconds)) }

    var onsets: [Int] { AudioAnalysis.onsets(driver.samples, channels: 1, threshold: 1e-3, minGapFrames: 960) }
}

func tap(_ time: TimeInterval, _ intensity: Float) -> CHHapticEvent {
    CHHapticEvent(
        eventType: .hapticTransient,
        parameters: [CHHapticEventParameter(parameterID: .hapticIntensity, value: intensity)], relativeTime: time)
}

@Suite struct PatternTests {
    @Test func rawValuesAreApples() {
        #expect(CHHapticEvent.EventType.hapticTransient.rawValue == "HapticTransient")
        #expect(CHHapticEvent.ParameterID.audioBrightness.rawValue == "AudioBrightness")
        #expect(CHHapticDynamicParameter.ID.hapticIntensityControl.rawValue == "HapticIntensityControl")
        #expect(CHHapticPattern.Key.parameterCurveControlPoints.rawValue == "ParameterCurveControlPoints")
        #expect(
            CHHapticError.Code.engineNotRunning.rawValue == -4805 && CHHapticError.Code.memoryError.rawValue == -4899)
        #expect(CHHapticTimeImmediate == 0)
    }

    @Test func durationIsTheLastEventsEnd() throws {
        let buzz = CHHapticEvent(eventType: .hapticContinuous, parameters: [], relativeTime: 0.5, duration: 0.75)
        let pattern = try CHHapticPattern(events: [tap(0, 1), buzz, tap(1.0, 1)], parameters: [])
        #expect(pattern.duration == 1.25)
    }

    @Test func dictionaryRoundTrips() throws {
        let pattern = try CHHapticPattern(dictionary: [
            .version: 1.0,
            .pattern: [
                [
                    CHHapticPattern.Key.event: [
                        CHHapticPattern.Key.eventType: CHHapticEvent.EventType.hapticTransient,
                        CHHapticPattern.Key.time: 0.25,
                        CHHapticPattern.Key.eventParameters: [
                            [
                                CHHapticPattern.Key.parameterID: CHHapticEvent.ParameterID.hapticIntensity,
                                CHHapticPattern.Key.parameterValue: Float(0.5),
                            ]
                        ],
                    ]
                ],
                ["Parameter": ["ParameterID": "HapticSharpnessControl", "Time": 0.5, "ParameterValue": -0.25]],
            ],
        ])
        #expect(pattern.duration == 0.5)
        let exported = try pattern.exportDictionary()
        let elements = try #require(exported[.pattern] as? [Any])
        let event = try #require((elements.first as? [String: Any])?["Event"] as? [String: Any])
        #expect(event["EventType"] as? String == "HapticTransient")
        #expect(event["Time"] as? Double == 0.25)
        let again = try CHHapticPattern(dictionary: exported)
        #expect(try (again.exportDictionary()[.pattern] as? [Any])?.count == 2)
    }

    @Test func badInputGetsApplesCodes() {
        #expect(
            throws: CHHapticError(
                .invalidPatternDictionary,
                "Pattern[0].Event.Time: error[wrong-type]: Time must be a number, found string \"soon\"")
        ) {
            try CHHapticPattern(dictionary: [.pattern: [["Event": ["EventType": "HapticTransient", "Time": "soon"]]]])
        }
        #expect(throws: CHHapticError.self) { try CHHapticPattern(events: [tap(-1, 1)], parameters: []) }
        do {
            _ = try CHHapticPattern(events: [tap(-1, 1)], parameters: [])
        } catch CHHapticError.invalidEventTime {
        } catch {
            Issue.record("expected invalidEventTime, got \(error)")
        }
        #expect(throws: CHHapticError(.fileNotFound, "no AHAP file at /nonexistent/x.ahap")) {
            try CHHapticPattern(contentsOf: URL(filePath: "/nonexistent/x.ahap"))
        }
    }

    @Test func readsAnAHAPFile() throws {
        let pattern = try CHHapticPattern(contentsOf: packageRoot.appending(path: "Patterns/feedback/error.ahap"))
        #expect(pattern.duration == 0.18)
    }

    @Test func capabilitiesGiveRanges() throws {
        let capability = CHHapticEngine.capabilitiesForHardware()
        let intensity = try capability.attributes(forEventParameter: .hapticIntensity, eventType: .hapticTransient)
        #expect([intensity.minValue, intensity.maxValue, intensity.defaultValue] == [0, 1, 1])
        let pitch = try capability.attributes(forEventParameter: .audioPitch, eventType: .audioContinuous)
        #expect([pitch.minValue, pitch.maxValue, pitch.defaultValue] == [-1, 1, 0])
        #expect(throws: CHHapticError.self) {
            try capability.attributes(forEventParameter: .audioPitch, eventType: .hapticTransient)
        }
        let sharpness = try capability.attributes(forDynamicParameter: .hapticSharpnessControl)
        #expect([sharpness.minValue, sharpness.maxValue, sharpness.defaultValue] == [-1, 1, 0])
    }
}

@Suite struct EngineTests {
    @Test func aReleasedPlayerPlaysToItsEnd() throws {
        let rig = Rig()
        try rig.engine.start()
        do {
            let player = try rig.engine.makePlayer(
                with: CHHapticPattern(events: [tap(0, 1), tap(0.2, 0.5)], parameters: []))
            try player.start(atTime: CHHapticTimeImmediate)
        }
        rig.run(seconds: 0.4)
        let onsets = rig.onsets
        #expect(onsets.count == 2 && onsets[1] - onsets[0] == 9_600)
    }

    @Test func playersNeedARunningEngine() throws {
        let rig = Rig()
        let player = try rig.engine.makePlayer(with: CHHapticPattern(events: [tap(0, 1)], parameters: []))
        do {
            try player.start(atTime: 0)
            Issue.record("started on a stopped engine")
        } catch CHHapticError.engineNotRunning {
        } catch {
            Issue.record("expected engineNotRunning, got \(error)")
        }
    }

    @Test func advancedPlayerCallsItsCompletionAndTheEngineStopsWhenAsked() throws {
        let rig = Rig()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(with: CHHapticPattern(events: [tap(0, 1)], parameters: []))
        let completed = DispatchSemaphore(value: 0), stopped = DispatchSemaphore(value: 0)
        player.completionHandler = { _ in completed.signal() }
        rig.engine.stoppedHandler = { reason in if reason == .notifyWhenFinished { stopped.signal() } }
        try player.start(atTime: 0)
        // After the start: with nothing playing, the handler would be called at once, as on Apple's.
        rig.engine.notifyWhenPlayersFinished { _ in .stopEngine }
        rig.run(seconds: 0.2)
        #expect(completed.wait(timeout: .now() + 10) == .success)
        #expect(stopped.wait(timeout: .now() + 10) == .success)
    }

    @Test func playsDataAtOnceAndHonoursMutes() throws {
        let rig = Rig()
        try rig.engine.start()
        rig.engine.isMutedForHaptics = true
        try rig.engine.playPattern(
            from: Data(
                try String(contentsOf: packageRoot.appending(path: "Patterns/feedback/success.ahap"), encoding: .utf8)
                    .utf8))
        rig.run(seconds: 0.2)
        #expect(rig.onsets.isEmpty)
        rig.engine.isMutedForHaptics = false
        try rig.engine.playPattern(from: packageRoot.appending(path: "Patterns/feedback/success.ahap"))
        rig.run(seconds: 0.3)
        #expect(rig.onsets.count == 2)
        rig.engine.playsAudioOnly = true
        #expect(rig.engine.engine.isMutedForHaptics)
    }

    @Test func unknownAudioResourcesAreRefused() throws {
        let rig = Rig()
        let event = CHHapticEvent(audioResourceID: 42, parameters: [], relativeTime: 0)
        #expect(throws: CHHapticError(.invalidAudioResource, "audio resource 42 is not registered")) {
            try rig.engine.makePlayer(with: CHHapticPattern(events: [event], parameters: []))
        }
        #expect(throws: CHHapticError.self) { try rig.engine.unregisterAudioResource(42) }
    }
}
