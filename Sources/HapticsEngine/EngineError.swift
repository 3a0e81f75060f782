/// Why the engine or a player refused a request, with Core Haptics' error codes.
///
/// ```swift
/// do { try player.start(atTime: -1) }
/// catch { print(error) }  // invalid time -1.0: times are engine seconds >= 0 (-4840)
/// ```
public struct HapticEngineError: Error, Hashable, Sendable, CustomStringConvertible {
    /// Core Haptics' `CHHapticError.Code` numbers, so facade code can pass them through.
    public enum Code: Int, Hashable, Sendable, CaseIterable {
        case engineNotRunning = -4805
        case operationNotPermitted = -4806
        case engineStartTimeout = -4808
        case notSupported = -4809
        case serverInitFailed = -4810
        case serverInterrupted = -4811
        case invalidPatternPlayer = -4812
        case invalidPatternData = -4813
        case invalidPatternDictionary = -4814
        case invalidAudioSession = -4815
        case invalidEngineParameter = -4816
        case invalidParameterType = -4820
        case invalidEventType = -4821
        case invalidEventTime = -4822
        case invalidEventDuration = -4823
        case invalidAudioResource = -4824
        case resourceNotAvailable = -4825
        case badEventEntry = -4830
        case badParameterEntry = -4831
        case invalidTime = -4840
        case fileNotFound = -4851
        case insufficientPower = -4897
        case unknownError = -4898
        case memoryError = -4899
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(message) (\(code.rawValue))" }
}
