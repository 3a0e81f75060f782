import ArgumentParser
import Dispatch
import Foundation
import HapticsEngine
import Synchronization

/// Signals for the whole command: one owner, installed once before anything plays, on dispatch
/// signal sources (no C signal handlers anywhere in the CLI).
///
/// A stop request (Ctrl-C's SIGINT, SIGTERM from `kill`, SIGHUP from a closed terminal) is recorded
/// and tells whatever is playing now to stop; the command then leaves through ArgumentParser with
/// ``exitCode`` (128 + the signal: 130 for Ctrl-C), so every `defer` runs and the device is closed.
/// SIGWINCH (the terminal was resized) calls the resize action, if any.
///
/// ```swift
/// Interrupts.install()
/// Interrupts.onInterrupt { playback.interrupt() }   // or poll Interrupts.wasRequested
/// ...
/// if Interrupts.wasRequested { throw Interrupts.exitCode }
/// ```
enum Interrupts {
    /// The signals that ask the command to stop.
    static let stopSignals: [Int32] = [SIGINT, SIGTERM, SIGHUP]

    /// The first stop signal received, 0 before any.
    private static let received = Atomic<Int32>(0)
    private static let action = Mutex<(@Sendable () -> Void)?>(nil)
    private static let resizeAction = Mutex<(@Sendable () -> Void)?>(nil)
    // The dispatch sources must live as long as the process; they are created once, under
    // `installed`, and never touched again.
    nonisolated(unsafe) private static var sources: [any DispatchSourceSignal] = []
    private static let installed = Mutex(false)

    /// Routes the stop signals and SIGWINCH to this type from now on. Idempotent.
    static func install() {
        installed.withLock { installed in
            guard !installed else { return }
            installed = true
            // A parent that spawned us from a thread blocking signals (dispatch workers do) passes the
            // blocked mask on; Ctrl-C must still reach us.
            var set = sigset_t()
            sigemptyset(&set)
            for number in stopSignals + [SIGWINCH] { sigaddset(&set, number) }
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
            for number in stopSignals {
                signal(number, SIG_IGN)
                sources.append(
                    source(for: number) {
                        _ = received.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing)
                        action.withLock { $0 }?()
                    })
            }
            sources.append(source(for: SIGWINCH) { resizeAction.withLock { $0 }?() })
        }
    }

    private static func source(for number: Int32, handler: @escaping @Sendable () -> Void)
        -> any DispatchSourceSignal
    {
        let source = DispatchSource.makeSignalSource(signal: number, queue: .global(qos: .userInteractive))
        source.setEventHandler(handler: handler)
        source.resume()
        return source
    }

    /// Whether a stop signal has come since `install()`.
    static var wasRequested: Bool { received.load(ordering: .acquiring) != 0 }

    /// The stop signal that came first, if any.
    static var signalNumber: Int32? {
        let number = received.load(ordering: .acquiring)
        return number == 0 ? nil : number
    }

    /// The exit status of a command a signal stopped, as shells report it: 128 + the signal's number
    /// (130 for Ctrl-C, also when no signal was recorded).
    static var exitCode: ExitCode { ExitCode(128 + (signalNumber ?? SIGINT)) }

    /// What a stop signal does from now on (nil: only record it). Runs at once if one already came.
    static func onInterrupt(_ newAction: (@Sendable () -> Void)?) {
        action.withLock { $0 = newAction }
        if wasRequested { newAction?() }
    }

    /// What SIGWINCH does from now on (nil: nothing).
    static func onResize(_ newAction: (@Sendable () -> Void)?) {
        resizeAction.withLock { $0 = newAction }
    }
}

extension Interrupts {
    /// Plays `playback` to its end; a stop signal, even one that came before it started, interrupts it.
    static func run(_ playback: LivePlayback) -> LivePlayback.Outcome {
        install()
        onInterrupt { playback.interrupt() }
        defer { onInterrupt(nil) }
        return playback.run()
    }
}
