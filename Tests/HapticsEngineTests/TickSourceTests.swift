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

    @Test(.timeLimit(.minutes(1))) func ticksAtThePeriodOnOneThreadOnTheQueue() {
        let source = ThreadTickSource(label: "test.ticks")
        let calls = Calls()
        let queue = source.queue
        source.start(intervalNanoseconds: 5_000_000) {
            dispatchPrecondition(condition: .onQueue(queue))
            calls.record()
        }
        usleep(400_000)
        source.stop()
        let counted = calls.value
        // 80 periods in 400 ms; a starved CI machine may run fewer, never many more.
        #expect(counted >= 20 && counted <= 90, "\(counted) ticks in 400 ms at 5 ms")
        #expect(calls.threads.withLock { $0.count } == 1, "one tick thread")
        #expect(!calls.didOverlap)
        usleep(50_000)
        #expect(calls.value == counted, "no call after stop() returned")
    }

    @Test(.timeLimit(.minutes(1))) func suspendedMakesNoCallsAndAKickStillRunsOnce() {
        let source = ThreadTickSource(label: "test.suspend")
        let calls = Calls()
        source.start(intervalNanoseconds: 2_000_000) { calls.record() }
        usleep(50_000)
        source.suspend()
        usleep(20_000)
        let before = calls.value
        usleep(200_000)
        #expect(calls.value == before, "no calls while suspended")
        source.kick()
        usleep(50_000)
        #expect(calls.value == before + 1, "a kick runs the handler once")
        source.resume()
        usleep(50_000)
        #expect(calls.value > before + 3, "resumed: ticking again")
        source.stop()
    }

    @Test(.timeLimit(.minutes(1))) func kicksNeverOverlapTicksAndStopWaitsForARunningOne() {
        let source = ThreadTickSource(label: "test.kick")
        let calls = Calls()
        let finished = Atomic<Int>(0)
        source.start(intervalNanoseconds: 1_000_000) {
            calls.record(sleeping: 3_000)
            finished.add(1, ordering: .relaxed)
        }
        for _ in 0..<50 {
            source.kick()
            usleep(500)
        }
        source.stop()
        let done = finished.load(ordering: .relaxed)
        #expect(!calls.didOverlap, "never two calls at once")
        #expect(calls.value == done, "stop() returned after the running call finished")
        usleep(30_000)
        #expect(calls.value == done)
    }

    @Test(.timeLimit(.minutes(1))) func stopFromInsideATickAndStartAgain() {
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
        #expect(stopped.wait(timeout: .now() + 10) == .success)
        usleep(30_000)
        #expect(calls.value == 3, "no tick after stop(), even from inside one")
        source.start(intervalNanoseconds: 1_000_000) { calls.record() }
        usleep(50_000)
        source.stop()
        #expect(calls.value > 5, "a stopped source starts again")
    }
}
