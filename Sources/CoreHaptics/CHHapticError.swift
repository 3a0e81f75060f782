public import Foundation
public import HapticsEngine

/// Core Haptics' error: Apple's domain and codes, with a message saying what went wrong.
///
/// Match codes as on Apple's platforms:
///
/// ```swift
/// do { try player.start(atTime: CHHapticTimeImmediate) }
/// catch CHHapticError.engineNotRunning { try engine.start() }
/// ```
public struct CHHapticError: Error, Hashable, Sendable, CustomNSError, LocalizedError, CustomStringConvertible {
    /// Apple's `CHHapticError.Code` values: an open C enum (CoreHapticsEnums), as Apple's
    /// `NS_ERROR_ENUM` is, so a `switch` over it wants `@unknown default` exactly as with Apple's
    /// SDK. The same type as `HapticEngineError.Code`: the header lists Apple's codes once.
    /// CoreHaptics re-exports the C module, so the cases are visible to app code that imports
    /// only CoreHaptics.
    public typealias Code = _CHHapticErrorCode

    /// Apple's error domain (``CoreHapticsErrorDomain``): `(error as NSError).domain`.
    public static var errorDomain: String { CoreHapticsErrorDomain }

    public var code: Code
    /// What went wrong, in words.
    public var message: String
    private let info: UserInfo

    /// The `userInfo` an app passed; immutable, as `NSError.userInfo` is.
    /// @unchecked Sendable: never mutated after `init`, like the NSError Apple's error wraps.
    private final class UserInfo: @unchecked Sendable {
        let values: [String: Any]
        init(_ values: [String: Any]) { self.values = values }
    }

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
        info = UserInfo([:])
    }

    /// Apple's initializer: an error with `code`; `userInfo[NSLocalizedDescriptionKey]`, when a
    /// string, becomes the message.
    public init(_ code: Code, userInfo: [String: Any] = [:]) {
        self.code = code
        message = userInfo[NSLocalizedDescriptionKey] as? String ?? "Core Haptics error \(code.rawValue)"
        info = UserInfo(userInfo)
    }

    /// The same error with Apple's code, from the engine underneath.
    public init(_ error: HapticEngineError) {
        self.init(Code(rawValue: error.code.rawValue) ?? .unknownError, error.message)
    }

    /// The numeric code, as `(error as NSError).code` gives it (-4805 for `engineNotRunning`).
    public var errorCode: Int { code.rawValue }

    /// The app's `userInfo`, plus the message as `NSLocalizedDescriptionKey`.
    public var errorUserInfo: [String: Any] {
        info.values.merging([NSLocalizedDescriptionKey: description]) { own, _ in own }
    }

    /// The `userInfo` given to ``init(_:userInfo:)``.
    public var userInfo: [String: Any] { info.values }

    public var errorDescription: String? { description }

    public var description: String { "\(message) (CHHapticError \(code.rawValue))" }

    public static func == (a: CHHapticError, b: CHHapticError) -> Bool {
        a.code == b.code && a.message == b.message
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(code)
        hasher.combine(message)
    }

    public static let engineNotRunning = Code.engineNotRunning
    public static let operationNotPermitted = Code.operationNotPermitted
    public static let engineStartTimeout = Code.engineStartTimeout
    public static let notSupported = Code.notSupported
    public static let serverInitFailed = Code.serverInitFailed
    public static let serverInterrupted = Code.serverInterrupted
    public static let invalidPatternPlayer = Code.invalidPatternPlayer
    public static let invalidPatternData = Code.invalidPatternData
    public static let invalidPatternDictionary = Code.invalidPatternDictionary
    public static let invalidAudioSession = Code.invalidAudioSession
    public static let invalidEngineParameter = Code.invalidEngineParameter
    public static let invalidParameterType = Code.invalidParameterType
    public static let invalidEventType = Code.invalidEventType
    public static let invalidEventTime = Code.invalidEventTime
    public static let invalidEventDuration = Code.invalidEventDuration
    public static let invalidAudioResource = Code.invalidAudioResource
    public static let resourceNotAvailable = Code.resourceNotAvailable
    public static let badEventEntry = Code.badEventEntry
    public static let badParameterEntry = Code.badParameterEntry
    public static let invalidTime = Code.invalidTime
    public static let fileNotFound = Code.fileNotFound
    public static let insufficientPower = Code.insufficientPower
    public static let unknownError = Code.unknownError
    public static let memoryError = Code.memoryError
}

extension CHHapticError.Code {
    /// Lets `catch CHHapticError.engineNotRunning` match, as with Apple's bridged errors.
    public static func ~= (code: CHHapticError.Code, error: any Error) -> Bool {
        (error as? CHHapticError)?.code == code
    }
}

/// Core Haptics' error domain, `"com.apple.CoreHaptics"`.
public let CoreHapticsErrorDomain = "com.apple.CoreHaptics"

/// Runs an engine call, turning its error into a `CHHapticError`.
func bridged<T>(_ body: () throws(HapticEngineError) -> T) throws(CHHapticError) -> T {
    do {
        return try body()
    } catch {
        throw CHHapticError(error)
    }
}
