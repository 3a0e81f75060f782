import Foundation
import Testing
import _HapticsTestSupport

@testable import HapticsSynthesis

/// Builds RIFF files chunk by chunk, so tests state exactly which bytes the reader sees.
struct RIFFBuilder {
    var container = "RIFF"
    var chunks: [(id: String, body: [UInt8], declaredSize: UInt32?)] = []

    mutating func chunk(_ id: String, _ body: [UInt8], declaredSize: UInt32? = nil) {
        chunks.append((id, body, declaredSize))
    }

    /// A 16-byte `fmt ` body (or 40-byte EXTENSIBLE body when `subformat` is given).
    static func fmt(
        tag: UInt16, channels: Int, rate: Int, bits: Int, blockAlign: Int? = nil, subformat: UInt16? = nil
    ) -> [UInt8] {
        let align = blockAlign ?? channels * ((bits + 7) / 8)
        var body = le16(Int(tag)) + le16(channels) + le32(UInt32(rate)) + le32(UInt32(rate * align))
        body += le16(align) + le16(bits)
        if let subformat {
            body += le16(22) + le16(bits) + le32(0) + le16(Int(subformat))
            body += [0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        }
        return body
    }

    var bytes: [UInt8] {
        var body = Array("WAVE".utf8)
        for chunk in chunks {
            body += Array(chunk.id.utf8) + le32(chunk.declaredSize ?? UInt32(chunk.body.count)) + chunk.body
            if chunk.body.count % 2 == 1 { body.append(0) }
        }
        return Array(container.utf8) + le32(UInt32(body.count)) + body
    }
}

func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }
func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8(value >> ($0 * 8) & 0xFF) } }
func le64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8(value >> ($0 * 8) & 0xFF) } }

/// A simple WAV file: `fmt ` then `data`.
func wavFile(tag: UInt16 = 1, channels: Int, rate: Int = 48_000, bits: Int, data: [UInt8], subformat: UInt16? = nil)
    -> [UInt8]
{
    var riff = RIFFBuilder()
    riff.chunk("fmt ", RIFFBuilder.fmt(tag: tag, channels: channels, rate: rate, bits: bits, subformat: subformat))
    riff.chunk("data", data)
    return riff.bytes
}

/// The project's WAV fixture (tools/make-fixture-wav): 24-bit stereo 44.1 kHz behind a JUNK chunk.
let kitWAV = TestFiles.fixtures.appending(path: "ahap/AHAP/Kit.wav")

func decodeError(_ bytes: [UInt8]) -> WAVError? {
    do {
        _ = try WAV.decode(bytes)
        return nil
    } catch {
        return error
    }
}

@Suite("WAV reader")
struct WAVDecoderTests {
    @Test("Kit.wav: 24-bit stereo 44.1 kHz behind a JUNK chunk, LIST and id3 chunks after the data")
    func kitFixture() throws {
        let clip = try WAV.decode([UInt8](Data(contentsOf: kitWAV)))
        #expect(clip.sampleRate == 44_100)
        #expect(clip.channels == 2)
        #expect(clip.frameCount == 13_230)  // 0.3 s; the chunks after the data are not audio
        let scale: Float = 8_388_608
        #expect(clip.samples.prefix(6).map { $0 * scale } == [0, 0, 150_519, 200_674, 300_824, 400_962])
        #expect(clip.samples.suffix(4).map { $0 * scale } == [-2_030, -2_706, -1_015, -1_353])
        #expect(clip.samples[93] * scale == 5_770_810)
        #expect(AudioAnalysis.peak(clip.samples) == 5_770_810 / scale)
    }

    static let formatCases: [(name: String, bytes: [UInt8], expected: [Float])] = [
        ("8-bit unsigned", wavFile(channels: 1, bits: 8, data: [0, 128, 255, 64]), [-1, 0, 127 / 128, -0.5]),
        (
            "16-bit", wavFile(channels: 1, bits: 16, data: le16(0x8000) + le16(0) + le16(32_767) + le16(0xC000)),
            [-1, 0, 32_767 / 32_768, -0.5]
        ),
        (
            "24-bit", wavFile(channels: 1, bits: 24, data: [0x00, 0x00, 0x80, 0xFF, 0xFF, 0x7F, 0x00, 0x00, 0x40]),
            [-1, 8_388_607 / 8_388_608, 0.5]
        ),
        (
            "32-bit", wavFile(channels: 1, bits: 32, data: le32(0x8000_0000) + le32(0x4000_0000) + le32(0)),
            [-1, 0.5, 0]
        ),
        (
            "float 32 clamped to -1...1 (infinity too), NaN reads as 0",
            wavFile(
                tag: 3, channels: 1, bits: 32,
                data: le32(Float(0.25).bitPattern) + le32(Float(-1.5).bitPattern) + le32(Float.nan.bitPattern)
                    + le32(Float.infinity.bitPattern)),
            [0.25, -1, 0, 1]
        ),
        (
            "float 64 outside -1...1 (the fuzzer's -6.88) clamped",
            wavFile(tag: 3, channels: 1, bits: 64, data: le64((-6.88).bitPattern) + le64(1.0000001.bitPattern)),
            [-1, 1]
        ),
        (
            "float 64", wavFile(tag: 3, channels: 1, bits: 64, data: le64(0.75.bitPattern) + le64((-0.125).bitPattern)),
            [0.75, -0.125]
        ),
        (
            "EXTENSIBLE 24-bit PCM",
            wavFile(tag: 0xFFFE, channels: 1, bits: 24, data: [0x00, 0x00, 0xC0], subformat: 1), [-0.5]
        ),
        (
            "EXTENSIBLE float",
            wavFile(tag: 0xFFFE, channels: 1, bits: 32, data: le32(Float(0.5).bitPattern), subformat: 3), [0.5]
        ),
    ]

