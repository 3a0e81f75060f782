import Foundation
import Testing
import _HapticsTestSupport

@testable import HapticsSynthesis

@Suite("WAV writer")
struct WAVEncoderTests {
    @Test("s16: the classic 44-byte PCM header, byte for byte")
    func headerS16() {
        let header = WAVHeader.bytes(
            format: AudioFormat(sampleRate: 48_000, channels: 1), sampleFormat: .s16, frameCount: 3)
        let expected: [UInt8] = [
            0x52, 0x49, 0x46, 0x46, 0x2A, 0x00, 0x00, 0x00,  // "RIFF", 42 = 36 + 6 data bytes
            0x57, 0x41, 0x56, 0x45,  // "WAVE"
            0x66, 0x6D, 0x74, 0x20, 0x10, 0x00, 0x00, 0x00,  // "fmt ", 16
            0x01, 0x00, 0x01, 0x00,  // WAVE_FORMAT_PCM, 1 channel
            0x80, 0xBB, 0x00, 0x00,  // 48000 Hz
            0x00, 0x77, 0x01, 0x00,  // 96000 bytes/s
            0x02, 0x00, 0x10, 0x00,  // block align 2, 16 bits
            0x64, 0x61, 0x74, 0x61, 0x06, 0x00, 0x00, 0x00,  // "data", 6
        ]
        #expect(header == expected)
    }

    @Test("s24: the same classic PCM header with 24-bit samples")
    func headerS24() {
        let header = WAVHeader(format: AudioFormat(sampleRate: 44_100, channels: 2), sampleFormat: .s24, frameCount: 2)
        let expected: [UInt8] =
            Array("RIFF".utf8) + [48, 0, 0, 0] + Array("WAVEfmt ".utf8) + [16, 0, 0, 0]
            + [1, 0, 2, 0, 0x44, 0xAC, 0, 0, 0x98, 0x09, 0x04, 0]  // PCM, 2 ch, 44100 Hz, 264600 B/s
            + [6, 0, 24, 0]  // block align 6, 24 bits
            + Array("data".utf8) + [12, 0, 0, 0]
        #expect(header.bytes == expected)
        #expect(header.trailer == [])
        #expect(!header.isRF64)
    }

    @Test("f32: WAVE_FORMAT_IEEE_FLOAT with cbSize 0 and the fact chunk holding the frame count")
    func headerF32() {
        let header = WAVHeader.bytes(
            format: AudioFormat(sampleRate: 96_000, channels: 1), sampleFormat: .f32, frameCount: 5)
        let expected: [UInt8] =
            Array("RIFF".utf8) + [70, 0, 0, 0] + Array("WAVEfmt ".utf8) + [18, 0, 0, 0]
            + [3, 0, 1, 0, 0x00, 0x77, 0x01, 0, 0x00, 0xDC, 0x05, 0]  // float, 1 ch, 96000 Hz, 384000 B/s
            + [4, 0, 32, 0, 0, 0]  // block align 4, 32 bits, cbSize 0
            + Array("fact".utf8) + [4, 0, 0, 0, 5, 0, 0, 0]
            + Array("data".utf8) + [20, 0, 0, 0]
        #expect(header == expected)
    }

    @Test("A clip of more than two channels is written WAVE_FORMAT_EXTENSIBLE and reads back mixed to mono")
    func extensibleForManyChannels() throws {
        let clip = AudioClip(sampleRate: 48_000, channels: 4, samples: [0.5, 0.25, -0.25, 0.5, 0, 0, 0, 1])
        let file = WAV.encode(clip, sampleFormat: .f32)
        let expectedFmt: [UInt8] =
            Array("fmt ".utf8) + [40, 0, 0, 0]
            + [0xFE, 0xFF, 4, 0, 0x80, 0xBB, 0, 0, 0x00, 0xB8, 0x0B, 0]  // EXTENSIBLE, 4 ch, 48000 Hz, 768000 B/s
            + [16, 0, 32, 0, 22, 0, 32, 0, 0, 0, 0, 0]  // align 16, 32 bits, cbSize 22, 32 valid, no mask
            + [0x03, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71]
        #expect(Array(file[12..<60]) == expectedFmt)
        #expect(Array(file[60..<72]) == Array("fact".utf8) + [4, 0, 0, 0, 2, 0, 0, 0])
        let decoded = try WAV.decode(file)
        #expect(decoded.channels == 1)
        #expect(decoded.samples == [0.25, 0.25])
    }

    @Test("s24 mono with an odd frame count: RIFF size counts the pad byte, which the trailer supplies")
    func oddDataPadding() throws {
        let header = WAVHeader(format: AudioFormat(sampleRate: 48_000, channels: 1), sampleFormat: .s24, frameCount: 3)
        #expect(header.dataByteCount == 9)
        #expect(header.trailer == [0])
        #expect(Array(header.bytes[4..<8]) == le32(44 - 8 + 10))
        let file = WAV.encode(AudioClip(sampleRate: 48_000, channels: 1, samples: [0.5, -0.5, 0]), sampleFormat: .s24)
        #expect(file.count == 44 + 9 + 1)
        #expect(Array(file.prefix(44)) == header.bytes)
        #expect(try WAV.decode(file).samples == [0.5, -0.5, 0])
    }

