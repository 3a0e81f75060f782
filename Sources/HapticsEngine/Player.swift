public import HapticsCore
import HapticsSynthesis
import Synchronization

/// Plays one pattern on an engine; any number of players mix.
///
/// Times are engine seconds (`HapticEngine.currentTime`'s clock); `HapticEngine.timeImmediate`
/// (0) means "as soon as possible". A command for a future time takes effect on exactly that
/// sample. Every method may be called from any thread.
///
/// An advanced player (`HapticEngine.makeAdvancedPlayer`) adds pause, resume, seek, looping,
/// a playback rate and a completion handler; on a plain player those throw
/// `operationNotPermitted`.
public final class Player: Sendable {
    let engine: HapticEngine
    let layer: Int
    /// Whether this player has the advanced controls.
    public let isAdvanced: Bool
    let state: Mutex<State>

    struct State {
        /// The pattern, for a new playback rate; nil for a player made from a prepared pattern
        /// (``HapticEngine/makePlayer(prepared:advanced:)``), whose rate stays 1.
        var pattern: HapticPattern?
        /// The pattern's length in seconds at rate 1.
        var duration: Double
        var clips: [String: AudioClip]
        var feeds: [String: ClipFeed]
        var prepared: PreparedPattern
        var isMuted = false
        var loopEnabled = false
        var loopEnd = 0.0
        var loopStart = 0.0
        var playbackRate: Float = 1
        var completionHandler: (@Sendable ((any Error)?) -> Void)?
    }

    init(
        engine: HapticEngine, layer: Int, pattern: HapticPattern?, clips: [String: AudioClip],
        feeds: [String: ClipFeed] = [:], prepared: PreparedPattern, advanced: Bool
    ) {
        self.engine = engine
        self.layer = layer
        isAdvanced = advanced
        state = Mutex(
            State(
                pattern: pattern, duration: pattern?.duration ?? prepared.duration, clips: clips, feeds: feeds,
                prepared: prepared))
    }

    deinit {
        engine.release(layer: layer)
    }

    /// The pattern's length in seconds at the current playback rate.
    public var duration: Double {
        state.withLock { $0.duration / Double($0.playbackRate) }
    }

    // MARK: - Every player

    /// Starts the pattern from its beginning at `time`.
    public func start(atTime time: Double) throws(HapticEngineError) {
        try engine.requireRunning()
        let when = try engine.commandTime(for: time)
        let (prepared, loop) = state.withLock { ($0.prepared, loopSpec($0)) }
        engine.enqueue(.start(layer: layer, pattern: prepared, offset: 0, loop: loop), at: when)
    }

    /// Stops at `time` with a short fade: nothing is left buzzing.
    public func stop(atTime time: Double) throws(HapticEngineError) {
        try engine.requireRunning()
        engine.enqueue(.stop(layer: layer), at: try engine.commandTime(for: time))
    }

    /// Sends dynamic parameters; each takes effect at `time` plus its own `time` offset, its
    /// value clamped to its ID's range (the one place a live control is clamped).
    public func sendParameters(_ parameters: [DynamicParameter], atTime time: Double) throws(HapticEngineError) {
        try engine.requireRunning()
        let base = try engine.commandTime(for: time)
        for parameter in parameters {
            guard parameter.time.isFinite, parameter.time >= 0 else {
                throw HapticEngineError(.invalidParameterType, "parameter time \(parameter.time) must be >= 0")
            }
            let offset: Int64
            do {
                offset = try engine.format.frame(at: parameter.time)
            } catch {
                throw HapticEngineError(.invalidTime, "parameter \(error)")
            }
            let when: CommandTime =
                switch base {
                case .immediate where offset == 0: .immediate
                case .immediate: .frame(engine.nextFrame + offset)
                case .frame(let frame): .frame(frame + offset)
                }
            engine.enqueue(
                .control(layer: layer, id: parameter.id, value: parameter.id.clamp(parameter.value)), at: when)
        }
    }

    /// Schedules a parameter curve; its own start time is replaced by `time`. Its values are
    /// clamped and its points put in time order here, so the tick only appends knots.
    public func scheduleParameterCurve(_ curve: ParameterCurve, atTime time: Double) throws(HapticEngineError) {
        try engine.requireRunning()
        guard !curve.controlPoints.isEmpty else {
            throw HapticEngineError(.badParameterEntry, "a parameter curve needs at least one control point")
        }
        let points = curve.controlPoints.map {
            ParameterCurve.ControlPoint(time: $0.time, value: curve.id.clamp($0.value))
        }
        let moved = ParameterCurve(curve.id, time: 0, controlPoints: points.sorted { $0.time < $1.time })
        engine.enqueue(.curve(layer: layer, curve: moved), at: try engine.commandTime(for: time))
    }

    /// Stops at once and forgets every command not yet applied.
    public func cancel() throws(HapticEngineError) {
        try engine.requireRunning()
        let layer = self.layer
        engine.control.withLock { state in
            state.commands.removeAll { command in command.layer == layer }
        }
        engine.enqueue(.stop(layer: layer), at: .immediate)
    }

    /// Silences this player without stopping it.
    public var isMuted: Bool {
        get { state.withLock { $0.isMuted } }
        set {
            state.withLock { $0.isMuted = newValue }
            engine.enqueue(.mute(layer: layer, muted: newValue), at: .immediate)
        }
    }

