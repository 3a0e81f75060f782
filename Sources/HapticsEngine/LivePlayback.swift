import Dispatch
import Foundation
import HapticsCore
public import HapticsSynthesis
import Synchronization

/// Plays one pattern file through an output in real time until it ends or is interrupted:
/// what `haptic play` does.
///
/// ```swift
/// let playback = try LivePlayback(file: file, output: alsa, options: .init(loop: false))
/// let outcome = playback.run()      // blocks; interrupt() (on Ctrl-C) fades out: .interrupted
/// ```
///
/// `run()` leaves the output drained and closed, whatever the device does: a device that takes no
/// frames for its stall bound ends playback with `.failed` (the output's ``AudioOutput/stallError``,
/// polled by a watchdog every 20 ms even while the engine is stuck inside the device), and the
/// final stop and close run on a thread of their own that `run()` waits for only a bounded time
/// (``stopBudgetSeconds``): after Ctrl-C, a fade plus the device buffer plus 40 ms.
///
public final class LivePlayback: Sendable {
    /// How to play.
    public struct Options: Sendable {
        /// Start again at the end, until interrupted.
        public var loop = false
        /// Speed (scales times and continuous durations, not pitch).
        public var rate: Float = 1
        /// Seconds into the pattern to start from.
        public var fromSeconds = 0.0
        /// How haptics become sound.
        public var voicing: VoicingProfile = .standard
        /// Length of the fade when interrupted.
        public var fadeMilliseconds = 5.0
        /// On a mapped output with preview channels: audio events there only, haptic events on
        /// the actuators only (``HapticEngine/Configuration/audioOnPreviewOnly``).
        public var audioOnPreviewOnly = false
        /// The longest pattern played, in seconds (``HapticEngine/Configuration/maxPatternSeconds``):
        /// by default a pattern file's limit; `.infinity` for the haptics made of a sound, as long
        /// as the sound, as Apple's players take a pattern of any length.
        public var maxPatternSeconds = AHAPLimits.default.maxDuration
        /// Asked every 20 ms while playing, as the output's stall is: a reason ends playback as
        /// ``Outcome/failed(_:)`` with it (a source read while it plays has run dry: `haptic play
        /// song.wav` when the file is cut short under it).
        public var sourceFailure: (@Sendable () -> String?)?

        public init(loop: Bool = false, rate: Float = 1, fromSeconds: Double = 0, voicing: VoicingProfile = .standard) {
            self.loop = loop
            self.rate = rate
            self.fromSeconds = fromSeconds
            self.voicing = voicing
        }
    }

    /// How a playback ended.
    public enum Outcome: Sendable, Equatable {
        case finished
        case interrupted
        case failed(String)
    }

    /// What a finished playback measured, for `haptic play --stats` and the real-time tests.
    public struct Statistics: Sendable, Equatable {
        /// How often the output ran dry.
        public var underruns = 0
        /// Frames handed to the output, fade included.
        public var framesWritten: Int64 = 0
        /// Whether the device still had not drained and closed when `run()` stopped waiting for it.
        public var abandonedDevice = false
        /// Engine frame at which the pattern's current iteration started (nil before it did).
        public var iterationStartFrame: Int64?
        /// Engine frame being heard when interrupted (nil when not interrupted).
        public var interruptHeardFrame: Int64?
        /// The output's sample rate.
        public var sampleRate = 48_000

        /// Time from the interruption to the last frame of the fade reaching the listener, in milliseconds.
        public var stopLatencyMilliseconds: Double? {
            interruptHeardFrame.map { Double(framesWritten - $0) * 1000 / Double(sampleRate) }
        }
    }

    public let engine: HapticEngine
    /// The player of a whole pattern; nil when playing pieces (``init(pieces:output:options:)``).
    let player: Player?
    /// The pieces, when playing pieces.
    let pieces: PieceSchedule?
    /// The layer whose start is the playback's: the player's, or the first piece's.
    let firstLayer = Mutex<Int?>(nil)
    let options: Options
    let done = DispatchSemaphore(value: 0)
    let outcome = Mutex<Outcome?>(nil)
    let measured = Mutex(Statistics())

    /// What the last `run()` measured.
    public var statistics: Statistics { measured.withLock { $0 } }

    public init(file: PatternFile, output: any AudioOutput, options: Options) throws(HapticEngineError) {
        let configuration = Self.configuration(options)
        if let problem = file.pattern.rateProblem(Double(options.rate), maxSeconds: configuration.maxPatternSeconds) {
            throw HapticEngineError(.invalidParameterType, problem)
        }
        engine = HapticEngine(output: output, configuration: configuration)
        player = try engine.makePlayer(file, advanced: true)
        pieces = nil
        self.options = options
    }

    /// Plays a pattern already prepared for `output`'s sample rate and `options.voicing` (a
    /// ``PreparedPattern/Builder``'s: `haptic play song.wav` prepares the sound's haptics as the
    /// analysis makes them, and no whole pattern is held). Its rate is 1: another
    /// `options.rate` is refused.
    public init(prepared: PreparedPattern, output: any AudioOutput, options: Options) throws(HapticEngineError) {
        guard options.rate == 1 else {
            throw HapticEngineError(.invalidParameterType, "a prepared pattern plays at rate 1, not \(options.rate)")
        }
        engine = HapticEngine(output: output, configuration: Self.configuration(options))
        player = try engine.makePlayer(prepared: prepared, advanced: true)
        pieces = nil
        self.options = options
    }

