import Dispatch
import Foundation
public import HapticsCore
public import HapticsSynthesis
import Synchronization

/// Plays patterns in real time, each event on its exact sample of the output stream.
///
/// A timer ticks every few milliseconds on a high-priority serial queue. Each tick asks
/// the output how much room it has and how much it still has to play (its delay), applies
/// the commands due in the frames about to be rendered, renders exactly that many frames
/// and writes them. Engine time is the output's own clock: `currentTime` is the frame
/// being heard now divided by the sample rate, and a command for time `t` takes effect at
/// frame `round(t × rate)`, so the timer's jitter can delay a write but never moves an event.
///
/// ```swift
/// let engine = HapticEngine(output: try ALSAOutput(.init(device: "default")))
/// try engine.start()
/// let player = try engine.makePlayer(file)
/// try player.start(atTime: HapticEngine.timeImmediate)
/// ```
///
/// Threads: players and properties may be used from any thread; they only take a short
/// lock to queue a command. Rendering runs on the tick queue and never waits on a lock
/// another thread holds for long, nor allocates.
public final class HapticEngine: Sendable {
    /// Start "as soon as possible": Core Haptics' `CHHapticTimeImmediate`.
    public static let timeImmediate: Double = 0

    /// How the engine runs.
    public struct Configuration: Sendable {
        /// The timer's period; nil (the default): one period of the output's buffer (a quarter
        /// of it on ALSA, 5 ms at the default 20 ms latency), between 1 and 5 ms. Immediate
        /// commands do not wait for a tick (they run one at once), so the period only has to
        /// keep the device fed: a longer buffer ticks less often and costs less CPU.
        public var tickIntervalNanoseconds: UInt64?
        /// How haptics become sound.
        public var voicing: VoicingProfile = .standard
        /// How haptics drive an actuator: the voicing of the haptic channels of an output with a
        /// ``ChannelMap`` (a DualSense's channels 3-4); ``voicing`` then voices its preview.
        public var actuatorVoicing: VoicingProfile = .actuator
        /// Voices that can sound at once, across all players.
        public var maxVoices = 1024
        /// Players that can exist at once.
        public var maxPlayers = 1024
        /// Frames the engine keeps queued ahead of the listener; nil: the device's whole buffer.
        public var leadFrames: Int?
        /// Play haptic events only (audio events are silent), as Core Haptics' `playsHapticsOnly`.
        public var playsHapticsOnly = false
        /// Play audio events only, as Core Haptics' `playsAudioOnly`.
        public var playsAudioOnly = false
        /// With auto-shutdown on, the engine stops after this long with nothing playing.
        public var idleShutdownSeconds = 10.0
        /// After this long with nothing playing or queued, the timer stops (no wake-ups at all)
        /// until the next command; the device runs dry meanwhile (that underrun is not counted)
        /// and engine time holds. nil keeps the timer ticking. Not with auto-shutdown on.
        public var idleSuspendSeconds: Double? = 1
        /// Nice level the tick thread asks for (as desktop audio does through rtkit), so a busy
        /// machine cannot starve the device; nil leaves the priority alone. Raising priority
        /// needs CAP_SYS_NICE (root); without it the request is silently refused.
        public var tickThreadNice: Int32?
        /// Longest pattern a player accepts, in seconds (the AHAP reader's `maxDuration`, 3600);
        /// the CoreHaptics facade lifts it, as Core Haptics sets no such limit.
        public var maxPatternSeconds = AHAPLimits.default.maxDuration
        /// On an output whose ``ChannelMap`` has preview channels: audio events play on the
        /// preview only and haptic events on the actuators only, as a song beside its haptics
        /// should (`haptic play song.wav --device dualsense`). Off: both carry every event.
        public var audioOnPreviewOnly = false

        public init() {}
    }

    /// Why the engine stopped by itself: Core Haptics' `CHHapticEngine.StoppedReason`, the open C
    /// enum in CoreHapticsEnums (Apple's raw values, listed once there).
    public typealias StoppedReason = _CHHapticEngineStoppedReason

