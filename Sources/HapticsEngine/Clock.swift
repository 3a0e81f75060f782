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
