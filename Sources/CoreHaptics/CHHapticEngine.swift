// The AVAudioSession stand-in (Linux only): `import CoreHaptics` shows it, as Apple's does.
@_exported public import AVFoundation
@_exported public import CoreHapticsEnums
@_exported public import Foundation
import Glibc
import HapticsCore
public import HapticsEngine
import HapticsSynthesis
import HapticsSystem
import Synchronization

/// Plays haptic patterns, heard as clicks and buzzes (Core Haptics' `CHHapticEngine`).
///
/// Where the sound goes comes from the environment: `HAPTIC_OUTPUT=/path.wav` captures to a WAV
/// file (one per engine, valid at every moment, on the wall clock's timeline); otherwise
/// `HAPTIC_DEVICE` names the ALSA device (default `"default"`). See docs/corehaptics.md.
///
/// ```swift
/// guard CHHapticEngine.capabilitiesForHardware().supportsHaptics else { return }
/// let engine = try CHHapticEngine()
/// try engine.start()
/// let player = try engine.makePlayer(with: pattern)
/// try player.start(atTime: CHHapticTimeImmediate)
/// ```
///
/// Handlers (`stoppedHandler`, `resetHandler`, completion and finished handlers) are Apple's plain
/// closure types. As on Apple's platforms, the engine calls them on a serial queue it owns, one
/// at a time and never on the caller's thread; a handler that touches main-actor state hops
/// there itself (`DispatchQueue.main.async` or `Task { @MainActor in ... }`).
///
/// An `open` class with `open` members, as Apple's (an Objective-C class): apps subclass it, most
/// often as `final class SendableCHHapticEngine: CHHapticEngine, @unchecked Sendable {}`.
/// @unchecked Sendable: every stored property is a `let` or behind a `Mutex`, and the engine
/// underneath is thread-safe, as Apple documents its engine to be; a subclass's own state is
/// its own to guard.
open class CHHapticEngine: @unchecked Sendable {
    /// Why the engine stopped by itself: Apple's open enum and raw values (`@unknown default`
    /// is expected in a `switch`, as with Apple's SDK).
    public typealias StoppedReason = _CHHapticEngineStoppedReason
    /// What to do once every player has finished: Apple's open enum and raw values.
    public typealias FinishedAction = _CHHapticEngineFinishedAction
    public typealias CompletionHandler = ((any Error)?) -> Void
    public typealias StoppedHandler = (CHHapticEngine.StoppedReason) -> Void
    public typealias ResetHandler = () -> Void
    public typealias FinishedHandler = ((any Error)?) -> CHHapticEngine.FinishedAction

    /// The engine underneath, for code that wants more than Core Haptics offers.
    public let engine: HapticEngine
    private let flags = Mutex(Flags())
    private let resources = Mutex(Resources())
    private let stopped = Mutex(AppHandler<StoppedHandler>({ _ in }))
    private let reset = Mutex(AppHandler<ResetHandler>({}))
    /// Players playing, kept until they finish.
    let keepAlive = KeepAlive()

    private struct Flags {
        var playsHapticsOnly = false
        var playsAudioOnly = false
        var mutedForAudio = false
        var mutedForHaptics = false
    }

    private struct Resources {
        var next = 1
        var clips: [CHHapticAudioResourceID: AudioResource] = [:]
    }

    /// A registered sound and its `CHHapticAudioResourceKey` options.
    struct AudioResource {
        var clip: AudioClip
        var usesVolumeEnvelope: Bool
        var loopEnabled: Bool
    }

    /// An engine on the output the environment names (see the type's summary).
    public convenience init() throws {
        let selection = OutputSelection(environment: ProcessInfo.processInfo.environment)
        let output: any AudioOutput
        do {
            output = try selection.open()
        } catch {
            throw CHHapticError(.serverInitFailed, "cannot open \(selection): \(error)")
        }
        self.init(output: output)
    }

    /// As `init()`: Linux has no audio sessions, so `audioSession` (the ``AVAudioSession``
    /// stand-in) is accepted and ignored.
    public convenience init(audioSession: AVAudioSession?) throws {
        try self.init()
    }

