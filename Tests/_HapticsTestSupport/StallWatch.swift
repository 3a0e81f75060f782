import Foundation
import Synchronization

/// How long the machine held a thread of its own that sleeps 1 ms at a time: the longest time
/// past a wake-up's deadline until ``stop()``.
///
/// A real-time test's verdict depends on the machine: on a virtual machine the hypervisor stops
/// the cores now and then (steal time), and a stall longer than the device buffer is heard as a
/// gap whatever the player does. A test reads this to tell such a stall from a fault of ours.
package final class StallWatch: Sendable {
    private let state = Mutex<(running: Bool, worstNanoseconds: UInt64)>((true, 0))
    private let done = DispatchSemaphore(value: 0)

    package init() {
        let thread = Thread { [self] in
            while state.withLock({ $0.running }) {
                let deadline = DispatchTime.now().uptimeNanoseconds + 1_000_000
                usleep(1_000)
                let now = DispatchTime.now().uptimeNanoseconds
                let late = now > deadline ? now - deadline : 0
                state.withLock { $0.worstNanoseconds = max($0.worstNanoseconds, late) }
            }
            done.signal()
        }
        thread.start()
    }

    /// Stops watching; returns the longest stall seen, in milliseconds.
    package func stop() -> Double {
        state.withLock { $0.running = false }
        done.wait()
        return Double(state.withLock { $0.worstNanoseconds }) / 1e6
    }
}

/// Runs `body` until a run in which the machine never stalled for `bound` milliseconds or more
/// (``StallWatch``), at most `attempts` times, and returns that run's value. A real-time test
/// judges only such a run: a stall as long as the device buffer is heard as a gap whatever the
/// player does, while a fault of ours shows in every run.
///
/// - Throws: ``MachineStalled`` when every attempt saw a stall.
package func onAStillMachine<T>(
    attempts: Int = 6, stallsBelow bound: Double, _ body: () async throws -> T
) async throws -> T {
    var stalls: [Double] = []
    for attempt in 1...max(1, attempts) {
        let watch = StallWatch()
        let value = try await body()
        let stalled = watch.stop()
        if stalled < bound {
            // The judged run's own stall goes to the log, so a failure on a still run can be told
            // from one on a run that only just passed the bound.
            let earlier = stalls.map { String(format: "%.1f ms", $0) }.joined(separator: ", ")
            FileHandle.standardError.write(
                Data(
                    (String(format: "onAStillMachine: attempt %d judged, its longest stall %.1f ms", attempt, stalled)
                        + (earlier.isEmpty ? "" : " (earlier attempts: \(earlier))") + "\n").utf8))
            return value
        }
        stalls.append(stalled)
    }
    throw MachineStalled(stalls: stalls, bound: bound)
}

/// Every attempt of ``onAStillMachine(attempts:stallsBelow:_:)`` saw the machine stall.
package struct MachineStalled: Error, CustomStringConvertible {
    package var stalls: [Double]
    package var bound: Double

    package var description: String {
        let each = stalls.map { String(format: "%.1f ms", $0) }.joined(separator: ", ")
        return "the machine stalled in every attempt (\(each); judged only below \(bound) ms)"
    }
}