    @Test("Every supported encoding decodes to the exact float values", arguments: formatCases)
    func encodings(_ testCase: (name: String, bytes: [UInt8], expected: [Float])) throws {
        let clip = try WAV.decode(testCase.bytes)
        #expect(clip.samples == testCase.expected, "\(testCase.name)")
        #expect(clip.channels == 1)
        #expect(clip.sampleRate == 48_000)
    }

    @Test("Chunks in any order; odd-sized unknown chunks with their pad byte are skipped")
    func chunkOrder() throws {
        var riff = RIFFBuilder()
        riff.chunk("data", le16(1000) + le16(-2000 & 0xFFFF))
        riff.chunk("LIST", Array("INFOISFT\u{5}\0\0\0abcd\0".utf8))  // 17 bytes: odd, padded
        riff.chunk("junk", [1, 2, 3])
        riff.chunk("fmt ", RIFFBuilder.fmt(tag: 1, channels: 2, rate: 44_100, bits: 16))
        let clip = try WAV.decode(riff.bytes)
        #expect(clip.sampleRate == 44_100)
        #expect(clip.channels == 2)
        #expect(clip.samples == [1000 / 32_768, -2000 / 32_768])
    }

    @Test("RF64: a ds64 chunk carries the data size")
    func rf64() throws {
        var riff = RIFFBuilder()
        riff.container = "RF64"
        riff.chunk("ds64", le64(0) + le64(4) + le64(2) + le32(0))
        riff.chunk("fmt ", RIFFBuilder.fmt(tag: 1, channels: 1, rate: 96_000, bits: 16))
        riff.chunk("data", le16(16_384) + le16(0x8000) + [0xAA, 0xBB], declaredSize: 0xFFFF_FFFF)
        let clip = try WAV.decode(riff.bytes)
        #expect(clip.sampleRate == 96_000)
        #expect(clip.samples == [0.5, -1])  // 4 bytes per ds64; the 2 bytes after are not samples
    }

    @Test("A streamed file's unknown data size (0xFFFFFFFF) runs to the end; a partial last frame is dropped")
    func streamedSize() throws {
        var riff = RIFFBuilder()
        riff.chunk("fmt ", RIFFBuilder.fmt(tag: 1, channels: 2, rate: 48_000, bits: 16))
        riff.chunk("data", le16(8192) + le16(16_384) + le16(1), declaredSize: 0xFFFF_FFFF)
        let clip = try WAV.decode(riff.bytes)
        #expect(clip.frameCount == 1)
        #expect(clip.samples == [0.25, 0.5])
    }

    @Test("More than two channels are mixed down to mono")
    func mixdown() throws {
        let data = le16(3000) + le16(6000) + le16(-3000 & 0xFFFF) + le16(300) + le16(300) + le16(300)
        let clip = try WAV.decode(wavFile(channels: 3, bits: 16, data: data))
        #expect(clip.channels == 1)
        #expect(clip.frameCount == 2)
        #expect(clip.samples.map { ($0 * 32_768).rounded() } == [2000, 300])
    }