    @Test("More than 4 GiB of samples: an RF64 header with a ds64 chunk")
    func rf64Header() throws {
        let frames: Int64 = 6 * 3600 * 96_000  // six hours of 96 kHz stereo f32: 16.6 GB
        let header = WAVHeader(
            format: AudioFormat(sampleRate: 96_000, channels: 2), sampleFormat: .f32, frameCount: frames)
        let bytes = header.bytes
        #expect(header.isRF64)
        #expect(bytes.count == 58 + 36)
        #expect(Array(bytes[0..<16]) == Array("RF64".utf8) + [0xFF, 0xFF, 0xFF, 0xFF] + Array("WAVEds64".utf8))
        #expect(Array(bytes[16..<20]) == le32(28))
        #expect(Array(bytes[20..<28]) == le64(UInt64(94 - 8) + UInt64(frames * 8)))  // RIFF size
        #expect(Array(bytes[28..<36]) == le64(UInt64(frames * 8)))  // data size
        #expect(Array(bytes[36..<44]) == le64(UInt64(frames)))  // sample count
        #expect(Array(bytes.suffix(8)) == Array("data".utf8) + [0xFF, 0xFF, 0xFF, 0xFF])
        // The header plus a few frames reads back through the ds64 sizes, which here claim more
        // bytes than exist: a truncated file, reported as such.
        let error = decodeError(bytes + [UInt8](repeating: 0, count: 16))
        #expect(error?.code == .truncated)
        // A just-fitting classic file is still RIFF.
        let limit = (Int64(UInt32.max) - 36) / 2
        #expect(!WAVHeader(format: AudioFormat(), sampleFormat: .s16, frameCount: limit).isRF64)
        #expect(WAVHeader(format: AudioFormat(), sampleFormat: .s16, frameCount: limit + 1).isRF64)
    }

    static let quantizationCases: [(SampleFormat, [Float], [Int32])] = [
        (
            .s16, [1, -1, 0.5, 0, .nan, 2, -.infinity, 1 / 65_536, 3 / 65_536, 0.6 / 32_768],
            [32_767, -32_768, 16_384, 0, 0, 32_767, -32_768, 0, 2, 1]
        ),
        (
            .s24, [1, -1, 0.5, 0, .nan, 2, -.infinity, 1 / 16_777_216, 3 / 16_777_216, 0.6 / 8_388_608],
            [8_388_607, -8_388_608, 4_194_304, 0, 0, 8_388_607, -8_388_608, 0, 2, 1]
        ),
    ]

    @Test("Rounding is to nearest (ties to even), clamping to -1...1, NaN to 0", arguments: quantizationCases)
    func quantization(_ format: SampleFormat, _ input: [Float], _ codes: [Int32]) {
        var out: [UInt8] = []
        input.withUnsafeBufferPointer {
            WAVEncoder(format: AudioFormat(), sampleFormat: format).encode($0, into: &out)
        }
        let width = format.bytesPerSample
        let decoded = (0..<input.count).map { i in
            var value: Int32 = 0
            for b in 0..<width { value |= Int32(out[i * width + b]) << (8 * b) }
            return (value << (32 - 8 * width)) >> (32 - 8 * width)
        }
        #expect(decoded == codes)
    }

    @Test("f32 is stored bit-exactly (little-endian IEEE), clamped, NaN as 0")
    func floatSamples() {
        var out: [UInt8] = [9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9]
        [Float(0.123456789), -1.5, .nan].withUnsafeBufferPointer {
            WAVEncoder(format: AudioFormat(), sampleFormat: .f32).encode($0, into: &out)
        }
        #expect(out == le32(Float(0.123456789).bitPattern) + le32(Float(-1).bitPattern) + le32(0))
    }

    static let roundTripCases: [(SampleFormat, Int, Int)] = SampleFormat.allCases.flatMap { format in
        [(format, 1, 44_100), (format, 2, 48_000), (format, 2, 96_000)]
    }

