import HapticsCore
import Testing
import _HapticsTestSupport

@testable import HapticsAudioAnalysis
@testable import HapticsSynthesis

@Suite("Audio to haptics: prepared in pieces while it plays")
struct PreparedPiecesTests {
    /// Renders `pieces` as `haptic play song.wav` plays them: each on a layer of its own, the
    /// pieces under way at `offset` started with the first frame at `offset`, each later one on
    /// the frame its window starts, as if started with the first.
    static func render(
        _ pieces: [PreparedPattern.Pieces.Piece], format: AudioFormat, offset: Double, frames: Int
    ) -> [Float] {
        render(format: format, frames: frames) { synthesizer in
            for (layer, piece) in pieces.enumerated() {
                let end = Double(piece.pattern.frameCount) / Double(format.sampleRate)
                if piece.start <= offset {
                    if end > offset { synthesizer.start(piece.pattern, layer: layer, atFrame: 0, offset: offset) }
                } else {
                    let frame = format.clampedFrame(at: piece.start - offset)
                    synthesizer.start(piece.pattern, layer: layer, atFrame: frame, asIfStartedAt: 0, offset: offset)
                }
            }
        }
    }

    /// Renders what `start` starts, in blocks of an odd size (boundaries fall anywhere).
    static func render(format: AudioFormat, frames: Int, _ start: (inout Synthesizer) -> Void) -> [Float] {
        var synthesizer = Synthesizer(format: format, voicing: .standard)
        start(&synthesizer)
        let channels = format.channels
        var out = [Float](repeating: 0, count: frames * channels)
        var done = 0
        while done < frames {
            let n = min(1_001, frames - done)
            out.withUnsafeMutableBufferPointer {
                synthesizer.render(
                    into: UnsafeMutableBufferPointer(rebasing: $0[(done * channels)..<((done + n) * channels)]))
            }
            done += n
        }
        return out
    }

    @Test(
        "The pieces, each on a player of its own, play the whole pattern's samples",
        arguments: streamedSettings)
    func sameSamples(name: String, seconds: Double, rate: Int, options: AudioHapticsOptions) throws {
        let (options, bytes, clips) = playedSetting(seconds: seconds, rate: rate, options: options)
        let format = AudioFormat(sampleRate: 48_000, channels: 2)
        let builder = PreparedPattern.Builder()
        let maker = PreparedPattern.Pieces(seconds: 20, format: format, voicing: .standard, clips: clips)
        var pieces: [PreparedPattern.Pieces.Piece] = []
        var latest = 0.0
        _ = try AudioHaptics.convert(AudioFileReader(bytes: bytes, name: "test.wav"), options: options) { element in
            builder.add(element)
            latest = element.time
            let made = try! maker.add(element)
            // A piece is handed out once its voices are over, and a window's worth after its start.
            for piece in made where !piece.isSound {
                #expect(Double(piece.pattern.frameCount) / 48_000 <= latest, "\(name)")
            }
            pieces += made
        }
        pieces += try maker.finish()
        let whole = try builder.finish(format: format, voicing: .standard, clips: clips)

        // The sound first, then the windows in order, each holding only its own events.
        #expect(pieces.first?.isSound == true, "\(name)")
        #expect(pieces.dropFirst().allSatisfy { !$0.isSound }, "\(name)")
        let haptic = pieces.filter { !$0.isSound }
        #expect(zip(haptic, haptic.dropFirst()).allSatisfy { $0.start < $1.start }, "\(name)")
        for piece in haptic {
            let times = piece.pattern.storage.events.map(\.time)
            #expect(times.allSatisfy { $0 >= piece.start && $0 < piece.start + 20 }, "\(name) at \(piece.start)")
        }
        #expect(pieces.map(\.pattern.eventCount).reduce(0, +) == whole.eventCount, "\(name)")
        #expect(haptic.count >= Int(seconds / 20) - 1, "\(name): \(haptic.count) pieces")

        // From the start, and from inside a continuous event and its curves (`--from`).
        for offset in [0, seconds * 0.55 + 0.0123] {
            let frames = Int(whole.frameCount) - Int(offset * 48_000)
            let expected = Self.render(format: format, frames: frames) {
                $0.start(whole, layer: 0, atFrame: 0, offset: offset)
            }
            let got = Self.render(pieces, format: format, offset: offset, frames: frames)
            let at = expected.indices.first { expected[$0].bitPattern != got[$0].bitPattern }
            #expect(at == nil, "\(name), from \(offset) s: differs at \(Double((at ?? 0) / 2) / 48_000 + offset) s")
        }
    }
}
