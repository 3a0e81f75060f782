public import Foundation
import HapticsCore
import HapticsEngine
import HapticsSynthesis
import OrderedCollections

/// A haptic pattern: events, dynamic parameters and curves (Core Haptics' `CHHapticPattern`).
///
/// ```swift
/// let pattern = try CHHapticPattern(events: events, parameters: [])
/// let fromFile = try CHHapticPattern(contentsOf: Bundle.main.url(forResource: "Boing", withExtension: "ahap")!)
/// ```
open class CHHapticPattern: NSObject {
    /// The keys of a pattern dictionary: AHAP's keys, with Apple's names (`.pattern`, `.event`,
    /// ...; the constants are below, on `String`).
    ///
    /// Apple's `CHHapticPattern.Key` is a struct that Foundation bridges from `NSString`, so app
    /// code casts `JSONSerialization`'s output `as? [CHHapticPattern.Key: Any]`. On Linux, Swift's
    /// runtime casts a `String` key to no struct, and that cast was nil (the app played nothing).
    /// Here the key is the string itself, so the cast succeeds wherever Apple's does.
    public typealias Key = String

    /// The pattern in the model the engine plays.
    let model: HapticPattern
    /// Waveforms of AudioCustom events read with the AHAP file, by `EventWaveformPath`.
    let clips: [String: AudioClip]

    init(model: HapticPattern, clips: [String: AudioClip] = [:]) {
        self.model = model
        self.clips = clips
    }

    /// A pattern of `events` and dynamic `parameters`, in that order.
    ///
    /// This and Apple's other initializers are designated, as Apple's are, so a subclass can call
    /// any of them with `super.init`.
    public init(events: [CHHapticEvent], parameters: [CHHapticDynamicParameter]) throws {
        var elements: [PatternElement] = []
        for event in events { elements.append(.event(try event.model())) }
        for parameter in parameters { elements.append(.parameter(try parameter.model())) }
        model = HapticPattern(elements: elements)
        clips = [:]
    }

    /// A pattern of `events` and parameter curves, in that order.
    public init(events: [CHHapticEvent], parameterCurves: [CHHapticParameterCurve]) throws {
        var elements: [PatternElement] = []
        for event in events { elements.append(.event(try event.model())) }
        for curve in parameterCurves { elements.append(.curve(try curve.model())) }
        model = HapticPattern(elements: elements)
        clips = [:]
    }

    /// Reads an AHAP file. An AudioCustom event's `EventWaveformPath` is read where it points
    /// when absolute; otherwise it is looked for in the file's folder, then in the app bundle's
    /// root (`Bundle.main.resourceURL`; where Apple's samples name `AHAP/Drums.wav`), then in
    /// each folder of `HAPTIC_WAVEFORMS` (colon-separated). One found nowhere is an error with
    /// Apple's code, `badEventEntry`; one that is not a WAV file, `invalidAudioResource`.
    public init(contentsOf ahapURL: URL) throws {
        (model, clips) = try Self.load(ahapURL, waveformSearchPaths: Self.defaultWaveformSearchPaths())
    }

    /// The bundle root, then the folders `HAPTIC_WAVEFORMS` names.
    static func defaultWaveformSearchPaths(
        environment: [String: String] = ProcessInfo.processInfo.environment, bundle: Bundle = .main
    ) -> [URL] {
        let configured = (environment["HAPTIC_WAVEFORMS"] ?? "").split(separator: ":").map {
            URL(filePath: String($0), directoryHint: .isDirectory)
        }
        return (bundle.resourceURL.map { [$0] } ?? []) + configured
    }

    /// Reads an AHAP file; AudioCustom waveforms are looked for in the file's folder, then in
    /// each of `waveformSearchPaths` (as `haptic --waveforms DIR` does). A relative waveform path
    /// may not leave the folder it is found in. Not in Apple's API, which reads from the app bundle.
    public init(contentsOf ahapURL: URL, waveformSearchPaths: [URL]) throws {
        (model, clips) = try Self.load(ahapURL, waveformSearchPaths: waveformSearchPaths)
    }

    private static func load(_ ahapURL: URL, waveformSearchPaths: [URL]) throws(CHHapticError) -> (
        HapticPattern, [String: AudioClip]
    ) {
        let path = ahapURL.path(percentEncoded: false)
        guard FileManager.default.fileExists(atPath: path) else {
            throw CHHapticError(.fileNotFound, "no AHAP file at \(path)")
        }
        let pattern: HapticPattern
        do {
            let bytes = try PatternFile.readFile(
                path, limit: limits.maxFileBytes, what: "AHAP file", file: path, at: .root)
            pattern = try PatternFile.decode(bytes, path: path, limits: limits).pattern
        } catch {
            throw CHHapticError(.invalidPatternData, error.description)
        }
        let folders = [PatternFile.folder(of: path)] + waveformSearchPaths.map { $0.path(percentEncoded: false) }
        return (pattern, try waveforms(of: pattern, source: path, folders: folders))
    }