    /// Plays a pattern in pieces as another thread makes them (``PieceQueue``), each on a
    /// player of its own started where its window begins, so what is held is a few pieces
    /// whatever the pattern's length: `haptic play song.wav` plays a sound of hours this way.
    /// Pieces play once, at rate 1: a loop or another `options.rate` is refused.
    public init(pieces queue: PieceQueue, output: any AudioOutput, options: Options) throws(HapticEngineError) {
        guard options.rate == 1, !options.loop else {
            throw HapticEngineError(.invalidParameterType, "pieces play once at rate 1")
        }
        engine = HapticEngine(output: output, configuration: Self.configuration(options))
        player = nil
        pieces = PieceSchedule(queue: queue, from: options.fromSeconds)
        self.options = options
    }

    private static func configuration(_ options: Options) -> HapticEngine.Configuration {
        var configuration = HapticEngine.Configuration()
        configuration.voicing = options.voicing
        configuration.tickThreadNice = -11
        configuration.audioOnPreviewOnly = options.audioOnPreviewOnly
        configuration.maxPatternSeconds = options.maxPatternSeconds
        return configuration
    }

    /// Plays, blocking the calling thread until the end, a failure, or `interrupt()`.
    public func run() -> Outcome {
        engine.stoppedHandler = { [weak self] reason in
            let failure = self?.engine.lastOutputError
            self?.finish(.failed(failure.map { "playback stopped: \($0)" } ?? "the engine stopped (\(reason.phrase))"))
        }
        // The first pieces are made before the device starts, as a whole pattern is.
        if let pieces, !waitForFirstPieces(pieces) {
            pieces.queue.close()
            engine.output.close()
            return .interrupted
        }
        do {
            try engine.start()
            if let player {
                player.playbackRate = options.rate
                player.loopEnabled = options.loop
                player.completionHandler = { [weak self] _ in self?.finish(.finished) }
                if options.fromSeconds > 0 { try player.seek(toOffset: options.fromSeconds) }
                firstLayer.withLock { $0 = player.layer }
                try player.start(atTime: HapticEngine.timeImmediate)
            } else if let pieces {
                try startPieces(pieces)
            }
        } catch {
            engine.stop(fadeMilliseconds: 0)
            pieces?.queue.close()
            return .failed(error.description)
        }
        let output = engine.output
        while done.wait(timeout: .now() + .milliseconds(20)) == .timedOut {
            if let stall = output.stallError { finish(.failed(stall.description)) }
            if let reason = options.sourceFailure?() { finish(.failed(reason)) }
            if let pieces {
                do {
                    try schedulePieces(pieces)
                } catch {
                    finish(.failed(error.description))
                }
            }
        }
        pieces?.queue.close()
        let result = outcome.withLock { $0 } ?? .finished
        let fade = result == .interrupted ? options.fadeMilliseconds : 0
        let finished = stopAndClose(fadeMilliseconds: fade, budgetSeconds: stopBudgetSeconds(after: result))
        let written = output.framesWritten
        let underruns = engine.underrunCount
        measured.withLock {
            $0.framesWritten = written
            $0.underruns = underruns
            $0.sampleRate = engine.format.sampleRate
            $0.abandonedDevice = !finished
        }
        return result
    }

    /// How long `run()` waits for the device to play out and close after `result`: after Ctrl-C
    /// the fade, the device's buffer and 40 ms; after the end, the buffer plus the stall bound
    /// (the output itself gives up on a stalled drain after that); after a stall, nothing.
    public func stopBudgetSeconds(after result: Outcome) -> Double {
        let buffer = Double(engine.output.bufferFrames) / Double(engine.format.sampleRate)
        switch result {
        case .interrupted: return options.fadeMilliseconds / 1000 + buffer + 0.04
        case .finished: return buffer + 2.5
        case .failed: return engine.output.stallError == nil ? buffer + 2.5 : 0.05
        }
    }

    /// Stops the engine and closes the output on a thread of its own; returns false when that
    /// took longer than `budgetSeconds` (the thread is left to finish, or to wait for ever on a
    /// stalled device).
    func stopAndClose(fadeMilliseconds: Double, budgetSeconds: Double) -> Bool {
        let stopped = DispatchSemaphore(value: 0)
        let thread = Thread { [engine] in
            engine.stop(fadeMilliseconds: fadeMilliseconds)
            engine.output.close()
            stopped.signal()
        }
        thread.name = "swift-haptics.playback.stop"
        thread.start()
        return stopped.wait(timeout: .now() + budgetSeconds) == .success
    }

    /// Notes where the listener was, then ends playback.
    /// Ends playback with a short fade (Ctrl-C): `run()` returns `.interrupted`. Safe from any
    /// thread; the caller owns the signal handling (the CLI's `Interrupts`).
    public func interrupt() {
        let heard = Int64((engine.currentTime * Double(engine.format.sampleRate)).rounded())
        let layer = firstLayer.withLock { $0 }
        let start = layer.flatMap { layer in
            engine.render.withLock { $0.layers[layer].active ? $0.layers[layer].startFrame : nil }
        }
        measured.withLock {
            if $0.interruptHeardFrame == nil {
                $0.interruptHeardFrame = heard
                $0.iterationStartFrame = start
            }
        }
        finish(.interrupted)
    }

    /// Records the first way playback ended and wakes `run()`.
    func finish(_ result: Outcome) {
        let first = outcome.withLock { outcome in
            defer { if outcome == nil { outcome = result } }
            return outcome == nil
        }
        if first { done.signal() }
    }
}