    /// What to do once every player has finished (Core Haptics' `FinishedAction`).
    public enum FinishedAction: Sendable {
        case stopEngine
        case leaveEngineRunning
    }

    public let output: any AudioOutput
    public let configuration: Configuration
    /// The output's format: what the engine writes (a mapped output's device channels).
    public var format: AudioFormat { output.format }
    /// Where the haptic signal and the preview go on a device wider than stereo; nil: the
    /// output takes the render as it is.
    public let channelMap: ChannelMap?
    /// How the engine's haptic signal is voiced: ``Configuration/actuatorVoicing`` on a mapped
    /// output, ``Configuration/voicing`` otherwise.
    public let voicing: VoicingProfile

    let clock: any EngineClock
    let ticks: any TickSource
    let control: Mutex<ControlState>
    let render: Mutex<RenderState>
    let anchor: Mutex<TimeAnchor>
    /// Underruns caused by the device running dry while the timer was suspended.
    let idleUnderruns = Atomic<Int>(0)
    let callbacks = DispatchQueue(label: "swift-haptics.engine.callbacks")
    /// Finished players' completions, from the tick to `callbacks` without an allocation.
    let completions: CompletionMailbox
    /// Held for the whole of a start or a stop, so the two never interleave: a stop on the
    /// callback queue (players finished with `.stopEngine`, an idle timeout, a failing output)
    /// that ran half-way while an app started the engine used to stop the new run's timer
    /// and leave the engine "running" with a clock that never moved.
    let lifecycle = Mutex(())

    /// Creates an engine on `output`. Nothing plays until `start()`.
    /// - Parameters:
    ///   - clock: the engine's monotonic clock (a `ManualClock` in tests).
    ///   - ticks: what drives rendering (a `ManualTickSource` in tests).
    public init(
        output: any AudioOutput, configuration: Configuration = Configuration(),
        clock: any EngineClock = MonotonicClock(), ticks: any TickSource = ThreadTickSource()
    ) {
        self.output = output
        self.configuration = configuration
        self.clock = clock
        self.ticks = ticks
        completions = CompletionMailbox(capacity: configuration.maxPlayers, queue: callbacks)
        control = Mutex(ControlState(maxPlayers: configuration.maxPlayers))
        // A device wider than stereo without a map of its own plays the render on its first channels.
        let map =
            output.channelMap
            ?? (output.format.channels > 2
                ? try? ChannelMap(deviceChannels: output.format.channels, hapticChannels: [1, 2]) : nil)
        channelMap = map
        let rate = output.format.sampleRate
        voicing = map == nil ? configuration.voicing : configuration.actuatorVoicing
        let preview = map.flatMap { map in
            map.previewChannels.isEmpty
                ? nil
                : Synthesizer(
                    format: AudioFormat(sampleRate: rate, channels: map.previewChannels.count),
                    voicing: configuration.voicing, maxVoices: configuration.maxVoices,
                    maxLayers: configuration.maxPlayers)
        }
        render = Mutex(
            RenderState(
                synthesizer: Synthesizer(
                    format: map.map { AudioFormat(sampleRate: rate, channels: $0.hapticChannels.count) }
                        ?? output.format,
                    voicing: voicing, maxVoices: configuration.maxVoices, maxLayers: configuration.maxPlayers),
                preview: preview, maxPlayers: configuration.maxPlayers, channels: output.format.channels, map: map))
        anchor = Mutex(TimeAnchor())
        if configuration.audioOnPreviewOnly, map?.previewChannels.isEmpty == false {
            render.withLock { $0.audioOnPreviewOnly = true }
        }
    }

    deinit {
        ticks.stop()
    }

    // MARK: - Handlers and switches

    /// Called (on a callback queue) when the engine stops by itself, with the reason.
    public var stoppedHandler: (@Sendable (StoppedReason) -> Void)? {
        get { control.withLock { $0.stoppedHandler } }
        set { control.withLock { $0.stoppedHandler = newValue } }
    }

