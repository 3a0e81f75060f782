/// SwiftUI's `SensoryFeedback`: the system feedbacks an app asks for by meaning, not by pattern.
///
/// Each case plays a preset from `Patterns/feedback/` (see docs/feedback.md for how each was
/// designed). Intensities are clamped to 0...1.
///
/// ```swift
/// sink.play(.impact(weight: .heavy, intensity: 0.8))
/// ```
public enum SensoryFeedback: Hashable, Sendable {
    case success
    case warning
    case error
    case selection
    case increase
    case decrease
    case start
    case stop
    case alignment
    case levelChange
    case pathComplete
    /// The default impact (medium weight, full intensity).
    case impact
    case impactWeight(Weight, intensity: Double)
    case impactFlexibility(Flexibility, intensity: Double)

    /// How heavy an impact feels (SwiftUI's `SensoryFeedback.Weight`).
    public enum Weight: String, CaseIterable, Hashable, Sendable {
        case light, medium, heavy
    }

    /// How rigid the colliding objects feel (SwiftUI's `SensoryFeedback.Flexibility`).
    public enum Flexibility: String, CaseIterable, Hashable, Sendable {
        case rigid, solid, soft
    }

    /// SwiftUI's spelling: `.impact(weight: .heavy, intensity: 0.5)`.
    public static func impact(weight: Weight = .medium, intensity: Double = 1) -> SensoryFeedback {
        .impactWeight(weight, intensity: min(max(intensity, 0), 1))
    }

    /// SwiftUI's spelling: `.impact(flexibility: .soft, intensity: 0.5)`.
    public static func impact(flexibility: Flexibility, intensity: Double = 1) -> SensoryFeedback {
        .impactFlexibility(flexibility, intensity: min(max(intensity, 0), 1))
    }
}

/// Where feedback goes: the engine-backed player in the product, a recorder in tests.
public protocol FeedbackSink: AnyObject, Sendable {
    /// Plays `feedback` now; never blocks the caller for long.
    func play(_ feedback: SensoryFeedback)
}
