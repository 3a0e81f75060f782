package import Foundation
import Synchronization

/// Every process the root package's tests start: Foundation's `Process` (the libraries' package
/// depends on nothing beyond swift-collections and swift-system, so no process library), with
/// both output streams drained on threads of their own as they arrive, so a chatty child never
/// blocks on a full pipe and a test can read what it has printed so far. Synchronous; also
/// linked into the Tools package's _ToolTestSupport, for the rig and one-shot Chromium there.
///
/// ``run(_:_:in:environment:mergingErrors:)`` runs to the end; ``start(_:_:in:environment:mergingErrors:)``
/// returns at once, for tests that signal the child or read it while it runs.
package final class TestProcess {
    /// How a child ended and what it printed.
    package struct Result: Sendable {
        /// The exit code, or the number of the signal that ended it.
        package var status: Int32
        /// Whether a signal ended it (then `status` is the signal's number).
        package var signalled: Bool
        package var stdout: [UInt8]
        /// Standard error (empty when it was merged into standard output).
        package var stderr: String
        package var output: String { String(decoding: stdout, as: UTF8.self) }
    }

    private struct Streams {
        var stdout: [UInt8] = []
        var stderr: [UInt8] = []
    }

    /// What the drain threads fill.
    private final class Buffers: Sendable {
        let streams = Mutex(Streams())
    }

    private let process: Process
    private let buffers = Buffers()
    private let arrived = DispatchSemaphore(value: 0)
    private let drained = DispatchGroup()

    private init(process: Process) { self.process = process }

    /// Starts `executable` with `arguments`, standard input empty; with `mergingErrors`, standard
    /// error goes into standard output (as `2>&1` would).
    package static func start(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil,
        mergingErrors: Bool = false
    ) throws -> TestProcess {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if let environment { process.environment = environment }
        let output = Pipe()
        let errors = mergingErrors ? output : Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        let child = TestProcess(process: process)
        try process.run()
        child.drain(output.fileHandleForReading, toError: false)
        if !mergingErrors { child.drain(errors.fileHandleForReading, toError: true) }
        return child
    }

    /// Runs `executable` to its end (see ``start(_:_:in:environment:mergingErrors:)``).
    package static func run(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, environment: [String: String]? = nil,
        mergingErrors: Bool = false
    ) throws -> Result {
        try start(executable, arguments, in: directory, environment: environment, mergingErrors: mergingErrors)
            .wait()
    }

    /// Reads `handle` to its end on a thread of its own: a Dispatch worker blocked in the read
    /// would hold one of the few threads Swift's executor shares with Dispatch on Linux
    /// (`onOwnThread`).
    private func drain(_ handle: FileHandle, toError: Bool) {
        drained.enter()
        Thread { [buffers, arrived, drained] in
            while true {
                let chunk = handle.availableData
                if chunk.isEmpty { break }
                buffers.streams.withLock { if toError { $0.stderr += chunk } else { $0.stdout += chunk } }
                arrived.signal()
            }
            arrived.signal()
            drained.leave()
        }.start()
    }

    package var processIdentifier: pid_t { process.processIdentifier }
    package var isRunning: Bool { process.isRunning }
    /// Standard output so far.
    package var stdout: [UInt8] { buffers.streams.withLock { $0.stdout } }

    /// Sends `signal` if the child still runs.
    package func signal(_ signal: Int32) {
        if process.isRunning { kill(process.processIdentifier, signal) }
    }

    /// Waits up to `seconds` until `condition` (which reads the output so far) holds, checking it
    /// after each arrival of output; false if the time passes or the output ends first.
    package func waitForOutput(seconds: Double, _ condition: () -> Bool) -> Bool {
        let deadline = DispatchTime.now() + seconds
        while !condition() {
            guard arrived.wait(timeout: deadline) == .success else { return condition() }
            if !process.isRunning && drained.wait(timeout: .now()) == .success { return condition() }
        }
        return true
    }

    /// Waits for the child to exit and its streams to end.
    package func wait() -> Result {
        process.waitUntilExit()
        drained.wait()
        return buffers.streams.withLock {
            Result(
                status: process.terminationStatus, signalled: process.terminationReason == .uncaughtSignal,
                stdout: $0.stdout, stderr: String(decoding: $0.stderr, as: UTF8.self))
        }
    }
}
