public import HapticsSynthesis
import Synchronization

/// An output without a device: it accepts every frame at once and discards it.
///
/// It has no clock: there is always a full buffer of room and nothing is ever waiting to be heard,
/// so an engine driving it runs as fast as it renders. Use it for offline runs, benchmarks and
/// machines without a sound device.
///
/// ```swift
/// let output = NullOutput(format: AudioFormat(sampleRate: 48_000, channels: 1))
/// try output.start()
/// let accepted = try samples.withUnsafeBufferPointer { try output.write($0) }   // all of them
/// ```
public final class NullOutput: AudioOutput {
    public let name: String
    public let format: AudioFormat
    public let bufferFrames: Int
    public let periodFrames: Int

    private let written = Atomic<Int64>(0)
    private let isClosed = Atomic<Bool>(false)

    /// A null output with a nominal buffer of `bufferFrames` (default: 20 ms at the format's rate)
    /// and a period of a quarter of it.
    public init(format: AudioFormat = AudioFormat(), bufferFrames: Int? = nil, name: String = "null") {
        let buffer = bufferFrames ?? max(4, format.sampleRate / 50)
        precondition(buffer > 0, "a buffer holds at least one frame")
        self.name = name
        self.format = format
        self.bufferFrames = buffer
        self.periodFrames = max(1, buffer / 4)
    }

    public func start() throws(AudioOutputError) {
        try checkOpen()
    }

    /// Always the whole buffer.
    public func availableFrames() throws(AudioOutputError) -> Int {
        try checkOpen()
        return bufferFrames
    }

    /// Always 0: a discarded frame is "heard" at once.
    public func delayFrames() throws(AudioOutputError) -> Int {
        try checkOpen()
        return 0
    }

    /// Accepts all frames.
    ///
    /// - Complexity: O(1).
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioOutputError) -> Int {
        try checkOpen()
        precondition(samples.count % format.channels == 0, "a write holds whole frames")
        let frames = samples.count / format.channels
        written.add(Int64(frames), ordering: .relaxed)
        return frames
    }

    /// Returns `true` at once: there is always room.
    public func waitForRoom(timeoutMilliseconds: Int) throws(AudioOutputError) -> Bool {
        try checkOpen()
        return true
    }

    public var framesWritten: Int64 { written.load(ordering: .relaxed) }

    /// Always 0: a null output never runs dry.
    public var underrunCount: Int { 0 }

    public func drain() throws(AudioOutputError) {
        try checkOpen()
    }

    public func close() {
        isClosed.store(true, ordering: .releasing)
    }

    private func checkOpen() throws(AudioOutputError) {
        if isClosed.load(ordering: .acquiring) { throw .closed(device: name) }
    }
}
