public import Dispatch
import Foundation
import Synchronization

/// A monotonic time source in nanoseconds. Injected into the engine so that tests drive
/// time by hand and never sleep.
public protocol EngineClock: Sendable {
    /// Nanoseconds since an arbitrary, fixed origin; never goes backwards.
    var nanoseconds: UInt64 { get }
}

/// The system's monotonic clock (`CLOCK_MONOTONIC`), unaffected by wall-clock changes.
public struct MonotonicClock: EngineClock {
    public init() {}

    public var nanoseconds: UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}

/// A clock that moves only when told to: `advance(by:)`.
///
/// ```swift
/// let clock = ManualClock()
/// clock.advance(byNanoseconds: 5_000_000)
/// clock.nanoseconds  // 5_000_000
/// ```
public final class ManualClock: EngineClock {
    private let now: Atomic<UInt64>

    public init(nanoseconds: UInt64 = 0) { now = Atomic(nanoseconds) }

    public var nanoseconds: UInt64 { now.load(ordering: .acquiring) }

    public func advance(byNanoseconds delta: UInt64) {
        now.add(delta, ordering: .releasing)
    }
}

/// Something that calls the engine back at a steady interval: the real one is a
/// `DispatchSourceTimer`; tests use `ManualTickSource`.
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
