public import HapticsSynthesis
import Synchronization

/// Gives an output without a clock (a WAV file, ``NullOutput``) the pace of a real device.
///
/// The wrapped output accepts everything at once, so an engine feeding it directly would run as
/// fast as it renders. Paced, the output "hears" frames at its sample rate from the moment it
/// starts, measured on `clock`: room and delay behave as on a sound card with a buffer of
/// `bufferFrames`, so engine time follows wall-clock time and a captured WAV file holds what a
/// listener would have heard, gaps included.
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
    public let bufferFrames: Int
    public var periodFrames: Int { max(1, bufferFrames / 4) }

    private let clock: any EngineClock
    private let state: Mutex<State>

    private struct State {
        /// When the listener heard frame `startFrame`; nil until the first write after a start.
        var startNanoseconds: UInt64?
        var startFrame: Int64 = 0
        var written: Int64 = 0
        var underruns = 0
    }

    /// Paces `output` with a buffer of `bufferFrames` (default: 20 ms at its rate).
    public init(_ output: any AudioOutput, bufferFrames: Int? = nil, clock: any EngineClock = MonotonicClock()) {
        wrapped = output
        self.bufferFrames = max(4, bufferFrames ?? output.format.sampleRate / 50)
        self.clock = clock
        state = Mutex(State())
    }

    public func start() throws(AudioOutputError) {
        try wrapped.start()
    }

    /// Frames heard so far: the frame heard at the run's first write plus the wall-clock frames
    /// since, never past what was written.
    private func heard(_ state: inout State) -> Int64 {
        guard let start = state.startNanoseconds else { return state.written }
        let now = clock.nanoseconds
        let elapsed = Int64(clamping: (now &- start) / 1_000) * Int64(format.sampleRate) / 1_000_000
        if state.startFrame + elapsed > state.written {
            // The listener ran ahead of the writer: a gap. Restart the clock at the last frame.
            state.underruns += 1
            state.startNanoseconds = now
            state.startFrame = state.written
            return state.written
        }
        return state.startFrame + elapsed
    }

    public func availableFrames() throws(AudioOutputError) -> Int {
        try timing().availableFrames
    }

    public func delayFrames() throws(AudioOutputError) -> Int {
        try timing().delayFrames
    }

    public func timing() throws(AudioOutputError) -> OutputTiming {
        state.withLock { state in
            let delay = Int(state.written - heard(&state))
            return OutputTiming(availableFrames: max(0, bufferFrames - delay), delayFrames: delay)
        }
    }

    /// Passes the frames on; the first write after a start starts the clock, from the frames
    /// already written (a restart after ``drain()`` is a fresh start, not a listener that must
    /// first catch up with every frame of the earlier runs).
    ///
    /// - Complexity: O(`samples.count`), as the wrapped output's write.
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioOutputError) -> Int {
        let frames = try wrapped.write(samples)
        state.withLock { state in
            if state.startNanoseconds == nil {
                state.startNanoseconds = clock.nanoseconds
                state.startFrame = state.written
            }
            state.written += Int64(frames)
        }
        return frames
    }

    public func waitForRoom(timeoutMilliseconds: Int) throws(AudioOutputError) -> Bool {
        try availableFrames() >= periodFrames
    }

    public var framesWritten: Int64 { state.withLock { $0.written } }

    public var underrunCount: Int { state.withLock { $0.underruns } }

    public func drain() throws(AudioOutputError) {
        try wrapped.drain()
        state.withLock { $0.startNanoseconds = nil }
    }

    public func close() {
        wrapped.close()
    }
}
