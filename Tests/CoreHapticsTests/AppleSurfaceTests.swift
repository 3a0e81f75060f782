import Foundation
import HapticsTesting
import Testing

@testable import CoreHaptics

/// Apple's public Core Haptics API, symbol by symbol, in its Swift spelling: derived from the
/// framework's headers (iPhoneOS 16.5 SDK, the newest whose headers could be read; the 13.7, 14.5
/// and 15.6 headers for when each symbol came) by ClangImporter's rules, and checked against
/// Apple's documentation for later additions (none outside visionOS). Two checks hold the facade to it:
/// `applesSignaturesCompile` names every symbol with Apple's type, so a missing or reshaped one
/// stops the build, and `theTableNamesEverySymbol` finds each in docs/corehaptics.md's table.
enum AppleSurface {
    /// Type (or nested type) → its members, as Apple's SDK spells them in Swift.
    static let symbols: [(type: String, members: [String])] = [
        (
            "CHHapticEngine",
            [
                "init()", "init(audioSession:)", "capabilitiesForHardware()", "currentTime", "stoppedHandler",
                "resetHandler", "playsHapticsOnly", "playsAudioOnly", "isMutedForAudio", "isMutedForHaptics",
                "isAutoShutdownEnabled", "start() throws", "start(completionHandler:)", "start() async throws",
                "stop(completionHandler:)", "stop() async throws", "notifyWhenPlayersFinished(finishedHandler:)",
                "makePlayer(with:)", "makeAdvancedPlayer(with:)", "playPattern(from: URL)", "playPattern(from: Data)",
                "registerAudioResource(_:options:)", "unregisterAudioResource(_:)",
            ]
        ),
        (
            "CHHapticEngine.StoppedReason",
            [
                "audioSessionInterrupt", "applicationSuspended", "idleTimeout", "notifyWhenFinished",
                "engineDestroyed", "gameControllerDisconnect", "systemError",
            ]
        ),
        ("CHHapticEngine.FinishedAction", ["stopEngine", "leaveEngineRunning"]),
        ("CHHapticEngine.CompletionHandler", []),
        ("CHHapticEngine.StoppedHandler", []),
        ("CHHapticEngine.ResetHandler", []),
        ("CHHapticEngine.FinishedHandler", []),
        (
            "CHHapticPattern",
            [
                "init(events:parameters:)", "init(events:parameterCurves:)", "init(dictionary:)",
                "init(contentsOf:)", "exportDictionary()", "duration",
            ]
        ),
        (
            "CHHapticPattern.Key",
            [
                "version", "pattern", "event", "eventType", "time", "eventDuration", "eventParameters",
                "eventWaveformPath", "eventWaveformUseVolumeEnvelope", "eventWaveformLoopEnabled", "parameter",
                "parameterID", "parameterValue", "parameterCurve", "parameterCurveControlPoints",
            ]
        ),
        (
            "CHHapticEvent",
            [
                "init(eventType:parameters:relativeTime:)", "init(eventType:parameters:relativeTime:duration:)",
                "init(audioResourceID:parameters:relativeTime:)",
                "init(audioResourceID:parameters:relativeTime:duration:)", "type", "eventParameters",
                "relativeTime", "duration",
            ]
        ),
        ("CHHapticEvent.EventType", ["hapticTransient", "hapticContinuous", "audioContinuous", "audioCustom"]),
        (
            "CHHapticEvent.ParameterID",
            [
                "hapticIntensity", "hapticSharpness", "attackTime", "decayTime", "releaseTime", "sustained",
                "audioVolume", "audioPitch", "audioPan", "audioBrightness",
            ]
        ),
        ("CHHapticEventParameter", ["init(parameterID:value:)", "parameterID", "value"]),
        (
            "CHHapticDynamicParameter",
            ["init(parameterID:value:relativeTime:)", "parameterID", "value", "relativeTime"]
        ),
        (
            "CHHapticDynamicParameter.ID",
            [
                "hapticIntensityControl", "hapticSharpnessControl", "hapticAttackTimeControl",
                "hapticDecayTimeControl", "hapticReleaseTimeControl", "audioVolumeControl", "audioPanControl",
                "audioPitchControl", "audioBrightnessControl", "audioAttackTimeControl", "audioDecayTimeControl",
                "audioReleaseTimeControl",
            ]
        ),
        (
            "CHHapticParameterCurve",
            ["init(parameterID:controlPoints:relativeTime:)", "parameterID", "relativeTime", "controlPoints"]
        ),
        ("CHHapticParameterCurve.ControlPoint", ["init(relativeTime:value:)", "relativeTime", "value"]),
        (
            "CHHapticPatternPlayer",
            [
                "start(atTime:)", "stop(atTime:)", "sendParameters(_:atTime:)", "scheduleParameterCurve(_:atTime:)",
                "cancel()", "isMuted",
            ]
        ),
        (
            "CHHapticAdvancedPatternPlayer",
            [
                "pause(atTime:)", "resume(atTime:)", "seek(toOffset:)", "loopEnabled", "loopEnd", "playbackRate",
                "isMuted", "completionHandler",
            ]
        ),
        ("CHHapticAdvancedPatternPlayerCompletionHandler", []),
        (
            "CHHapticDeviceCapability",
            [
                "supportsHaptics", "supportsAudio", "attributes(forEventParameter:eventType:)",
                "attributes(forDynamicParameter:)",
            ]
        ),
        ("CHHapticParameterAttributes", ["minValue", "maxValue", "defaultValue"]),
        ("CHHapticAudioResourceKey", []),
        ("CHHapticAudioResourceKeyUseVolumeEnvelope", []),
        ("CHHapticAudioResourceKeyLoopEnabled", []),
        ("CHHapticAudioResourceID", []),
        ("CHHapticTimeImmediate", []),
        ("CHHapticError", ["init(_:userInfo:)", "code", "userInfo", "errorDomain"]),
        (
            "CHHapticError.Code",
            [
                "engineNotRunning", "operationNotPermitted", "engineStartTimeout", "notSupported",
                "serverInitFailed", "serverInterrupted", "invalidPatternPlayer", "invalidPatternData",
                "invalidPatternDictionary", "invalidAudioSession", "invalidEngineParameter", "invalidParameterType",
                "invalidEventType", "invalidEventTime", "invalidEventDuration", "invalidAudioResource",
                "resourceNotAvailable", "badEventEntry", "badParameterEntry", "invalidTime", "fileNotFound",
                "insufficientPower", "unknownError", "memoryError",
            ]
        ),
        ("CoreHapticsErrorDomain", []),
    ]

