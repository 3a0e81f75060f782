import Foundation
import Subprocess
import Synchronization

#if canImport(System)
    import System
#else
    import SystemPackage
#endif

/// Every process the Tools tests start, through swift-subprocess: one place that feeds standard
/// input, drains both output streams as they arrive (so a chatty child never blocks on a full
/// pipe), sends signals through the process's descriptor (never a recycled process id), and
/// bounds a run that must not hang.
///
/// ``run(_:_:input:in:environment:killAfter:)`` runs to the end and returns what it printed;
/// ``start(_:_:input:in:environment:)`` returns once the child runs, for tests that watch it, signal
/// it or kill it mid-flight, and ``wait()`` then collects its status.
package final class ChildProcess: Sendable {
    /// How a child ended and what it printed.
    package struct Result: Sendable {
        /// The exit code, or the number of the signal that ended it (as Foundation's `Process`
        /// reports it: 9 for SIGKILL).
        package var status: Int32
        /// The signal that ended it, nil when it exited.
        package var signal: Int32?
        package var stdout: [UInt8]
        package var stderr: String
        package var output: String { String(decoding: stdout, as: UTF8.self) }
    }

    private typealias Running = Execution<CustomWriteInput, SequenceOutput, SequenceOutput>

    private struct State {
        var stdout: [UInt8] = []
        var stderr: [UInt8] = []
        /// Both streams in the order they arrived.
        var interleaved: [UInt8] = []
        var execution: Running?
        var ended = false
        /// Waiters for more output (or the end), resumed on every arrival.
        var waiters: [UUID: CheckedContinuation<Void, Never>] = [:]
    }

    /// The child's process id, for tests that look it up in /proc.
    package let processIdentifier: Int32
    private let shared: Shared
    private let task: Task<TerminationStatus, any Error>

    private init(processIdentifier: Int32, shared: Shared, task: Task<TerminationStatus, any Error>) {
        self.processIdentifier = processIdentifier
        self.shared = shared
        self.task = task
    }

    /// Starts `executable` (a path, or a name looked up on PATH) with `arguments`; `input` is
    /// written to its standard input, which is then closed. Returns once the child is running.
    /// With `ownProcessGroup`, the child leads a process group of its own, so that
    /// ``signal(_:group:)`` reaches the processes it starts too (a browser's helpers, which hold
    /// its output streams open).
    package static func start(
        _ executable: String, _ arguments: [String], input: [UInt8] = [], in directory: String? = nil,
        environment: [String: String]? = nil, ownProcessGroup: Bool = false
    ) async throws -> ChildProcess {
        var options = PlatformOptions()
        if ownProcessGroup { options.processGroupID = 0 }
        let shared = Shared()
        let started = AsyncThrowingStream<pid_t, any Error>.makeStream()
        let task = Task<TerminationStatus, any Error> {
            do {
                let result = try await Subprocess.run(
                    executable.contains("/") ? .path(FilePath(executable)) : .name(executable),
                    arguments: Arguments(arguments),
                    environment: environment.map { variables in
                        Environment.custom(
                            Dictionary(uniqueKeysWithValues: variables.map { (Environment.Key(stringLiteral: $0), $1) })
                        )
                    } ?? .inherit,
                    workingDirectory: directory.map { FilePath($0) }, platformOptions: options,
                    input: .inputWriter, output: .sequence, error: .sequence
                ) { execution in
                    shared.state.withLock { $0.execution = execution }
                    started.continuation.yield(execution.processIdentifier.value)
                    started.continuation.finish()
                    try await withThrowingTaskGroup { group in
                        group.addTask {
                            if !input.isEmpty { _ = try? await execution.standardInputWriter.write(input) }
                            try? await execution.standardInputWriter.finish()
                        }
                        group.addTask {
                            for try await buffer in execution.standardOutput {
                                shared.append(buffer.withUnsafeBytes { Array($0) }, toError: false)
                            }
                        }
                        group.addTask {
                            for try await buffer in execution.standardError {
                                shared.append(buffer.withUnsafeBytes { Array($0) }, toError: true)
                            }
                        }
                        try await group.waitForAll()
                    }
                    shared.end()
                }
                shared.end()
                return result.terminationStatus
            } catch {
                started.continuation.finish(throwing: error)
                shared.end()
                throw error
            }
        }
        var iterator = started.stream.makeAsyncIterator()
        guard let pid = try await iterator.next() else { throw CancellationError() }
        return ChildProcess(processIdentifier: pid, shared: shared, task: task)
    }

    /// Runs `executable` to its end. With `killAfter`, a run still going after that long is
    /// killed with SIGKILL (status 9), so a test of something that must not hang fails instead.
    package static func run(
        _ executable: String, _ arguments: [String], input: [UInt8] = [], in directory: String? = nil,
        environment: [String: String]? = nil, killAfter: Duration? = nil
    ) async throws -> Result {
        let child = try await start(executable, arguments, input: input, in: directory, environment: environment)
        guard let killAfter else { return try await child.wait() }
        let watchdog = Task {
            try await Task.sleep(for: killAfter)
            child.signal(SIGKILL)
        }
        defer { watchdog.cancel() }
        return try await child.wait()
    }

    /// Sends `signal` to the child while it runs (with `group`, to its whole process group: see
    /// `ownProcessGroup`); does nothing once it has ended.
    package func signal(_ signal: Int32, group: Bool = false) {
        shared.state.withLock { state in
            guard !state.ended, let execution = state.execution else { return }
            try? execution.send(signal: Signal(rawValue: signal), toProcessGroup: group)
        }
    }

    /// Standard output so far.
    package var stdout: [UInt8] { shared.state.withLock { $0.stdout } }
    /// Standard error so far, as text.
    package var stderr: String { shared.state.withLock { String(decoding: $0.stderr, as: UTF8.self) } }
    /// Both streams so far, as text, in the order they arrived.
    package var interleaved: String { shared.state.withLock { String(decoding: $0.interleaved, as: UTF8.self) } }
    /// Whether the child's streams are still open (it has not ended).
    package var isRunning: Bool { shared.state.withLock { !$0.ended } }

    /// Waits, event-driven, up to `timeout` until `condition` (which reads the output so far) holds:
    /// it is checked after each arrival of output. True when it holds; false once the child ends or
    /// `timeout` passes without it.
    package func waitForOutput(timeout: Duration, _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        let ticker = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: .milliseconds(200))
                self?.wake()
            }
        }
        defer { ticker.cancel() }
        while true {
            if condition() { return true }
            if !isRunning || ContinuousClock.now >= deadline { return condition() }
            let id = UUID()
            await withCheckedContinuation { continuation in
                let resumeNow = shared.state.withLock { state -> Bool in
                    if state.ended { return true }
                    state.waiters[id] = continuation
                    return false
                }
                if resumeNow { continuation.resume() }
            }
        }
    }

    private func wake() {
        let waiters = shared.state.withLock { state in
            defer { state.waiters.removeAll() }
            return state.waiters.values
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits for the child to end; its status and everything it printed.
    package func wait() async throws -> Result {
        let status = try await task.value
        return shared.state.withLock { state in
            switch status {
            case .exited(let code):
                Result(
                    status: code, signal: nil, stdout: state.stdout,
                    stderr: String(decoding: state.stderr, as: UTF8.self))
            case .signaled(let signal):
                Result(
                    status: signal, signal: signal, stdout: state.stdout,
                    stderr: String(decoding: state.stderr, as: UTF8.self))
            }
        }
    }

    /// Kills the child (SIGKILL) if it still runs, and waits for it.
    package func kill() async {
        signal(SIGKILL)
        _ = try? await task.value
    }

    /// The state the run's task and the handle share.
    private final class Shared: Sendable {
        let state = Mutex(State())

        func append(_ bytes: [UInt8], toError: Bool) {
            let waiters = state.withLock { state in
                if toError { state.stderr += bytes } else { state.stdout += bytes }
                state.interleaved += bytes
                defer { state.waiters.removeAll() }
                return state.waiters.values
            }
            for waiter in waiters { waiter.resume() }
        }

        func end() {
            let waiters = state.withLock { state in
                state.ended = true
                state.execution = nil
                defer { state.waiters.removeAll() }
                return state.waiters.values
            }
            for waiter in waiters { waiter.resume() }
        }
    }
}
