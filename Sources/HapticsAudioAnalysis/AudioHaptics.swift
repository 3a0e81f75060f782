public import HapticsCore

/// What ``AudioHaptics`` made of a sound.
public struct AudioHapticsResult: Sendable {
    /// The pattern: transients at onsets, continuous events with intensity and sharpness curves.
    public var pattern: HapticPattern
    /// Every onset found, in seconds, before the events-per-second budget thinned the transients.
    public var onsets: [Double]
    /// Seconds of audio analysed.
    public var duration: Double
    /// Transients left out to keep within ``AudioHapticsOptions/maxEventsPerSecond``.
    public var droppedForBudget: Int
}

/// Audio to haptics: a sound file in, a Core Haptics pattern out (docs/audio-to-haptics.md).
///
/// ```swift
/// let reader = try AudioFileReader(path: "drums.flac")
/// let result = try AudioHaptics.convert(reader, options: AudioHapticsOptions())
/// print(result.onsets.count, AHAP.encode(result.pattern).count)
/// ```
public enum AudioHaptics {
    /// Frames read per block: memory is this block, the analysis window and the events written.
    public static let blockFrames = 8_192

    /// Reads `reader` to its end and analyses it.
    ///
    /// - Throws: ``AudioDecodeError`` when the file holds no samples or an option is out of range.
    public static func convert(
        _ reader: AudioFileReader, options: AudioHapticsOptions
    ) throws(AudioDecodeError) -> AudioHapticsResult {
        if let problem = options.problem { throw AudioDecodeError(file: reader.name, problem) }
        let analyzer = AudioHapticsAnalyzer(sampleRate: reader.sampleRate, options: options)
        let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: blockFrames)
        defer { block.deallocate() }
        while case let n = reader.read(into: block), n > 0 {
            analyzer.process(UnsafeBufferPointer(rebasing: block[0..<n]))
        }
        guard reader.framesRead > 0 else {
            throw AudioDecodeError(file: reader.name, "no audio: the file holds 0 samples")
        }
        return analyzer.finish()
    }
}
