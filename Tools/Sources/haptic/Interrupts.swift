import ArgumentParser
import Dispatch
import Foundation
@_spi(Tooling) import HapticsEngine
import Synchronization

/// The write end of the pipe the signal handler writes to. Set once, before the handler is
/// installed; a signal handler may only touch plain globals and async-signal-safe calls.
nonisolated(unsafe) private var signalPipeWrite: Int32 = -1

/// Signals for the whole command: one owner, installed once before anything plays.
///
/// One `sigaction` handler (async-signal-safe: it writes the signal's number to a pipe) and one
/// dispatch read source on that pipe, which runs the actions. The handler is in force as soon as
/// `install()` returns, so a Ctrl-C that comes a moment later is never lost; a dispatch signal
/// source would only take over once libdispatch has registered it, on another thread, and a signal
/// in between would meet `SIG_IGN`.
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
    // The read source must live as long as the process; it is created once, under `installed`, and
    // never touched again.
    nonisolated(unsafe) private static var source: (any DispatchSourceRead)?
    private static let installed = Mutex(false)

    /// Routes the stop signals and SIGWINCH to this type from now on. Idempotent.
    static func install() {
        installed.withLock { installed in
            guard !installed else { return }
            var fds: [Int32] = [-1, -1]
            do {
                try systemCall("pipe") { pipe(&fds) }
            } catch {
                // Without the pipe, signals keep their default actions: Ctrl-C still ends the process.
                Terminal.printError("haptic: cannot watch for Ctrl-C: \(error)")
                return
            }
            installed = true
            for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }  // not inherited by rsvg-convert and the like
            _ = fcntl(fds[1], F_SETFL, O_NONBLOCK)  // a flood of signals must never block the handler
            signalPipeWrite = fds[1]
            let reader = DispatchSource.makeReadSource(fileDescriptor: fds[0], queue: .global(qos: .userInteractive))
            reader.setEventHandler {
                var numbers = [UInt8](repeating: 0, count: 64)
                let count = read(fds[0], &numbers, numbers.count)
                for number in numbers.prefix(max(0, count)).map(Int32.init) {
                    if number == SIGWINCH {
                        resizeAction.withLock { $0 }?()
                    } else {
                        _ = received.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing)
                        action.withLock { $0 }?()
                    }
                }
            }
            reader.resume()
            source = reader
            var set = sigset_t()
            sigemptyset(&set)
            for number in stopSignals + [SIGWINCH] {
                var handler = sigaction()
                handler.__sigaction_handler.sa_handler = { number in
                    let saved = errno
                    var byte = UInt8(truncatingIfNeeded: number)
                    _ = write(signalPipeWrite, &byte, 1)
                    errno = saved
                }
                handler.sa_flags = SA_RESTART
                sigemptyset(&handler.sa_mask)
                sigaction(number, &handler, nil)
                sigaddset(&set, number)
            }
            // A parent that spawned us from a thread blocking signals (dispatch workers do) passes the
            // blocked mask on; Ctrl-C must still reach us.
            pthread_sigmask(SIG_UNBLOCK, &set, nil)
        }
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
