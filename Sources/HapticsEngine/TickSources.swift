public import Dispatch
import Foundation
import Synchronization

/// Something that calls the engine back at a steady interval: ``ThreadTickSource`` (the default,
/// one wake-up per tick) or ``DispatchTickSource`` (a `DispatchSourceTimer`); tests use
/// `ManualTickSource`.
public protocol TickSource: AnyObject, Sendable {
    /// Begins calling `handler` every `intervalNanoseconds` until `stop()`.
    func start(intervalNanoseconds: UInt64, handler: @escaping @Sendable () -> Void)
    /// Stops calling; after it returns no handler call is running or will start.
    func stop()
    /// Runs the handler once more, soon and in order with the ticks (never concurrently with one),
    /// without waiting for the next period: for work that just arrived.
    func kick()
    /// Stops the periodic calls, keeping the handler: no wake-ups until ``resume()``. A `kick()`
    /// still runs the handler once. May be called from inside the handler.
    func suspend()
    /// Starts the periodic calls again after ``suspend()``, the first one at once.
    func resume()
}

extension TickSource {
    /// Sources driven by hand (tests) have nothing to suspend.
    public func suspend() {}
    public func resume() {}
}

/// A strict, zero-leeway `DispatchSourceTimer` on a high-QoS serial queue.
public final class DispatchTickSource: TickSource {
    /// The serial queue every tick runs on; the engine's render state belongs to it.
    public let queue: DispatchQueue
    private let timer = Mutex<TimerBox?>(nil)

    public init(label: String = "swift-haptics.engine") {
        queue = DispatchQueue(label: label, qos: .userInteractive)
        queue.setSpecific(key: Self.onQueueKey, value: true)
    }

    public func start(intervalNanoseconds: UInt64, handler: @escaping @Sendable () -> Void) {
        let source = makeTimer(intervalNanoseconds, handler)
        let previous = timer.withLock { box in
            defer { box = TimerBox(source, interval: intervalNanoseconds, handler: handler) }
            return box
        }
        previous?.source?.cancel()
    }

    private func makeTimer(_ interval: UInt64, _ handler: @escaping @Sendable () -> Void) -> any DispatchSourceTimer {
        let source = DispatchSource.makeTimerSource(flags: .strict, queue: queue)
        source.schedule(deadline: .now(), repeating: .nanoseconds(Int(interval)), leeway: .nanoseconds(0))
        source.setEventHandler(handler: handler)
        source.resume()
        return source
    }

    /// Cancels the timer (a cancelled source makes no wake-ups); ``resume()`` makes a new one.
    public func suspend() {
        timer.withLock { box in
            box?.source?.cancel()
            box?.source = nil
        }
    }

    public func resume() {
        timer.withLock { box in
            guard let box, box.source == nil else { return }
            box.source = makeTimer(box.interval, box.handler)
        }
    }

    public func kick() {
        guard let box = timer.withLock({ $0 }) else { return }
        queue.async { box.handler() }
    }

    public func stop() {
        let box = timer.withLock { box in
            defer { box = nil }
            return box
        }
        guard let box else { return }
        box.source?.cancel()
        // Wait for a handler that is running right now to finish.
        if DispatchQueue.getSpecific(key: Self.onQueueKey) == nil {
            queue.sync {}
        }
    }

    private static let onQueueKey = DispatchSpecificKey<Bool>()
}

/// A tick source on a thread of its own, which sleeps until the next tick on a
/// condition variable (an absolute `CLOCK_MONOTONIC` deadline) and runs each tick with
/// `queue.sync`, which libdispatch runs inline on the calling thread when the queue is free.
///
/// One wake-up per tick, where a `DispatchSourceTimer` costs two (libdispatch's manager thread
/// wakes on the timer, then hands the handler to a worker); on a virtual machine the wake-ups are
/// what a playing engine costs, so this is the engine's default (BENCHMARKS.md has the figures).
/// Suspended, the thread waits on the condition with no deadline: no wake-ups at all until
/// ``resume()``, ``kick()`` or ``stop()``.
///
/// ```swift
/// let ticks = ThreadTickSource()
/// ticks.start(intervalNanoseconds: 5_000_000) { render() }   // on `ticks.queue`
/// ticks.kick()      // once more, now, in order with the ticks
/// ticks.stop()      // no call running or to come once it returns
/// ```
public final class ThreadTickSource: TickSource {
    /// The serial queue every tick runs on (inline, on the tick thread); the engine's render
    /// state belongs to it.
    public let queue: DispatchQueue
    private let label: String
    // A pthread mutex and condition variable (not Swift's Mutex: the condition needs the mutex),
    // allocated once so their addresses never move; they are thread-safe by construction.
    nonisolated(unsafe) private let lock: UnsafeMutablePointer<pthread_mutex_t>
    nonisolated(unsafe) private let wake: UnsafeMutablePointer<pthread_cond_t>
    // Guarded by `lock`.
    nonisolated(unsafe) private var shared = Shared()

    private struct Shared {
        var handler: (@Sendable () -> Void)?
        var interval: UInt64 = 0
        var next: UInt64 = 0
        var suspended = false
        var kicks = 0
        /// Which thread may run: a thread leaves its loop once this is no longer its own.
        var generation = 0
        var thread: ThreadBox?
    }

