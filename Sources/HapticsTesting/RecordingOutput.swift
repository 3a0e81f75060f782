public import Dispatch
public import HapticsEngine
public import HapticsSynthesis
import Synchronization

/// A test double for ``AudioOutput`` that keeps every frame written to it, with when and where it
/// landed, and simulates a device whose playback the test advances by hand.
///
/// In ``Playback/manual`` mode (the default) the simulated device holds at most `bufferFrames`
/// frames and only frees room when the test calls ``play(frames:)``; playing more than is queued is
/// an underrun, counted as a real device would. In ``Playback/clockless`` mode it behaves like
/// ``NullOutput``: always a full buffer of room, nothing delayed.
///
/// ```swift
/// let output = RecordingOutput(format: AudioFormat(sampleRate: 48_000, channels: 1), bufferFrames: 960)
/// try output.start()
/// _ = try [0.5, 0, 0].withUnsafeBufferPointer { try output.write($0) }
/// output.play(frames: 3)
/// #expect(output.samples == [0.5, 0, 0])
/// #expect(output.writes[0].firstFrame == 0)
/// ```
public final class RecordingOutput: AudioOutput {
    /// How the simulated device consumes frames.
    public enum Playback: Sendable {
        /// Room frees up only when the test calls ``RecordingOutput/play(frames:)``.
        case manual
        /// Always a full buffer of room; frames count as heard when written.
        case clockless
    }

    /// One accepted write.
    public struct Write: Hashable, Sendable {
        /// Index of the write's first frame in the output stream (0 for the first frame ever written).
        public var firstFrame: Int64
        /// Interleaved samples accepted by the write.
        public var samples: [Float]
        /// When the write happened, from the output's clock.
        public var uptimeNanoseconds: UInt64
        /// Frames written but not yet heard just before this write.
        public var delayFrames: Int
    }

    public let name: String
    public let format: AudioFormat
    public let bufferFrames: Int
    public let periodFrames: Int
    /// How the simulated device consumes frames.
    public let playback: Playback
    /// Where the haptic signal and the preview go on a wide `format` (nil: it takes the render as is).
    public let channelMap: ChannelMap?

    private struct State {
        var writes: [Write] = []
        var queuedFrames = 0
        var framesWritten: Int64 = 0
        var underruns = 0
        var started = false
        var closed = false
        var drained = false
        var nextError: AudioOutputError?
    }

    private let state = Mutex(State())
    private let clock: @Sendable () -> UInt64

    /// A recording output.
    ///
    /// - Parameters:
    ///   - bufferFrames: the simulated device's buffer (default 960, 20 ms at 48 kHz).
    ///   - periodFrames: its period (default a quarter of the buffer).
    ///   - clock: the time stamped on each write, in nanoseconds; inject the engine's manual clock.
    public init(
        format: AudioFormat = AudioFormat(),
        bufferFrames: Int = 960,
        periodFrames: Int? = nil,
        playback: Playback = .manual,
        name: String = "recording",
        channelMap: ChannelMap? = nil,
        clock: @escaping @Sendable () -> UInt64 = { DispatchTime.now().uptimeNanoseconds }
    ) {
        precondition(bufferFrames > 0, "a buffer holds at least one frame")
        precondition(channelMap.map { $0.deviceChannels == format.channels } ?? true, "the map fits the format")
        self.channelMap = channelMap
        self.name = name
        self.format = format
        self.bufferFrames = bufferFrames
        self.periodFrames = periodFrames ?? max(1, bufferFrames / 4)
        self.playback = playback
        self.clock = clock
    }

    // MARK: Inspecting what was written

    /// Every accepted write, in order.
    public var writes: [Write] { state.withLock { $0.writes } }

    /// Every sample written, in order (the writes concatenated).
    public var samples: [Float] { state.withLock { $0.writes.flatMap(\.samples) } }

    /// Whether ``start()`` was called (and the output not closed since).
    public var isStarted: Bool { state.withLock { $0.started } }

    /// Whether ``drain()`` ran since the last ``start()``.
    public var isDrained: Bool { state.withLock { $0.drained } }

    /// Whether ``close()`` was called.
    public var isClosed: Bool { state.withLock { $0.closed } }

    // MARK: Driving the simulated device

    /// The simulated device plays `frames` frames, freeing that much room. Playing more than is
    /// queued runs it dry: an underrun is counted and the queue is empty afterwards.
    public func play(frames: Int) {
        precondition(frames >= 0)
        state.withLock { state in
            if frames > state.queuedFrames {
                if state.started && !state.drained { state.underruns += 1 }
                state.queuedFrames = 0
            } else {
                state.queuedFrames -= frames
            }
        }
    }

    /// Makes the next call that talks to the device (``start()``, ``availableFrames()``,
    /// ``delayFrames()``, ``write(_:)``, ``drain()``) throw `error`, once.
    public func failNextCall(with error: AudioOutputError) {
        state.withLock { $0.nextError = error }
    }

    // MARK: AudioOutput

    public func start() throws(AudioOutputError) {
        try state.withLock { (state) throws(AudioOutputError) in
            try check(&state)
            state.started = true
            state.drained = false
        }
    }

    public func availableFrames() throws(AudioOutputError) -> Int {
        try state.withLock { (state) throws(AudioOutputError) in
            try check(&state)
            return playback == .clockless ? bufferFrames : bufferFrames - state.queuedFrames
        }
    }

    public func delayFrames() throws(AudioOutputError) -> Int {
        try state.withLock { (state) throws(AudioOutputError) in
            try check(&state)
            return state.queuedFrames
        }
    }

    /// Accepts as many whole frames as the simulated buffer has room for and records them.
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioOutputError) -> Int {
        precondition(samples.count % format.channels == 0, "a write holds whole frames")
        let now = clock()
        return try state.withLock { (state) throws(AudioOutputError) in
            try check(&state)
            let offered = samples.count / format.channels
            let room = playback == .clockless ? offered : bufferFrames - state.queuedFrames
            let accepted = min(offered, room)
            guard accepted > 0 else { return 0 }
            let acceptedSamples = Array(samples[0..<(accepted * format.channels)])
            state.writes.append(
                Write(
                    firstFrame: state.framesWritten, samples: acceptedSamples,
                    uptimeNanoseconds: now, delayFrames: state.queuedFrames))
            state.framesWritten += Int64(accepted)
            if playback == .manual { state.queuedFrames += accepted }
            state.drained = false
            return accepted
        }
    }

    /// Returns whether there is a period of room now; never blocks (the test drives playback).
    public func waitForRoom(timeoutMilliseconds: Int) throws(AudioOutputError) -> Bool {
        try availableFrames() >= periodFrames
    }

    public var framesWritten: Int64 { state.withLock { $0.framesWritten } }

    public var underrunCount: Int { state.withLock { $0.underruns } }

    /// Plays out the queue at once (there is no real time to wait for) and stops.
    public func drain() throws(AudioOutputError) {
        try state.withLock { (state) throws(AudioOutputError) in
            try check(&state)
            state.queuedFrames = 0
            state.drained = true
            state.started = false
        }
    }

    public func close() {
        state.withLock { state in
            state.closed = true
            state.started = false
            state.queuedFrames = 0
        }
    }

    private func check(_ state: inout State) throws(AudioOutputError) {
        if state.closed { throw .closed(device: name) }
        if let error = state.nextError {
            state.nextError = nil
            throw error
        }
    }
}
