import CoreHaptics
import Foundation
import HapticsEngine
import HapticsSynthesis
import HapticsTesting
import Synchronization
import Testing
import _HapticsTestSupport

/// `HAPTIC_OUTPUT` captures as a user meets them: a process killed mid-capture, two engines in one
/// process, a producer that stalls. The process cases run this test binary again as a child
/// (``CaptureChild``), with `HAPTIC_OUTPUT` set, as an app would be run.
@Suite struct CaptureTests {
    static let rate = 48_000

    /// Runs this test binary as a child doing `scenario` (see ``CaptureChild``) with `HAPTIC_OUTPUT`.
    static func child(_ scenario: String, output: String) throws -> TestProcess {
        var environment = ProcessInfo.processInfo.environment
        environment["HAPTIC_OUTPUT"] = output
        environment[CaptureChild.variable] = scenario
        return try TestProcess.start(
            URL(filePath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")),
            ["--testing-library", "swift-testing", "--filter", "CaptureChild"], environment: environment)
    }

    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appending(path: "capture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// The file's frames as its header counts them, and as its length holds them.
    static func frameCounts(_ path: String) throws -> (header: Int, file: Int) {
        let bytes = [UInt8](try Data(contentsOf: URL(filePath: path)))
        guard bytes.count >= 58 else { return (0, 0) }
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        // f32 mono: RIFF, fmt (18), fact, then the data chunk's size at byte 54.
        return (u32(54) / 4, (bytes.count - 58) / 4)
    }

    static func onsets(_ path: String) throws -> [Int] {
        let clip = try WAV.decode([UInt8](try Data(contentsOf: URL(filePath: path))))
        return AudioAnalysis.onsets(clip.samples, channels: 1, threshold: 1e-3, minGapFrames: rate / 20)
    }

    /// SIGTERM or SIGINT mid-capture (no handler in the app): the WAV file is there, its header
    /// counts what it holds, and its timeline is the wall clock's, the idle pause included.
    @Test(arguments: [SIGTERM, SIGINT])
    func aKilledProcessLeavesACompleteCapture(signal: Int32) throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "out.wav").path(percentEncoded: false)
        let process = try Self.child("loop", output: path)
        // Until the capture holds 4.7 s (the pauses and a few of the loop's taps), at most 20 s.
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline && process.isRunning {
            if let counts = try? Self.frameCounts(path), counts.header >= Self.rate * 47 / 10 { break }
            usleep(50_000)
        }
        process.signal(signal)
        let ended = process.wait()
        #expect(ended.signalled && ended.status == signal)
        let counts = try Self.frameCounts(path)
        #expect(counts.header >= Self.rate * 47 / 10, "frames \(counts)")
        // Killed between a write and its header update at worst: one write's frames behind.
        #expect((0...Self.rate / 10).contains(counts.file - counts.header), "frames \(counts)")
        let onsets = try Self.onsets(path)
        try #require(onsets.count >= 3, "onsets \(onsets)")
        // The child waited 1.5 s, tapped, waited 2.5 s (the engine's timer suspended after 1 s
        // idle each time), tapped again: 1.5 s of silence first, then taps 2.5 s apart. Within
        // 250 ms: a loaded machine delays the child's own taps that much (a dropped gap would
        // lose 0.5 s and 1.5 s).
        #expect(abs(onsets[0] - Self.rate * 3 / 2) <= Self.rate / 4, "onsets \(onsets)")
        #expect(abs(onsets[1] - onsets[0] - Self.rate * 5 / 2) <= Self.rate / 4, "onsets \(onsets) counts \(counts)")
    }

