@_exported public import CoreHapticsEnums

/// Why the engine or a player refused a request, with Core Haptics' error codes.
///
/// ```swift
/// do { try player.start(atTime: -1) }
/// catch { print(error) }  // invalid time -1.0: times are engine seconds >= 0 (-4840)
/// ```
public struct HapticEngineError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Core Haptics' `CHHapticError.Code`: the open C enum of Apple's numbers in
    /// CoreHapticsEnums (`Sources/CoreHapticsEnums/include/CoreHapticsEnums.h`), the one list of
    /// them, which `CHHapticError.Code` names too. Open, as Apple's `NS_ERROR_ENUM` is: a `switch`
    /// over it wants `@unknown default`.
    public typealias Code = _CHHapticErrorCode

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(message) (\(code.rawValue))" }
}

extension HapticEngine.StoppedReason {
    /// The reason in words, for messages (no `CustomStringConvertible`: app code printing Apple's
    /// enum must see what it sees on Apple's platforms).
    package var phrase: String {
        switch self {
        case .audioSessionInterrupt: "audio session interrupted"
        case .applicationSuspended: "application suspended"
        case .idleTimeout: "idle timeout"
        case .notifyWhenFinished: "players finished"
        case .engineDestroyed: "engine destroyed"
        case .gameControllerDisconnect: "game controller disconnected"
        case .systemError: "system error"
        @unknown default: "stopped for reason \(rawValue)"
        }
    }
}