    /// Called (on a callback queue) after the engine recovered from an output failure by
    /// restarting; players must be made again.
    public var resetHandler: (@Sendable () -> Void)? {
        get { control.withLock { $0.resetHandler } }
        set { control.withLock { $0.resetHandler = newValue } }
    }

    /// Silences haptic events (the ones a phone would make you feel).
    public var isMutedForHaptics: Bool {
        get { control.withLock { $0.mutedForHaptics } }
        set { control.withLock { $0.mutedForHaptics = newValue } }
    }

    /// Silences audio events.
    public var isMutedForAudio: Bool {
        get { control.withLock { $0.mutedForAudio } }
        set { control.withLock { $0.mutedForAudio = newValue } }
    }

    /// Stop by itself after `configuration.idleShutdownSeconds` with nothing playing (off by
    /// default, as in Core Haptics).
    public var isAutoShutdownEnabled: Bool {
        get { control.withLock { $0.autoShutdown } }
        set { control.withLock { $0.autoShutdown = newValue } }
    }

    /// Why the output failed, when the engine stopped with `.systemError`.
    public var lastOutputError: AudioOutputError? { control.withLock { $0.lastOutputError } }

    /// The timer's period in use: `configuration.tickIntervalNanoseconds`, or one period of the
    /// output's buffer (`periodFrames`), between 1 and 5 ms (longer periods at large latencies
    /// are untested under load).
    public var tickIntervalNanoseconds: UInt64 {
        if let fixed = configuration.tickIntervalNanoseconds { return fixed }
        let period = UInt64(max(1, output.periodFrames)) * 1_000_000_000 / UInt64(max(1, format.sampleRate))
        return min(max(period, 1_000_000), 10_000_000)
    }

    /// Whether the engine is running.
    public var isRunning: Bool { control.withLock { $0.running } }

    /// How often the output ran dry since the engine was created, not counting the device
    /// running dry while the timer was suspended (``Configuration/idleSuspendSeconds``).
    public var underrunCount: Int { output.underrunCount - idleUnderruns.load(ordering: .relaxed) }

    /// Whether the timer is suspended because nothing plays (``Configuration/idleSuspendSeconds``).
    public var isTimerSuspended: Bool { control.withLock { $0.ticksSuspended } }

    /// Engine time in seconds: the position of the frame being heard now. Monotonic; 0 before
    /// the first start.
    public var currentTime: Double {
        let now = clock.nanoseconds
        let rate = Double(format.sampleRate)
        return anchor.withLock { anchor in
            guard anchor.running else { return max(Double(anchor.heardFrame), anchor.lastReportedFrame) / rate }
            let elapsed = Double(now &- anchor.nanoseconds) / 1e9
            let frames = min(Double(anchor.heardFrame) + elapsed * rate, Double(anchor.writtenFrame))
            // Between ticks the time is extrapolated from the last anchor; the next anchor can
            // land behind that estimate (a device that reports its delay late, a paced capture's
            // prebuffer), so what was once returned is the floor of every later answer.
            anchor.lastReportedFrame = max(frames, anchor.lastReportedFrame)
            return anchor.lastReportedFrame / rate
        }
    }

    // MARK: - Start and stop

    /// Opens the output and starts the timer. Waits for a stop under way to finish first.
    public func start() throws(HapticEngineError) {
        try lifecycle.withLock { (_) throws(HapticEngineError) in try startLocked() }
    }

    private func startLocked() throws(HapticEngineError) {
        let alreadyRunning = control.withLock { state in
            defer { state.running = true }
            return state.running
        }
        if alreadyRunning { return }
        do {
            try output.start()
        } catch {
            control.withLock { $0.running = false }
            throw HapticEngineError(.serverInitFailed, "cannot start audio output: \(error)")
        }
        let startFrame = render.withLock { render in
            render.running = true
            render.writeFailure = nil
            render.firstWriteNanoseconds = 0
            render.idleSinceNanoseconds = clock.nanoseconds
            return render.synthesizer.currentFrame
        }
        anchor.withLock {
            $0.running = true
            $0.nanoseconds = clock.nanoseconds
            $0.heardFrame = startFrame
            $0.writtenFrame = startFrame
        }
        ticks.start(intervalNanoseconds: tickIntervalNanoseconds) { [weak self] in
            self?.tick()
        }
    }

