import Dispatch
import Foundation
public import HapticsSynthesis
import Synchronization

/// Plays one pattern file through an output in real time until it ends or is interrupted:
/// what `haptic play` does.
///
/// ```swift
/// let playback = try LivePlayback(file: file, output: alsa, options: .init(loop: false))
/// let outcome = playback.run()      // blocks; interrupt() (on Ctrl-C) fades out: .interrupted
/// ```
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
    let player: Player
    let options: Options
    let done = DispatchSemaphore(value: 0)
    let outcome = Mutex<Outcome?>(nil)
    let measured = Mutex(Statistics())

    /// What the last `run()` measured.
    public var statistics: Statistics { measured.withLock { $0 } }

    public init(file: PatternFile, output: any AudioOutput, options: Options) throws(HapticEngineError) {
        var configuration = HapticEngine.Configuration()
        configuration.voicing = options.voicing
        configuration.tickThreadNice = -11
        engine = HapticEngine(output: output, configuration: configuration)
        player = try engine.makeAdvancedPlayer(file.pattern, clips: file.clips)
        self.options = options
    }

    /// Plays, blocking the calling thread until the end, a failure, or `interrupt()`.
    public func run() -> Outcome {
        engine.stoppedHandler = { [weak self] reason in
            let why = self?.engine.lastOutputError.map { ": \($0)" } ?? ""
            self?.finish(.failed("the engine stopped (\(reason))\(why)"))
        }
        do {
            try engine.start()
            player.playbackRate = options.rate
            player.loopEnabled = options.loop
            player.completionHandler = { [weak self] _ in self?.finish(.finished) }
            if options.fromSeconds > 0 { try player.seek(toOffset: options.fromSeconds) }
            try player.start(atTime: HapticEngine.timeImmediate)
        } catch {
            engine.stop(fadeMilliseconds: 0)
            return .failed(error.description)
        }
        done.wait()
        let result = outcome.withLock { $0 } ?? .finished
        engine.stop(fadeMilliseconds: result == .interrupted ? options.fadeMilliseconds : 0)
        let written = engine.output.framesWritten
        let underruns = engine.underrunCount
        measured.withLock {
            $0.framesWritten = written
            $0.underruns = underruns
            $0.sampleRate = engine.format.sampleRate
        }
        return result
    }

    /// Notes where the listener was, then ends playback.
    /// Ends playback with a short fade (Ctrl-C): `run()` returns `.interrupted`. Safe from any
    /// thread; the caller owns the signal handling (the CLI's `Interrupts`).
    public func interrupt() {
        let heard = Int64((engine.currentTime * Double(engine.format.sampleRate)).rounded())
        let layer = player.layer
        let start = engine.render.withLock { $0.layers[layer].active ? $0.layers[layer].startFrame : nil }
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