    /// What docs/corehaptics.md's table names: for each row, the type its first cell starts with
    /// (or, for a row of members only, the type of the rows above) and every backticked member in
    /// the cell.
    static func documented(_ markdown: String) -> [String: Set<String>] {
        let knownTypes = Set(symbols.map(\.type))
        var table: [String: Set<String>] = [:]
        var current = ""
        let section = markdown.components(separatedBy: "## Apple's API, symbol by symbol").last ?? ""
        for line in section.split(separator: "\n") where line.hasPrefix("| `") {
            let cell = line.dropFirst(2).prefix { $0 != "|" }
            var names = cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
                .filter { $0.offset % 2 == 1 }.map { String($0.element) }
            guard let first = names.first else { continue }
            if knownTypes.contains(first) {
                current = first
                names.removeFirst()
                table[current, default: []].insert("")
            }
            for name in names {
                // `CHHapticEngine.StoppedHandler` in a member row names a type of its own.
                if knownTypes.contains(name) {
                    table[name, default: []].insert("")
                } else if knownTypes.contains("\(current).\(name)") {
                    table["\(current).\(name)", default: []].insert("")
                } else {
                    table[current, default: []].insert(name)
                }
            }
        }
        return table
    }
}

/// App code's `switch` over an error's code as Apple's SDK wants it: every case, then
/// `@unknown default`. The build (warnings as errors) passes only while `CHHapticError.Code` is an
/// open enum as Apple's is: over a closed one, `@unknown default` "will never be executed".
func appleName(of code: CHHapticError.Code) -> String {
    switch code {
    case .engineNotRunning: "engineNotRunning"
    case .operationNotPermitted: "operationNotPermitted"
    case .engineStartTimeout: "engineStartTimeout"
    case .notSupported: "notSupported"
    case .serverInitFailed: "serverInitFailed"
    case .serverInterrupted: "serverInterrupted"
    case .invalidPatternPlayer: "invalidPatternPlayer"
    case .invalidPatternData: "invalidPatternData"
    case .invalidPatternDictionary: "invalidPatternDictionary"
    case .invalidAudioSession: "invalidAudioSession"
    case .invalidEngineParameter: "invalidEngineParameter"
    case .invalidParameterType: "invalidParameterType"
    case .invalidEventType: "invalidEventType"
    case .invalidEventTime: "invalidEventTime"
    case .invalidEventDuration: "invalidEventDuration"
    case .invalidAudioResource: "invalidAudioResource"
    case .resourceNotAvailable: "resourceNotAvailable"
    case .badEventEntry: "badEventEntry"
    case .badParameterEntry: "badParameterEntry"
    case .invalidTime: "invalidTime"
    case .fileNotFound: "fileNotFound"
    case .insufficientPower: "insufficientPower"
    case .unknownError: "unknownError"
    case .memoryError: "memoryError"
    @unknown default: "unknown \(code.rawValue)"
    }
}

