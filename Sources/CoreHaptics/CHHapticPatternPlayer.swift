public import Foundation
import HapticsEngine
import Synchronization

/// Called once an advanced player has played its pattern to the end (or failed to), on the
/// engine's callback queue. Apple's plain closure type.
public typealias CHHapticAdvancedPatternPlayerCompletionHandler = ((any Error)?) -> Void

/// Plays one pattern on an engine (Core Haptics' `CHHapticPatternPlayer`).
///
/// Times are engine seconds (``CHHapticEngine/currentTime``); ``CHHapticTimeImmediate`` means now.
///
/// It refines `NSObjectProtocol`, as Apple's does (`isEqual(_:)`, `hash`, `description` on a
/// player); but without the Objective-C runtime only `@objc` protocols' existentials are
/// classes, so `Unmanaged<CHHapticPatternPlayer>` cannot compile on Linux. `Unmanaged<AnyObject>`
/// works on both platforms (docs/corehaptics.md).
public protocol CHHapticPatternPlayer: NSObjectProtocol {
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
    var completionHandler: CHHapticAdvancedPatternPlayerCompletionHandler { get set }
}

/// Players that are playing, kept alive by the engine as Core Haptics does: an app may start a
/// player and let go of it, and the pattern still plays to its end.
final class KeepAlive: Sendable {
    private let players = Mutex<[ObjectIdentifier: Player]>([:])

    func hold(_ player: Player) {
        players.withLock { $0[ObjectIdentifier(player)] = player }
    }

    func release(_ id: ObjectIdentifier) {
        _ = players.withLock { $0.removeValue(forKey: id) }
    }

    var count: Int { players.withLock { $0.count } }
}

/// Both kinds of player, on the engine's `Player`.
final class PatternPlayer: NSObject, CHHapticAdvancedPatternPlayer {
    let player: Player
    private let keepAlive: KeepAlive
    private let handlerBox: HandlerBox

    /// The app's completion handler, read when the pattern ends.
    final class HandlerBox: Sendable {
        let handler = Mutex<AppHandler<CHHapticAdvancedPatternPlayerCompletionHandler>?>(nil)
    }

    init(_ player: Player, keepAlive: KeepAlive) {
        self.player = player
        self.keepAlive = keepAlive
        let box = HandlerBox()
        handlerBox = box
        let id = ObjectIdentifier(player)
        player.completionHandler = { [weak keepAlive] error in
            keepAlive?.release(id)
            box.handler.withLock { $0 }?.function(error)
        }
        super.init()
    }

    func start(atTime time: TimeInterval) throws {
        keepAlive.hold(player)
        do {
            try bridged { () throws(HapticEngineError) in try player.start(atTime: time) }
        } catch {
            keepAlive.release(ObjectIdentifier(player))
            throw error
        }
    }

    func stop(atTime time: TimeInterval) throws {
        keepAlive.release(ObjectIdentifier(player))
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
        keepAlive.release(ObjectIdentifier(player))
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

    /// Non-optional, as Apple declares it; until one is set, a handler that does nothing.
    var completionHandler: CHHapticAdvancedPatternPlayerCompletionHandler {
        get { handlerBox.handler.withLock { $0 }?.function ?? { _ in } }
        set {
            let handler = AppHandler(newValue)
            handlerBox.handler.withLock { $0 = handler }
        }
    }
}