    /// An engine on `output` (a device, a WAV file, a test recorder), with the engine's
    /// clock and ticks (manual ones in tests).
    public init(
        output: any AudioOutput, configuration: HapticEngine.Configuration = .init(),
        clock: any EngineClock = MonotonicClock(), ticks: any TickSource = ThreadTickSource()
    ) {
        var configuration = configuration
        // Core Haptics sets no limit on a pattern's length (an "endless" continuous player
        // lasts as long as its event); AHAP files keep the reader's own limits.
        configuration.maxPatternSeconds = .infinity
        engine = HapticEngine(output: output, configuration: configuration, clock: clock, ticks: ticks)
        OpenOutputs.register(engine)
    }

    deinit {
        engine.stop()
        engine.output.close()
        OpenOutputs.unregister(engine)
    }

    /// What this machine can play; see ``CHHapticDeviceCapability``. The answer for each
    /// `HAPTIC_OUTPUT` / `HAPTIC_DEVICE` setting is found once per process.
    open class func capabilitiesForHardware() -> any CHHapticDeviceCapability {
        let selection = OutputSelection(environment: ProcessInfo.processInfo.environment)
        if let known = playability.withLock({ $0[selection] }) { return DeviceCapability(canPlay: known) }
        let canPlay = selection.canPlay()
        playability.withLock { $0[selection] = canPlay }
        return DeviceCapability(canPlay: canPlay)
    }

    // MARK: - Properties

    /// Engine time in seconds: the moment being heard now.
    open var currentTime: TimeInterval { engine.currentTime }

    /// Called when the engine stops by itself (idle timeout, players finished, a failing device),
    /// on the engine's callback queue.
    open var stoppedHandler: StoppedHandler {
        get { stopped.withLock { $0 }.function }
        set {
            let handler = AppHandler(newValue)
            stopped.withLock { $0 = handler }
            engine.stoppedHandler = { reason in
                handler.function(StoppedReason(rawValue: reason.rawValue) ?? .systemError)
            }
        }
    }

    /// Called after the engine reset itself (players must be made again), on the engine's
    /// callback queue.
    open var resetHandler: ResetHandler {
        get { reset.withLock { $0 }.function }
        set {
            let handler = AppHandler(newValue)
            reset.withLock { $0 = handler }
            engine.resetHandler = { handler.function() }
        }
    }

    /// Play haptic events only; audio events stay silent.
    open var playsHapticsOnly: Bool {
        get { flags.withLock { $0.playsHapticsOnly } }
        set { update { $0.playsHapticsOnly = newValue } }
    }

    /// Play audio events only; haptic events stay silent (which here means: nothing but audio).
    open var playsAudioOnly: Bool {
        get { flags.withLock { $0.playsAudioOnly } }
        set { update { $0.playsAudioOnly = newValue } }
    }

    /// Silences audio events.
    open var isMutedForAudio: Bool {
        get { flags.withLock { $0.mutedForAudio } }
        set { update { $0.mutedForAudio = newValue } }
    }

    /// Silences haptic events.
    open var isMutedForHaptics: Bool {
        get { flags.withLock { $0.mutedForHaptics } }
        set { update { $0.mutedForHaptics = newValue } }
    }

    /// Stop by itself after a while with nothing playing (off by default).
    open var isAutoShutdownEnabled: Bool {
        get { engine.isAutoShutdownEnabled }
        set { engine.isAutoShutdownEnabled = newValue }
    }

    private func update(_ change: (inout Flags) -> Void) {
        let flags = flags.withLock { flags in
            change(&flags)
            return flags
        }
        engine.isMutedForAudio = flags.mutedForAudio || flags.playsHapticsOnly
        engine.isMutedForHaptics = flags.mutedForHaptics || flags.playsAudioOnly
    }

    // MARK: - Start and stop

    /// Starts the engine.
    open func start() throws {
        try bridged { () throws(HapticEngineError) in try engine.start() }
    }

    /// Starts the engine, then calls `completionHandler` with nil or the error, on the engine's
    /// callback queue. The handler is `@Sendable`, as Apple's SDK declares this parameter (unlike
    /// the `CompletionHandler` type alias, which is a plain closure there too).
    open func start(completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        engine.start { error in
            completionHandler?(error.map { ($0 as? HapticEngineError).map(CHHapticError.init) ?? $0 })
        }
    }