    /// Calls `completion` once the engine has started, or failed to.
    public func start(completionHandler completion: @escaping @Sendable ((any Error)?) -> Void) {
        do {
            try start()
            callbacks.async { completion(nil) }
        } catch {
            callbacks.async { completion(error) }
        }
    }

    /// Stops the engine: everything sounding fades out within a few milliseconds, the device
    /// plays what it holds, and the timer stops. Players stay valid for a later start.
    public func stop(fadeMilliseconds: Double = 5) {
        stop(reason: nil, fadeMilliseconds: fadeMilliseconds)
    }

    /// Stops, then calls `completion` on the callback queue.
    public func stop(completionHandler completion: @escaping @Sendable ((any Error)?) -> Void) {
        stop()
        callbacks.async { completion(nil) }
    }

    func stop(reason: StoppedReason?, fadeMilliseconds: Double) {
        lifecycle.withLock { _ in stopLocked(reason: reason, fadeMilliseconds: fadeMilliseconds) }
    }

    private func stopLocked(reason: StoppedReason?, fadeMilliseconds: Double) {
        let (wasRunning, handler, wasSuspended) = control.withLock { state in
            defer {
                state.running = false
                state.ticksSuspended = false
                state.wokeFromIdle = false
            }
            return (state.running, state.stoppedHandler, state.ticksSuspended)
        }
        guard wasRunning else { return }
        ticks.stop()
        // A device that ran dry while the timer was suspended is not an underrun.
        let underrunsBefore = output.underrunCount
        defer {
            if wasSuspended { idleUnderruns.add(output.underrunCount - underrunsBefore, ordering: .relaxed) }
        }
        let fadeFrames = max(1, Int(fadeMilliseconds / 1000 * Double(format.sampleRate)))
        render.withLock { render in
            // Fade from the next frame to be rendered, render the fade, and hand it over.
            render.fadeOutAll(atFrame: render.synthesizer.currentFrame, frames: fadeFrames)
            render.renderAndWrite(frames: fadeFrames, to: output)
            // The device is usually full (the engine keeps it topped up), so the fade waits in
            // `pending`: hand all of it over before draining, or the sound stops with a step.
            render.flushAll(to: output, timeoutMilliseconds: 2 * output.bufferFrames * 1000 / format.sampleRate + 50)
            render.running = false
        }
        try? output.drain()
        anchor.withLock { $0.running = false }
        if let reason, let handler { callbacks.async { handler(reason) } }
    }

    /// Calls `handler` once every player has finished; its answer says whether to stop. When the
    /// caller knows `nothingPlaying`, the handler is called at once (on the callback queue), as
    /// Core Haptics does.
    public func notifyWhenPlayersFinished(
        nothingPlaying: Bool = false, _ handler: @escaping @Sendable ((any Error)?) -> FinishedAction
    ) {
        control.withLock { $0.finishedHandler = handler }
        if nothingPlaying { notifyFinished() }
    }

    /// Waits until every callback already queued (completions, handlers) has run.
    public func flushCallbacks() {
        callbacks.sync {}
    }

    // MARK: - Players

    /// A player for `pattern`, whose AudioCustom events play `clips`.
    public func makePlayer(
        _ pattern: HapticPattern, clips: [String: AudioClip] = [:]
    ) throws(HapticEngineError) -> Player {
        try makePlayer(pattern, clips: clips, advanced: false)
    }

    /// An advanced player: adds pause, resume, seek, looping, playback rate and completion.
    public func makeAdvancedPlayer(
        _ pattern: HapticPattern, clips: [String: AudioClip] = [:]
    ) throws(HapticEngineError) -> Player {
        try makePlayer(pattern, clips: clips, advanced: true)
    }

    /// A player for a pattern file.
    public func makePlayer(_ file: PatternFile, advanced: Bool = false) throws(HapticEngineError) -> Player {
        try makePlayer(file.pattern, clips: file.clips, feeds: file.feeds, advanced: advanced)
    }