    @Test("encode then decode gives the input back within half a quantization step", arguments: roundTripCases)
    func roundTrip(_ sampleFormat: SampleFormat, _ channels: Int, _ rate: Int) throws {
        var generator = SplitMix64(seed: UInt64(rate + channels))
        let samples = (0..<(channels * 1001)).map { _ in Float.random(in: -1...1, using: &generator) }
        let clip = AudioClip(sampleRate: rate, channels: channels, samples: samples)
        let file = WAV.encode(clip, sampleFormat: sampleFormat)
        let header = WAVHeader(
            format: AudioFormat(sampleRate: rate, channels: channels), sampleFormat: sampleFormat, frameCount: 1001)
        #expect(file.count == header.bytes.count + Int(header.dataByteCount) + header.trailer.count)
        let decoded = try WAV.decode(file)
        #expect(decoded.sampleRate == rate)
        #expect(decoded.channels == channels)
        let step: Float =
            switch sampleFormat {
            case .s16: 1 / 32_768
            case .s24: 1 / 8_388_608
            case .f32: 0
            }
        let worst = zip(samples, decoded.samples).map { abs($0 - $1) }.max() ?? .infinity
        #expect(decoded.samples.count == samples.count)
        // +1.0 clips to the top code, one step below; random input never hits it exactly.
        #expect(worst <= step / 2)
    }

    @Test("decode then encode reproduces every 16-bit code exactly")
    func everySixteenBitCode() throws {
        let data = (0..<65_536).flatMap { le16($0) }
        let original = wavFile(channels: 1, bits: 16, data: data)
        let clip = try WAV.decode(original)
        #expect(WAV.encode(clip, sampleFormat: .s16) == original)
    }

    @Test("Kit.wav survives decode + s24 encode with every sample identical")
    func kitLossless() throws {
        let bytes = try [UInt8](Data(contentsOf: kitWAV))
        let clip = try WAV.decode(bytes)
        let encoded = WAV.encode(clip, sampleFormat: .s24)
        // Kit.wav: data chunk body at byte 80, 79_380 bytes; ours follows the 44-byte header.
        #expect(encoded.count == 44 + 79_380)
        #expect(encoded[44...] == bytes[80..<(80 + 79_380)])
    }

    @Test("Streaming blocks through one reused buffer writes the same bytes as a whole-file encode")
    func streamingMatchesWholeFile() {
        let format = AudioFormat(sampleRate: 48_000, channels: 2)
        let samples = (0..<(2 * 10_000)).map { Float(sin(Double($0) * 0.01)) * 0.8 }
        for sampleFormat in SampleFormat.allCases {
            let encoder = WAVEncoder(format: format, sampleFormat: sampleFormat)
            var stream = WAVHeader.bytes(format: format, sampleFormat: sampleFormat, frameCount: 10_000)
            var buffer: [UInt8] = []
            var capacities: Set<Int> = []
            samples.withUnsafeBufferPointer { all in
                for start in stride(from: 0, to: all.count, by: 2 * 512) {
                    let block = UnsafeBufferPointer(rebasing: all[start..<min(start + 2 * 512, all.count)])
                    encoder.encode(block, into: &buffer)
                    #expect(buffer.count == block.count * sampleFormat.bytesPerSample)
                    stream += buffer
                    capacities.insert(buffer.capacity)
                }
            }
            #expect(
                stream
                    == WAV.encode(
                        AudioClip(sampleRate: 48_000, channels: 2, samples: samples), sampleFormat: sampleFormat))
            #expect(capacities.count == 1, "the buffer grew once, then was reused")
        }
    }

    @Test(
        "Encoding part of a block in place writes the bytes a whole encode writes there",
        arguments: SampleFormat.allCases)
    func partOfABlockInPlace(sampleFormat: SampleFormat) {
        let format = AudioFormat(sampleRate: 48_000, channels: 2)
        let encoder = WAVEncoder(format: format, sampleFormat: sampleFormat)
        let size = sampleFormat.bytesPerSample
        // A signal with clipping, NaN and exact ties (0.5 of a 16-bit step).
        var samples = [Float](repeating: 0, count: 2 * 300)
        for i in samples.indices {
            let wave = Float(sin(Double(i) * 0.3)) * 0.9
            samples[i] = i % 7 == 0 ? 1.5 : (i % 11 == 0 ? Float.nan : (i % 13 == 0 ? 0.5 / 32_768 : wave))
        }
        var whole: [UInt8] = []
        samples.withUnsafeBufferPointer { encoder.encode($0, into: &whole) }
        for part in [0..<0, 0..<600, 0..<1, 599..<600, 17..<18, 2..<598, 301..<404] {
            var bytes = [UInt8](repeating: 0xA5, count: samples.count * size)
            samples.withUnsafeBufferPointer { all in
                bytes.withUnsafeMutableBytes { raw in
                    encoder.encode(
                        UnsafeBufferPointer(rebasing: all[part]),
                        to: UnsafeMutableRawBufferPointer(
                            rebasing: raw[(part.lowerBound * size)..<(part.upperBound * size)]))
                }
            }
            let range = (part.lowerBound * size)..<(part.upperBound * size)
            #expect(bytes[range] == whole[range], "samples \(part)")
            // Nothing outside the part is touched.
            #expect(
                bytes[..<range.lowerBound].allSatisfy { $0 == 0xA5 }
                    && bytes[range.upperBound...].allSatisfy { $0 == 0xA5 })
        }
    }
}
