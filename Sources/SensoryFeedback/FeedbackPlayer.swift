import HapticsCore
public import HapticsEngine
import Synchronization

/// Plays sensory feedback on a ``HapticEngine`` at once: one prepared player per preset,
/// started at `HapticEngine.timeImmediate` with the feedback's intensity.
///
/// ```swift
/// let feedback = try FeedbackPlayer(engine: engine)
/// feedback.play(.impact(weight: .heavy, intensity: 0.7))
/// ```
public final class FeedbackPlayer: FeedbackSink {
    public let engine: HapticEngine
    private let players = Mutex<[String: Player]>([:])
    private let failure = Mutex<HapticEngineError?>(nil)

    /// A player on `engine`, which it starts if needed.
    public init(engine: HapticEngine) throws(HapticEngineError) {
        self.engine = engine
        try engine.start()
    }

    /// Makes the players for `feedbacks` now, so the first play does not prepare a pattern.
    public func prepare(_ feedbacks: [SensoryFeedback] = SensoryFeedback.allPresetFeedbacks) throws(HapticEngineError) {
        for feedback in feedbacks { _ = try player(for: feedback.preset) }
    }

    /// Plays `feedback` now. Never throws: a failure is kept in ``lastError``.
    ///
    /// - Complexity: O(1) once the preset's player exists (a short lock and two queued commands).
    public func play(_ feedback: SensoryFeedback) {
        do throws(HapticEngineError) {
            if !engine.isRunning { try engine.start() }
            let player = try player(for: feedback.preset)
            try player.start(atTime: HapticEngine.timeImmediate)
            try player.sendParameters(
                [DynamicParameter(.hapticIntensityControl, value: Float(feedback.intensity))],
                atTime: HapticEngine.timeImmediate)
        } catch {
            failure.withLock { $0 = error }
        }
    }

    /// The last error a play ran into, if any.
    public var lastError: HapticEngineError? { failure.withLock { $0 } }

    private func player(for preset: FeedbackPreset) throws(HapticEngineError) -> Player {
        if let cached = players.withLock({ $0[preset.name] }) { return cached }
        let player = try engine.makePlayer(preset.pattern)
        return players.withLock { players in
            if let raced = players[preset.name] { return raced }
            players[preset.name] = player
            return player
        }
    }
}

/// A sink that plays nothing: what feedback does where no output can open.
public final class SilentFeedback: FeedbackSink {
    /// Why nothing plays.
    public let reason: String

    public init(reason: String) {
        self.reason = reason
    }

    public func play(_ feedback: SensoryFeedback) {}
}