    /// A player for a pattern already prepared for this engine's sample rate (a
    /// ``PreparedPattern/Builder``'s, made as the elements came, with no whole pattern held): it
    /// keeps no pattern, so its playback rate stays 1. `haptic play song.wav` plays a sound's
    /// haptics this way.
    public func makePlayer(prepared: PreparedPattern, advanced: Bool = false) throws(HapticEngineError) -> Player {
        guard prepared.sampleRate == format.sampleRate else {
            throw HapticEngineError(
                .invalidPatternData,
                "pattern was prepared for \(prepared.sampleRate) Hz; the engine plays at \(format.sampleRate) Hz")
        }
        guard prepared.duration <= configuration.maxPatternSeconds else {
            throw HapticEngineError(
                .invalidPatternData,
                "pattern is \(prepared.duration) s long; players accept at most \(configuration.maxPatternSeconds) s")
        }
        return try makePlayer(nil, prepared: prepared, clips: [:], feeds: [:], advanced: advanced)
    }

    func makePlayer(
        _ pattern: HapticPattern, clips: [String: AudioClip], feeds: [String: ClipFeed] = [:], advanced: Bool
    ) throws(HapticEngineError) -> Player {
        guard pattern.duration <= configuration.maxPatternSeconds else {
            throw HapticEngineError(
                .invalidPatternData,
                "pattern is \(pattern.duration) s long; players accept at most \(configuration.maxPatternSeconds) s")
        }
        let prepared: PreparedPattern
        do {
            prepared = try Synthesizer.prepare(pattern, clips: clips, feeds: feeds, format: format, voicing: voicing)
        } catch {
            throw HapticEngineError(.invalidPatternData, "pattern cannot be played: \(error)")
        }
        return try makePlayer(pattern, prepared: prepared, clips: clips, feeds: feeds, advanced: advanced)
    }

    private func makePlayer(
        _ pattern: HapticPattern?, prepared: PreparedPattern, clips: [String: AudioClip], feeds: [String: ClipFeed],
        advanced: Bool
    ) throws(HapticEngineError) -> Player {
        guard let layer = control.withLock({ $0.freeLayers.popLast() }) else {
            throw HapticEngineError(
                .resourceNotAvailable, "too many players (at most \(configuration.maxPlayers)); let some go first")
        }
        return Player(
            engine: self, layer: layer, pattern: pattern, clips: clips, feeds: feeds, prepared: prepared,
            advanced: advanced)
    }

    /// Returns a player's layer for reuse once the player is gone.
    func release(layer: Int) {
        enqueue(.release(layer: layer), at: .immediate)
    }

    // MARK: - Commands

    /// Converts engine seconds to when a command takes effect: the one conversion from seconds.
    func commandTime(for time: Double) throws(HapticEngineError) -> CommandTime {
        guard time.isFinite, time >= 0 else {
            throw HapticEngineError(.invalidTime, "invalid time \(time): times are engine seconds >= 0")
        }
        if time == Self.timeImmediate { return .immediate }
        do {
            return .frame(try format.frame(at: time))
        } catch {
            throw HapticEngineError(.invalidTime, "invalid time: \(error)")
        }
    }

    /// The first frame the next tick will render: where an immediate command lands.
    var nextFrame: Int64 { anchor.withLock { $0.writtenFrame } }

    /// The engine time, in seconds, at which a command sent now for `timeImmediate` is heard: the
    /// first frame the next tick renders (a buffer ahead of ``currentTime`` while the output is
    /// full, at it just after a start). What a player that reports its position counts from.
    public var immediateTime: Double { Double(nextFrame) / Double(format.sampleRate) }

    func enqueue(_ command: Command, at time: CommandTime) {
        enqueue([command], at: time)
    }

    /// Queues `commands` at one time under one lock: the tick applies them all on one frame.
    func enqueue(_ commands: [Command], at time: CommandTime) {
        control.withLock { state in
            for command in commands { state.commands.insert(command, deadline: time) }
            if state.ticksSuspended {
                state.ticksSuspended = false
                state.wokeFromIdle = true
                ticks.resume()
            }
        }
        // An immediate command is rendered at once, not at the next timer tick: a start reaches
        // the device within a tick's render time rather than up to a whole period later.
        if time == .immediate { ticks.kick() }
    }

