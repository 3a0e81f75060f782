import Foundation
import Synchronization
import Testing

/// A running `haptic` whose standard error is read as it arrives.
final class LiveHaptic: Sendable {
    /// Standard error so far, appended to by the pipe's reader thread.
    final class Collected: Sendable {
        let text = Mutex("")
    }

    let process = Process()
    private let stderr = Collected()
    private let arrived = DispatchSemaphore(value: 0)

    /// Starts `haptic arguments`; with `standardOutputToo`, standard output is collected with
    /// standard error (`haptic studio` prints its address there).
    init(_ arguments: [String], standardOutputToo: Bool = false) throws {
        process.executableURL = Haptic.executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardError = pipe
        process.standardOutput = standardOutputToo ? pipe : FileHandle.nullDevice
        pipe.fileHandleForReading.readabilityHandler = { [stderr, arrived] handle in
            let data = handle.availableData
            guard !data.isEmpty else {
                handle.readabilityHandler = nil
                return
            }
            stderr.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
            arrived.signal()
        }
        try process.run()
    }

    func kill() {
        if process.isRunning { _ = Foundation.kill(process.processIdentifier, SIGKILL) }
    }

    var text: String { stderr.text.withLock { $0 } }

    /// Waits (event-driven, up to `seconds`) until standard error contains `needle` `count` times.
    func waitFor(_ needle: String, count: Int = 1, seconds: Double = 20) -> Bool {
        let deadline = DispatchTime.now() + seconds
        while text.components(separatedBy: needle).count - 1 < count {
            if arrived.wait(timeout: deadline) == .timedOut {
                return text.components(separatedBy: needle).count - 1 >= count
            }
        }
        return true
    }

    /// SIGINT, then the exit status (SIGKILL if it does not exit within 10 s: a child spawned
    /// from a test thread inherits that thread's blocked signals, SIGTERM included).
    func interrupt() -> Int32 { send(SIGINT) }

    /// Sends `signal`, then returns the exit status (SIGKILL if it does not exit within 10 s).
    func send(_ signal: Int32) -> Int32 {
        _ = Foundation.kill(process.processIdentifier, signal)
        let exited = DispatchSemaphore(value: 0)
        process.terminationHandler = { _ in exited.signal() }
        if process.isRunning, exited.wait(timeout: .now() + 10) == .timedOut { kill() }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// `haptic play --watch` on ALSA's `null` device: plays, reports a broken save, plays the fix,
/// and exits 130 on Ctrl-C.
struct PlayWatchTests {
    static let valid = """
        {"Version": 1.0, "Pattern": [{"Event": {"Time": 0.0, "EventType": "HapticTransient"}}]}
        """
    static let invalid = """
        {"Version": 1.0, "Pattern": [{"Event": {"Time": -1.0, "EventType": "HapticTransient"}}]}
        """

    @Test(.timeLimit(.minutes(1))) func watchPlaysEverySaveAndReportsErrorsWithoutExiting() throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("tap.ahap", Self.valid)
        let haptic = try LiveHaptic(["play", "--watch", "--device", "null", file])
        defer { haptic.kill() }
        #expect(haptic.waitFor("haptic: watching \(file): every save plays it again; Ctrl-C stops\n"))
        #expect(haptic.waitFor("playing \(file) (0.000 s)\n"))
        #expect(haptic.waitFor("haptic: waiting for the next save of \(file)\n"))

        // An in-place save that breaks the file.
        try Data(Self.invalid.utf8).write(to: URL(filePath: file))
        #expect(haptic.waitFor("haptic: not playing \(file) until it is fixed; still watching\n"))
        #expect(haptic.text.contains("\(file):Pattern[0].Event.Time: error["))
        #expect(haptic.process.isRunning)

        // The fix, saved the way editors do: a new file renamed over the old one.
        try Data(Self.valid.utf8).write(to: URL(filePath: file), options: .atomic)
        #expect(haptic.waitFor("playing \(file) (0.000 s)\n", count: 2))
        // Ctrl-C once it waits again (a SIGINT while playback is starting is LivePlayback's to handle).
        #expect(haptic.waitFor("haptic: waiting for the next save of \(file)\n", count: 3))

        #expect(haptic.interrupt() == 130)
        let lines = haptic.text.split(separator: "\n")
        #expect(lines.count { $0.hasPrefix("playing ") } == 2)
        #expect(lines.count { $0.hasPrefix("haptic: not playing ") } == 1)
    }

    /// Every stop signal ends the command through one path, with the shell's status for it.
    @Test(.timeLimit(.minutes(1)), arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143)), (SIGHUP, Int32(129))])
    func stopSignalsExitWith128PlusTheSignal(signal: Int32, status: Int32) throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("tap.ahap", Self.valid)
        let haptic = try LiveHaptic(["play", "--watch", "--device", "null", file])
        defer { haptic.kill() }
        #expect(haptic.waitFor("haptic: waiting for the next save of \(file)\n"))
        #expect(haptic.send(signal) == status)
    }

    @Test func watchAndLoopDoNotCombine() throws {
        let result = try Haptic.run(["play", "--watch", "--loop", "x.ahap"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--loop and --watch cannot be combined"))
    }
}
