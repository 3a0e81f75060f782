import HapticsCore
import HapticsSynthesis
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("ClipFeed: a clip read while it plays")
struct ClipFeedTests {
    /// Three seconds of a swept tone with noise at 44.1 kHz (played at 48 kHz: resampled).
    static let source: [Float] = {
        var state: UInt64 = 3
        return (0..<132_300).map { i in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = Float(Int64(bitPattern: state) >> 11) / Float(1 << 52)
            let t = Double(i) / 44_100
            let phase: Double = 2 * Double.pi * (200 + 300 * t) * t
            let tone = Float(0.5 * sin(phase))
            return tone + 0.2 * noise
        }
    }()

    static let pattern = HapticPattern(elements: [
        .event(
            HapticEvent(
                time: 0.05, type: .audioCustom,
                parameters: [.init(.audioVolume, 0.7), .init(.audioPitch, 0.2), .init(.audioBrightness, 0.3)],
                waveformPath: "song.wav")),
        .event(
            HapticEvent(
                time: 1.2, type: .hapticTransient,
                parameters: [.init(.hapticIntensity, 0.8), .init(.hapticSharpness, 0.4)])),
    ])

    /// Renders `pattern` in blocks of `block` frames, calling `feed` before each.
    static func render(_ feeds: [String: ClipFeed], block: Int, before: (Int64) -> Void) throws -> [Float] {
        let format = AudioFormat(sampleRate: 48_000)
        let prepared = try Synthesizer.prepare(
            pattern, clips: [:], feeds: feeds, format: format, voicing: .standard)
        var synthesizer = Synthesizer(format: format, voicing: .standard)
        synthesizer.start(prepared, layer: 0, atFrame: 0)
        var out: [Float] = []
        var buffer = [Float](repeating: 0, count: block)
        while out.count < Int(prepared.frameCount) {
            before(Int64(out.count))
            buffer.withUnsafeMutableBufferPointer { synthesizer.render(into: $0) }
            out += buffer
        }
        return Array(out.prefix(Int(prepared.frameCount)))
    }

    /// Writes the next frames of `source` into `feed` while there is room.
    static func top(_ feed: ClipFeed, upTo end: Int = source.count) {
        while feed.framesWritten < end, feed.room > 0 {
            let from = feed.framesWritten
            let taken = source[from..<min(end, from + 700)].withUnsafeBufferPointer { feed.write($0) }
            if taken == 0 { break }
        }
    }

    @Test("A ring much smaller than the clip plays the same samples as the whole clip in memory")
    func sameSamples() throws {
        let whole = try PatternRenderer.render(
            Self.pattern, format: AudioFormat(sampleRate: 48_000),
            clips: ["song.wav": AudioClip(sampleRate: 44_100, channels: 1, samples: Self.source)])
        let feed = ClipFeed(sampleRate: 44_100, frames: Self.source.count, capacity: 2_048)
        let fed = try Self.render(["song.wav": feed], block: 256) { _ in Self.top(feed) }
        #expect(fed.count == whole.count)
        let differing = zip(fed, whole).enumerated().first { $0.element.0 != $0.element.1 }
        #expect(differing == nil, "first difference at frame \(differing?.offset ?? -1) of \(whole.count)")
        #expect(whole.contains { abs($0) > 0.1 })
        // All of it went through a ring of 2,048 frames: the writer was held back, never overran.
        #expect(feed.framesWritten == Self.source.count)
    }

    @Test("Frames the writer has not given yet play as silence, not a wait")
    func underrun() throws {
        let feed = ClipFeed(sampleRate: 44_100, frames: Self.source.count, capacity: 4_096)
        // The writer stops after one second of the clip.
        let fed = try Self.render(["song.wav": feed], block: 256) { _ in Self.top(feed, upTo: 44_100) }
        let second = 48_000
        #expect(fed[second / 2..<second].contains { abs($0) > 0.1 })
        // From 0.2 s after the clip ran out (it starts at 0.05 s) only the transient at 1.2 s sounds.
        let quiet = fed[Int(1.3 * Double(second))..<Int(2.5 * Double(second))]
        #expect(quiet.allSatisfy { abs($0) < 1e-3 }, "\(quiet.map { abs($0) }.max() ?? 0)")
        #expect(feed.framesWritten == 44_100)
    }
}
