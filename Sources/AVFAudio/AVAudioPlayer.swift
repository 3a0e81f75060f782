public import Foundation
import HapticsCore
import HapticsEngine
import HapticsSynthesis
import HapticsSystem
import Synchronization

/// A stand-in for AVFAudio's `AVAudioPlayer` on Linux: plays a sound file or data, so app code
/// that plays audio beside its haptics compiles unchanged and is heard.
///
/// ```swift
/// let player = try AVAudioPlayer(contentsOf: url)
/// player.delegate = self
/// player.numberOfLoops = 1
/// player.play()
/// ```
///
/// The sound plays as an AudioCustom waveform on a haptic engine: one engine per process, shared
/// by every player, opened on the first `prepareToPlay()` or `play()` on the output the
/// environment names, as `CHHapticEngine()` does (`HAPTIC_OUTPUT` captures to a WAV file of its
/// own, the next numbered name; otherwise the ALSA device `HAPTIC_DEVICE`, default `"default"`).
/// See docs/corehaptics.md.
///
/// Reads WAV (what AudioCustom events read: PCM 8 to 32 bits, float 32 or 64 bits, any rate, one
/// or two channels; more are mixed to mono). Other formats (CAF, AIFF, MP3, AAC) throw an
/// `NSError` in `NSOSStatusErrorDomain`, as Apple's initializers throw for a file they cannot read.
///
/// The delegate is called on the engine's serial callback queue, as Core Haptics' handlers are,
/// not on the main thread (a Linux program often runs no main run loop).
///
/// An `open` class, as Apple's (an Objective-C class); not `Sendable`, as Apple's.
open class AVAudioPlayer: NSObject {
    /// The decoded sound and this player's state, shared with the engine's completion handler.
    let box: PlayerBox

    /// The file's URL when made from a file.
    open private(set) var url: URL?
    /// The sound's bytes when made from data.
    open private(set) var data: Data?

    /// Reads the sound at `url`.
    ///
    /// - Throws: an `NSError` in `NSOSStatusErrorDomain` when the file cannot be read or decoded.
    public convenience init(contentsOf url: URL) throws {
        try self.init(contentsOf: url, fileTypeHint: nil)
    }

    /// Reads the sound at `url`; `utiString` (an `AVFileType` raw value) is accepted and not
    /// needed: the bytes say what they are.
    public init(contentsOf url: URL, fileTypeHint utiString: String?) throws {
        let path = url.path(percentEncoded: false)
        guard let bytes = FileManager.default.contents(atPath: path) else {
            throw AudioFileError.unreadable(path)
        }
        box = PlayerBox(clip: try AudioFileError.decode(bytes, source: path))
        self.url = url
        super.init()
    }

    /// Decodes the sound in `data`.
    ///
    /// - Throws: an `NSError` in `NSOSStatusErrorDomain` when the data is no sound this reads.
    public convenience init(data: Data) throws {
        try self.init(data: data, fileTypeHint: nil)
    }

    /// Decodes the sound in `data`; `utiString` is accepted and not needed.
    public init(data: Data, fileTypeHint utiString: String?) throws {
        box = PlayerBox(clip: try AudioFileError.decode(data, source: "the audio data"))
        self.data = data
        super.init()
    }

    deinit {
        box.halt()
    }

    // MARK: - Playing

    /// Opens the shared engine; false when the output cannot open.
    @discardableResult
    open func prepareToPlay() -> Bool {
        (try? SharedAudioEngine.running()) != nil
    }

    /// Plays from `currentTime`; false when the output cannot open. A second call while playing
    /// changes nothing.
    @discardableResult
    open func play() -> Bool {
        box.play(at: HapticEngine.timeImmediate, player: self)
    }

    /// Plays from `currentTime` at `time`, in ``deviceCurrentTime``'s seconds.
    @discardableResult
    open func play(atTime time: TimeInterval) -> Bool {
        box.play(at: time, player: self)
    }

    /// Stops, keeping `currentTime`: the next `play()` continues from there.
    open func pause() {
        box.halt()
    }

    /// Stops (a short fade, nothing cut with a click), keeping `currentTime` as Apple's does; the
    /// delegate is not called.
    open func stop() {
        box.halt()
    }

    /// Whether the sound is playing.
    open var isPlaying: Bool { box.isPlaying }

