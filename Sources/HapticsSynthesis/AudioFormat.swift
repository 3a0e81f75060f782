/// How rendered audio is laid out: frames per second and interleaved channels.
public struct AudioFormat: Hashable, Sendable, CustomStringConvertible {
    /// Frames per second, e.g. 48,000.
    public var sampleRate: Int
    /// 1 (mono) or 2 (interleaved stereo, left first).
    public var channels: Int

    public init(sampleRate: Int = 48_000, channels: Int = 1) {
        precondition(sampleRate > 0 && (1...2).contains(channels), "unsupported audio format")
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// The sample rates the CLI offers.
    public static let supportedSampleRates = [44_100, 48_000, 96_000]

    /// The frame at which something `seconds` into the stream starts: `round(seconds * rate)`.
    @inlinable
    public func frame(at seconds: Double) -> Int64 {
        Int64((seconds * Double(sampleRate)).rounded(.toNearestOrEven))
    }

    public var description: String { "\(sampleRate) Hz, \(channels == 1 ? "mono" : "stereo")" }
}

/// How samples are stored in a file or handed to a device.
public enum SampleFormat: String, CaseIterable, Hashable, Sendable {
    /// 16-bit signed integer.
    case s16
    /// 24-bit signed integer, packed in three bytes.
    case s24
    /// 32-bit IEEE float.
    case f32

    /// Bytes per sample.
    public var bytesPerSample: Int {
        switch self {
        case .s16: 2
        case .s24: 3
        case .f32: 4
        }
    }
}
