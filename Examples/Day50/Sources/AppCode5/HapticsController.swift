import CoreHaptics

// The kind of controller apps keep for the lifetime of a screen: a plain (non-Sendable) class whose
// handlers capture `self`, restart the engine after a reset, and switch over StoppedReason with
// `@unknown default`.
final class HapticsController {
    private(set) var engine: CHHapticEngine
    private(set) var stopReasons: [String] = []
    private var restarts = 0
    private let lock = NSLock()

    init() throws {
        engine = try CHHapticEngine(audioSession: .sharedInstance())
        engine.playsHapticsOnly = true
        engine.isAutoShutdownEnabled = false
        engine.stoppedHandler = { [weak self] reason in
            let text: String
            switch reason {
            case .audioSessionInterrupt: text = "audio session interrupted"
            case .applicationSuspended: text = "app suspended"
            case .idleTimeout: text = "idle"
            case .notifyWhenFinished: text = "finished"
            case .systemError: text = "system error"
            case .engineDestroyed: text = "destroyed"
            case .gameControllerDisconnect: text = "controller gone"
            @unknown default: text = "unknown (\(reason.rawValue))"
            }
            self?.record(text)
        }
        engine.resetHandler = { [weak self] in
            guard let self else { return }
            self.restarts += 1
            try? self.engine.start()
        }
    }

    private var whenStopped: (() -> Void)?

    private func record(_ reason: String) {
        lock.lock()
        stopReasons.append(reason)
        let waiting = whenStopped
        whenStopped = nil
        lock.unlock()
        waiting?()
    }

    var reasons: [String] {
        lock.lock()
        defer { lock.unlock() }
        return stopReasons
    }

    /// Plays taps on an advanced player and returns once it has finished.
    func play(_ events: [CHHapticEvent]) async throws {
        let pattern = try CHHapticPattern(events: events, parameters: [])
        let player = try engine.makeAdvancedPlayer(with: pattern)
        // Keep the player across a C boundary as plug-ins do; `Unmanaged<AnyObject>` works on both
        // platforms (Linux has no Objective-C runtime, so `Unmanaged<CHHapticAdvancedPatternPlayer>`
        // does not compile there).
        let handle = Unmanaged<AnyObject>.passRetained(player).toOpaque()
        guard let kept = Unmanaged<AnyObject>.fromOpaque(handle).takeRetainedValue() as? CHHapticAdvancedPatternPlayer
        else { throw CHHapticError(.invalidPatternPlayer) }
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            kept.completionHandler = { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
            do {
                try kept.start(atTime: CHHapticTimeImmediate)
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// Waits until nothing plays and the engine has stopped itself.
    func finish() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            lock.lock()
            whenStopped = { continuation.resume() }
            lock.unlock()
            engine.notifyWhenPlayersFinished { _ in .stopEngine }
        }
    }
}
