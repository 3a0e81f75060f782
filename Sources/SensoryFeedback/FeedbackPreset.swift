public import HapticsCore

/// One sensory-feedback preset: an AHAP pattern from `Patterns/feedback/`, embedded in the module
/// (a SwiftPM resource) so it is found wherever the program runs, and decoded once.
///
/// ```swift
/// let preset = SensoryFeedback.success.preset
/// print(preset.name, preset.pattern.events.count)  // success 2
/// ```
public struct FeedbackPreset: Hashable, Sendable {
    /// The file name without `.ahap`, e.g. `impact-heavy`.
    public let name: String
    /// One line saying what it feels like: the file's `Metadata.Description`, as a phrase.
    public let summary: String
    /// The AHAP text, exactly as in `Patterns/feedback/NAME.ahap`.
    public let ahap: String
    /// The decoded pattern.
    public let pattern: HapticPattern

    /// A preset from its embedded file. The files are the package's own and lint clean (PresetTests),
    /// so a file that does not decode is a build defect, not an input error.
    init(name: String, bytes: [UInt8]) {
        self.name = name
        self.ahap = String(decoding: bytes, as: UTF8.self)
        do {
            pattern = try AHAP.decode(bytes, file: "\(name).ahap").pattern
        } catch {
            preconditionFailure("built-in preset \(name) does not decode: \(error)")
        }
        // "A medium tap, then ... later." -> "a medium tap, then ... later"
        var description = name
        if case .string(let text)? = pattern.metadata.first(where: { $0.key == "Description" })?.value {
            description = text
        }
        if description.hasSuffix(".") { description.removeLast() }
        summary = description.prefix(1).lowercased() + description.dropFirst()
    }

    /// The preset called `name`.
    public static func named(_ name: String) -> FeedbackPreset? {
        all.first { $0.name == name }
    }
}

extension SensoryFeedback {
    /// Every feedback, each with its own preset (`.impact` is `.impact(weight: .medium)`).
    public static let allPresetFeedbacks: [SensoryFeedback] =
        [
            .success, .warning, .error, .selection, .increase, .decrease, .start, .stop, .alignment, .levelChange,
            .pathComplete,
        ]
        + Weight.allCases.map { .impact(weight: $0) } + Flexibility.allCases.map { .impact(flexibility: $0) }

    /// The name of the preset this feedback plays (`Patterns/feedback/NAME.ahap`).
    public var presetName: String {
        switch self {
        case .success: "success"
        case .warning: "warning"
        case .error: "error"
        case .selection: "selection"
        case .increase: "increase"
        case .decrease: "decrease"
        case .start: "start"
        case .stop: "stop"
        case .alignment: "alignment"
        case .levelChange: "level-change"
        case .pathComplete: "path-complete"
        case .impact: "impact-medium"
        case .impactWeight(let weight, _): "impact-\(weight.rawValue)"
        case .impactFlexibility(let flexibility, _): "impact-\(flexibility.rawValue)"
        }
    }

    /// The preset this feedback plays.
    public var preset: FeedbackPreset {
        guard let preset = FeedbackPreset.named(presetName) else {
            preconditionFailure("no built-in preset \(presetName)")
        }
        return preset
    }

    /// How strongly it plays, 0...1: an impact's intensity, 1 for everything else.
    public var intensity: Double {
        switch self {
        case .impactWeight(_, let intensity), .impactFlexibility(_, let intensity): min(max(intensity, 0), 1)
        default: 1
        }
    }

    /// The feedback a preset name stands for, at full intensity.
    public init?(presetName: String) {
        guard let match = Self.allPresetFeedbacks.first(where: { $0.presetName == presetName }) else { return nil }
        self = match
    }
}

extension SensoryFeedback {
    /// The pattern this feedback plays: its preset with every event's intensity scaled by
    /// ``intensity``, as `FeedbackPlayer`'s intensity control does live. For offline renders
    /// (order replay to a WAV file).
    public var pattern: HapticPattern {
        preset.pattern.scalingIntensity(by: Float(intensity))
    }
}