    func requireRunning() throws(HapticEngineError) {
        guard isRunning else {
            throw HapticEngineError(.engineNotRunning, "the engine is not running: call start() first")
        }
    }

    // MARK: - The tick

    /// One timer tick: feed the device up to the lead, with every due command applied on its frame.
    func tick() {
        if let nice = configuration.tickThreadNice { Self.raisePriority(to: nice) }
        let now = clock.nanoseconds
        var failure: AudioOutputError?
        var finishedAll = false
        var idleSince: UInt64 = 0
        let woke = control.withLock { state in
            defer { state.wokeFromIdle = false }
            return state.wokeFromIdle
        }
        render.withLock { render in
            guard render.running else { return }
            // Back from a suspended timer: the device ran dry on purpose (not an underrun to
            // report), and a sound server may prebuffer again as at the first write.
            let underrunsBefore = output.underrunCount
            defer {
                if woke { idleUnderruns.add(output.underrunCount - underrunsBefore, ordering: .relaxed) }
            }
            if woke { render.firstWriteNanoseconds = 0 }
            let timing: OutputTiming
            do throws(AudioOutputError) {
                timing = try output.timing()
            } catch {
                failure = error
                return
            }
            let written = render.synthesizer.currentFrame
            // Some devices (PulseAudio's ALSA plugin while it prebuffers) report a stale or zero
            // delay at first; frames written less than (now - first write) ago cannot have been
            // heard, so the larger of the two estimates is the one to trust.
            let rate = Double(format.sampleRate)
            let handed = written - Int64(render.pendingFrames)
            var delay = Int64(timing.delayFrames)
            if render.firstWriteNanoseconds != 0 {
                let elapsed = Int64(Double(now &- render.firstWriteNanoseconds) / 1e9 * rate)
                delay = max(delay, handed - render.firstWriteFrame - elapsed)
            }
            let heard = max(render.lastHeard, handed - delay)
            render.lastHeard = heard
            anchor.withLock {
                $0.nanoseconds = now
                $0.heardFrame = heard
                $0.writtenFrame = written
                $0.lastReportedFrame = max($0.lastReportedFrame, Double(heard))
            }
            let lead = configuration.leadFrames ?? output.bufferFrames
            let queued = Int(delay) + render.pendingFrames
            let room = min(timing.availableFrames - render.pendingFrames, lead - queued)
            do throws(AudioOutputError) {
                try render.flushPending(to: output)
            } catch {
                failure = error
                return
            }
            if room > 0 {
                let end = written + Int64(room)
                let flags = control.withLock { state -> (Bool, Bool) in
                    while let command = state.commands.popFirst(dueBy: .frame(end - 1)) {
                        render.due.append((command.deadline, command.element))
                    }
                    return (
                        state.mutedForHaptics || configuration.playsAudioOnly,
                        state.mutedForAudio || configuration.playsHapticsOnly
                    )
                }
                render.setMuted(haptics: flags.0, audio: flags.1)
                render.applyDue()
                if render.firstWriteNanoseconds == 0 {
                    render.firstWriteNanoseconds = now
                    render.firstWriteFrame = written
                }
                render.renderAndWrite(frames: room, to: output)
                if let error = render.writeFailure {
                    render.writeFailure = nil
                    failure = error
                    return
                }
            }
            finishedAll = render.collectFinished(heardFrame: heard, completions: completions)
            if !render.released.isEmpty {
                // Appended straight from the render state and then emptied in place: a copy alive
                // across removeAll(keepingCapacity:) would make it allocate a new buffer here.
                control.withLock { $0.freeLayers.append(contentsOf: render.released) }
                render.released.removeAll(keepingCapacity: true)
            }
            if render.synthesizersIdle && !render.hasActiveLayers && render.pendingFrames == 0 {
                if render.idleSinceNanoseconds == 0 { render.idleSinceNanoseconds = now }
            } else {
                render.idleSinceNanoseconds = 0
            }
            idleSince = render.idleSinceNanoseconds
        }
        if let failure { handleFailure(failure); return }
        if finishedAll { notifyFinished() }
        checkIdleShutdown(now: now, idleSince: idleSince)
        suspendIfIdle(now: now, idleSince: idleSince)
    }