    /// Gain, 0 to 1 (default 1); a change is heard at once.
    open var volume: Float {
        get { box.volume }
        set { box.setVolume(newValue) }
    }

    /// Sets the gain, reaching it over `duration` seconds.
    open func setVolume(_ volume: Float, fadeDuration duration: TimeInterval) {
        box.setVolume(volume, fade: duration)
    }

    /// Repeats after the first play: 0 (default) plays once, n plays n + 1 times, any negative
    /// number repeats until `stop()`. Read at `play()`.
    open var numberOfLoops: Int {
        get { box.state.withLock { $0.loops } }
        set { box.state.withLock { $0.loops = newValue } }
    }

    /// Where in the sound playback is, in seconds (within the current repeat when looping);
    /// setting it moves there, at once when playing.
    open var currentTime: TimeInterval {
        get { box.position() }
        set { box.seek(to: newValue, player: self) }
    }

    /// The sound's length in seconds.
    open var duration: TimeInterval { box.clip.duration }

    /// The output's clock in seconds, for `play(atTime:)` (0 until the shared engine is open).
    open var deviceCurrentTime: TimeInterval { SharedAudioEngine.opened?.currentTime ?? 0 }

    /// The sound's channels.
    open var numberOfChannels: Int { box.clip.channels }

    /// Told when the sound has played to its end (not after `stop()`).
    open weak var delegate: (any AVAudioPlayerDelegate)? {
        get { box.delegate.withLock { $0.object } }
        set {
            let reference = WeakDelegate(object: newValue)
            box.delegate.withLock { $0 = reference }
        }
    }

    // MARK: - Metering

    /// Whether `updateMeters()` measures (default false).
    open var isMeteringEnabled: Bool {
        get { box.state.withLock { $0.metering } }
        set { box.state.withLock { $0.metering = newValue } }
    }

    /// Measures the 1024 frames (at the sound's rate) before `currentTime` for the two readings below.
    open func updateMeters() {
        box.updateMeters()
    }

    /// The mean power of the last `updateMeters()` window in dBFS, -160 for silence or with
    /// metering off.
    open func averagePower(forChannel channelNumber: Int) -> Float {
        box.meter(channelNumber, peak: false)
    }

    /// The peak of the last `updateMeters()` window in dBFS, -160 for silence or with metering off.
    open func peakPower(forChannel channelNumber: Int) -> Float {
        box.meter(channelNumber, peak: true)
    }
}

/// The delegate: both methods optional, as Apple's (`@objc optional` there, default
/// implementations that do nothing here).
public protocol AVAudioPlayerDelegate: NSObjectProtocol {
    /// The sound played to its end (`flag` is true: a decoded WAV cannot fail mid-way).
    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool)
    /// Never called here: the whole sound is decoded before the initializer returns.
    func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: (any Error)?)
}

extension AVAudioPlayerDelegate {
    public func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {}
    public func audioPlayerDecodeErrorDidOccur(_ player: AVAudioPlayer, error: (any Error)?) {}
}

/// Apple's errors for a file Audio File Services cannot open, with the file and reason named.
enum AudioFileError {
    /// `kAudioFileUnspecifiedError` ('wht?'), what Apple's player throws for a missing file.
    static let unspecified = 2_003_334_207
    /// `kAudioFileUnsupportedFileTypeError` ('typ?').
    static let unsupportedFileType = 1_954_115_647

    static func unreadable(_ path: String) -> NSError {
        NSError(
            domain: "NSOSStatusErrorDomain", code: unspecified,
            userInfo: [NSLocalizedDescriptionKey: "cannot read audio file \(path)"])
    }

    static func decode(_ bytes: Data, source: String) throws -> AudioClip {
        do {
            return try WAV.decode([UInt8](bytes))
        } catch {
            throw NSError(
                domain: "NSOSStatusErrorDomain", code: unsupportedFileType,
                userInfo: [NSLocalizedDescriptionKey: "\(source): not a WAV file this player reads: \(error)"])
        }
    }
}

/// A weak delegate reference.
/// @unchecked Sendable: only read to call the delegate, on the engine's serial callback queue, as
/// Apple calls it on a queue of its own.
struct WeakDelegate: @unchecked Sendable {
    weak var object: (any AVAudioPlayerDelegate)?
}

