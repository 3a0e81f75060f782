import CoreHaptics

// An app's own event type: a CHHapticEvent subclass that decodes itself from the app's JSON.
// Only `import CoreHaptics`: TimeInterval, JSONDecoder and NSLock come with it, as on Apple's.
final class TapEvent: CHHapticEvent, Decodable {
    private enum CodingKeys: String, CodingKey {
        case at, strength
    }

    let strength: Float

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let at = try container.decode(TimeInterval.self, forKey: .at)
        strength = try container.decode(Float.self, forKey: .strength)
        super.init(
            eventType: .hapticTransient,
            parameters: [CHHapticEventParameter(parameterID: .hapticIntensity, value: strength)],
            relativeTime: at)
    }

    /// Taps from the app's JSON; counts how many were decoded so far.
    static func taps(from json: String) throws -> [TapEvent] {
        let taps = try JSONDecoder().decode([TapEvent].self, from: Data(json.utf8))
        counter.lock()
        decoded += taps.count
        counter.unlock()
        return taps
    }

    nonisolated(unsafe) static var decoded = 0
    static let counter = NSLock()
}
