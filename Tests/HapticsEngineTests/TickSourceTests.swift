import Dispatch
import Foundation
import HapticsEngine
import Synchronization
import Testing

/// The engine's default tick source, against `TickSource`'s contract: periodic calls, a kick in
/// order and never concurrent, no calls at all while suspended, nothing after `stop()` returns.
/// Bounds are loose enough for a loaded two-core CI machine: the test counts and orders, it does
/// not time.
@Suite(.serialized) struct TickSourceTests {
    /// Handler calls, with a check that no two ever overlap.
    final class Calls: Sendable {
        let count = Atomic<Int>(0)
        let inside = Atomic<Int>(0)
        let overlapped = Atomic<Bool>(false)
        let threads = Mutex<Set<UInt>>([])

        func record(sleeping microseconds: UInt32 = 0) {
            if inside.add(1, ordering: .acquiringAndReleasing).newValue > 1 {
                overlapped.store(true, ordering: .relaxed)
            }
            threads.withLock {
                _ = $0.insert(UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(bitPattern: pthread_self()))))
            }
            if microseconds > 0 { usleep(microseconds) }
            count.add(1, ordering: .relaxed)
            inside.subtract(1, ordering: .acquiringAndReleasing)
        }

        var value: Int { count.load(ordering: .relaxed) }
        var didOverlap: Bool { overlapped.load(ordering: .relaxed) }
    }

    @Test(.timeLimit(.minutes(1))) func ticksAtThePeriodOnOneThreadOnTheQueue() async throws {
        let source = ThreadTickSource(label: "test.ticks")
        let calls = Calls()
        let queue = source.queue
        source.start(intervalNanoseconds: 5_000_000) {
            dispatchPrecondition(condition: .onQueue(queue))
            calls.record()
        }
        let started = ContinuousClock.now
        try await Task.sleep(for: .microseconds(400_000))
        source.stop()
        let counted = calls.value
        let elapsed = ContinuousClock.now - started
        let periods = Int(elapsed / .milliseconds(5))
        // One call per 5 ms period; a starved CI machine may run fewer, never more than the
        // periods that passed (plus the first, at once).
        #expect(counted >= periods / 4 && counted <= periods + 2, "\(counted) ticks in \(elapsed) at 5 ms")
        #expect(calls.threads.withLock { $0.count } == 1, "one tick thread")
        #expect(!calls.didOverlap)
        try await Task.sleep(for: .microseconds(50_000))
        #expect(calls.value == counted, "no call after stop() returned")
    }

    @Test(.timeLimit(.minutes(1))) func suspendedMakesNoCallsAndAKickStillRunsOnce() async throws {
        let source = ThreadTickSource(label: "test.suspend")
        let calls = Calls()
        source.start(intervalNanoseconds: 2_000_000) { calls.record() }
        try await Task.sleep(for: .microseconds(50_000))
        source.suspend()
        try await Task.sleep(for: .microseconds(20_000))
        let before = calls.value
        try await Task.sleep(for: .microseconds(200_000))
        #expect(calls.value == before, "no calls while suspended")
        source.kick()
        try await Task.sleep(for: .microseconds(50_000))
        #expect(calls.value == before + 1, "a kick runs the handler once")
        source.resume()
        try await Task.sleep(for: .microseconds(50_000))
        #expect(calls.value > before + 3, "resumed: ticking again")
        source.stop()
    }

    @Test(.timeLimit(.minutes(1))) func kicksNeverOverlapTicksAndStopWaitsForARunningOne() async throws {
        let source = ThreadTickSource(label: "test.kick")
        let calls = Calls()
        let finished = Atomic<Int>(0)
        source.start(intervalNanoseconds: 1_000_000) {
            calls.record(sleeping: 3_000)
            finished.add(1, ordering: .relaxed)
        }
        for _ in 0..<50 {
            source.kick()
            try await Task.sleep(for: .microseconds(500))
        }
        source.stop()
        let done = finished.load(ordering: .relaxed)
        #expect(!calls.didOverlap, "never two calls at once")
        #expect(calls.value == done, "stop() returned after the running call finished")
        try await Task.sleep(for: .microseconds(30_000))
        #expect(calls.value == done)
    }

    @Test(.timeLimit(.minutes(1))) func stopFromInsideATickAndStartAgain() async throws {
        let source = ThreadTickSource(label: "test.inside")
        let calls = Calls()
        let stopped = DispatchSemaphore(value: 0)
        source.start(intervalNanoseconds: 1_000_000) {
            calls.record()
            if calls.value == 3 {
                source.stop()
                stopped.signal()
            }
        }
        #expect(await offPoolWait(stopped))
        try await Task.sleep(for: .microseconds(30_000))
        #expect(calls.value == 3, "no tick after stop(), even from inside one")
        source.start(intervalNanoseconds: 1_000_000) { calls.record() }
        try await Task.sleep(for: .microseconds(50_000))
        source.stop()
        #expect(calls.value > 5, "a stopped source starts again")
    }
}

/// Waits for `semaphore` (up to 10 s) on a thread of its own: on Linux a Dispatch worker blocked
/// in the wait would hold one of the threads Swift's executor shares with Dispatch.
func offPoolWait(_ semaphore: DispatchSemaphore) async -> Bool {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: semaphore.wait(timeout: .now() + 10) == .success) }.start()
    }
}
