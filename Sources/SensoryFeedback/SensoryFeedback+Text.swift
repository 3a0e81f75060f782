extension SensoryFeedback: LosslessStringConvertible {
    /// The feedback's text, as `haptic order`'s event log writes it and `haptic feedback` reads it:
    /// `"increase"`, `"selection"`, `"impact(weight: heavy, intensity: 0.8)"`, ...
    ///
    /// ```swift
    /// SensoryFeedback.impact(weight: .heavy, intensity: 0.8).description  // impact(weight: heavy, intensity: 0.8)
    /// SensoryFeedback("levelChange")                                        // .levelChange
    /// ```
    public var description: String {
        switch self {
        case .impactWeight(let weight, let intensity):
            return "impact(weight: \(weight.rawValue), intensity: \(intensity))"
        case .impactFlexibility(let flexibility, let intensity):
            return "impact(flexibility: \(flexibility.rawValue), intensity: \(intensity))"
        default:
            return Self.simpleNames.first { $0.1 == self }?.0 ?? "impact"
        }
    }

    /// The feedback `description` stands for; nil for any other text (an intensity outside 0...1
    /// included).
    public init?(_ description: String) {
        if let found = Self.simpleNames.first(where: { $0.0 == description }) {
            self = found.1
            return
        }
        guard description.hasPrefix("impact("), description.hasSuffix(")") else { return nil }
        let inner = description.dropFirst("impact(".count).dropLast()
        let parts = inner.split(separator: ",").map { $0.split(separator: ":").map(Self.trimmed) }
        guard parts.count == 2, parts.allSatisfy({ $0.count == 2 }), parts[1][0] == "intensity",
            let intensity = Double(parts[1][1]), (0...1).contains(intensity)
        else { return nil }
        switch parts[0][0] {
        case "weight":
            guard let weight = Weight(rawValue: String(parts[0][1])) else { return nil }
            self = .impact(weight: weight, intensity: intensity)
        case "flexibility":
            guard let flexibility = Flexibility(rawValue: String(parts[0][1])) else { return nil }
            self = .impact(flexibility: flexibility, intensity: intensity)
        default: return nil
        }
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return text
    }

    private static let simpleNames: [(String, SensoryFeedback)] = [
        ("success", .success), ("warning", .warning), ("error", .error), ("selection", .selection),
        ("increase", .increase), ("decrease", .decrease), ("start", .start), ("stop", .stop),
        ("alignment", .alignment), ("levelChange", .levelChange), ("pathComplete", .pathComplete),
        ("impact", .impact),
    ]
}
