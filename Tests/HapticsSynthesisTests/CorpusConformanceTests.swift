import Foundation
import HapticsSynthesis
import Testing
import _HapticsTestSupport

/// Third-party audio from the corpus (TestFiles.corpus): Apple's Drums.wav, checked against sox
/// and pyloudnorm. Skipped, saying so, when there is no corpus.
@Suite(.enabled(if: TestFiles.corpus != nil, Comment(rawValue: TestFiles.corpusSkipped)))
struct CorpusWAVConformanceTests {
    static func drums() throws -> [UInt8] {
        try [UInt8](Data(contentsOf: #require(TestFiles.corpus).appending(path: "ahap/apple/AHAP/Drums.wav")))
    }

    @Test("Apple's Drums.wav: 24-bit stereo 44.1 kHz behind a JUNK chunk, metadata chunks after the data")
    func drumsFixture() throws {
        let clip = try WAV.decode(Self.drums())
        #expect(clip.sampleRate == 44_100)
        #expect(clip.channels == 2)
        // sox --i: "Duration: 00:00:04.40 = 194187 samples"
        #expect(clip.frameCount == 194_187)
        let scale: Float = 8_388_608
        #expect(clip.samples.prefix(6).map { $0 * scale } == [0, 0, -21, -41, -41, -61])
        #expect(clip.samples.suffix(4).map { $0 * scale } == [853, 545, 359, 1274])
        // sox stat: "Maximum amplitude: 0.701842"; the peak is sample 142063 = 5887478.
        #expect(clip.samples[142_063] * scale == 5_887_478)
    }

    @Test("Drums.wav loudness agrees with pyloudnorm 0.2.0 (-19.04 LUFS) within 0.1 LU")
    func drumsLoudness() throws {
        let clip = try WAV.decode(Self.drums())
        let lufs = AudioAnalysis.integratedLoudness(
            clip.samples, format: AudioFormat(sampleRate: clip.sampleRate, channels: clip.channels))
        #expect(abs(lufs - -19.04) < 0.1, "\(lufs)")
        // sox stat: "RMS amplitude: 0.070906" -> -22.99 dBFS.
        #expect(abs(AudioAnalysis.rmsDBFS(clip.samples) - -22.986) < 0.001)
    }

    @Test("Drums.wav survives decode + s24 encode with every sample identical")
    func drumsLossless() throws {
        let bytes = try Self.drums()
        let encoded = WAV.encode(try WAV.decode(bytes), sampleFormat: .s24)
        #expect(encoded.count == 44 + 1_165_122)
        #expect(encoded[44...] == bytes[80..<(80 + 1_165_122)])
    }
}