    /// Starts the engine; returns once it runs (Apple's async form of `start(completionHandler:)`).
    open func start() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            engine.start { error in
                if let error {
                    continuation.resume(throwing: (error as? HapticEngineError).map(CHHapticError.init) ?? error)
                } else {
                    continuation.resume()
                }
            }
        }
    }

    /// Stops the engine (a short fade), then calls `completionHandler` on the engine's callback
    /// queue. The handler is `@Sendable`, as Apple's SDK declares this parameter.
    open func stop(completionHandler: (@Sendable ((any Error)?) -> Void)? = nil) {
        engine.stop { error in completionHandler?(error) }
    }

    /// Stops the engine; returns once it has stopped (Apple's async form of
    /// `stop(completionHandler:)`).
    open func stop() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            engine.stop { error in
                if let error { continuation.resume(throwing: error) } else { continuation.resume() }
            }
        }
    }

    /// Calls `finishedHandler` on the engine's callback queue once every player has finished, or
    /// at once when none is playing; its answer says whether to stop the engine.
    open func notifyWhenPlayersFinished(finishedHandler: @escaping FinishedHandler) {
        let handler = AppHandler(finishedHandler)
        engine.notifyWhenPlayersFinished(nothingPlaying: keepAlive.count == 0) { error in
            handler.function(error) == .stopEngine ? .stopEngine : .leaveEngineRunning
        }
    }

    // MARK: - Players

    /// A player for `pattern`.
    open func makePlayer(with pattern: CHHapticPattern) throws -> any CHHapticPatternPlayer {
        let (model, clips) = try prepared(pattern)
        return PatternPlayer(
            try bridged { () throws(HapticEngineError) in try engine.makePlayer(model, clips: clips) },
            keepAlive: keepAlive)
    }

    /// An advanced player (pause, resume, seek, loops, rate, completion) for `pattern`.
    open func makeAdvancedPlayer(with pattern: CHHapticPattern) throws -> any CHHapticAdvancedPatternPlayer {
        let (model, clips) = try prepared(pattern)
        return PatternPlayer(
            try bridged { () throws(HapticEngineError) in try engine.makeAdvancedPlayer(model, clips: clips) },
            keepAlive: keepAlive)
    }

    /// Plays an AHAP file now, starting the engine if it is stopped (as Apple's does); the engine
    /// keeps the player until it finishes.
    open func playPattern(from url: URL) throws {
        try play(CHHapticPattern(contentsOf: url))
    }

    /// Plays AHAP data now, starting the engine if it is stopped; the engine keeps the player
    /// until it finishes.
    open func playPattern(from data: Data) throws {
        let pattern: HapticPattern
        do {
            pattern = try AHAP.decode([UInt8](data), limits: CHHapticPattern.limits).pattern
        } catch {
            throw CHHapticError(.invalidPatternData, error.description)
        }
        try play(
            CHHapticPattern(
                model: pattern, clips: CHHapticPattern.waveformsWithoutAFile(of: pattern, source: "the pattern data")))
    }

    private func play(_ pattern: CHHapticPattern) throws {
        let player = try makePlayer(with: pattern)
        try start()
        do {
            try player.start(atTime: CHHapticTimeImmediate)
        } catch CHHapticError.engineNotRunning {
            // A stop queued before this call (players finished with `.stopEngine`) ran after the
            // start above: start again, as the app asked to play.
            try start()
            try player.start(atTime: CHHapticTimeImmediate)
        }
    }

    // MARK: - Audio resources

    /// Registers a WAV file for `CHHapticEvent(audioResourceID:...)` events.
    ///
    /// `options` takes Apple's keys with `Bool` (or `NSNumber`) values:
    /// ``CHHapticAudioResourceKeyUseVolumeEnvelope`` (default true) shapes the sound with the
    /// event's attack, decay and release; ``CHHapticAudioResourceKeyLoopEnabled`` (default false)
    /// repeats it for the event's duration.
    open func registerAudioResource(_ resourceURL: URL, options: [AnyHashable: Any] = [:]) throws
        -> CHHapticAudioResourceID
    {
        let path = resourceURL.path(percentEncoded: false)
        guard let data = FileManager.default.contents(atPath: path) else {
            throw CHHapticError(.fileNotFound, "cannot read audio resource \(path)")
        }
        let clip: AudioClip
        do {
            clip = try WAV.decode([UInt8](data))
        } catch {
            throw CHHapticError(.invalidAudioResource, "\(path): \(error)")
        }
        func flag(_ key: String, default value: Bool) throws(CHHapticError) -> Bool {
            guard let option = options[key] ?? options[NSString(string: key)] else { return value }
            guard let flag = option as? Bool else {
                throw CHHapticError(
                    .invalidAudioResource, "option \(key) must be a Bool, found \(type(of: option))")
            }
            return flag
        }
        let resource = AudioResource(
            clip: clip, usesVolumeEnvelope: try flag(CHHapticAudioResourceKeyUseVolumeEnvelope, default: true),
            loopEnabled: try flag(CHHapticAudioResourceKeyLoopEnabled, default: false))
        return resources.withLock { resources in
            defer { resources.next += 1 }
            resources.clips[resources.next] = resource
            return resources.next
        }
    }

    /// Forgets a registered sound; patterns made with it can no longer get players.
    open func unregisterAudioResource(_ resourceID: CHHapticAudioResourceID) throws {
        guard resources.withLock({ $0.clips.removeValue(forKey: resourceID) }) != nil else {
            throw CHHapticError(.invalidAudioResource, "no audio resource with ID \(resourceID)")
        }
    }

    /// The pattern's model with each registered sound's options applied, and its waveforms: the
    /// pattern's own plus the registered sounds its events name.
    private func prepared(_ pattern: CHHapticPattern) throws(CHHapticError) -> (HapticPattern, [String: AudioClip]) {
        var clips = pattern.clips
        var model = pattern.model
        let prefix = CHHapticEvent.resourcePath(0).dropLast()
        for (index, element) in model.elements.enumerated() {
            guard case .event(var event) = element, let path = event.waveformPath, path.hasPrefix(prefix),
                pattern.clips[path] == nil
            else { continue }
            guard let id = Int(path.dropFirst(prefix.count)),
                let resource = resources.withLock({ $0.clips[id] })
            else {
                throw CHHapticError(
                    .invalidAudioResource, "audio resource \(path.dropFirst(prefix.count)) is not registered")
            }
            clips[path] = resource.clip
            event.waveformUsesVolumeEnvelope = resource.usesVolumeEnvelope
            event.waveformLoopEnabled = resource.loopEnabled
            model.elements[index] = .event(event)
        }
        return (model, clips)
    }
}