    /// The waveforms of `model`'s AudioCustom events, found as Core Haptics finds them: an
    /// absolute path where it points, any other in `folders` in order. Events that play a
    /// registered audio resource are the engine's to resolve. A path found nowhere is Apple's
    /// `badEventEntry` ("invalid audio resource path"), a file that is not a usable WAV file
    /// `invalidAudioResource`, as Core Haptics reports them.
    static func waveforms(of model: HapticPattern, source: String, folders: [String]) throws(CHHapticError)
        -> [String: AudioClip]
    {
        let registered = CHHapticEvent.resourcePath(0).dropLast()
        do {
            return try PatternFile.loadWaveforms(
                of: model, source: source, folders: folders, absolutePaths: true,
                hint: "HAPTIC_WAVEFORMS (colon-separated folders) adds places to look in",
                skip: { $0.hasPrefix(registered) })
        } catch {
            let code: CHHapticError.Code =
                switch error.code {
                case .waveformNotFound, .waveformPath: .badEventEntry
                default: .invalidAudioResource
                }
            throw CHHapticError(code, "\(source): \(error.path): \(error.message)")
        }
    }

    /// Where a pattern that comes from no file (a dictionary, `playPattern(from: Data)`) looks
    /// for its waveforms: the app bundle's root, then `HAPTIC_WAVEFORMS`.
    static func waveformsWithoutAFile(of model: HapticPattern, source: String) throws(CHHapticError)
        -> [String: AudioClip]
    {
        try waveforms(
            of: model, source: source, folders: defaultWaveformSearchPaths().map { $0.path(percentEncoded: false) })
    }

    /// A pattern from a dictionary shaped like an AHAP file.
    ///
    /// Keys are `CHHapticPattern.Key`s, which are `String`s (a `[String: Any]` from
    /// `JSONSerialization` is taken as it is); values may be numbers (`NSNumber`s from
    /// `JSONSerialization` included: a number stays a number, only `true`/`false` are booleans),
    /// strings, `CHHapticEvent.EventType`, `CHHapticEvent.ParameterID` or
    /// `CHHapticDynamicParameter.ID`.
    ///
    /// ```swift
    /// let pattern = try CHHapticPattern(dictionary: [
    ///     .pattern: [[CHHapticPattern.Key.event: [
    ///         CHHapticPattern.Key.eventType: CHHapticEvent.EventType.hapticTransient,
    ///         CHHapticPattern.Key.time: 0.0]]],
    /// ])
    /// ```
    ///
    /// An AudioCustom event's `EventWaveformPath` is read where it points when absolute;
    /// otherwise it is looked for in the app bundle's root (`Bundle.main.resourceURL`), then in
    /// each folder of `HAPTIC_WAVEFORMS`. One found nowhere is an error with Apple's code,
    /// `badEventEntry`.
    public init(dictionary patternDict: [CHHapticPattern.Key: Any]) throws {
        model = try Self.model(jsonObject: try Self.jsonObject(patternDict, path: ""))
        clips = try Self.waveformsWithoutAFile(of: model, source: "the pattern dictionary")
    }

    /// A pattern from an `NSDictionary` (or `NSMutableDictionary`) shaped like an AHAP file.
    public convenience init(dictionary patternDict: NSDictionary) throws {
        let model = try Self.model(jsonObject: try Self.jsonObject(patternDict, path: ""))
        self.init(model: model, clips: try Self.waveformsWithoutAFile(of: model, source: "the pattern dictionary"))
    }

    private static func model(jsonObject json: Any) throws(CHHapticError) -> HapticPattern {
        let bytes: [UInt8]
        do {
            bytes = [UInt8](try JSONSerialization.data(withJSONObject: json))
        } catch {
            throw CHHapticError(.invalidPatternDictionary, "the dictionary is not JSON-shaped: \(error)")
        }
        do {
            return try AHAP.decode(bytes, limits: Self.limits).pattern
        } catch {
            throw CHHapticError(.invalidPatternDictionary, error.diagnostic.description)
        }
    }

    /// The AHAP reader's limits, without a limit on the pattern's length: Core Haptics has none.
    static let limits: AHAPLimits = {
        var limits = AHAPLimits.default
        limits.maxDuration = .greatestFiniteMagnitude
        return limits
    }()

    /// The pattern as a dictionary shaped like an AHAP file: `CHHapticPattern.Key` (`String`)
    /// keys, numbers as `Double`.
    public func exportDictionary() throws -> [CHHapticPattern.Key: Any] {
        let document: JSONDocument
        do {
            document = try JSONParser.parse(AHAP.encode(model))
        } catch {
            throw CHHapticError(.invalidPatternData, "cannot export the pattern: \(error)")
        }
        guard case .object(let members) = document.root.value else { return [:] }
        var result: [Key: Any] = [:]
        for (key, value) in members { result[key] = Self.foundationValue(value) }
        return result
    }