/// The engine every player plays on, opened once per process.
enum SharedAudioEngine {
    private static let engine = Mutex<HapticEngine?>(nil)

    /// The engine if a player opened it.
    static var opened: HapticEngine? { engine.withLock { $0 } }

    /// The engine, opened and started.
    static func running() throws -> HapticEngine {
        let shared = try engine.withLock { engine in
            if let engine { return engine }
            let output = try OutputSelection(environment: ProcessInfo.processInfo.environment).open()
            var configuration = HapticEngine.Configuration()
            // A song is longer than an AHAP file's limit; loops are as long as the app asks.
            configuration.maxPatternSeconds = .infinity
            let made = HapticEngine(output: output, configuration: configuration)
            engine = made
            // Finish the capture's header when the process exits, as CHHapticEngine's are.
            atexit { SharedAudioEngine.opened?.output.close() }
            return made
        }
        try shared.start()
        return shared
    }
}

/// A player's sound and state, behind one lock; what the engine's completion handler holds.
final class PlayerBox: Sendable {
    let clip: AudioClip
    let state = Mutex(State())
    let delegate = Mutex(WeakDelegate())

    struct State {
        var loops = 0
        var volume: Float = 1
        var metering = false
        var meters: [(average: Float, peak: Float)] = []
        /// The engine player of the current play, while playing.
        var player: Player?
        /// Counts plays, so a finished play's completion is told from a later play's.
        var generation = 0
        /// Sound seconds heard at `startedAt` (engine seconds), while playing.
        var startPosition = 0.0
        var startedAt = 0.0
        /// The position while not playing.
        var position = 0.0
        var loopsAtStart = 0
    }

    init(clip: AudioClip) {
        self.clip = clip
    }

    var isPlaying: Bool { state.withLock { $0.player != nil } }
    var volume: Float { state.withLock { $0.volume } }

    /// Starts a play from the current position at engine time `time` (0: now).
    func play(at time: Double, player owner: AVAudioPlayer) -> Bool {
        if isPlaying { return true }
        guard let engine = try? SharedAudioEngine.running() else { return false }
        let (start, loops, volume) = state.withLock { ($0.position, $0.loops, $0.volume) }
        let (pattern, clips, loop) = Self.pattern(clip, from: start, loops: loops)
        guard let player = try? engine.makeAdvancedPlayer(pattern, clips: clips) else { return false }
        if let loop {
            player.loopEnabled = true
            player.loopStart = loop.start
            player.loopEnd = loop.end
        }
        let generation = state.withLock { state in
            state.generation += 1
            return state.generation
        }
        let weakOwner = WeakOwner(owner)
        player.completionHandler = { [self] _ in
            let finished = state.withLock { state in
                guard state.generation == generation, state.player != nil else { return false }
                state.player = nil
                state.position = 0
                return true
            }
            guard finished, let owner = weakOwner.object else { return }
            delegate.withLock { $0.object }?.audioPlayerDidFinishPlaying(owner, successfully: true)
        }
        do {
            try player.start(atTime: time)
            // After the start, at its time: a start begins the layer afresh.
            if volume != 1 {
                try player.sendParameters([DynamicParameter(.audioVolumeControl, value: volume)], atTime: time)
            }
        } catch {
            return false
        }
        let now = time == HapticEngine.timeImmediate ? engine.immediateTime : engine.currentTime
        state.withLock { state in
            state.player = player
            state.startPosition = start
            // An immediate start is heard from the frame the next tick renders.
            state.startedAt = max(now, time)
            state.loopsAtStart = loops
        }
        return true
    }

    /// Stops playing, keeping the position.
    func halt() {
        let player = state.withLock { state -> Player? in
            guard let player = state.player else { return nil }
            state.position = Self.position(state, clip: clip)
            state.player = nil
            state.generation += 1
            return player
        }
        try? player?.stop(atTime: 0)
    }

    func position() -> Double {
        state.withLock { Self.position($0, clip: clip) }
    }

    private static func position(_ state: State, clip: AudioClip) -> Double {
        guard state.player != nil, let engine = SharedAudioEngine.opened else { return state.position }
        let heard = state.startPosition + max(0, engine.currentTime - state.startedAt)
        let length = clip.duration
        guard length > 0 else { return 0 }
        if heard < length { return heard }
        if state.loopsAtStart >= 0 && heard >= length * Double(state.loopsAtStart + 1) {
            return length
        }
        return heard.truncatingRemainder(dividingBy: length)
    }

