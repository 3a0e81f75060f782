public import HapticsSynthesis
import Synchronization

/// Gives an output without a clock (a WAV file, ``NullOutput``) the pace of a real device.
///
/// The wrapped output accepts everything at once, so an engine feeding it directly would run as
/// fast as it renders. Paced, the output "hears" frames at its sample rate from the moment it
/// starts, measured on `clock`: room and delay behave as on a sound card with a buffer of
/// `bufferFrames`, so engine time follows wall-clock time. The listener starts on a buffer of
/// silence (as a sound server prebuffers), so every frame is heard a buffer after it is written,
/// the first ones too. The wrapped output's timeline is the clock's from then on: whenever the listener runs ahead of the writer (the engine
/// stalled, its timer suspended while idle, the engine stopped and started again), the frames it
/// missed are written as silence, so a captured WAV file's frame `n` is what was heard `n` frames
/// after the first, and its length is the wall time it recorded.
///
/// ```swift
/// let file = try WAVFileOutput(path: "/tmp/out.wav", format: AudioFormat())
/// let engine = HapticEngine(output: PacedOutput(file, bufferFrames: 960))
/// ```
public final class PacedOutput: AudioOutput {
    /// The output that receives the frames.
    public let wrapped: any AudioOutput
    public var name: String { wrapped.name }
    public var format: AudioFormat { wrapped.format }
    public var channelMap: ChannelMap? { wrapped.channelMap }
    public let bufferFrames: Int
    public var periodFrames: Int { max(1, bufferFrames / 4) }

    private let clock: any EngineClock
    private let state: Mutex<State>

    private struct State {
        /// When the listener heard frame `startFrame`; nil until the first write.
        var startNanoseconds: UInt64?
        var startFrame: Int64 = 0
        var written: Int64 = 0
        var underruns = 0
        /// Whether the output is between a start and a drain: a gap then is an underrun.
        var running = false
        /// Zero samples, written for a gap; allocated once.
        var silence: UnsafeMutableBufferPointer<Float>
    }

    /// Paces `output` with a buffer of `bufferFrames` (default: 20 ms at its rate).
    public init(_ output: any AudioOutput, bufferFrames: Int? = nil, clock: any EngineClock = MonotonicClock()) {
        wrapped = output
        self.bufferFrames = max(4, bufferFrames ?? output.format.sampleRate / 50)
        self.clock = clock
        let silence = UnsafeMutableBufferPointer<Float>.allocate(capacity: self.bufferFrames * output.format.channels)
        silence.initialize(repeating: 0)
        state = Mutex(State(silence: silence))
    }

    deinit {
        state.withLock { $0.silence.deallocate() }
    }

    public func start() throws(AudioOutputError) {
        try wrapped.start()
        state.withLock { $0.running = true }
    }

    /// Frames heard so far: the wall-clock frames since the listener started. A listener ahead of
    /// the writer heard silence: it is written, with a buffer's worth more, so that what comes
    /// next waits behind a full buffer as it does while the writer keeps up (a gap while running
    /// counts as an underrun; the time between a drain and the next start does not).
    private func heard(_ state: inout State) throws(AudioOutputError) -> Int64 {
        let now = clock.nanoseconds
        guard let start = state.startNanoseconds else {
            // The first look starts the listener on a buffer of silence, as a sound server
            // prebuffers: what the engine writes next is heard a buffer later, as ever after.
            state.startNanoseconds = now
            state.startFrame = state.written
            try writeSilence(frames: Int64(bufferFrames), &state)
            return state.startFrame
        }
        let elapsed = Int64(clamping: (now &- start) / 1_000) * Int64(format.sampleRate) / 1_000_000
        let heard = state.startFrame + elapsed
        if heard > state.written {
            if state.running { state.underruns += 1 }
            try writeSilence(frames: heard - state.written + Int64(bufferFrames), &state)
        }
        return heard
    }

    /// Writes `frames` of silence to the wrapped output: a WAV file extends itself in one call;
    /// any other output is written a buffer of zeros at a time.
    private func writeSilence(frames: Int64, _ state: inout State) throws(AudioOutputError) {
        if let file = wrapped as? WAVFileOutput {
            try file.writeSilence(frames: Int(frames))
            state.written += frames
            return
        }
        let channels = format.channels
        var left = frames
        while left > 0 {
            let count = Int(min(left, Int64(state.silence.count / channels)))
            let done = try wrapped.write(UnsafeBufferPointer(rebasing: state.silence[..<(count * channels)]))
            guard done > 0 else { return }
            state.written += Int64(done)
            left -= Int64(done)
        }
    }

    public func availableFrames() throws(AudioOutputError) -> Int {
        try timing().availableFrames
    }

    public func delayFrames() throws(AudioOutputError) -> Int {
        try timing().delayFrames
    }

    public func timing() throws(AudioOutputError) -> OutputTiming {
        try state.withLock { (state) throws(AudioOutputError) in
            let heard = try heard(&state)  // first: a gap's silence adds to `written`
            let delay = Int(state.written - heard)
            return OutputTiming(availableFrames: max(0, bufferFrames - delay), delayFrames: delay)
        }
    }

    /// Passes the frames on, after the silence of any gap since the last (the first look at the
    /// output, by `timing()` or a write, starts the clock on a buffer of silence). A restart after ``drain()`` goes on from the frame heard now, so the engine sees
    /// a fresh start (no queue of earlier runs to wait for) and the file keeps the clock's time.
    ///
    /// - Complexity: O(`samples.count`) plus the gap's frames, as the wrapped output's writes.
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioOutputError) -> Int {
        try state.withLock { (state) throws(AudioOutputError) -> Int in
            _ = try heard(&state)
            let frames = try wrapped.write(samples)
            state.written += Int64(frames)
            return frames
        }
    }

    public func waitForRoom(timeoutMilliseconds: Int) throws(AudioOutputError) -> Bool {
        try availableFrames() >= periodFrames
    }

    public var framesWritten: Int64 { state.withLock { $0.written } }

    public var underrunCount: Int { state.withLock { $0.underruns } }

    /// Drains the wrapped output; the clock runs on, so the time until the next start is
    /// written as silence then.
    public func drain() throws(AudioOutputError) {
        state.withLock { $0.running = false }
        try wrapped.drain()
    }

    public func close() {
        wrapped.close()
    }
}
