import HapticsALSA
public import HapticsEngine
public import HapticsSynthesis

/// Where an app's haptics are heard, chosen by environment variables.
///
/// - `HAPTIC_OUTPUT=/path/out.wav`: capture to a WAV file (paced to real time, its header valid
///   at every moment), for tests, CI and machines without a sound card. Each output opened in a
///   process gets a file of its own: `out.wav`, then `out-2.wav`, ... (``WAVFileOutput``).
/// - otherwise `HAPTIC_DEVICE=NAME`: the ALSA playback device (default `"default"`). `dualsense`
///   picks a DualSense connected by USB and plays on its actuators (channels 3-4, voiced for
///   them), as does the name of a haptic card's PCM (`hw:CARD=Controller,DEV=0`).
/// - `HAPTIC_CHANNEL_MAP=CHANNELS:HAPTIC[:PREVIEW]` (e.g. `4:3,4` or `4:3,4:1,2`): any
///   multichannel device, the haptic signal on the channels named (see ``ChannelMap``).
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
    /// Where the haptic signal goes on a multichannel device (nil: the device plays the render).
    public var channelMap: ChannelMap?

    /// The smallest paced buffer of a file capture: no listener waits on a file, and a deeper
    /// buffer keeps a busy machine's stalls (each written as silence) out of the capture.
    public static let captureBufferMilliseconds = 100

    public init(
        destination: Destination, format: AudioFormat = AudioFormat(), latencyMilliseconds: Int = 20,
        channelMap: ChannelMap? = nil
    ) {
        self.destination = destination
        self.format = format
        self.latencyMilliseconds = latencyMilliseconds
        self.channelMap = channelMap
    }

    /// Why the environment names no output that can be opened (an alias naming no card present,
    /// a `HAPTIC_CHANNEL_MAP` that is not a map): ``open()`` throws it, so a mistyped variable is
    /// reported where the app first asks for sound instead of being ignored.
    public var configurationError: AudioOutputError?

    /// Reads `HAPTIC_OUTPUT` (wins when non-empty), then `HAPTIC_DEVICE`, else ALSA `"default"`;
    /// a haptic device (`dualsense`, a haptic card's PCM) or `HAPTIC_CHANNEL_MAP` adds a channel
    /// map. A value that cannot be used is kept in ``configurationError``.
    public init(environment: [String: String]) {
        if let path = environment["HAPTIC_OUTPUT"], !path.isEmpty {
            self.init(destination: .file(path))
            return
        }
        var device = environment["HAPTIC_DEVICE"].flatMap { $0.isEmpty ? nil : $0 } ?? "default"
        var map: ChannelMap?
        var failure: AudioOutputError?
        do {
            (device, map) = try SoundCards.resolve(device, proc: SoundCards.procRoot(environment: environment))
        } catch {
            failure = error
        }
        if let text = environment["HAPTIC_CHANNEL_MAP"], !text.isEmpty {
            do {
                map = try ChannelMap(parsing: text)
            } catch {
                failure =
                    failure
                    ?? AudioOutputError(
                        code: .unsupportedConfiguration, device: device,
                        message: "HAPTIC_CHANNEL_MAP: \(error.message)")
            }
        }
        self.init(destination: .device(device), channelMap: map)
        configurationError = failure
    }

    public var description: String {
        switch destination {
        case .device(let name): "ALSA device \(name)" + (channelMap.map { " (channel map \($0))" } ?? "")
        case .file(let path): "WAV file \(path)"
        }
    }

    /// The ALSA configuration for device `name`: a mapped device is opened at the map's width.
    func alsaConfiguration(_ name: String) -> ALSAOutput.Configuration {
        .init(device: name, format: format, latencyMilliseconds: latencyMilliseconds, channelMap: channelMap)
    }

    /// Opens the destination: an ``ALSAOutput``, or a ``WAVFileOutput`` paced to real time.
    public func open() throws(AudioOutputError) -> any AudioOutput {
        if let configurationError { throw configurationError }
        switch destination {
        case .device(let name):
            return try ALSAOutput(alsaConfiguration(name))
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
        if configurationError != nil { return false }
        switch destination {
        case .file: return true
        case .device(let name):
            do {
                let output = try ALSAOutput(alsaConfiguration(name))
                output.close()
                return true
            } catch {
                return false
            }
        }
    }
}
