import ArgumentParser
import Dispatch
import Foundation
import HapticsCore
import HapticsEngine
import Synchronization
import _ToolTestSupport

// MARK: - Timer wake-ups while idle

extension Bench {
    /// Engine ticks per second with nothing playing (issue 12): the timer stops after
    /// `idleSuspendSeconds` and the next command starts it again.
    struct Idle: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Timer wake-ups per second while an engine is idle; fails above 0.")

        @OptionGroup var device: DeviceArguments
        @Option(help: "How long to count once the engine is idle.") var seconds = 10.0

        func run() throws {
            let ticks = CountingTicks(device.tickSource(label: "haptic-bench.idle"))
            let engine = HapticEngine(output: try device.open(), configuration: device.configuration, ticks: ticks)
            try engine.start()
            let tap = HapticPattern(elements: [.event(HapticEvent(time: 0, type: .hapticTransient))])
            let player = try engine.makePlayer(tap)
            try player.start(atTime: HapticEngine.timeImmediate)
            let hold = engine.configuration.idleSuspendSeconds ?? 0
            usleep(UInt32((hold + 0.5) * 1e6))
            let before = ticks.count
            let start = now()
            usleep(UInt32(seconds * 1e6))
            let idle = ticks.count - before
            let span = Double(now() - start) / 1e9
            // The next command wakes it: a tap played now must tick again.
            let beforeTap = ticks.count
            try player.start(atTime: HapticEngine.timeImmediate)
            usleep(100_000)
            let afterTap = ticks.count - beforeTap
            engine.stop()
            print(
                String(
                    format: "idle: %d timer wake-ups in %.1f s idle (%.2f/s); %d ticks in the 100 ms after a tap;"
                        + " tick %.1f ms; underruns %d",
                    idle, span, Double(idle) / span, afterTap, Double(engine.tickIntervalNanoseconds) / 1e6,
                    engine.underrunCount))
            guard idle == 0, afterTap > 0 else { throw ExitCode.failure }
        }
    }
}

/// Forwards to another tick source and counts the handler's calls.
final class CountingTicks: TickSource {
    let inner: any TickSource
    private let calls = Atomic<Int>(0)

    init(_ inner: any TickSource) { self.inner = inner }

    var count: Int { calls.load(ordering: .relaxed) }

    func start(intervalNanoseconds: UInt64, handler: @escaping @Sendable () -> Void) {
        inner.start(intervalNanoseconds: intervalNanoseconds) { [self] in
            calls.add(1, ordering: .relaxed)
            handler()
        }
    }
    func stop() { inner.stop() }
    func kick() { inner.kick() }
    func suspend() { inner.suspend() }
    func resume() { inner.resume() }
}

// MARK: - The studio's wake-ups while idle

extension Bench {
    /// Wake-ups and CPU of an idle `haptic studio` with a file open (issue 26): a real `haptic
    /// studio` process serving a folder, one pattern fetched as the page does (so the studio
    /// watches it), then its threads' context switches and CPU time counted from /proc while
    /// nothing happens. A watcher that polls wakes the process at its polling rate.
    struct StudioIdle: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "studio-idle",
            abstract: "Wake-ups per second and CPU of an idle `haptic studio` watching an open file.")

        @Option(help: "The haptic executable to run.") var haptic = "Tools/.build/release/haptic"
        @Option(help: "How long to count once the studio is idle.") var seconds = 10.0

        func run() throws {
            let (haptic, seconds) = (haptic, seconds)
            let figures = try waitForTask { try await Self.measure(haptic: haptic, seconds: seconds) }
            print(
                String(
                    format: "studio idle: %d wake-ups in %.1f s (%.2f/s), %.2f ms CPU (%.3f%% of a core)",
                    figures.wakeups, seconds, Double(figures.wakeups) / seconds, figures.cpuMilliseconds,
                    figures.cpuMilliseconds / (seconds * 10)))
        }

        static func measure(haptic: String, seconds: Double) async throws -> (wakeups: Int, cpuMilliseconds: Double) {
            let folder = FileManager.default.temporaryDirectory.appending(path: "studio-idle-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try Data(#"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}}]}"#.utf8)
                .write(to: folder.appending(path: "tap.ahap"))
            let studio = try await ChildProcess.start(
                haptic, ["studio", folder.path(percentEncoded: false), "--device", "null", "--port", "0"])
            defer { studio.signal(SIGKILL) }
            guard
                await studio.waitForOutput(timeout: .seconds(30), { studio.interleaved.contains("#token=") }),
                let line = studio.interleaved.split(separator: "\n").first(where: { $0.contains("#token=") }),
                let address = URL(string: line.trimmingCharacters(in: .whitespaces)), let port = address.port,
                let token = address.fragment()?.replacingOccurrences(of: "token=", with: "")
            else { throw ValidationError("haptic studio printed no address: \(studio.interleaved)") }
            let opened = try await RawHTTP.request(
                port: port, method: "GET", target: "/api/pattern?path=\(folder.lastPathComponent)/tap.ahap",
                headers: [("Host", "127.0.0.1:\(port)"), ("X-Studio-Token", token)])
            guard opened.status == 200 else {
                throw ValidationError("GET /api/pattern: \(opened.status) \(opened.text)")
            }
            try await Task.sleep(for: .seconds(1))
            let pid = studio.processIdentifier
            let before = try counters(pid)
            try await Task.sleep(for: .milliseconds(Int(seconds * 1000)))
            let after = try counters(pid)
            return (
                after.switches - before.switches,
                Double(after.ticks - before.ticks) * 1000 / Double(sysconf(Int32(_SC_CLK_TCK)))
            )
        }

        /// The process's context switches (every thread's, voluntary and not) and CPU ticks.
        static func counters(_ pid: pid_t) throws -> (switches: Int, ticks: Int) {
            var switches = 0
            for task in try FileManager.default.contentsOfDirectory(atPath: "/proc/\(pid)/task") {
                let status = try String(contentsOfFile: "/proc/\(pid)/task/\(task)/status", encoding: .utf8)
                for line in status.split(separator: "\n") where line.contains("ctxt_switches:") {
                    switches += Int(line.split(separator: "\t").last.map(String.init) ?? "") ?? 0
                }
            }
            let stat = try String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
            // After the parenthesised command name: field 14 (utime) and 15 (stime), 1-based.
            let fields = stat.split(separator: ")").last?.split(separator: " ") ?? []
            let ticks =
                (Int(fields.count > 12 ? fields[11] : "") ?? 0) + (Int(fields.count > 12 ? fields[12] : "") ?? 0)
            return (switches, ticks)
        }
    }
}

/// Runs `body` on Swift's concurrency pool and waits for it on this (the main) thread.
func waitForTask<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result) throws -> Result {
    let outcome = Mutex<Swift.Result<Result, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            let value = try await body()
            outcome.withLock { $0 = .success(value) }
        } catch {
            outcome.withLock { $0 = .failure(error) }
        }
        done.signal()
    }
    done.wait()
    return try outcome.withLock { $0! }.get()
}
