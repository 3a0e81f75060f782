import Foundation
import Testing
import _ToolTestSupport

/// A running `haptic` whose standard error is read as it arrives.
final class LiveHaptic: Sendable {
    let child: ChildProcess
    private let standardOutputToo: Bool

    /// Starts `haptic arguments`; with `standardOutputToo`, standard output is read with standard
    /// error (`haptic studio` prints its address there).
    init(_ arguments: [String], standardOutputToo: Bool = false) async throws {
        child = try await ChildProcess.start(Haptic.executable.path(percentEncoded: false), arguments)
        self.standardOutputToo = standardOutputToo
    }

    /// SIGKILL, not waited for (for `defer`).
    func kill() { child.signal(SIGKILL) }

    var isRunning: Bool { child.isRunning }

    /// Standard error so far (with standard output, in arrival order, for `standardOutputToo`).
    var text: String { standardOutputToo ? child.interleaved : child.stderr }

    /// Waits (event-driven, up to `seconds`) until `text` contains `needle` `count` times.
    func waitFor(_ needle: String, count: Int = 1, seconds: Double = 20) async -> Bool {
        await child.waitForOutput(timeout: .milliseconds(Int(seconds * 1000))) {
            text.components(separatedBy: needle).count - 1 >= count
        }
    }

    /// SIGINT, then the exit status (SIGKILL if it does not exit within 10 s: a child spawned
    /// from a test thread inherits that thread's blocked signals, SIGTERM included).
    func interrupt() async throws -> Int32 { try await send(SIGINT) }

    /// Sends `signal`, then returns the exit status (SIGKILL if it does not exit within 10 s).
    func send(_ signal: Int32) async throws -> Int32 {
        child.signal(signal)
        return try await wait(seconds: 10)
    }

    /// The exit status once it exits (SIGKILL after `seconds`).
    func wait(seconds: Double = 20) async throws -> Int32 {
        let child = child
        let watchdog = Task {
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            child.signal(SIGKILL)
        }
        defer { watchdog.cancel() }
        return try await child.wait().status
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

    @Test(.timeLimit(.minutes(1))) func watchPlaysEverySaveAndReportsErrorsWithoutExiting() async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("tap.ahap", Self.valid)
        let haptic = try await LiveHaptic(["play", "--watch", "--device", "null", file])
        defer { haptic.kill() }
        #expect(await haptic.waitFor("haptic: watching \(file): every save plays it again; Ctrl-C stops\n"))
        #expect(await haptic.waitFor("playing \(file) (0.000 s)\n"))
        #expect(await haptic.waitFor("haptic: waiting for the next save of \(file)\n"))

        // An in-place save that breaks the file.
        try Data(Self.invalid.utf8).write(to: URL(filePath: file))
        #expect(await haptic.waitFor("haptic: not playing \(file) until it is fixed; still watching\n"))
        #expect(haptic.text.contains("\(file):Pattern[0].Event.Time: error["))
        #expect(haptic.isRunning)

        // The fix, saved the way editors do: a new file renamed over the old one.
        try Data(Self.valid.utf8).write(to: URL(filePath: file), options: .atomic)
        #expect(await haptic.waitFor("playing \(file) (0.000 s)\n", count: 2))
        // Ctrl-C once it waits again (a SIGINT while playback is starting is LivePlayback's to handle).
        #expect(await haptic.waitFor("haptic: waiting for the next save of \(file)\n", count: 3))

        #expect(try await haptic.interrupt() == 130)
        let lines = haptic.text.split(separator: "\n")
        #expect(lines.count { $0.hasPrefix("playing ") } == 2)
        #expect(lines.count { $0.hasPrefix("haptic: not playing ") } == 1)
    }

    /// Every stop signal ends the command through one path, with the shell's status for it.
    @Test(.timeLimit(.minutes(1)), arguments: [(SIGINT, Int32(130)), (SIGTERM, Int32(143)), (SIGHUP, Int32(129))])
    func stopSignalsExitWith128PlusTheSignal(signal: Int32, status: Int32) async throws {
        let scratch = try ScratchFolder()
        let file = try scratch.write("tap.ahap", Self.valid)
        let haptic = try await LiveHaptic(["play", "--watch", "--device", "null", file])
        defer { haptic.kill() }
        #expect(await haptic.waitFor("haptic: waiting for the next save of \(file)\n"))
        #expect(try await haptic.send(signal) == status)
    }

    @Test func watchAndLoopDoNotCombine() async throws {
        let result = try await Haptic.run(["play", "--watch", "--loop", "x.ahap"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--loop and --watch cannot be combined"))
    }
}
