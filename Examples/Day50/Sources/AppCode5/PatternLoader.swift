import CoreHaptics

// AHAP text read the way game plug-ins read it: JSONSerialization, then the dictionary initializer.
enum PatternLoader {
    static func pattern(fromAHAP text: String) throws -> CHHapticPattern {
        let object = try JSONSerialization.jsonObject(with: Data(text.utf8), options: .mutableContainers)
        guard let dictionary = object as? NSDictionary else { throw CHHapticError(.invalidPatternData) }
        return try CHHapticPattern(dictionary: dictionary)
    }

    /// Apple's numeric code for a Core Haptics failure, as apps log it.
    static func code(of error: any Error) -> Int {
        let bridged = error as NSError
        return bridged.domain == CHHapticError.errorDomain ? bridged.code : 0
    }
}