@Suite struct AppleSurfaceTests {
    @Test func theTableNamesEverySymbol() throws {
        let doc = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../docs/corehaptics.md")
        let table = AppleSurface.documented(try String(contentsOf: doc, encoding: .utf8))
        var missing: [String] = []
        for (type, members) in AppleSurface.symbols {
            guard let listed = table[type] else {
                missing.append(type)
                continue
            }
            missing += members.filter { !listed.contains($0) }.map { "\(type).\($0)" }
        }
        #expect(missing == [], "docs/corehaptics.md's table does not name these symbols of Apple's")
        let count = AppleSurface.symbols.reduce(0) { $0 + 1 + $1.members.count }
        #expect(count == 180)
    }

    @Test func theCheckFindsAMissingRow() {
        let table = AppleSurface.documented(
            """
            ## Apple's API, symbol by symbol
            | `CHHapticEngine` | differs | |
            | `init()` | present | |
            | `CHHapticEngine.FinishedAction` (`stopEngine`) | present | |
            | `CHHapticEventParameter`: `init(parameterID:value:)`, `value` | present | |
            """)
        #expect(table["CHHapticEngine"] == ["", "init()"])
        #expect(table["CHHapticEngine.FinishedAction"] == ["", "stopEngine"])
        #expect(table["CHHapticEventParameter"] == ["", "init(parameterID:value:)", "value"])
        #expect(table["CHHapticEventParameter"]?.contains("parameterID") == false)
    }

