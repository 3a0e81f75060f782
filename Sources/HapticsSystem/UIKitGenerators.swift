public import Foundation
public import SensoryFeedback

/// UIKit's impact generator: `UIImpactFeedbackGenerator(style: .heavy).impactOccurred()`.
///
/// Plays on ``FeedbackPlayer/system`` unless given a sink.
public final class UIImpactFeedbackGenerator: Sendable {
    /// UIKit's styles, with its raw values.
    public enum FeedbackStyle: Int, Sendable, CaseIterable {
        case light = 0, medium = 1, heavy = 2, soft = 3, rigid = 4
    }

    public let style: FeedbackStyle
    let sink: any FeedbackSink

    public init(style: FeedbackStyle = .medium, sink: (any FeedbackSink)? = nil) {
        self.style = style
        self.sink = sink ?? FeedbackPlayer.system
    }

    /// Makes the player ready (on the system player); optional, as in UIKit.
    public func prepare() {
        try? (sink as? FeedbackPlayer)?.prepare([feedback(intensity: 1)])
    }

    /// An impact at full intensity.
    public func impactOccurred() {
        sink.play(feedback(intensity: 1))
    }

    /// An impact at `intensity`, clamped to 0...1.
    public func impactOccurred(intensity: CGFloat) {
        sink.play(feedback(intensity: Double(intensity)))
    }

    /// The sensory feedback this generator plays at `intensity`.
    public func feedback(intensity: Double) -> SensoryFeedback {
        switch style {
        case .light: .impact(weight: .light, intensity: intensity)
        case .medium: .impact(weight: .medium, intensity: intensity)
        case .heavy: .impact(weight: .heavy, intensity: intensity)
        case .soft: .impact(flexibility: .soft, intensity: intensity)
        case .rigid: .impact(flexibility: .rigid, intensity: intensity)
        }
    }
}

/// UIKit's notification generator: `UINotificationFeedbackGenerator().notificationOccurred(.success)`.
public final class UINotificationFeedbackGenerator: Sendable {
    /// UIKit's types, with its raw values.
    public enum FeedbackType: Int, Sendable, CaseIterable {
        case success = 0, warning = 1, error = 2
    }

    let sink: any FeedbackSink

    public init(sink: (any FeedbackSink)? = nil) {
        self.sink = sink ?? FeedbackPlayer.system
    }

    public func prepare() {
        try? (sink as? FeedbackPlayer)?.prepare([.success, .warning, .error])
    }

    /// Plays the success, warning or error preset.
    public func notificationOccurred(_ notificationType: FeedbackType) {
        switch notificationType {
        case .success: sink.play(.success)
        case .warning: sink.play(.warning)
        case .error: sink.play(.error)
        }
    }
}

/// UIKit's selection generator: `UISelectionFeedbackGenerator().selectionChanged()`.
public final class UISelectionFeedbackGenerator: Sendable {
    let sink: any FeedbackSink

    public init(sink: (any FeedbackSink)? = nil) {
        self.sink = sink ?? FeedbackPlayer.system
    }

    public func prepare() {
        try? (sink as? FeedbackPlayer)?.prepare([.selection])
    }

    /// Plays the selection tick.
    public func selectionChanged() {
        sink.play(.selection)
    }
}
