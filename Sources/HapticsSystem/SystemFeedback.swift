public import Foundation
import HapticsEngine
public import SensoryFeedback

extension FeedbackPlayer {
    /// A player on a new engine on the output the environment names (`HAPTIC_OUTPUT`, else
    /// `HAPTIC_DEVICE`, else ALSA `"default"`; see ``OutputSelection``).
    ///
    /// ```swift
    /// let feedback = try FeedbackPlayer(environment: ["HAPTIC_OUTPUT": "/tmp/feedback.wav"])
    /// feedback.play(.success)
    /// ```
    public convenience init(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        let output = try OutputSelection(environment: environment).open()
        try self.init(engine: HapticEngine(output: output))
    }

    /// The sink UIKit-style generators use by default: a player on the environment's output, or,
    /// when that cannot open, one that plays nothing (as a device without haptics).
    ///
    /// Opened on first use, once per process.
    public static let system: any FeedbackSink = {
        do {
            return try FeedbackPlayer()
        } catch {
            return SilentFeedback(reason: "\(error)")
        }
    }()
}
