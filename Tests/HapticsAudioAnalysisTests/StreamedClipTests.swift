import Foundation
import HapticsCore
import Testing

@testable import HapticsAudioAnalysis

@Suite("Audio to haptics: the streamed .haptic clip")
struct StreamedClipTests {
    @Test(
        "Streamed bytes equal HapticClip.encode of the whole pattern's clip",
        arguments: streamedSettings)
    func sameBytes(name: String, seconds: Double, rate: Int, options: AudioHapticsOptions) throws {
        let bytes = wav(streamMaterial(seconds: seconds, rate: rate), rate: rate)
        let whole = try convert(bytes, options)
        var expectedLosses: [ConversionLoss] = []
        let expected = HapticClip.encode(HapticClip(pattern: whole.pattern, losses: &expectedLosses))
        var got: [UInt8] = []
        var pieces = 0
        var losses: [ConversionLoss] = []
        let summary = try AudioHaptics.convert(
            AudioFileReader(bytes: bytes, name: "test.wav"), options: options, losses: &losses
        ) { chunk in
            got += chunk
            pieces += 1
        }
        if got != expected {
            let at =
                zip(got, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(got.count, expected.count)
            let context = String(decoding: expected[max(0, at - 300)..<min(expected.count, at + 200)], as: UTF8.self)
            let mine = String(decoding: got[max(0, at - 300)..<min(got.count, at + 200)], as: UTF8.self)
            Issue.record(
                "\(name): differs at byte \(at) of \(expected.count) (streamed \(got.count)): ...\(context)\n--- streamed: ...\(mine)"
            )
        }
        #expect(losses == expectedLosses, "\(name)")
        #expect(summary.onsets == whole.onsets.count, "\(name)")
        // Written as it goes, not at the end.
        #expect(pieces > 1 || expected.count < 1 << 16, "\(name): \(pieces) pieces for \(expected.count) bytes")
    }
}