    /// Two engines in one process: each keeps its file (out.wav, out-2.wav), both complete after a
    /// plain exit; an engine never started takes no name; a file left by an earlier run is
    /// replaced, not skipped.
    @Test func twoEnginesKeepTwoCaptures() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "out.wav").path(percentEncoded: false)
        try Data("an earlier run's file".utf8).write(to: URL(filePath: path))
        let process = try Self.child("two", output: path)
        let ended = process.wait()
        #expect(!ended.signalled && ended.status == 0)
        #expect(try Self.onsets(path).count == 1)
        let second = folder.appending(path: "out-2.wav").path(percentEncoded: false)
        #expect(try Self.onsets(second).count == 2)
        for file in [path, second] {
            let counts = try Self.frameCounts(file)
            #expect(counts.header == counts.file && counts.header > Self.rate / 2, "\(file): \(counts)")
        }
        #expect(
            !FileManager.default.fileExists(atPath: folder.appending(path: "out-3.wav").path(percentEncoded: false)))
    }

    @Test func captureNamesNumberBeforeTheExtension() {
        #expect(WAVFileOutput.capturePath("/tmp/out.wav", number: 1) == "/tmp/out.wav")
        #expect(WAVFileOutput.capturePath("/tmp/out.wav", number: 2) == "/tmp/out-2.wav")
        #expect(WAVFileOutput.capturePath("/tmp/a.b/out", number: 3) == "/tmp/a.b/out-3")
        #expect(WAVFileOutput.capturePath(".hidden", number: 2) == ".hidden-2")
    }

    /// Taps asked 0.3 s apart right after a start, and again after 1.5 s idle, are 0.3 s apart in
    /// the capture: the first after the start is not a buffer early (it was, by a whole buffer,
    /// when the listener started at the first write: it landed on an empty buffer, the next ones
    /// behind a full one). A gap's refill (`aKilledProcessLeavesACompleteCapture`, whose timer
    /// really suspends) now queues a buffer for the same reason.
    @Test(arguments: [0, 1, 5])
    func theFirstTapAfterAStartOrAPauseKeepsTheInterval(ticksBeforeTheFirstTap: Int) throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "first.wav").path(percentEncoded: false)
        let clock = ManualClock()
        let ticks = ManualTickSource()
        let buffer = 4_800  // 100 ms, as a HAPTIC_OUTPUT capture has
        let file = try WAVFileOutput(path: path, format: AudioFormat(sampleRate: Self.rate, channels: 1))
        let engine = CHHapticEngine(
            output: PacedOutput(file, bufferFrames: buffer, clock: clock), clock: clock, ticks: ticks)
        func run(seconds: Double) {
            for _ in 0..<Int((seconds / 0.004).rounded()) {
                clock.advance(byNanoseconds: 4_000_000)
                ticks.tick()
            }
        }
        try engine.start()
        // The first tap before the engine's first tick, or after its first ticks (an app that
        // starts the engine, then plays).
        run(seconds: 0.004 * Double(ticksBeforeTheFirstTap))
        for _ in 0..<3 {
            try LifeCycleTests.tapNow(engine)
            run(seconds: 0.3)
        }
        run(seconds: 1.5)
        for _ in 0..<3 {
            try LifeCycleTests.tapNow(engine)
            run(seconds: 0.3)
        }
        engine.stop()
        let onsets = try Self.onsets(path)
        try #require(onsets.count == 6, "onsets \(onsets)")
        for index in [1, 2, 4, 5] {
            // Within a tick (4 ms) of 0.3 s.
            #expect(abs(onsets[index] - onsets[index - 1] - Self.rate * 3 / 10) <= 192, "onsets \(onsets)")
        }
    }

    /// An engine still playing when the process exits finds its capture closed under it by the
    /// exit hook. Its next write fails, and the engine stops, but the app's stopped handler is not
    /// called with a system error while its process exits: it was, in one exit of five or so
    /// (CypherPoet's performer with two engines, the second still running at exit).
    @Test func theExitHookTellsTheAppNothing() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "exit.wav").path(percentEncoded: false)
        let clock = ManualClock()
        let ticks = ManualTickSource()
        let file = try WAVFileOutput(path: path, format: AudioFormat(sampleRate: Self.rate, channels: 1))
        let engine = CHHapticEngine(
            output: PacedOutput(file, bufferFrames: 4_800, clock: clock), clock: clock, ticks: ticks)
        let reasons = Mutex<[CHHapticEngine.StoppedReason]>([])
        engine.stoppedHandler = { reason in reasons.withLock { $0.append(reason) } }
        func run(seconds: Double) {
            for _ in 0..<Int((seconds / 0.004).rounded()) {
                clock.advance(byNanoseconds: 4_000_000)
                ticks.tick()
            }
        }
        try engine.start()
        let buzz = CHHapticEvent(eventType: .hapticContinuous, parameters: [], relativeTime: 0, duration: 5)
        try engine.makePlayer(with: CHHapticPattern(events: [buzz], parameters: [])).start(
            atTime: CHHapticTimeImmediate)
        run(seconds: 0.5)
        OpenOutputs.closeAtExit(engine.engine)
        run(seconds: 0.5)
        // The engine stops on its callback queue: time for it to call the handler, if it would.
        Thread.sleep(forTimeInterval: 0.5)
        #expect(engine.engine.lastOutputError?.code == .closed)
        #expect(reasons.withLock { $0 } == [])
        // What the capture held at the close is kept.
        #expect(try Self.frameCounts(path).header >= Self.rate * 4 / 10)
    }

    /// A producer that stalls (no tick for 1 s) and an engine stopped for 1 s: both are silence
    /// in the capture, whose length is the wall time it recorded.
    @Test func aStalledProducerIsSilenceInTheCapture() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "stall.wav").path(percentEncoded: false)
        let clock = ManualClock()
        let ticks = ManualTickSource()
        let file = try WAVFileOutput(path: path, format: AudioFormat(sampleRate: Self.rate, channels: 1))
        let engine = CHHapticEngine(
            output: PacedOutput(file, bufferFrames: 960, clock: clock), clock: clock, ticks: ticks)
        func run(seconds: Double) {
            for _ in 0..<Int((seconds / 0.004).rounded()) {
                clock.advance(byNanoseconds: 4_000_000)
                ticks.tick()
            }
        }
        try engine.start()
        try LifeCycleTests.tapNow(engine)
        run(seconds: 0.5)
        clock.advance(byNanoseconds: 1_000_000_000)  // the tick thread stalls for 1 s
        try LifeCycleTests.tapNow(engine)
        run(seconds: 0.5)
        engine.stop()
        clock.advance(byNanoseconds: 1_000_000_000)  // stopped for 1 s
        try engine.start()
        try LifeCycleTests.tapNow(engine)
        run(seconds: 0.5)
        engine.stop()
        let onsets = try Self.onsets(path)
        try #require(onsets.count == 3, "onsets \(onsets)")
        // 1.5 s apart each (0.5 s played, 1 s of gap), within one 960-frame buffer.
        for (a, b) in zip(onsets, onsets.dropFirst()) {
            #expect(abs(b - a - Self.rate * 3 / 2) <= 960, "onsets \(onsets)")
        }
        // 3.5 s of wall time in all; the stop's fade and the last buffer's flush add at most 40 ms.
        let counts = try Self.frameCounts(path)
        #expect(abs(counts.header - Self.rate * 7 / 2) <= Self.rate / 25, "frames \(counts)")
    }
}