    static let errorCases: [(name: String, bytes: [UInt8], code: WAVError.Code, description: String)] = [
        ("empty", [], .notWAV, "not a WAV file: 0 bytes, too short for a RIFF header (at byte 0)"),
        (
            "an MP3", Array("ID3\u{3}\0\0\0\0\0\0\0\0\0\0".utf8), .notWAV,
            "not a WAV file: expected \"RIFF\" or \"RF64\", found bytes 49 44 33 03 (at byte 0)"
        ),
        (
            "an AVI", Array("RIFF\u{4}\0\0\0AVI ".utf8), .notWAV,
            "not a WAV file: a RIFF file of form \"AVI \", expected \"WAVE\" (at byte 8)"
        ),
        (
            "a cut header", Array("RIFF\u{4}\0\0\0WA".utf8), .truncated,
            "truncated WAV file: 10 bytes, a RIFF header needs 12 (at byte 10)"
        ),
        (
            "zero channels", wavFile(channels: 0, bits: 16, data: []), .malformed,
            "fmt chunk declares 0 channels (at byte 22)"
        ),
        (
            "zero sample rate", wavFile(channels: 1, rate: 0, bits: 16, data: []), .unsupported,
            "unsupported sample rate 0 Hz (supported: 1000...768000) (at byte 24)"
        ),
        (
            "ADPCM", wavFile(tag: 2, channels: 1, bits: 4, data: [0, 0]), .unsupported,
            "unsupported encoding 0x0002 (Microsoft ADPCM); convert it to PCM or float first "
                + "(e.g. `sox in.wav -e signed-integer -b 16 out.wav`) (at byte 20)"
        ),
        (
            "12-bit float", wavFile(tag: 3, channels: 1, bits: 12, data: [0, 0]), .unsupported,
            "unsupported sample size: 12-bit IEEE float (at byte 34)"
        ),
        (
            "EXTENSIBLE with a foreign GUID",
            {
                var bytes = wavFile(tag: 0xFFFE, channels: 1, bits: 16, data: [0, 0], subformat: 1)
                bytes[20 + 26] = 0x99
                return bytes
            }(),
            .unsupported,
            "unsupported WAVE_FORMAT_EXTENSIBLE subformat: the GUID is neither PCM nor IEEE float (at byte 44)"
        ),
        (
            "a lying data size",
            {
                var riff = RIFFBuilder()
                riff.chunk("fmt ", RIFFBuilder.fmt(tag: 1, channels: 2, rate: 48_000, bits: 16))
                riff.chunk("data", [1, 2, 3, 4], declaredSize: 0xFFFF_FFF0)
                return riff.bytes
            }(),
            .truncated, "truncated WAV file: chunk \"data\" declares 4294967280 bytes but only 4 remain (at byte 36)"
        ),
        (
            "a short fmt chunk",
            {
                var riff = RIFFBuilder(); riff.chunk("fmt ", [1, 0, 1, 0, 0x80, 0xBB, 0, 0]); return riff.bytes
            }(),
            .malformed, "fmt chunk is 8 bytes, at least 16 are needed (at byte 12)"
        ),
        (
            "block align that disagrees",
            {
                var riff = RIFFBuilder()
                riff.chunk("fmt ", RIFFBuilder.fmt(tag: 1, channels: 2, rate: 48_000, bits: 16, blockAlign: 2))
                riff.chunk("data", [0, 0])
                return riff.bytes
            }(),
            .malformed, "fmt chunk: block align 2 does not match 2 channel(s) of 16-bit samples (at byte 32)"
        ),
        (
            "no data chunk",
            {
                var riff = RIFFBuilder()
                riff.chunk("fmt ", RIFFBuilder.fmt(tag: 1, channels: 1, rate: 48_000, bits: 16))
                return riff.bytes
            }(),
            .missingChunk, "WAV file has no \"data\" chunk (at byte 36)"
        ),
        (
            "no fmt chunk",
            {
                var riff = RIFFBuilder(); riff.chunk("data", [0, 0]); return riff.bytes
            }(),
            .missingChunk, "WAV file has no \"fmt \" chunk describing its samples (at byte 22)"
        ),
        (
            "a cut chunk header", Array("RIFF\u{10}\0\0\0WAVEfmt ".utf8), .truncated,
            "truncated WAV file: 4 bytes left where a chunk header (8 bytes) starts (at byte 12)"
        ),
    ]

    @Test("Broken input is a WAVError saying what and where", arguments: errorCases)
    func errors(_ testCase: (name: String, bytes: [UInt8], code: WAVError.Code, description: String)) {
        let error = decodeError(testCase.bytes)
        #expect(error?.code == testCase.code, "\(testCase.name)")
        #expect(error?.description == testCase.description, "\(testCase.name)")
    }

    @Test("Every truncation and many corruptions of a real file either decode or throw, never trap")
    func robustness() throws {
        let drums = try [UInt8](Data(contentsOf: kitWAV))
        let original = Array(drums.prefix(200))
        var decoded = 0
        for length in 0...original.count {
            if (try? WAV.decode(Array(original.prefix(length)))) != nil { decoded += 1 }
        }
        // The data chunk claims ~1.1 MB, so every prefix is a truncated file.
        #expect(decoded == 0)
        // Deterministic pseudo-random byte corruption of the header region.
        var generator = SplitMix64(seed: 0x5EED)
        for _ in 0..<3000 {
            var bytes = original
            for _ in 0..<Int.random(in: 1...4, using: &generator) {
                bytes[Int.random(in: 0..<88, using: &generator)] = UInt8.random(in: 0...255, using: &generator)
            }
            if let clip = try? WAV.decode(bytes) {
                #expect(clip.samples.count <= bytes.count)
            }
        }
    }
}