/// An app's handler: Core Haptics types handlers as plain closures, not `@Sendable` ones.
/// @unchecked Sendable: the engine calls it only on its serial callback queue, one call at a time,
/// as Apple calls handlers on a queue of its own; the app's closure never runs concurrently with
/// itself.
struct AppHandler<Function>: @unchecked Sendable {
    let function: Function
    init(_ function: Function) { self.function = function }
}

/// The type of ``CHHapticEngine/registerAudioResource(_:options:)``'s keys, as Apple declares it
/// (`typedef NSString *CHHapticAudioResourceKey`): the keys are the two global constants below,
/// which are `String`s.
public typealias CHHapticAudioResourceKey = NSString

/// `Bool`, default true: the event's attack, decay and release shape the sound.
public let CHHapticAudioResourceKeyUseVolumeEnvelope: String = "UseVolumeEnvelope"
/// `Bool`, default false: the sound repeats for the event's duration.
public let CHHapticAudioResourceKeyLoopEnabled: String = "LoopEnabled"

/// Outputs of live engines, completed (WAV files finalised) when the process exits.
package enum OpenOutputs {
    static let engines = Mutex<[ObjectIdentifier: HapticEngine]>([:])
    static let hook = Mutex(false)

    static func register(_ engine: HapticEngine) {
        engines.withLock { $0[ObjectIdentifier(engine)] = engine }
        let install = hook.withLock { installed in
            defer { installed = true }
            return !installed
        }
        if install { atexit { OpenOutputs.closeAll() } }
    }

    static func unregister(_ engine: HapticEngine) {
        _ = engines.withLock { $0.removeValue(forKey: ObjectIdentifier(engine)) }
    }

    static func closeAll() {
        let all = engines.withLock { engines in
            defer { engines.removeAll() }
            return Array(engines.values)
        }
        for engine in all { closeAtExit(engine) }
    }

    /// Closes an engine's output at exit. An engine still playing then fails its next write and
    /// stops: its stopped handler is dropped first, so the app is not told of a system error
    /// while its process exits (an iPhone app is not told anything then either).
    package static func closeAtExit(_ engine: HapticEngine) {
        engine.stoppedHandler = nil
        engine.output.close()
    }
}