    /// Stops the timer once nothing has played for ``Configuration/idleSuspendSeconds`` and no
    /// command waits; the next command starts it again (``enqueue(_:at:)``).
    func suspendIfIdle(now: UInt64, idleSince: UInt64) {
        guard let hold = configuration.idleSuspendSeconds, idleSince != 0,
            now &- idleSince >= UInt64(max(0, hold) * 1e9)
        else { return }
        control.withLock { state in
            guard state.running, !state.autoShutdown, !state.ticksSuspended, state.commands.isEmpty else { return }
            state.ticksSuspended = true
            ticks.suspend()
        }
    }

    /// Raises the calling thread's priority to `nice` when allowed (CAP_SYS_NICE), as desktop
    /// audio does through rtkit; threads it starts afterwards inherit it. Linux keeps nice per
    /// thread, and `setpriority(PRIO_PROCESS, 0, …)` addresses the calling one. Call it before
    /// opening a device so the audio plugin's own threads start at that priority too.
    public static func raisePriority(to nice: Int32) {
        // The tick usually runs on the same worker thread: skip the syscalls while it does.
        let thread = UInt(bitPattern: Int(bitPattern: UnsafeRawPointer(bitPattern: pthread_self())))
        guard lastRaisedThread.exchange(thread, ordering: .relaxed) != thread else { return }
        errno = 0
        let current = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        guard errno == 0, current > nice else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
    }

    private static let lastRaisedThread = Atomic<UInt>(0)

    func notifyFinished() {
        guard let handler = control.withLock({ $0.finishedHandler }) else { return }
        control.withLock { $0.finishedHandler = nil }
        callbacks.async { [weak self] in
            if handler(nil) == .stopEngine { self?.stop(reason: .notifyWhenFinished, fadeMilliseconds: 5) }
        }
    }

    func checkIdleShutdown(now: UInt64, idleSince: UInt64) {
        guard control.withLock({ $0.autoShutdown }) else { return }
        guard idleSince != 0, now &- idleSince >= UInt64(configuration.idleShutdownSeconds * 1e9) else { return }
        callbacks.async { [weak self] in self?.stop(reason: .idleTimeout, fadeMilliseconds: 5) }
    }

    func handleFailure(_ error: AudioOutputError) {
        control.withLock { $0.lastOutputError = error }
        callbacks.async { [weak self] in self?.stop(reason: .systemError, fadeMilliseconds: 0) }
    }
}

/// What app threads share with the tick: a short lock, never held while rendering.
struct ControlState {
    var running = false
    var commands = ScheduleQueue<CommandTime, Command>()
    var stoppedHandler: (@Sendable (HapticEngine.StoppedReason) -> Void)?
    var resetHandler: (@Sendable () -> Void)?
    var finishedHandler: (@Sendable ((any Error)?) -> HapticEngine.FinishedAction)?
    var mutedForHaptics = false
    var mutedForAudio = false
    var autoShutdown = false
    var lastOutputError: AudioOutputError?
    var freeLayers: [Int]
    /// The timer is suspended (nothing plays); the next command resumes it.
    var ticksSuspended = false
    /// Set on resuming; the next tick clears it.
    var wokeFromIdle = false

    init(maxPlayers: Int) {
        freeLayers = Array((0..<maxPlayers).reversed())
    }
}

/// The mapping from the monotonic clock to output frames, refreshed every tick.
struct TimeAnchor {
    var running = false
    var nanoseconds: UInt64 = 0
    var heardFrame: Int64 = 0
    var writtenFrame: Int64 = 0
    /// The largest frame position ``HapticEngine/currentTime`` has answered: its floor.
    var lastReportedFrame: Double = 0
}
