import Dispatch
import Foundation
import HapticsCore
import HapticsEngine
import HapticsSynthesis
import HapticsTesting
import Synchronization
import Testing

/// A manual tick source whose first `stop()` waits for the test: a stop caught half-way.
final class GatedTicks: TickSource {
    let inner = ManualTickSource()
    /// Signalled when the first stop has begun; it goes on once `proceed` is signalled.
    let entered = DispatchSemaphore(value: 0)
    let proceed = DispatchSemaphore(value: 0)
    private let gated = Atomic<Bool>(true)

    func start(intervalNanoseconds: UInt64, handler: @escaping @Sendable () -> Void) {
        inner.start(intervalNanoseconds: intervalNanoseconds, handler: handler)
    }

    func stop() {
        if gated.exchange(false, ordering: .acquiringAndReleasing) {
            entered.signal()
            proceed.wait()
        }
        inner.stop()
    }

    func kick() {}
}

/// Text one thread leaves for another.
final class Note: Sendable {
    let text = Mutex<String?>(nil)
}

@Suite struct LifeCycleTests {
    /// A stop from the callback queue (players finished with `.stopEngine`) half-way through
    /// while the app starts the engine: the start waits for it and is a whole start.
    @Test func aStartDuringAStopIsAWholeStart() throws {
        let clock = ManualClock()
        let ticks = GatedTicks()
        let output = RecordingOutput(
            format: AudioFormat(sampleRate: 48_000, channels: 1), bufferFrames: 960, clock: { clock.nanoseconds })
        let engine = HapticEngine(output: output, clock: clock, ticks: ticks)
        try engine.start()
        // Threads of their own: a blocked worker of a global queue may hold back the next one.
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            engine.stop()
            stopped.signal()
        }
        ticks.entered.wait()
        let started = DispatchSemaphore(value: 0)
        let failure = Note()
        Thread.detachNewThread {
            do {
                try engine.start()
            } catch {
                failure.text.withLock { $0 = "\(error)" }
            }
            started.signal()
        }
        // Let the start get as far as it can before the stop goes on.
        Thread.sleep(forTimeInterval: 0.1)
        ticks.proceed.signal()
        stopped.wait()
        started.wait()
        let error = failure.text.withLock { $0 }
        #expect(error == nil)
        #expect(engine.isRunning)
        #expect(ticks.inner.isRunning, "a running engine has a timer")
        let player = try engine.makePlayer(HapticPattern(elements: [tap(0)]))
        try player.start(atTime: HapticEngine.timeImmediate)
        let before = engine.currentTime
        for _ in 0..<50 {
            ticks.inner.tick()
            output.play(frames: 192)
            clock.advance(byNanoseconds: 4_000_000)
        }
        #expect(engine.currentTime - before > 0.15, "engine time moves: \(before) -> \(engine.currentTime)")
        #expect(onsets(output.samples).count == 1)
    }
}