    /// The pattern's length in seconds: the end of its last event, or the start of its last
    /// parameter or curve.
    open var duration: TimeInterval { model.duration }

    // MARK: - Dictionary conversion

    static func foundationValue(_ value: JSONValue) -> Any {
        switch value {
        case .null: NSNull()
        case .bool(let flag): flag
        case .number(let number): number
        case .string(let text): text
        case .array(let items): items.map(foundationValue)
        case .object(let members):
            Dictionary(uniqueKeysWithValues: members.map { ($0.key, foundationValue($0.value)) }) as [String: Any]
        }
    }

    static func jsonObject(_ value: Any, path: String) throws(CHHapticError) -> Any {
        switch value {
        case let dictionary as [String: Any]:
            var result: [String: Any] = [:]
            for (key, item) in dictionary { result[key] = try jsonObject(item, path: path + "." + key) }
            return result
        case let dictionary as [AnyHashable: Any]:
            var result: [String: Any] = [:]
            for (key, item) in dictionary {
                let name: String
                switch key.base {
                case let key as String: name = key
                default:
                    throw CHHapticError(
                        .invalidPatternDictionary, "\(path): key \(key) is not a String")
                }
                result[name] = try jsonObject(item, path: path + "." + name)
            }
            return result
        case let array as [Any]:
            var result: [Any] = []
            for (index, item) in array.enumerated() { result.append(try jsonObject(item, path: "\(path)[\(index)]")) }
            return result
        case let type as CHHapticEvent.EventType: return type.rawValue
        case let id as CHHapticEvent.ParameterID: return id.rawValue
        case let id as CHHapticDynamicParameter.ID: return id.rawValue
        case let text as String: return text
        // Foundation's numbers first, by their real type: `as Bool` would also take an NSNumber 0
        // or 1. JSONSerialization makes booleans (objCType "c") only from true and false.
        case let number as NSNumber where type(of: value) is NSNumber.Type:
            return String(cString: number.objCType) == "c" ? number.boolValue as Any : number.doubleValue
        case let flag as Bool where type(of: value) == Bool.self: return flag
        case let number as Double where type(of: value) == Double.self: return number
        case let number as Float where type(of: value) == Float.self: return Double(number)
        case let number as Int where type(of: value) == Int.self: return number
        case let number as any BinaryInteger: return Double(number)
        case let number as any BinaryFloatingPoint: return Double(number)
        case is NSNull: return NSNull()
        default:
            let location = path.isEmpty ? "the dictionary" : String(path.dropFirst())
            throw CHHapticError(
                .invalidPatternDictionary, "\(location): unsupported value \(value) of type \(Swift.type(of: value))")
        }
    }
}

/// `CHHapticPattern.Key`'s constants and `RawRepresentable`-style accessors. The key is a `String`
/// (see ``CHHapticPattern/Key``), so these are members of `String` for an importer of CoreHaptics:
/// `CHHapticPattern.Key.pattern`, `CHHapticPattern.Key(rawValue: "Pattern")`, `key.rawValue` and
/// `CHHapticPattern.Key.RawValue` compile as they do against Apple's SDK.
extension String {
    /// The type of a key's raw value, as Apple's `CHHapticPattern.Key.RawValue`. Apps name it as
    /// the raw type of their own AHAP coding keys (`enum CodingKeys: CHHapticPattern.Key.RawValue,
    /// CodingKey`).
    public typealias RawValue = String
    /// A key with this raw value, as Apple's `CHHapticPattern.Key(rawValue:)`.
    public init(rawValue: String) { self = rawValue }
    /// The key's AHAP name, as Apple's `CHHapticPattern.Key.rawValue`.
    public var rawValue: String { self }

    public static let version: CHHapticPattern.Key = "Version"
    public static let metadata: CHHapticPattern.Key = "Metadata"
    public static let pattern: CHHapticPattern.Key = "Pattern"
    public static let event: CHHapticPattern.Key = "Event"
    public static let eventType: CHHapticPattern.Key = "EventType"
    public static let time: CHHapticPattern.Key = "Time"
    public static let eventDuration: CHHapticPattern.Key = "EventDuration"
    public static let eventParameters: CHHapticPattern.Key = "EventParameters"
    public static let eventWaveformPath: CHHapticPattern.Key = "EventWaveformPath"
    public static let eventWaveformUseVolumeEnvelope: CHHapticPattern.Key = "EventWaveformUseVolumeEnvelope"
    public static let eventWaveformLoopEnabled: CHHapticPattern.Key = "EventWaveformLoopEnabled"
    public static let parameter: CHHapticPattern.Key = "Parameter"
    public static let parameterID: CHHapticPattern.Key = "ParameterID"
    public static let parameterValue: CHHapticPattern.Key = "ParameterValue"
    public static let parameterCurve: CHHapticPattern.Key = "ParameterCurve"
    public static let parameterCurveControlPoints: CHHapticPattern.Key = "ParameterCurveControlPoints"
}
