import CoreHaptics

// AHAP text read the way apps and plug-ins read it: JSONSerialization, a cast to Apple's key type
// (React Native and Flutter modules, bundle loaders), then the dictionary initializer.
enum PatternLoader {
    static func pattern(fromAHAP text: String) throws -> CHHapticPattern {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .mutableContainers)
        guard let dictionary = object as? [CHHapticPattern.Key: Any] else { throw CHHapticError(.invalidPatternData) }
        return try CHHapticPattern(dictionary: dictionary)
    }

    /// Apple's numeric code for a Core Haptics failure, as apps log it.
    static func code(of error: any Error) -> Int {
        let bridged = error as NSError
        return bridged.domain == CHHapticError.errorDomain ? bridged.code : 0
    }
}
