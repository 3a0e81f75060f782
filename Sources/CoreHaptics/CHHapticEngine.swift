public import Foundation
import Glibc
import HapticsCore
public import HapticsEngine
import HapticsSynthesis
import HapticsSystem
import Synchronization

/// Plays haptic patterns, heard as clicks and buzzes (Core Haptics' `CHHapticEngine`).
///
/// Where the sound goes comes from the environment: `HAPTIC_OUTPUT=/path.wav` captures to a WAV
/// file (completed when the engine stops, is released, or the process exits); otherwise
/// `HAPTIC_DEVICE` names the ALSA device (default `"default"`). See docs/corehaptics.md.
///
/// ```swift
/// guard CHHapticEngine.capabilitiesForHardware().supportsHaptics else { return }
/// let engine = try CHHapticEngine()
/// try engine.start()
/// let player = try engine.makePlayer(with: pattern)
/// try player.start(atTime: CHHapticTimeImmediate)
/// ```
public final class CHHapticEngine: Sendable {
    /// Why the engine stopped by itself (Apple's raw values).
    public typealias StoppedReason = HapticEngine.StoppedReason
    /// What to do once every player has finished.
    public typealias FinishedAction = HapticEngine.FinishedAction
    public typealias CompletionHandler = @Sendable ((any Error)?) -> Void
    public typealias StoppedHandler = @Sendable (StoppedReason) -> Void
    public typealias ResetHandler = @Sendable () -> Void
    public typealias FinishedHandler = @Sendable ((any Error)?) -> FinishedAction

    /// The engine underneath, for code that wants more than Core Haptics offers.
    public let engine: HapticEngine
    private let flags = Mutex(Flags())
    private let resources = Mutex(Resources())
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
        var clips: [CHHapticAudioResourceID: AudioClip] = [:]
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

    /// As `init()`: there is no audio session on Linux, so `audioSession` is ignored.
    public convenience init(audioSession: AnyObject?) throws {
        try self.init()
    }

    /// An engine on `output` (a device, a WAV file, a test recorder), with the engine's
    /// clock and ticks (manual ones in tests).
    public init(
        output: any AudioOutput, configuration: HapticEngine.Configuration = .init(),
        clock: any EngineClock = MonotonicClock(), ticks: any TickSource = DispatchTickSource()
    ) {
        engine = HapticEngine(output: output, configuration: configuration, clock: clock, ticks: ticks)
        OpenOutputs.register(output)
    }

    deinit {
        engine.stop()
        engine.output.close()
        OpenOutputs.unregister(engine.output)
    }

    /// What this machine can play; see ``CHHapticDeviceCapability``. The answer for each
    /// `HAPTIC_OUTPUT` / `HAPTIC_DEVICE` setting is found once per process.
    public class func capabilitiesForHardware() -> any CHHapticDeviceCapability {
        let selection = OutputSelection(environment: ProcessInfo.processInfo.environment)
        if let known = playability.withLock({ $0[selection] }) { return DeviceCapability(canPlay: known) }
        let canPlay = selection.canPlay()
        playability.withLock { $0[selection] = canPlay }
        return DeviceCapability(canPlay: canPlay)
    }

    // MARK: - Properties

    /// Engine time in seconds: the moment being heard now.
    public var currentTime: TimeInterval { engine.currentTime }

    /// Called when the engine stops by itself.
    public var stoppedHandler: StoppedHandler {
        get { engine.stoppedHandler ?? { _ in } }
        set { engine.stoppedHandler = newValue }
    }

    /// Called after the engine reset itself; players must be made again.
    public var resetHandler: ResetHandler {
        get { engine.resetHandler ?? {} }
        set { engine.resetHandler = newValue }
    }

    /// Play haptic events only; audio events stay silent.
    public var playsHapticsOnly: Bool {
        get { flags.withLock { $0.playsHapticsOnly } }
        set { update { $0.playsHapticsOnly = newValue } }
    }

    /// Play audio events only; haptic events stay silent (which here means: nothing but audio).
    public var playsAudioOnly: Bool {
        get { flags.withLock { $0.playsAudioOnly } }
        set { update { $0.playsAudioOnly = newValue } }
    }

    /// Silences audio events.
    public var isMutedForAudio: Bool {
        get { flags.withLock { $0.mutedForAudio } }
        set { update { $0.mutedForAudio = newValue } }
    }

    /// Silences haptic events.
    public var isMutedForHaptics: Bool {
        get { flags.withLock { $0.mutedForHaptics } }
        set { update { $0.mutedForHaptics = newValue } }
    }

