import CoreHaptics
import Foundation
import HapticsEngine
import HapticsSynthesis
import HapticsTesting
import Synchronization
import Testing

/// The engine's life cycle as apps drive it: stop and start again, stop from a finished handler.
@Suite struct LifeCycleTests {
    /// One tap, as an app plays it: a fresh player started at once.
    static func tapNow(_ engine: CHHapticEngine) throws {
        try engine.makePlayer(with: CHHapticPattern(events: [tap(0, 1)], parameters: []))
            .start(atTime: CHHapticTimeImmediate)
    }

    /// Taps asked for 0.5 s apart after a restart are heard 0.5 s apart: the second and third
    /// exactly (both wait behind a full device buffer), the first within one buffer (960 frames):
    /// sooner when the device starts empty, later when what it held at the stop is still to be
    /// heard (a paced capture restarted at the same instant).
    static func keptTime(_ onsets: [Int]) -> Bool {
        guard onsets.count == 4 else { return false }
        let gaps = zip(onsets.dropFirst(2), onsets.dropFirst()).map { $0 - $1 }
        return (23_040...24_960).contains(gaps[0]) && gaps[1] == 24_000
    }

    @Test func aRestartedEngineKeepsTimeOnTheManualDriver() throws {
        let rig = Rig()
        try rig.engine.start()
        try Self.tapNow(rig.engine)
        rig.run(seconds: 1.5)
        rig.engine.stop()
        try rig.engine.start()
        let restartedAt = rig.engine.currentTime
        for _ in 0..<3 {
            try Self.tapNow(rig.engine)
            rig.run(seconds: 0.5)
        }
        #expect(abs(rig.engine.currentTime - restartedAt - 1.5) < 0.025, "engine time \(rig.engine.currentTime)")
        let onsets = rig.onsets
        #expect(onsets.count == 4, "onsets \(onsets)")
        #expect(Self.keptTime(onsets), "onsets \(onsets)")
    }

    /// The paced WAV capture (`HAPTIC_OUTPUT`): after a restart, taps asked for 0.5 s apart are
    /// written 0.5 s apart, not all at the instant the first run's length later.
    @Test func aRestartedEngineKeepsTimeInAWAVCapture() throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "restart-\(UUID().uuidString).wav")
            .path(percentEncoded: false)
        defer { unlink(path) }
        let clock = ManualClock()
        let ticks = ManualTickSource()
        let file = try WAVFileOutput(path: path, format: AudioFormat(sampleRate: 48_000, channels: 1))
        let engine = CHHapticEngine(
            output: PacedOutput(file, bufferFrames: 960, clock: clock), clock: clock, ticks: ticks)
        // 4 ms ticks on the manual clock: the capture's pace is the clock's.
        func run(seconds: Double) {
            for _ in 0..<Int((seconds / 0.004).rounded()) {
                clock.advance(byNanoseconds: 4_000_000)
                ticks.tick()
            }
        }
        try engine.start()
        try Self.tapNow(engine)
        run(seconds: 1.5)
        engine.stop()
        try engine.start()
        let restartedAt = engine.currentTime
        for _ in 0..<3 {
            try Self.tapNow(engine)
            run(seconds: 0.5)
        }
        #expect(abs(engine.currentTime - restartedAt - 1.5) < 0.025, "engine time \(engine.currentTime)")
        engine.stop()
        let clip = try WAV.decode([UInt8](try Data(contentsOf: URL(filePath: path))))
        let onsets = AudioAnalysis.onsets(clip.samples, channels: 1, threshold: 1e-3, minGapFrames: 960)
        #expect(onsets.count == 4, "onsets \(onsets)")
        #expect(Self.keptTime(onsets), "onsets \(onsets)")
    }

    /// `.stopEngine` from a finished handler racing `playPattern(from:)`, which starts the
    /// engine: whichever wins, a later `start()` gives an engine whose clock moves.
    @Test func aStopEngineRacingPlayPatternLeavesAnEngineThatStarts() throws {
        let ahap = Data(#"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#.utf8)
        for round in 0..<20 {
            let rig = Rig()
            try rig.engine.start()
            rig.engine.notifyWhenPlayersFinished { _ in .stopEngine }
            try rig.engine.playPattern(from: ahap)
            rig.engine.engine.flushCallbacks()
            rig.engine.engine.flushCallbacks()
            try rig.engine.start()
            #expect(rig.driver.ticks.isRunning, "round \(round): a started engine has a timer")
            let before = rig.engine.currentTime
            try Self.tapNow(rig.engine)
            rig.run(seconds: 0.3)
            #expect(rig.engine.currentTime - before > 0.25, "round \(round): engine time \(rig.engine.currentTime)")
        }
    }
}
