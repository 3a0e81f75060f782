public import HapticsEngine
public import HapticsSynthesis
import Synchronization

/// A haptic engine on a manual clock, with a simulated device that plays only when the test says
/// so: the engine's whole world advanced by hand, in the shape of NIO's `EmbeddedEventLoop`.
///
/// Each step of ``advance(by:)`` runs one engine tick (the engine renders and writes), then lets the
/// device play one tick's worth of frames and moves the clock by their duration. Nothing sleeps and
/// nothing runs on another thread, so a test is exact and fast: a second of audio in a few
/// milliseconds.
///
/// ```swift
/// let driver = ManualEngineDriver()
/// try driver.engine.start()
/// let player = try driver.engine.makePlayer(pattern)
/// try player.start(atTime: 0.25)
/// driver.advance(by: .seconds(0.5))
/// #expect(AudioAnalysis.onsets(driver.samples, channels: 1, minGapFrames: 960) == [12_000])
/// ```
///
/// To drive another engine type on the same world (the `CoreHaptics` facade's `CHHapticEngine`),
/// give it ``output``, ``clock`` and ``ticks`` and leave ``engine`` untouched.
public final class ManualEngineDriver: Sendable {
    /// The engine's clock; the driver moves it.
    public let clock: ManualClock
    /// The engine's ticks; the driver runs them.
    public let ticks: ManualTickSource
    /// The simulated device, which keeps every frame written to it.
    public let output: RecordingOutput
    /// Frames the device plays between two ticks, unless a call says otherwise.
    public let tickFrames: Int

    private let configuration: HapticEngine.Configuration
    private let state = Mutex(State())

    private struct State {
        var engine: HapticEngine?
        var framesPlayed: Int64 = 0
    }

    /// A driver whose device has `bufferFrames` of buffer and plays `tickFrames` per tick.
    ///
    /// - Parameters:
    ///   - format: the device's format (default 48 kHz mono).
    ///   - bufferFrames: the simulated device's buffer (default 960, 20 ms at 48 kHz).
    ///   - tickFrames: frames played per tick (default 192, 4 ms at 48 kHz).
    ///   - configuration: the configuration of ``engine``.
    ///   - channelMap: the device's channel map (a wide `format`: where the haptic signal goes).
    public init(
        format: AudioFormat = AudioFormat(sampleRate: 48_000, channels: 1), bufferFrames: Int = 960,
        tickFrames: Int = 192, configuration: HapticEngine.Configuration = .init(), channelMap: ChannelMap? = nil
    ) {
        precondition(tickFrames > 0, "a tick plays at least one frame")
        let clock = ManualClock()
        self.clock = clock
        ticks = ManualTickSource()
        output = RecordingOutput(
            format: format, bufferFrames: bufferFrames, channelMap: channelMap, clock: { clock.nanoseconds })
        self.tickFrames = tickFrames
        self.configuration = configuration
    }

    /// The engine on this driver's output, clock and ticks, made on first use. Not started.
    public var engine: HapticEngine {
        state.withLock { state in
            if let engine = state.engine { return engine }
            let engine = HapticEngine(output: output, configuration: configuration, clock: clock, ticks: ticks)
            state.engine = engine
            return engine
        }
    }

    /// The device's format.
    public var format: AudioFormat { output.format }

    /// Frames the device has played since the driver was made.
    public var framesPlayed: Int64 { state.withLock { $0.framesPlayed } }

    /// Time since the driver was made: ``framesPlayed`` at the device's rate.
    public var elapsed: Duration {
        let frames = framesPlayed
        let rate = Int64(format.sampleRate)
        return .seconds(frames / rate) + .nanoseconds((frames % rate) * 1_000_000_000 / rate)
    }

    /// Every sample the engine wrote to the device, in order.
    public var samples: [Float] { output.samples }

    /// One step: an engine tick, then the device plays `frames` frames and the clock moves by
    /// their duration.
    public func step(frames: Int) {
        precondition(frames >= 0, "time does not run backwards")
        ticks.tick()
        output.play(frames: frames)
        let rate = UInt64(format.sampleRate)
        let before = state.withLock { state in
            defer { state.framesPlayed += Int64(frames) }
            return UInt64(state.framesPlayed)
        }
        // The clock follows the frame count exactly, whatever the step sizes.
        clock.advance(byNanoseconds: (before + UInt64(frames)) * 1_000_000_000 / rate - before * 1_000_000_000 / rate)
    }

    /// Plays `frames` frames in steps of `tickFrames` (cycled; uneven steps model a jittery timer).
    /// The last step is cut short so that exactly `frames` frames play.
    public func advance(frames: Int, tickFrames: [Int]? = nil) {
        let steps = tickFrames ?? [self.tickFrames]
        precondition(!steps.isEmpty && steps.allSatisfy { $0 > 0 }, "every tick plays at least one frame")
        var left = frames
        var index = 0
        while left > 0 {
            let frames = min(left, steps[index % steps.count])
            step(frames: frames)
            left -= frames
            index += 1
        }
    }

    /// Plays `duration` of audio (rounded to whole frames) in ticks.
    public func advance(by duration: Duration, tickFrames: [Int]? = nil) {
        advance(frames: Self.frames(duration, rate: format.sampleRate), tickFrames: tickFrames)
    }

    /// Plays until ``elapsed`` reaches `time` (rounded to a whole frame); nothing if it already has.
    public func advance(to time: Duration, tickFrames: [Int]? = nil) {
        let target = Int64(Self.frames(time, rate: format.sampleRate))
        advance(frames: Int(max(0, target - framesPlayed)), tickFrames: tickFrames)
    }

    private static func frames(_ duration: Duration, rate: Int) -> Int {
        let (seconds, attoseconds) = duration.components
        precondition(seconds >= 0 && attoseconds >= 0, "time does not run backwards")
        return Int(seconds) * rate + Int((Double(attoseconds) * 1e-18 * Double(rate)).rounded())
    }
}
