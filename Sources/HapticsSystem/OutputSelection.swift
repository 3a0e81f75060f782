import HapticsALSA
public import HapticsEngine
public import HapticsSynthesis

/// Where an app's haptics are heard, chosen by environment variables.
///
/// - `HAPTIC_OUTPUT=/path/out.wav`: capture to a WAV file (paced to real time, its header valid
///   at every moment), for tests, CI and machines without a sound card. Each output opened in a
///   process gets a file of its own: `out.wav`, then `out-2.wav`, ... (``WAVFileOutput``).
/// - otherwise `HAPTIC_DEVICE=NAME`: the ALSA playback device (default `"default"`).
///
/// ```swift
/// let selection = OutputSelection(environment: ProcessInfo.processInfo.environment)
/// let output = try selection.open()
/// ```
public struct OutputSelection: Hashable, Sendable, CustomStringConvertible {
    /// The two destinations.
    public enum Destination: Hashable, Sendable {
        case device(String)
        case file(String)
    }

    public var destination: Destination
    /// The format to render in.
    public var format: AudioFormat
    /// Device latency (and the paced buffer of a file capture, which is at least
    /// ``captureBufferMilliseconds``), in milliseconds.
    public var latencyMilliseconds: Int

    /// The smallest paced buffer of a file capture: no listener waits on a file, and a deeper
    /// buffer keeps a busy machine's stalls (each written as silence) out of the capture.
    public static let captureBufferMilliseconds = 100

    public init(destination: Destination, format: AudioFormat = AudioFormat(), latencyMilliseconds: Int = 20) {
        self.destination = destination
        self.format = format
        self.latencyMilliseconds = latencyMilliseconds
    }

    /// Reads `HAPTIC_OUTPUT` (wins when non-empty), then `HAPTIC_DEVICE`, else ALSA `"default"`.
    public init(environment: [String: String]) {
        if let path = environment["HAPTIC_OUTPUT"], !path.isEmpty {
            self.init(destination: .file(path))
        } else if let device = environment["HAPTIC_DEVICE"], !device.isEmpty {
            self.init(destination: .device(device))
        } else {
            self.init(destination: .device("default"))
        }
    }

    public var description: String {
        switch destination {
        case .device(let name): "ALSA device \(name)"
        case .file(let path): "WAV file \(path)"
        }
    }

    /// Opens the destination: an ``ALSAOutput``, or a ``WAVFileOutput`` paced to real time.
    public func open() throws(AudioOutputError) -> any AudioOutput {
        switch destination {
        case .device(let name):
            return try ALSAOutput(.init(device: name, format: format, latencyMilliseconds: latencyMilliseconds))
        case .file(let path):
            let file = try WAVFileOutput(capturing: path, format: format, sampleFormat: .f32)
            let milliseconds = max(latencyMilliseconds, Self.captureBufferMilliseconds)
            return PacedOutput(file, bufferFrames: format.sampleRate * milliseconds / 1000)
        }
    }

    /// Whether the destination can play: a file can always be written; a device must open.
    ///
    /// Opens and closes the device once; the answer is not cached.
    public func canPlay() -> Bool {
        switch destination {
        case .file: return true
        case .device(let name):
            do {
                let output = try ALSAOutput(
                    .init(device: name, format: format, latencyMilliseconds: latencyMilliseconds))
                output.close()
                return true
            } catch {
                return false
            }
        }
    }
}
