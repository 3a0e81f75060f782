public import Foundation
import HapticsEngine

/// Called once an advanced player has played its pattern to the end (or failed to).
public typealias CHHapticAdvancedPatternPlayerCompletionHandler = @Sendable ((any Error)?) -> Void

/// Plays one pattern on an engine (Core Haptics' `CHHapticPatternPlayer`).
///
/// Times are engine seconds (``CHHapticEngine/currentTime``); ``CHHapticTimeImmediate`` means now.
public protocol CHHapticPatternPlayer: AnyObject {
    /// Starts the pattern at `time`.
    func start(atTime time: TimeInterval) throws
    /// Stops the pattern at `time`.
    func stop(atTime time: TimeInterval) throws
    /// Sends dynamic parameters; each applies at `time` plus its own relative time.
    func sendParameters(_ parameters: [CHHapticDynamicParameter], atTime time: TimeInterval) throws
    /// Schedules a parameter curve to start at `time`.
    func scheduleParameterCurve(_ parameterCurve: CHHapticParameterCurve, atTime time: TimeInterval) throws
    /// Stops now and drops everything scheduled.
    func cancel() throws
    /// Silences the player without stopping it.
    var isMuted: Bool { get set }
}

/// A player with pause, resume, seek, loops and a playback rate
/// (Core Haptics' `CHHapticAdvancedPatternPlayer`).
public protocol CHHapticAdvancedPatternPlayer: CHHapticPatternPlayer {
    func pause(atTime time: TimeInterval) throws
    func resume(atTime time: TimeInterval) throws
    func seek(toOffset offsetTime: TimeInterval) throws
    var loopEnabled: Bool { get set }
    /// Where a loop wraps, in pattern seconds; 0 means the pattern's end.
    var loopEnd: TimeInterval { get set }
    /// 2 plays twice as fast (times scale, pitch does not).
    var playbackRate: Float { get set }
    var completionHandler: CHHapticAdvancedPatternPlayerCompletionHandler? { get set }
}

/// Both kinds of player, on the engine's `Player`.
final class PatternPlayer: CHHapticAdvancedPatternPlayer {
    let player: Player

    init(_ player: Player) {
        self.player = player
    }

    func start(atTime time: TimeInterval) throws {
        try bridged { () throws(HapticEngineError) in try player.start(atTime: time) }
    }

    func stop(atTime time: TimeInterval) throws {
        try bridged { () throws(HapticEngineError) in try player.stop(atTime: time) }
    }

    func sendParameters(_ parameters: [CHHapticDynamicParameter], atTime time: TimeInterval) throws {
        let models = try parameters.map { try $0.model() }
        try bridged { () throws(HapticEngineError) in try player.sendParameters(models, atTime: time) }
    }

    func scheduleParameterCurve(_ parameterCurve: CHHapticParameterCurve, atTime time: TimeInterval) throws {
        let curve = try parameterCurve.model()
        try bridged { () throws(HapticEngineError) in try player.scheduleParameterCurve(curve, atTime: time) }
    }

    func cancel() throws {
        try bridged { () throws(HapticEngineError) in try player.cancel() }
    }

    var isMuted: Bool {
        get { player.isMuted }
        set { player.isMuted = newValue }
    }

    func pause(atTime time: TimeInterval) throws {
        try bridged { () throws(HapticEngineError) in try player.pause(atTime: time) }
    }

    func resume(atTime time: TimeInterval) throws {
        try bridged { () throws(HapticEngineError) in try player.resume(atTime: time) }
    }

    func seek(toOffset offsetTime: TimeInterval) throws {
        try bridged { () throws(HapticEngineError) in try player.seek(toOffset: offsetTime) }
    }

    var loopEnabled: Bool {
        get { player.loopEnabled }
        set { player.loopEnabled = newValue }
    }

    var loopEnd: TimeInterval {
        get { player.loopEnd }
        set { player.loopEnd = newValue }
    }

    var playbackRate: Float {
        get { player.playbackRate }
        set { player.playbackRate = newValue }
    }

    var completionHandler: CHHapticAdvancedPatternPlayerCompletionHandler? {
        get { player.completionHandler }
        set { player.completionHandler = newValue }
    }
}