    // MARK: - Advanced players

    func requireAdvanced(_ what: String) throws(HapticEngineError) {
        guard isAdvanced else {
            throw HapticEngineError(.operationNotPermitted, "\(what) needs an advanced player (makeAdvancedPlayer)")
        }
    }

    /// Pauses at `time`; `resume` continues from there.
    public func pause(atTime time: Double) throws(HapticEngineError) {
        try requireAdvanced("pause")
        try engine.requireRunning()
        engine.enqueue(.pause(layer: layer), at: try engine.commandTime(for: time))
    }

    /// Continues a paused pattern at `time`.
    public func resume(atTime time: Double) throws(HapticEngineError) {
        try requireAdvanced("resume")
        try engine.requireRunning()
        engine.enqueue(.resume(layer: layer), at: try engine.commandTime(for: time))
    }

    /// Moves to `offset` seconds into the pattern, now if playing, else at the next start.
    public func seek(toOffset offset: Double) throws(HapticEngineError) {
        try requireAdvanced("seek")
        try engine.requireRunning()
        guard offset.isFinite, offset >= 0 else {
            throw HapticEngineError(.invalidTime, "seek offset \(offset) must be >= 0")
        }
        let scaled = offset / Double(state.withLock { $0.playbackRate })
        engine.enqueue(.seek(layer: layer, offset: scaled), at: .immediate)
    }

    /// Whether the pattern starts again when it reaches `loopEnd`.
    public var loopEnabled: Bool {
        get { state.withLock { $0.loopEnabled } }
        set { update { $0.loopEnabled = newValue } }
    }

    /// Where a loop wraps, in pattern seconds; 0 means the end of the last event.
    public var loopEnd: Double {
        get { state.withLock { $0.loopEnd } }
        set { update { $0.loopEnd = max(0, newValue.isFinite ? newValue : 0) } }
    }

    /// Where a loop starts again, in pattern seconds (0, the default, is the beginning): with
    /// ``loopEnd`` it loops a selection. Ignored unless it is before the loop's end.
    public var loopStart: Double {
        get { state.withLock { $0.loopStart } }
        set { update { $0.loopStart = max(0, newValue.isFinite ? newValue : 0) } }
    }

    /// Speed: scales event times and continuous durations (not pitch). Values <= 0 are ignored,
    /// and so is a rate so slow that the pattern would last longer than the engine's
    /// `maxPatternSeconds` or a time in it would be no frame position (``FrameRangeError``).
    /// A player made from a prepared pattern (``HapticEngine/makePlayer(prepared:advanced:)``)
    /// holds no pattern to scale: its rate stays 1.
    public var playbackRate: Float {
        get { state.withLock { $0.playbackRate } }
        set {
            guard newValue > 0, newValue.isFinite else { return }
            // The same rate: the pattern prepared for it stands (preparing it again would hold
            // two prepared copies of a long pattern at once, for nothing).
            guard newValue != state.withLock({ $0.playbackRate }) else { return }
            let (kept, clips, feeds) = state.withLock { ($0.pattern, $0.clips, $0.feeds) }
            guard let pattern = kept else { return }
            let scaled = pattern.scaled(by: Double(newValue))
            guard scaled.duration <= engine.configuration.maxPatternSeconds,
                let prepared = try? Synthesizer.prepare(
                    scaled, clips: clips, feeds: feeds, format: engine.format, voicing: engine.voicing)
            else { return }
            update { state in
                state.playbackRate = newValue
                state.prepared = prepared
            }
        }
    }

    /// Called once the pattern has played to its end (not when stopped or looping).
    public var completionHandler: (@Sendable ((any Error)?) -> Void)? {
        get { state.withLock { $0.completionHandler } }
        set {
            state.withLock { $0.completionHandler = newValue }
            engine.enqueue(.completion(layer: layer, handler: newValue), at: .immediate)
        }
    }

    /// Changes the player's state and tells the tick what later starts and loops play.
    private func update(_ change: (inout State) -> Void) {
        let (prepared, loop) = state.withLock { state in
            change(&state)
            return (state.prepared, loopSpec(state))
        }
        engine.enqueue(.replace(layer: layer, pattern: prepared, loop: loop), at: .immediate)
    }

    private func loopSpec(_ state: State) -> LoopSpec? {
        guard isAdvanced, state.loopEnabled else { return nil }
        let end = state.loopEnd > 0 ? state.loopEnd : state.duration
        let rate = Double(state.playbackRate)
        // `loopEnd` may be any time: past the frame range it saturates (the pattern ends first).
        let endFrames = max(1, engine.format.clampedFrame(at: end / rate))
        let startFrames = state.loopStart < end ? engine.format.clampedFrame(at: state.loopStart / rate) : 0
        return LoopSpec(startFrames: min(startFrames, endFrames - 1), endFrames: endFrames)
    }
}

extension Command {
    /// The layer a command is for.
    var layer: Int {
        switch self {
        case .start(let layer, _, _, _), .startPiece(let layer, _, _, _), .stop(let layer), .pause(let layer),
            .resume(let layer),
            .seek(let layer, _), .control(let layer, _, _), .curve(let layer, _), .mute(let layer, _),
            .replace(let layer, _, _), .completion(let layer, _), .release(let layer):
            layer
        }
    }
}