    /// Every symbol above, named with the type Apple's SDK gives it: this compiles only if the
    /// facade has each one in Apple's shape. It also runs, on a manual clock.
    @Test func applesSignaturesCompile() async throws {
        let driver = ManualEngineDriver()
        let engine = CHHapticEngine(output: driver.output, clock: driver.clock, ticks: driver.ticks)

        let _: () throws -> CHHapticEngine = CHHapticEngine.init
        let _: (AVAudioSession?) throws -> CHHapticEngine = CHHapticEngine.init(audioSession:)
        let capability: any CHHapticDeviceCapability = CHHapticEngine.capabilitiesForHardware()
        let _: TimeInterval = engine.currentTime
        let stopped: CHHapticEngine.StoppedHandler = { (_: CHHapticEngine.StoppedReason) in }
        let reset: CHHapticEngine.ResetHandler = {}
        engine.stoppedHandler = stopped
        engine.resetHandler = reset
        engine.playsHapticsOnly = false
        engine.playsAudioOnly = false
        engine.isMutedForAudio = false
        engine.isMutedForHaptics = false
        engine.isAutoShutdownEnabled = false
        let _: (CHHapticEngine) -> () throws -> Void = CHHapticEngine.start
        // Apple's SDK takes a `@Sendable` handler here (the CompletionHandler alias is plain).
        let _: (CHHapticEngine) -> ((@Sendable ((any Error)?) -> Void)?) -> Void = CHHapticEngine.start(
            completionHandler:)
        let _: (CHHapticEngine) -> ((@Sendable ((any Error)?) -> Void)?) -> Void = CHHapticEngine.stop(
            completionHandler:)
        for method in [type(of: engine.start(completionHandler:)), type(of: engine.stop(completionHandler:))] {
            #expect("\(method)".contains("(Optional<@Sendable (Optional<Error>) -> ()>)"), "\(method)")
        }
        try await engine.start()
        let finished: CHHapticEngine.FinishedHandler = { (_: (any Error)?) -> CHHapticEngine.FinishedAction in
            .leaveEngineRunning
        }
        engine.notifyWhenPlayersFinished(finishedHandler: finished)
        let completion: CHHapticEngine.CompletionHandler = { (_: (any Error)?) in }
        _ = completion

        let events: [CHHapticEvent] = [
            CHHapticEvent(eventType: .hapticTransient, parameters: [], relativeTime: 0),
            CHHapticEvent(eventType: .hapticContinuous, parameters: [], relativeTime: 0, duration: 0.1),
        ]
        let _: (CHHapticAudioResourceID, [CHHapticEventParameter], TimeInterval) -> CHHapticEvent =
            CHHapticEvent.init(audioResourceID:parameters:relativeTime:)
        let _: (CHHapticAudioResourceID, [CHHapticEventParameter], TimeInterval, TimeInterval) -> CHHapticEvent =
            CHHapticEvent.init(audioResourceID:parameters:relativeTime:duration:)
        let event = events[1]
        let _: CHHapticEvent.EventType = event.type
        let _: [CHHapticEventParameter] = event.eventParameters
        event.relativeTime = 0
        event.duration = 0.1
        let parameter = CHHapticEventParameter(parameterID: CHHapticEvent.ParameterID.hapticIntensity, value: 1)
        let _: CHHapticEvent.ParameterID = parameter.parameterID
        parameter.value = 0.5
        let dynamic = CHHapticDynamicParameter(
            parameterID: CHHapticDynamicParameter.ID.hapticIntensityControl, value: 1, relativeTime: 0)
        let _: CHHapticDynamicParameter.ID = dynamic.parameterID
        dynamic.value = 0.5
        dynamic.relativeTime = 0
        let point = CHHapticParameterCurve.ControlPoint(relativeTime: 0, value: 1)
        point.relativeTime = 0
        point.value = 1
        let curve = CHHapticParameterCurve(
            parameterID: .hapticSharpnessControl, controlPoints: [point], relativeTime: 0)
        let _: CHHapticDynamicParameter.ID = curve.parameterID
        let _: [CHHapticParameterCurve.ControlPoint] = curve.controlPoints
        curve.relativeTime = 0

        let _: ([CHHapticEvent], [CHHapticDynamicParameter]) throws -> CHHapticPattern = CHHapticPattern.init(
            events:parameters:)
        let pattern = try CHHapticPattern(events: events, parameterCurves: [curve])
        let _: ([CHHapticPattern.Key: Any]) throws -> CHHapticPattern = CHHapticPattern.init(dictionary:)
        let _: (URL) throws -> CHHapticPattern = CHHapticPattern.init(contentsOf:)
        let exported: [CHHapticPattern.Key: Any] = try pattern.exportDictionary()
        let _: TimeInterval = pattern.duration
        let keys: [CHHapticPattern.Key] = [
            .version, .pattern, .event, .eventType, .time, .eventDuration, .eventParameters, .eventWaveformPath,
            .eventWaveformUseVolumeEnvelope, .eventWaveformLoopEnabled, .parameter, .parameterID, .parameterValue,
            .parameterCurve, .parameterCurveControlPoints,
        ]

        let player: any CHHapticPatternPlayer = try engine.makePlayer(with: pattern)
        player.isMuted = false
        try player.start(atTime: CHHapticTimeImmediate)
        try player.sendParameters([dynamic], atTime: CHHapticTimeImmediate)
        try player.scheduleParameterCurve(curve, atTime: CHHapticTimeImmediate)
        try player.stop(atTime: CHHapticTimeImmediate)
        try player.cancel()
        let advanced: any CHHapticAdvancedPatternPlayer = try engine.makeAdvancedPlayer(with: pattern)
        let done: CHHapticAdvancedPatternPlayerCompletionHandler = { (_: (any Error)?) in }
        advanced.completionHandler = done
        advanced.loopEnabled = false
        advanced.loopEnd = 0
        advanced.playbackRate = 1
        advanced.isMuted = false
        try advanced.start(atTime: 0)
        try advanced.pause(atTime: CHHapticTimeImmediate)
        try advanced.seek(toOffset: 0)
        try advanced.resume(atTime: CHHapticTimeImmediate)
        try advanced.stop(atTime: CHHapticTimeImmediate)

        let _: (URL) throws -> Void = engine.playPattern(from:) as (URL) throws -> Void
        let _: (Data) throws -> Void = engine.playPattern(from:) as (Data) throws -> Void
        let _: (URL, [AnyHashable: Any]) throws -> CHHapticAudioResourceID = engine.registerAudioResource(
            _:options:)
        let _: (CHHapticAudioResourceID) throws -> Void = engine.unregisterAudioResource(_:)
        let _: CHHapticAudioResourceKey.Type = NSString.self
        let options: [AnyHashable: Any] = [
            CHHapticAudioResourceKeyUseVolumeEnvelope: true, CHHapticAudioResourceKeyLoopEnabled: false,
        ]

        let _: Bool = capability.supportsHaptics
        let _: Bool = capability.supportsAudio
        let attributes: any CHHapticParameterAttributes = try capability.attributes(
            forEventParameter: .hapticIntensity, eventType: .hapticTransient)
        let _: any CHHapticParameterAttributes = try capability.attributes(forDynamicParameter: .hapticIntensityControl)
        let _: (Float, Float, Float) = (attributes.minValue, attributes.maxValue, attributes.defaultValue)

        let error = CHHapticError(.invalidTime, userInfo: [:])
        let _: CHHapticError.Code = error.code
        let _: [String: Any] = error.userInfo
        let _: String = CHHapticError.errorDomain
        let _: String = CoreHapticsErrorDomain
        // NS_ERROR_ENUM gives the error struct a static constant for each code.
        let codes: [CHHapticError.Code] = [
            CHHapticError.engineNotRunning, CHHapticError.operationNotPermitted, CHHapticError.engineStartTimeout,
            CHHapticError.notSupported, CHHapticError.serverInitFailed, CHHapticError.serverInterrupted,
            CHHapticError.invalidPatternPlayer, CHHapticError.invalidPatternData,
            CHHapticError.invalidPatternDictionary, CHHapticError.invalidAudioSession,
            CHHapticError.invalidEngineParameter, CHHapticError.invalidParameterType, CHHapticError.invalidEventType,
            CHHapticError.invalidEventTime, CHHapticError.invalidEventDuration, CHHapticError.invalidAudioResource,
            CHHapticError.resourceNotAvailable, CHHapticError.badEventEntry, CHHapticError.badParameterEntry,
            CHHapticError.invalidTime, CHHapticError.fileNotFound, CHHapticError.insufficientPower,
            CHHapticError.unknownError, CHHapticError.memoryError,
        ]
        try await engine.stop()

        // The run itself: a pattern was exported, every key and option was made.
        #expect(exported[.pattern] != nil)
        #expect(keys.count == 15 && options.count == 2)
        #expect(Set(codes.map(\.rawValue)).count == 24)
        #expect(codes.map(appleName(of:)).first == "engineNotRunning")
        // Open, as Apple's: a code this SDK does not name still makes a value.
        #expect(CHHapticError.Code(rawValue: -4999).map(appleName(of:)) == "unknown -4999")
    }
}
