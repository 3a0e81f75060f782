/// How rendered audio is laid out: frames per second and interleaved channels.
public struct AudioFormat: Hashable, Sendable, CustomStringConvertible {
    /// Frames per second, e.g. 48,000.
    public var sampleRate: Int
    /// Interleaved channels: 1 (mono) or 2 (stereo, left first) for what the synthesizer renders;
    /// a device's format may have more (up to ``maxChannels``), filled through a channel map.
    public var channels: Int

    /// The most channels a format may have.
    public static let maxChannels = 32

    public init(sampleRate: Int = 48_000, channels: Int = 1) {
        precondition(sampleRate > 0 && (1...Self.maxChannels).contains(channels), "unsupported audio format")
        self.sampleRate = sampleRate
        self.channels = channels
    }

    /// The sample rates the CLI offers.
    public static let supportedSampleRates = [44_100, 48_000, 96_000]

    /// The farthest frame position from 0 a time may name: 2^50 frames (about 740 years at
    /// 48 kHz), so that sums of a few positions stay far inside `Int64`.
    public static let maxFrame: Int64 = 1 << 50

    /// The frame at which something `seconds` into the stream starts: `round(seconds * rate)`.
    ///
    /// - Throws: ``FrameRangeError`` when `seconds` is not finite or names a frame past
    ///   ``maxFrame`` either way; never traps.
    @inlinable
    public func frame(at seconds: Double) throws(FrameRangeError) -> Int64 {
        let frame = (seconds * Double(sampleRate)).rounded(.toNearestOrEven)
        // NaN fails the comparison too.
        guard frame.magnitude <= Double(Self.maxFrame) else {
            throw FrameRangeError(seconds: seconds, sampleRate: sampleRate)
        }
        return Int64(frame)
    }

    /// ``frame(at:)`` for a time already checked (a prepared pattern's, an engine command's):
    /// a time past the range saturates at ±``maxFrame`` and NaN is frame 0, so it cannot trap.
    @inlinable
    package func clampedFrame(at seconds: Double) -> Int64 {
        let frame = (seconds * Double(sampleRate)).rounded(.toNearestOrEven)
        guard !frame.isNaN else { return 0 }
        return Int64(min(max(frame, -Double(Self.maxFrame)), Double(Self.maxFrame)))
    }

    public var description: String {
        "\(sampleRate) Hz, \(channels == 1 ? "mono" : channels == 2 ? "stereo" : "\(channels) channels")"
    }
}

/// A time that cannot become a frame position: not finite, or further from 0 than
/// ``AudioFormat/maxFrame`` frames.
public struct FrameRangeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The time, in seconds.
    public var seconds: Double
    /// The sample rate it was converted at.
    public var sampleRate: Int

    public init(seconds: Double, sampleRate: Int) {
        self.seconds = seconds
        self.sampleRate = sampleRate
    }

    /// The longest time that converts, in seconds.
    public var limitSeconds: Double { Double(AudioFormat.maxFrame) / Double(sampleRate) }

    public var description: String {
        "time \(seconds) s cannot be a frame position at \(sampleRate) Hz "
            + "(times must be finite and within ±\(Int(limitSeconds)) s)"
    }
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

/// Decoded audio held in memory: float samples in -1...1, interleaved, at the clip's own rate.
///
/// An AudioCustom event's waveform arrives as a clip; the synthesizer resamples it to the
/// output rate when it plays.
public struct AudioClip: Hashable, Sendable {
    /// Frames per second of `samples`.
    public var sampleRate: Int
    /// Interleaved channels in `samples` (1 or 2).
    public var channels: Int
    /// Interleaved samples, `frameCount * channels` of them.
    public var samples: [Float]

    public init(sampleRate: Int, channels: Int, samples: [Float]) {
        precondition(sampleRate > 0 && channels > 0 && samples.count % channels == 0)
        self.sampleRate = sampleRate
        self.channels = channels
        self.samples = samples
    }

    /// Frames in the clip.
    public var frameCount: Int { samples.count / channels }

    /// Length in seconds.
    public var duration: Double { Double(frameCount) / Double(sampleRate) }
}