    /// Stop by itself after a while with nothing playing (off by default).
    public var isAutoShutdownEnabled: Bool {
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
    public func start() throws {
        try bridged { () throws(HapticEngineError) in try engine.start() }
    }

    /// Starts the engine, then calls `completionHandler` with nil or the error.
    public func start(completionHandler: CompletionHandler? = nil) {
        engine.start { error in
            completionHandler?(error.map { ($0 as? HapticEngineError).map(CHHapticError.init) ?? $0 })
        }
    }

    /// Stops the engine (a short fade), then calls `completionHandler`.
    public func stop(completionHandler: CompletionHandler? = nil) {
        engine.stop { error in completionHandler?(error) }
    }

    /// Calls `finishedHandler` once every player has finished; its answer says whether to stop.
    public func notifyWhenPlayersFinished(finishedHandler: @escaping FinishedHandler) {
        engine.notifyWhenPlayersFinished(finishedHandler)
    }

    // MARK: - Players

    /// A player for `pattern`.
    public func makePlayer(with pattern: CHHapticPattern) throws -> any CHHapticPatternPlayer {
        let clips = try clips(for: pattern)
        return PatternPlayer(
            try bridged { () throws(HapticEngineError) in try engine.makePlayer(pattern.model, clips: clips) },
            keepAlive: keepAlive)
    }

    /// An advanced player (pause, resume, seek, loops, rate, completion) for `pattern`.
    public func makeAdvancedPlayer(with pattern: CHHapticPattern) throws -> any CHHapticAdvancedPatternPlayer {
        let clips = try clips(for: pattern)
        return PatternPlayer(
            try bridged { () throws(HapticEngineError) in try engine.makeAdvancedPlayer(pattern.model, clips: clips) },
            keepAlive: keepAlive)
    }

    /// Plays an AHAP file now; the engine keeps the player until it finishes.
    public func playPattern(from url: URL) throws {
        try play(CHHapticPattern(contentsOf: url))
    }

    /// Plays AHAP data now; the engine keeps the player until it finishes.
    public func playPattern(from data: Data) throws {
        let pattern: HapticPattern
        do {
            pattern = try AHAP.decode([UInt8](data)).pattern
        } catch {
            throw CHHapticError(.invalidPatternData, error.description)
        }
        try play(CHHapticPattern(model: pattern))
    }

    private func play(_ pattern: CHHapticPattern) throws {
        try makePlayer(with: pattern).start(atTime: CHHapticTimeImmediate)
    }

    // MARK: - Audio resources

    /// Registers a WAV file for `CHHapticEvent(audioResourceID:...)` events. `options`
    /// (`CHHapticAudioResourceKey`s) are accepted and ignored.
    public func registerAudioResource(_ resourceURL: URL, options: [AnyHashable: Any] = [:]) throws
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
        return resources.withLock { resources in
            defer { resources.next += 1 }
            resources.clips[resources.next] = clip
            return resources.next
        }
    }

    /// Forgets a registered sound; patterns made with it can no longer get players.
    public func unregisterAudioResource(_ resourceID: CHHapticAudioResourceID) throws {
        guard resources.withLock({ $0.clips.removeValue(forKey: resourceID) }) != nil else {
            throw CHHapticError(.invalidAudioResource, "no audio resource with ID \(resourceID)")
        }
    }

    /// The pattern's own waveforms plus the registered sounds its events name.
    private func clips(for pattern: CHHapticPattern) throws(CHHapticError) -> [String: AudioClip] {
        var clips = pattern.clips
        let prefix = CHHapticEvent.resourcePath(0).dropLast()
        for event in pattern.model.events {
            guard let path = event.waveformPath, path.hasPrefix(prefix), clips[path] == nil else { continue }
            guard let id = Int(path.dropFirst(prefix.count)), let clip = resources.withLock({ $0.clips[id] }) else {
                throw CHHapticError(
                    .invalidAudioResource, "audio resource \(path.dropFirst(prefix.count)) is not registered")
            }
            clips[path] = clip
        }
        return clips
    }
}

/// Outputs of live engines, completed (WAV files finalised) when the process exits.
enum OpenOutputs {
    static let outputs = Mutex<[ObjectIdentifier: any AudioOutput]>([:])
    static let hook = Mutex(false)

    static func register(_ output: any AudioOutput) {
        outputs.withLock { $0[ObjectIdentifier(output)] = output }
        let install = hook.withLock { installed in
            defer { installed = true }
            return !installed
        }
        if install { atexit { OpenOutputs.closeAll() } }
    }

    static func unregister(_ output: any AudioOutput) {
        _ = outputs.withLock { $0.removeValue(forKey: ObjectIdentifier(output)) }
    }

    static func closeAll() {
        let all = outputs.withLock { outputs in
            defer { outputs.removeAll() }
            return Array(outputs.values)
        }
        for output in all { output.close() }
    }
}
