import Foundation
public import SensoryFeedback

/// The words the event log uses for each feedback: `"increase"`, `"selection"`,
/// `"impact(weight: heavy, intensity: 0.8)"`, ... and back.
public enum FeedbackName {
    private static let simple: [(String, SensoryFeedback)] = [
        ("success", .success), ("warning", .warning), ("error", .error), ("selection", .selection),
        ("increase", .increase), ("decrease", .decrease), ("start", .start), ("stop", .stop),
        ("alignment", .alignment), ("levelChange", .levelChange), ("pathComplete", .pathComplete),
        ("impact", .impact),
    ]

    /// The log's name for `feedback`.
    public static func name(of feedback: SensoryFeedback) -> String {
        switch feedback {
        case .impactWeight(let weight, let intensity):
            return "impact(weight: \(weight.rawValue), intensity: \(intensity))"
        case .impactFlexibility(let flexibility, let intensity):
            return "impact(flexibility: \(flexibility.rawValue), intensity: \(intensity))"
        default:
            return simple.first { $0.1 == feedback }?.0 ?? "impact"
        }
    }

    /// The feedback a log name stands for; nil for anything else.
    public static func feedback(named name: String) -> SensoryFeedback? {
        if let found = simple.first(where: { $0.0 == name }) { return found.1 }
        guard name.hasPrefix("impact("), name.hasSuffix(")") else { return nil }
        let inner = name.dropFirst("impact(".count).dropLast()
        let parts = inner.split(separator: ",").map {
            $0.split(separator: ":").map { $0.trimmingCharacters(in: .whitespaces) }
        }
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), parts[1][0] == "intensity",
            let intensity = Double(parts[1][1]), (0...1).contains(intensity)
        else { return nil }
        switch parts[0][0] {
        case "weight":
            return SensoryFeedback.Weight(rawValue: parts[0][1]).map { .impact(weight: $0, intensity: intensity) }
        case "flexibility":
            return SensoryFeedback.Flexibility(rawValue: parts[0][1]).map {
                .impact(flexibility: $0, intensity: intensity)
            }
        default: return nil
        }
    }
}
