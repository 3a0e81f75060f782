import Foundation
import HapticsCore
import HapticsSynthesis
import HapticsTesting
import Testing

@testable import HapticsEngine

/// `LivePlayback(pieces:)`, what `haptic play song.wav` plays: pieces made on another thread,
/// each started on a player of its own as if with the first, land on the whole pattern's frames.
@Suite struct PiecePlaybackTests {
    static let format = AudioFormat(sampleRate: 48_000, channels: 1)

    /// Transients at 0.5, 1.5, 2.5 and 3.5 s, in 1 s windows: four pieces, handed over by a
    /// thread of their own through a queue of one.
    static func queue() -> PieceQueue {
        let queue = PieceQueue(capacity: 1)
        Thread {
            let pieces = PreparedPattern.Pieces(seconds: 1, format: format, voicing: .standard)
            for time in [0.5, 1.5, 2.5, 3.5] {
                let tap = HapticEvent(
                    time: time, type: .hapticTransient,
                    parameters: [.init(.hapticIntensity, 1), .init(.hapticSharpness, 0.5)])
                for piece in try! pieces.add(.event(tap)) { _ = queue.put(piece) }
            }
            for piece in try! pieces.finish() { _ = queue.put(piece) }
            queue.end()
        }.start()
        return queue
    }

    /// The first frame of each tap in `samples` (a rise after 100 ms of silence).
    static func onsets(_ samples: [Float]) -> [Int] {
        var out: [Int] = []
        var quiet = 4_800
        for (i, s) in samples.enumerated() {
            if abs(s) > 1e-4 {
                if quiet >= 4_800 { out.append(i) }
                quiet = 0
            } else {
                quiet += 1
            }
        }
        return out
    }

    @Test func piecesPlayOnTheWholePatternsFramesFromAnOffset() throws {
        // From 2.21 s (off the 128-frame control grid). Onsets land on the same frames whether a
        // piece counts from the first start or from its own window; the grid, which differs, is
        // checked sample for sample by PreparedPiecesTests, not here.
        let output = RecordingOutput(format: Self.format, bufferFrames: 960, playback: .clockless)
        var options = LivePlayback.Options(fromSeconds: 2.21)
        options.maxPatternSeconds = .infinity
        let playback = try LivePlayback(pieces: Self.queue(), output: output, options: options)
        #expect(playback.run() == .finished)
        // The taps before 2.21 s are over and let go; 2.5 and 3.5 s land 0.29 and 1.29 s in.
        let start = 106_080  // 2.21 s
        #expect(Self.onsets(output.samples) == [120_000 - start, 168_000 - start])
    }

    @Test func fromTheStartEveryPiecePlaysOnItsFrame() throws {
        let output = RecordingOutput(format: Self.format, bufferFrames: 960, playback: .clockless)
        var options = LivePlayback.Options()
        options.maxPatternSeconds = .infinity
        let playback = try LivePlayback(pieces: Self.queue(), output: output, options: options)
        #expect(playback.run() == .finished)
        #expect(Self.onsets(output.samples) == [24_000, 72_000, 120_000, 168_000])
    }

    @Test func aLoopOrAnotherRateIsRefused() {
        #expect(throws: HapticEngineError.self) {
            _ = try LivePlayback(pieces: PieceQueue(), output: NullOutput(), options: .init(loop: true))
        }
        #expect(throws: HapticEngineError.self) {
            _ = try LivePlayback(pieces: PieceQueue(), output: NullOutput(), options: .init(rate: 2))
        }
    }
}