    func seek(to time: TimeInterval, player owner: AVAudioPlayer) {
        let target = min(max(0, time.isFinite ? time : 0), clip.duration)
        let wasPlaying = isPlaying
        halt()
        state.withLock { $0.position = target }
        if wasPlaying { _ = play(at: HapticEngine.timeImmediate, player: owner) }
    }

    func setVolume(_ volume: Float, fade: TimeInterval = 0) {
        let volume = min(max(volume.isFinite ? volume : 0, 0), 1)
        let (player, from) = state.withLock { state in
            defer { state.volume = volume }
            return (state.player, state.volume)
        }
        guard let player else { return }
        if fade > 0, fade.isFinite {
            let curve = ParameterCurve(
                .audioVolumeControl,
                controlPoints: [.init(time: 0, value: from), .init(time: fade, value: volume)])
            try? player.scheduleParameterCurve(curve, atTime: 0)
        } else {
            try? player.sendParameters([DynamicParameter(.audioVolumeControl, value: volume)], atTime: 0)
        }
    }

    func updateMeters() {
        let (enabled, at) = state.withLock { ($0.metering, Self.position($0, clip: clip)) }
        guard enabled else { return }
        let channels = clip.channels
        let end = min(clip.frameCount, Int(at * Double(clip.sampleRate)))
        let start = max(0, end - 1024)
        var meters: [(average: Float, peak: Float)] = []
        for channel in 0..<channels {
            var sum: Float = 0
            var peak: Float = 0
            for frame in start..<end {
                let sample = clip.samples[frame * channels + channel]
                sum += sample * sample
                peak = max(peak, abs(sample))
            }
            let mean = end > start ? sum / Float(end - start) : 0
            meters.append((Self.decibels(mean.squareRoot()), Self.decibels(peak)))
        }
        state.withLock { $0.meters = meters }
    }

    func meter(_ channel: Int, peak: Bool) -> Float {
        state.withLock { state in
            guard state.metering, state.meters.indices.contains(channel) else { return -160 }
            return peak ? state.meters[channel].peak : state.meters[channel].average
        }
    }

    private static func decibels(_ amplitude: Float) -> Float {
        amplitude > 0 ? max(-160, 20 * log10(amplitude)) : -160
    }

    /// The pattern that plays `clip` from `start` seconds, then `loops` more times (forever when
    /// negative, with the loop's bounds in pattern seconds).
    static func pattern(_ clip: AudioClip, from start: Double, loops: Int)
        -> (HapticPattern, [String: AudioClip], loop: (start: Double, end: Double)?)
    {
        var clips = ["whole": clip]
        var events: [HapticEvent] = []
        func event(_ time: Double, _ path: String) -> HapticEvent {
            HapticEvent(
                time: time, type: .audioCustom, parameters: [EventParameter(.audioVolume, 1)], waveformPath: path,
                waveformUsesVolumeEnvelope: false)
        }
        var time = 0.0
        let first = min(clip.frameCount, max(0, Int(start * Double(clip.sampleRate))))
        if first > 0 {
            let rest = Array(clip.samples[(first * clip.channels)...])
            if !rest.isEmpty {
                let restClip = AudioClip(sampleRate: clip.sampleRate, channels: clip.channels, samples: rest)
                clips["rest"] = restClip
                events.append(event(0, "rest"))
                time = restClip.duration
            }
        }
        let length = clip.duration
        if loops < 0 {
            events.append(event(time, "whole"))
            return (HapticPattern(elements: events.map { .event($0) }), clips, (time, time + length))
        }
        for _ in 0..<(loops + (events.isEmpty ? 1 : 0)) {
            events.append(event(time, "whole"))
            time += length
        }
        return (HapticPattern(elements: events.map { .event($0) }), clips, nil)
    }
}

/// The player a completion tells its delegate about, held weakly: a player released mid-play
/// stops (its `deinit`), as Apple's does.
/// @unchecked Sendable: the reference is only read, and the delegate call happens on the engine's
/// serial callback queue.
struct WeakOwner: @unchecked Sendable {
    weak var object: AVAudioPlayer?
    init(_ object: AVAudioPlayer) { self.object = object }
}
