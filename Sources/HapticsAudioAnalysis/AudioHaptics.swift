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

/// What ``AudioHaptics/convert(_:options:writingAHAP:)`` wrote.
public struct AudioHapticsSummary: Sendable {
    /// Onsets found, before the events-per-second budget thinned the transients.
    public var onsets: Int
    /// Seconds of audio analysed.
    public var duration: Double
    /// Transients left out to keep within ``AudioHapticsOptions/maxEventsPerSecond``.
    public var droppedForBudget: Int
    /// Transients written.
    public var transients: Int
    /// Continuous events written.
    public var continuousEvents: Int

    init(onsets: Int, duration: Double, droppedForBudget: Int, transients: Int, continuousEvents: Int) {
        self.onsets = onsets
        self.duration = duration
        self.droppedForBudget = droppedForBudget
        self.transients = transients
        self.continuousEvents = continuousEvents
    }

    /// The same figures for a pattern made whole.
    public init(_ result: AudioHapticsResult) {
        let events = result.pattern.events
        self.init(
            onsets: result.onsets.count, duration: result.duration, droppedForBudget: result.droppedForBudget,
            transients: events.count { $0.type == .hapticTransient },
            continuousEvents: events.count { $0.type == .hapticContinuous })
    }
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

    /// Reads `reader` to its end and writes its pattern as AHAP while it reads: `write` gets the
    /// document's bytes in order, a few at a time. The bytes are those of `AHAP.encode` of the
    /// pattern ``convert(_:options:)`` returns, but memory stays that of the analysis (the
    /// window, and the events of the last continuous sound, at most 20 s) however long the file.
    /// Nothing is written for a file with no samples.
    ///
    /// - Throws: ``AudioDecodeError`` as ``convert(_:options:)`` does, or what `write` throws.
    public static func convert(
        _ reader: AudioFileReader, options: AudioHapticsOptions,
        writingAHAP write: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> AudioHapticsSummary {
        let stream = PatternStream(options: options)
        let summary = try analyze(reader, options: options, through: stream) {
            if stream.encoder.pendingBytes >= 1 << 16 { try stream.drain(write) }
        }
        try stream.drain(write)
        return summary
    }

    /// Reads `reader` to its end and writes its pattern as a Meta/Lofelt clip (`.haptic`) while
    /// it reads, as ``convert(_:options:writingAHAP:)`` does AHAP: the bytes are those of
    /// `HapticClip.encode(HapticClip(pattern:losses:))` of the pattern ``convert(_:options:)``
    /// returns, and `losses` gets what that conversion reports. Memory is the analysis's, the
    /// envelope around the transients not yet placed, and the frequency envelope (16 bytes a
    /// point; it comes after the amplitude in the file).
    ///
    /// - Throws: ``AudioDecodeError`` as ``convert(_:options:)`` does, or what `write` throws.
    public static func convert(
        _ reader: AudioFileReader, options: AudioHapticsOptions, losses: inout [ConversionLoss],
        writingClip write: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> AudioHapticsSummary {
        let stream = PatternStream(options: options)
        let clip = ClipStream(options: options)
        stream.sink = { clip.add($0) }
        let summary = try analyze(reader, options: options, through: stream) {
            if clip.pendingBytes >= 1 << 16 { try clip.drain(write) }
        }
        try clip.drain(write)
        try clip.finish(write)
        losses += clip.losses
        return summary
    }

    /// Reads `reader` to its end and writes its pattern as Android's effect while it reads: the
    /// bytes are those of `AndroidVibration(pattern).json` (`.kotlin` when `kotlin`) of the
    /// pattern ``convert(_:options:)`` returns, and `losses` gets what
    /// `AndroidVibration.losses(of:as:)` reports. The waveform's timings are written as the
    /// analysis makes them; its amplitudes, which follow them, are held to the end (a byte a run).
    /// With transients only, the effect is a composition whose primitives are written as they come.
    ///
    /// - Throws: ``AudioDecodeError`` as ``convert(_:options:)`` does, or what `write` throws.
    public static func convert(
        _ reader: AudioFileReader, options: AudioHapticsOptions, kotlin: Bool, losses: inout [ConversionLoss],
        writingAndroid write: (UnsafeRawBufferPointer) throws -> Void
    ) throws -> AudioHapticsSummary {
        let stream = PatternStream(options: options)
        let android = AndroidVibrationStream(kotlin: kotlin, transientsOnly: options.content == .transientsOnly)
        stream.sink = { android.add($0) }
        let summary = try analyze(reader, options: options, through: stream) {
            if android.pendingBytes >= 1 << 16 { try android.drain(write) }
        }
        android.finish()
        try android.drain(write)
        losses += android.losses
        return summary
    }

    /// Reads `reader` to its end and hands `body` the pattern's elements while it reads, in the
    /// order of the pattern ``convert(_:options:)`` returns (time order), each as soon as nothing
    /// the analysis can still make may come before it, as the streamed AHAP writer gets them: a
    /// `PreparedPattern.Builder` makes the pattern ready to play from them with no whole pattern
    /// held (`haptic play song.wav`).
    ///
    /// - Throws: ``AudioDecodeError`` as ``convert(_:options:)`` does.
    public static func convert(
        _ reader: AudioFileReader, options: AudioHapticsOptions, elements body: (PatternElement) -> Void
    ) throws -> AudioHapticsSummary {
        try withoutActuallyEscaping(body) { body in
            let stream = PatternStream(options: options)
            stream.sink = body
            defer { stream.sink = nil }
            return try analyze(reader, options: options, through: stream) {}
        }
    }

    /// The streamed conversions' one loop: reads `reader` to its end through the analysis, whose
    /// elements go to `stream` as soon as they are settled, and calls `afterBlock` after each
    /// block so the caller can hand on what its writer holds.
    private static func analyze(
        _ reader: AudioFileReader, options: AudioHapticsOptions, through stream: PatternStream,
        afterBlock: () throws -> Void
    ) throws -> AudioHapticsSummary {
        if let problem = options.problem { throw AudioDecodeError(file: reader.name, problem) }
        let analyzer = AudioHapticsAnalyzer(sampleRate: reader.sampleRate, options: options)
        analyzer.stream = stream
        let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: blockFrames)
        defer { block.deallocate() }
        while case let n = reader.read(into: block), n > 0 {
            analyzer.process(UnsafeBufferPointer(rebasing: block[0..<n]))
            analyzer.advanceStream()
            try afterBlock()
        }
        guard reader.framesRead > 0 else {
            throw AudioDecodeError(file: reader.name, "no audio: the file holds 0 samples")
        }
        return analyzer.finishStream()
    }
}