    public init(label: String = "swift-haptics.engine") {
        self.label = label
        queue = DispatchQueue(label: label, qos: .userInteractive)
        queue.setSpecific(key: Self.onQueueKey, value: true)
        lock = .allocate(capacity: 1)
        pthread_mutex_init(lock, nil)
        wake = .allocate(capacity: 1)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(wake, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        stop()
        pthread_cond_destroy(wake)
        pthread_mutex_destroy(lock)
        wake.deallocate()
        lock.deallocate()
    }

    private func locked<T>(_ body: (inout Shared) -> T) -> T {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return body(&shared)
    }

    public func start(intervalNanoseconds: UInt64, handler: @escaping @Sendable () -> Void) {
        let box = ThreadBox()
        let generation = locked { shared -> Int? in
            shared.handler = handler
            shared.interval = max(1, intervalNanoseconds)
            shared.next = MonotonicClock().nanoseconds
            shared.suspended = false
            pthread_cond_broadcast(wake)
            guard shared.thread == nil else { return nil }
            shared.generation += 1
            shared.thread = box
            return shared.generation
        }
        guard let generation else { return }
        let thread = Thread { [self] in
            run(generation)
            box.finished.signal()
        }
        thread.name = label + ".tick"
        thread.qualityOfService = .userInteractive
        thread.start()
    }

    /// The tick thread's loop: a pending kick, else the next deadline, else wait.
    private func run(_ generation: Int) {
        pthread_mutex_lock(lock)
        while shared.generation == generation {
            guard let handler = shared.handler else {
                pthread_cond_wait(wake, lock)
                continue
            }
            let now = MonotonicClock().nanoseconds
            if shared.kicks > 0 || (!shared.suspended && now >= shared.next) {
                if shared.kicks > 0 {
                    shared.kicks -= 1
                } else {
                    // Late by more than a period (the thread was starved): skip the missed ticks
                    // rather than firing them back to back, keeping the phase.
                    let missed = (now &- shared.next) / shared.interval
                    shared.next &+= (missed &+ 1) &* shared.interval
                }
                pthread_mutex_unlock(lock)
                queue.sync { handler() }
                pthread_mutex_lock(lock)
                continue
            }
            if shared.suspended {
                pthread_cond_wait(wake, lock)
            } else {
                var deadline = timespec(
                    tv_sec: Int(shared.next / 1_000_000_000), tv_nsec: Int(shared.next % 1_000_000_000))
                pthread_cond_timedwait(wake, lock, &deadline)
            }
        }
        pthread_mutex_unlock(lock)
    }

    public func kick() {
        locked { shared in
            guard shared.handler != nil else { return }
            shared.kicks += 1
            pthread_cond_broadcast(wake)
        }
    }

    /// No wake-ups until ``resume()`` (a ``kick()`` still runs the handler once).
    public func suspend() {
        locked { $0.suspended = true }
    }

    public func resume() {
        locked { shared in
            guard shared.suspended else { return }
            shared.suspended = false
            shared.next = MonotonicClock().nanoseconds
            pthread_cond_broadcast(wake)
        }
    }

    public func stop() {
        let thread = locked { shared -> ThreadBox? in
            defer {
                shared.thread = nil
                shared.handler = nil
                shared.kicks = 0
            }
            shared.generation += 1
            pthread_cond_broadcast(wake)
            return shared.thread
        }
        // From inside a tick the thread ends when the tick returns; from anywhere else, wait for it
        // (and so for a tick running right now).
        guard let thread, DispatchQueue.getSpecific(key: Self.onQueueKey) == nil else { return }
        thread.finished.wait()
    }

    private static let onQueueKey = DispatchSpecificKey<Bool>()
}

/// Signals when the tick thread has left its loop.
private final class ThreadBox: Sendable {
    let finished = DispatchSemaphore(value: 0)
}

/// Holds the timer so it can live in a `Mutex`.
// @unchecked: the DispatchSourceTimer is only made, cancelled and replaced through this box,
// under the Mutex.
private final class TimerBox: @unchecked Sendable {
    /// nil while suspended.
    var source: (any DispatchSourceTimer)?
    let interval: UInt64
    let handler: @Sendable () -> Void
    init(_ source: any DispatchSourceTimer, interval: UInt64, handler: @escaping @Sendable () -> Void) {
        self.source = source
        self.interval = interval
        self.handler = handler
    }
}

/// A tick source for tests: nothing happens until `tick()` is called.
public final class ManualTickSource: TickSource {
    private let handler = Mutex<(@Sendable () -> Void)?>(nil)

    public init() {}

    public func start(intervalNanoseconds: UInt64, handler: @escaping @Sendable () -> Void) {
        self.handler.withLock { $0 = handler }
    }

    public func stop() { handler.withLock { $0 = nil } }

    /// Ticks are driven by the test alone: an early tick is not run by itself.
    public func kick() {}

    private let suspended = Atomic<Bool>(false)

    /// Whether the engine has suspended its timer (nothing plays). ``tick()`` still runs the
    /// handler: the test decides when ticks happen.
    public var isSuspended: Bool { suspended.load(ordering: .acquiring) }

    public func suspend() { suspended.store(true, ordering: .releasing) }
    public func resume() { suspended.store(false, ordering: .releasing) }

    /// Whether the engine has a tick handler installed (it is running).
    public var isRunning: Bool { handler.withLock { $0 != nil } }

    /// Runs one tick on the caller's thread.
    public func tick() {
        let current = handler.withLock { $0 }
        current?()
    }
}
