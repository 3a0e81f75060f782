public import HapticsSynthesis

/// A playback device that the real-time engine feeds with rendered frames.
///
/// The engine drives an output from one serial queue: on every timer tick (every 2-5 ms) it asks how
/// much room the device has, renders exactly that many frames and writes them. No call blocks except
/// ``waitForRoom(timeoutMilliseconds:)`` and ``drain()``. The engine maps its own time to frames
/// through the device's position (``framesWritten`` minus ``delayFrames()``), never through the timer,
/// so timer jitter never moves an event.
///
/// ```swift
/// let output: any AudioOutput = try ALSAOutput(.init(device: "default", latencyMilliseconds: 20))
/// try output.start()
/// let timing = try output.timing()
/// let frames = timing.availableFrames       // render this many frames, then:
/// let accepted = try block.withUnsafeBufferPointer { try output.write($0) }
/// ```
///
/// Conformers are `Sendable` so the engine can hand them to its queue; their counters may be read
/// from any thread, everything else is called from the engine's queue.
public protocol AudioOutput: AnyObject, Sendable {
    /// The device's name, as given to open it (e.g. `"default"`, `"hw:0"`).
    var name: String { get }
    /// The negotiated format: the rate and channel count the device actually runs at.
    var format: AudioFormat { get }
    /// The device's buffer size in frames: the most that can be queued ahead of what is heard.
    var bufferFrames: Int { get }
    /// The device's period in frames: the granularity at which it reports free room.
    var periodFrames: Int { get }
    /// Which of the device's ``format`` channels carry the haptic signal and the preview, for a
    /// device with more channels than the synthesizer renders (a DualSense); nil: the device
    /// plays the render as it is (mono or stereo).
    var channelMap: ChannelMap? { get }

    /// Makes the device ready to accept frames. Playback starts once a period has been written.
    ///
    /// Call it before the first write, and again to reuse the output after ``drain()``.
    func start() throws(AudioOutputError)

    /// Frames the device can accept now without blocking.
    func availableFrames() throws(AudioOutputError) -> Int

    /// Frames written but not yet heard: the time from a write to the loudspeaker.
    ///
    /// `framesWritten - delayFrames()` is the frame being heard now; the engine's time mapping.
    func delayFrames() throws(AudioOutputError) -> Int

    /// Free room and delay sampled together, so the two describe the same instant.
    func timing() throws(AudioOutputError) -> OutputTiming

    /// Writes interleaved float frames (`format.channels` samples per frame, -1...1) without
    /// blocking and returns the number of frames accepted, which may be fewer than offered.
    ///
    /// Recovers from an underrun or a system suspend itself and counts it in ``underrunCount``.
    /// - Precondition: `samples.count` is a multiple of `format.channels`.
    /// - Complexity: O(`samples.count`); never allocates.
    func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioOutputError) -> Int

    /// Blocks until the device has room for at least a period, or the timeout passes.
    ///
    /// Returns `true` when there is room. For simple players and tools; the engine's timer does not
    /// need it.
    func waitForRoom(timeoutMilliseconds: Int) throws(AudioOutputError) -> Bool

    /// Frames accepted by ``write(_:)`` since the output was opened.
    var framesWritten: Int64 { get }

    /// How often the device ran dry (the listener heard a gap) since it was opened.
    var underrunCount: Int { get }

    /// Plays out everything queued, then stops. Blocks for up to the buffer's duration.
    func drain() throws(AudioOutputError)

    /// Stops at once, discarding queued frames, and releases the device. Later calls throw
    /// ``AudioOutputError/Code/closed``; closing twice is harmless.
    func close()

    /// Why the device counts as stalled now (it took no frames, or one call to it did not return,
    /// for longer than its bound), or nil. Never blocks: a watchdog may poll it from any thread.
    var stallError: AudioOutputError? { get }
}

/// A device's free room and delay, sampled at the same instant.
public struct OutputTiming: Hashable, Sendable {
    /// Frames the device can accept now without blocking.
    public var availableFrames: Int
    /// Frames written but not yet heard.
    public var delayFrames: Int

    public init(availableFrames: Int, delayFrames: Int) {
        self.availableFrames = availableFrames
        self.delayFrames = delayFrames
    }
}

extension AudioOutput {
    /// Free room and delay from two separate queries; outputs that can sample both at once override it.
    public func timing() throws(AudioOutputError) -> OutputTiming {
        let delay = try delayFrames()
        return OutputTiming(availableFrames: try availableFrames(), delayFrames: delay)
    }

    /// Outputs play the render as it is unless they say otherwise.
    public var channelMap: ChannelMap? { nil }

    /// Outputs that cannot stall (files, memory) never report a stall.
    public var stallError: AudioOutputError? { nil }

    /// The frame being heard now, counted from the first frame written.
    ///
    /// Equal to `framesWritten - delayFrames()`; an underrun's silent gap is not counted.
    public func playbackPosition() throws(AudioOutputError) -> Int64 {
        framesWritten - Int64(try delayFrames())
    }
}

/// Why an audio output failed, which device, and what to do about it.
///
/// ```swift
/// do { _ = try ALSAOutput(.init(device: "hw:5")) }
/// catch { print(error) }
/// // device 'hw:5' not found: ALSA says 'No such file or directory'; list devices with `haptic devices`
/// ```
public struct AudioOutputError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of failure, for code that reacts to it.
    public enum Code: String, Hashable, Sendable {
        /// No device by that name.
        case deviceNotFound
        /// Another program holds the device.
        case deviceBusy
        /// The user may not open the device.
        case permissionDenied
        /// The device cannot run in any format, rate, channel count or buffer size we can use.
        case unsupportedConfiguration
        /// The output was already closed.
        case closed
        /// The device took no frames (or did not answer) for longer than its bound: its sound
        /// server is stopped or hung. The output stops talking to it.
        case deviceStalled
        /// Any other failure while talking to the device.
        case deviceFailure
    }

    /// The kind of failure.
    public var code: Code
    /// The device's name, as given to open it.
    public var device: String
    /// What went wrong and how to fix it, naming the device; shown to the user as is.
    public var message: String
    /// The backend's error number (a positive `errno` value), if it reported one.
    public var systemErrorNumber: Int32?

    public init(code: Code, device: String, message: String, systemErrorNumber: Int32? = nil) {
        self.code = code
        self.device = device
        self.message = message
        self.systemErrorNumber = systemErrorNumber
    }

    /// The error thrown by every call on an output after ``AudioOutput/close()``.
    public static func closed(device: String) -> AudioOutputError {
        AudioOutputError(
            code: .closed, device: device,
            message: "device '\(device)' was already closed; open a new output to play again")
    }

    public var description: String { message }
}