/// What a child of ``CaptureTests`` does, chosen by `HAPTICS_CAPTURE_CHILD`; nothing otherwise.
@Suite struct CaptureChild {
    static let variable = "HAPTICS_CAPTURE_CHILD"

    @Test func run() throws {
        switch ProcessInfo.processInfo.environment[Self.variable] {
        case "loop":
            // 1.5 s with nothing to play, a tap, 2.5 s with nothing to play, then a tap every 200 ms
            // until killed (20 s at most). The engine's timer is suspended before each of the
            // first two taps, so both land at once (no queued buffer ahead of either).
            let engine = try CHHapticEngine()
            try engine.start()
            usleep(1_500_000)
            try LifeCycleTests.tapNow(engine)
            usleep(2_500_000)
            for _ in 0..<100 {
                try LifeCycleTests.tapNow(engine)
                usleep(200_000)
            }
        case "two":
            // An engine made and released unstarted (a capability probe), then one tap on the
            // first engine started, two on the second; the process then exits with both alive.
            _ = try CHHapticEngine()
            let first = try CHHapticEngine()
            let second = try CHHapticEngine()
            try first.start()
            try second.start()
            try LifeCycleTests.tapNow(first)
            try LifeCycleTests.tapNow(second)
            usleep(300_000)
            try LifeCycleTests.tapNow(second)
            usleep(500_000)
            exit(0)
        default:
            return
        }
    }
}
