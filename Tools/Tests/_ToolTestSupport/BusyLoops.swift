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
///
/// Synchronous (haptic-bench's commands run on the main thread), so they start through
/// ``TestProcess``, not the async ``ChildProcess``.
package final class BusyLoops {
    private var processes: [TestProcess] = []

    /// The process IDs of the running loops (empty once stopped).
    package var processIdentifiers: [Int32] { processes.map(\.processIdentifier) }

    /// Starts `count` busy-loop processes; `count` 0 starts none.
    ///
    /// - Throws: the error `Process.run()` reports if `/bin/sh` cannot be started (through
    ///   ``TestProcess``); loops already started are stopped first.
    package init(count: Int = 2) throws {
        for _ in 0..<count {
            do {
                processes.append(try TestProcess.start(URL(filePath: "/bin/sh"), ["-c", "while :; do :; done"]))
            } catch {
                stop()
                throw error
            }
        }
    }

    /// Kills every loop with SIGKILL and waits until each has exited. Calling it again does nothing.
    package func stop() {
        for process in processes {
            process.signal(SIGKILL)
            _ = process.wait()
        }
        processes.removeAll()
    }

    deinit { stop() }
}
