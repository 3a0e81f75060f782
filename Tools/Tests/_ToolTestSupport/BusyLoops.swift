import Foundation

/// A CPU load for timing tests and benchmarks: `count` shell busy loops
/// (`sh -c 'while :; do :; done'`), each keeping one core busy until ``stop()``.
///
/// ``stop()`` ends them with SIGKILL, not SIGTERM, and reaps them: a process spawned from a
/// test or worker thread inherits that thread's signal mask, in which SIGTERM may be blocked, so
/// a SIGTERM could leave the loop spinning and the wait hanging. Dropping the last reference stops
/// them too.
///
/// ```swift
/// let load = try BusyLoops(count: 2)  // both cores of a two-core machine busy
/// defer { load.stop() }
/// ```
package final class BusyLoops {
    private var processes: [Process] = []

    /// The process IDs of the running loops (empty once stopped).
    package var processIdentifiers: [Int32] { processes.map(\.processIdentifier) }

    /// Starts `count` busy-loop processes; `count` 0 starts none.
    ///
    /// - Throws: the error `Process.run()` reports if `/bin/sh` cannot be started; loops already
    ///   started are stopped first.
    package init(count: Int = 2) throws {
        for _ in 0..<count {
            let process = Process()
            process.executableURL = URL(filePath: "/bin/sh")
            process.arguments = ["-c", "while :; do :; done"]
            do {
                try process.run()
            } catch {
                stop()
                throw error
            }
            processes.append(process)
        }
    }

    /// Kills every loop with SIGKILL and waits until each has exited. Calling it again does nothing.
    package func stop() {
        for process in processes {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        processes.removeAll()
    }

    deinit { stop() }
}
