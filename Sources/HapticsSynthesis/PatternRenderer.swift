public import HapticsCore

/// Offline rendering of one pattern from its start (or an offset into it), for `haptic render`,
/// the studio's waveform and tests.
///
/// ```swift
/// var renderer = PatternRenderer(pattern: pattern, format: AudioFormat(sampleRate: 48_000))
/// var block = [Float](repeating: 0, count: 4_096)
/// while case let n = block.withUnsafeMutableBufferPointer({ renderer.render(into: $0) }), n > 0 {
///     write(block[..<(n * renderer.format.channels)])
/// }
/// ```
public struct PatternRenderer: ~Copyable {
    /// Output layout.
    public let format: AudioFormat
    /// Frames in the whole render, release tails included (known up front for the WAV header).
    public let frameCount: Int64
    var synthesizer: Synthesizer

    /// Prepares `pattern` and starts it at frame 0 on layer 0, `offset` seconds into it: the first
    /// frame is the pattern's at `offset`, the events under way there join in progress and the
    /// controls stand as they do there (so a stretch of a long pattern renders without what comes
    /// before it, as the studio draws a zoomed view).
    ///
    /// - Precondition: `offset` is not negative.
    /// - Throws: ``FrameRangeError`` when a time in the pattern, or `offset`, cannot be a frame position.
    public init(
        pattern: HapticPattern, format: AudioFormat, voicing: VoicingProfile = .standard,
        clips: [String: AudioClip] = [:], offset: Double = 0
    ) throws(FrameRangeError) {
        precondition(!(offset < 0), "PatternRenderer: a negative offset (\(offset) s)")
        self.format = format
        let prepared = try Synthesizer.prepare(pattern, clips: clips, format: format, voicing: voicing)
        frameCount = max(0, prepared.frameCount - (try format.frame(at: offset)))
        synthesizer = Synthesizer(format: format, voicing: voicing)
        synthesizer.start(prepared, layer: 0, atFrame: 0, offset: offset)
    }

    /// The frames still to render.
    public var remainingFrames: Int64 { frameCount - synthesizer.currentFrame }

    /// What ``renderBlock(into:)`` wrote: `frames` frames from the buffer's start, of which only
    /// those in `sounding` may be non-zero; the others are exact silence (+0).
    public struct Block: Hashable, Sendable {
        public var frames: Int
        public var sounding: Range<Int>
    }

    /// Fills the buffer with the next frames (interleaved); returns the frames written, 0 at the end.
    ///
    /// - Complexity: O(frames × sounding voices).
    public mutating func render(into buffer: UnsafeMutableBufferPointer<Float>) -> Int {
        renderBlock(into: buffer).frames
    }

    /// ``render(into:)``, also saying which of the frames may be non-zero (the WAV writer encodes
    /// only those, and writes the silence around them from a block of zeros). With
    /// `writingSilence: false` the frames outside `sounding` are left as they were
    /// (``Synthesizer/renderSounding(into:writingSilence:)``).
    public mutating func renderBlock(
        into buffer: UnsafeMutableBufferPointer<Float>, writingSilence: Bool = true
    ) -> Block {
        let frames = Int(min(Int64(buffer.count / format.channels), remainingFrames))
        guard frames > 0 else { return Block(frames: 0, sounding: 0..<0) }
        let sounding = synthesizer.renderSounding(
            into: UnsafeMutableBufferPointer(rebasing: buffer[..<(frames * format.channels)]),
            writingSilence: writingSilence)
        return Block(frames: frames, sounding: sounding)
    }

    /// Renders the whole pattern into one interleaved array of `frameCount * channels` samples.
    public static func render(
        _ pattern: HapticPattern, format: AudioFormat, voicing: VoicingProfile = .standard,
        clips: [String: AudioClip] = [:]
    ) throws(FrameRangeError) -> [Float] {
        var renderer = try PatternRenderer(pattern: pattern, format: format, voicing: voicing, clips: clips)
        let count = Int(renderer.frameCount) * format.channels
        return [Float](unsafeUninitializedCapacity: count) { buffer, initialized in
            buffer.initialize(repeating: 0)
            _ = renderer.render(into: buffer)
            initialized = count
        }
    }

    /// The last frame any event of `pattern` sounds, started at frame 0, plus one.
    static func length(of pattern: PreparedPattern.Storage, format: AudioFormat, voicing: VoicingProfile) -> Int64 {
        var layer = Layer()
        layer.inUse = true
        layer.pattern = pattern
        var end: Int64 = 0
        for event in pattern.events {
            let onset = format.clampedFrame(at: event.time)
            var durationFrames: Int?
            if let d = event.duration {
                durationFrames = Int(max(0, format.clampedFrame(at: event.time + d) - onset))
                end = max(end, onset + Int64(durationFrames!))
            }
            let clip = event.clip >= 0 ? pattern.clips[event.clip] : nil
            layer.startingEventTime = event.time
            let plan = VoicePlan(
                event: event, durationFrames: durationFrames, clip: clip,
                control: { layer.control($0, at: onset, rate: format.sampleRate, overrides: nil) },
                format: format, voicing: voicing)
            if event.type != .audioCustom || clip != nil { end = max(end, onset + Int64(plan.totalFrames)) }
        }
        return end
    }
}
