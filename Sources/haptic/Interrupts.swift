import Dispatch
import Foundation
import HapticsEngine
import Synchronization

/// Ctrl-C for the whole command: one SIGINT handler, installed once before anything plays, that
/// records the request and tells whatever is playing now to stop.
///
/// ```swift
/// Interrupts.install()
/// Interrupts.onInterrupt { playback.interrupt() }   // or poll Interrupts.wasRequested
/// ```
enum Interrupts {
    private static let requested = Atomic<Bool>(false)
    private static let action = Mutex<(@Sendable () -> Void)?>(nil)
    // The dispatch source must live as long as the process; it is created once, under `installed`,
    // and never touched again.
    nonisolated(unsafe) private static var source: (any DispatchSourceSignal)?
    private static let installed = Mutex(false)

    /// Routes SIGINT to this type from now on. Idempotent.
    static func install() {
        installed.withLock { installed in
            guard !installed else { return }
            installed = true
            // A parent that spawned us from a thread blocking SIGINT (dispatch workers do) passes the
            // blocked mask on; Ctrl-C must still reach us.
            var set = sigset_t()
            sigemptyset(&set)
            sigaddset(&set, SIGINT)
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            signal(SIGINT, SIG_IGN)
            let signals = DispatchSource.makeSignalSource(signal: SIGINT, queue: .global(qos: .userInteractive))
            signals.setEventHandler {
                requested.store(true, ordering: .releasing)
                action.withLock { $0 }?()
            }
            signals.resume()
            source = signals
        }
    }

    /// Whether Ctrl-C has been pressed since `install()`.
    static var wasRequested: Bool { requested.load(ordering: .acquiring) }

    /// What Ctrl-C does from now on (nil: only record it). Runs at once if Ctrl-C already came.
    static func onInterrupt(_ newAction: (@Sendable () -> Void)?) {
        action.withLock { $0 = newAction }
        if wasRequested { newAction?() }
    }
}

extension Interrupts {
    /// Plays `playback` to its end; Ctrl-C, even one pressed before it started, interrupts it.
    static func run(_ playback: LivePlayback) -> LivePlayback.Outcome {
        install()
        onInterrupt { playback.interrupt() }
        defer { onInterrupt(nil) }
        return playback.run()
    }
}
