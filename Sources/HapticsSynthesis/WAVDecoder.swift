/// RIFF WAVE audio: decoding whole files to ``AudioClip`` and encoding clips or streams.
///
/// Pure byte-in, byte-out code: the caller reads and writes files.
///
/// Reading accepts:
/// - `RIFF`/`WAVE`, and `RF64`/`BW64` with a `ds64` chunk (files over 4 GiB);
/// - chunks in any order, odd-sized chunks with their pad byte, unknown chunks skipped
///   (`JUNK`, `LIST`, `bext`, `cue `, ...), bytes after the last chunk ignored;
/// - `WAVE_FORMAT_PCM` with 8-bit unsigned or 16-, 24-, 32-bit signed samples (containers of
///   other widths up to 32 bits are read by their container), `WAVE_FORMAT_IEEE_FLOAT` 32/64-bit,
///   and `WAVE_FORMAT_EXTENSIBLE` carrying either;
/// - any sample rate from 1 kHz to 768 kHz;
/// - 1 or 2 channels as they are; more channels are mixed down to mono (the mean of all
///   channels), because haptic audio is played as one signal.
///
/// A `data` chunk whose size field is `0xFFFFFFFF` without an RF64 `ds64` (how streaming writers
/// mark an unknown length) runs to the end of the input. A trailing partial frame is dropped.
/// Float samples outside -1...1 are clamped to it (infinity too); NaN decodes as 0, so nothing
/// a file holds can poison a mix.
public enum WAV {
    /// Decodes a complete WAV file into interleaved float samples in -1...1.
    ///
    /// ```swift
    /// let clip = try WAV.decode(Array(try Data(contentsOf: url)))
    /// print(clip.sampleRate, clip.channels, clip.duration)
    /// ```
    ///
    /// Never traps and never allocates more than the input can fill: every size in the header is
    /// checked against the bytes actually present.
    ///
    /// - Throws: ``WAVError`` naming the problem and its byte offset for anything that is not a
    ///   decodable WAV file (not RIFF, truncated, zero channels, unsupported encoding, ...).
    /// - Complexity: O(*n*) in the size of the input.
    public static func decode(_ bytes: [UInt8]) throws(WAVError) -> AudioClip {
        // Array.withUnsafeBytes rethrows untyped errors: carry the typed one out in a Result.
        let result = bytes.withUnsafeBytes { raw in Result { () throws(WAVError) in try decode(raw) } }
        return try result.get()
    }

    /// Decodes a complete WAV file held in raw memory; see ``decode(_:)-([UInt8])``.
    ///
    /// - Complexity: O(*n*) in the size of the input.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(WAVError) -> AudioClip {
        let layout = try WAVLayout.parse(bytes)
        return layout.decodeSamples(bytes)
    }
}

/// A WAV file's samples read a block at a time, so a long file (a memory-mapped one, say) is
/// converted without a float copy of the whole: the header is checked as ``WAV/decode(_:)-([UInt8])``
/// checks it, then ``read(_:frames:into:)`` converts any range of frames.
///
/// ```swift
/// let reader = try WAVBlockReader(mapped)            // the whole file's bytes
/// var block = [Float](repeating: 0, count: 4_096 * reader.channels)
/// block.withUnsafeMutableBufferPointer { reader.read(mapped, frames: 0..<4_096, into: $0.baseAddress!) }
/// ```
///
/// Unlike `decode`, channels are kept as stored (any count): the caller mixes them.
public struct WAVBlockReader: Hashable, Sendable {
    let layout: WAVLayout
    /// Frames per second.
    public var sampleRate: Int { layout.sampleRate }
    /// Channels as stored in the file, interleaved in what ``read(_:frames:into:)`` writes.
    public var channels: Int { layout.channels }
    /// Whole frames in the `data` chunk.
    public var frameCount: Int { layout.frameCount }
    /// Byte offset of the first sample in the file.
    public var dataOffset: Int { layout.dataOffset }
    /// Bytes per frame in the file.
    public var bytesPerFrame: Int { layout.channels * layout.encoding.bytesPerSample }

    /// Parses the header of the complete file `bytes`.
    ///
    /// - Throws: ``WAVError``, exactly as ``WAV/decode(_:)-(UnsafeRawBufferPointer)`` would.
    public init(_ bytes: UnsafeRawBufferPointer) throws(WAVError) {
        layout = try WAVLayout.parse(bytes)
    }

    /// Converts frames `frames` (clamped to ``frameCount``) of the file `bytes` (the same bytes
    /// the reader was made from) to interleaved floats in -1...1 at `out`; returns the frames written.
    ///
    /// - Complexity: O(frames × channels), no allocation.
    @discardableResult
    public func read(_ bytes: UnsafeRawBufferPointer, frames: Range<Int>, into out: UnsafeMutablePointer<Float>) -> Int
    {
        let lower = max(0, min(frames.lowerBound, frameCount))
        let upper = max(lower, min(frames.upperBound, frameCount))
        let count = (upper - lower) * channels
        let start = dataOffset + lower * bytesPerFrame
        guard count > 0, start + count * layout.encoding.bytesPerSample <= bytes.count else { return 0 }
        WAVLayout.convert(
            UnsafeRawBufferPointer(rebasing: bytes[start..<(start + count * layout.encoding.bytesPerSample)]),
            layout.encoding, into: out, count: count)
        return upper - lower
    }
}

extension WAVBlockReader {
    /// Converts the whole frames of `data`, sample bytes as the file stores them (read from
    /// ``dataOffset`` plus a whole number of frames), to interleaved floats in -1...1 at `out`;
    /// returns the frames written (a trailing partial frame is left).
    ///
    /// - Complexity: O(frames × channels), no allocation.
    public func convert(_ data: UnsafeRawBufferPointer, into out: UnsafeMutablePointer<Float>) -> Int {
        let frames = data.count / bytesPerFrame
        guard frames > 0 else { return 0 }
        WAVLayout.convert(
            UnsafeRawBufferPointer(rebasing: data[0..<(frames * bytesPerFrame)]), layout.encoding, into: out,
            count: frames * channels)
        return frames
    }
}

/// How the samples of a `data` chunk are stored.
enum WAVSampleEncoding: Hashable, Sendable {
    case unsigned8, signed16, signed24, signed32, float32, float64

    var bytesPerSample: Int {
        switch self {
        case .unsigned8: 1
        case .signed16: 2
        case .signed24: 3
        case .signed32, .float32: 4
        case .float64: 8
        }
    }
}

/// The parsed header of a WAV file: where the samples are and how to read them.
struct WAVLayout: Hashable, Sendable {
    var encoding: WAVSampleEncoding
    var channels: Int
    var sampleRate: Int
    /// Byte offset of the first sample.
    var dataOffset: Int
    /// Whole frames available in the data chunk.
    var frameCount: Int

    static let formatPCM: UInt16 = 0x0001
    static let formatFloat: UInt16 = 0x0003
    static let formatExtensible: UInt16 = 0xFFFE
    /// Bytes 2..<16 of the KSDATAFORMAT_SUBTYPE_PCM / _IEEE_FLOAT GUIDs, as stored in a file
    /// (the first two bytes are the format tag).
    /// GUID {0000XXXX-0000-0010-8000-00AA00389B71}: Data1's high half, Data2, Data3 little-endian,
    /// then Data4's eight bytes.
    static let subformatGUIDTail: [UInt8] = [
        0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0x80, 0x00, 0x00, 0xAA, 0x00, 0x38, 0x9B, 0x71,
    ]
    static let sampleRates = 1_000...768_000

    static func parse(_ raw: UnsafeRawBufferPointer) throws(WAVError) -> WAVLayout {
        let count = raw.count
        guard count >= 12 else {
            if count >= 4, let id = fourCC(raw, 0), ["RIFF", "RF64", "BW64"].contains(id) {
                throw WAVError(
                    .truncated, "truncated WAV file: \(count) bytes, a RIFF header needs 12", at: count)
            }
            throw WAVError(.notWAV, "not a WAV file: \(count) bytes, too short for a RIFF header", at: 0)
        }
        let container = fourCC(raw, 0)
        guard let container, ["RIFF", "RF64", "BW64"].contains(container) else {
            throw WAVError(
                .notWAV, "not a WAV file: expected \"RIFF\" or \"RF64\", found \(quoted(raw, 0))", at: 0)
        }
        guard fourCC(raw, 8) == "WAVE" else {
            throw WAVError(
                .notWAV, "not a WAV file: a \(container) file of form \(quoted(raw, 8)), expected \"WAVE\"",
                at: 8)
        }
        let isRF64 = container != "RIFF"

        var format: (encoding: WAVSampleEncoding, channels: Int, sampleRate: Int, blockAlign: Int)?
        var data: (offset: Int, size: Int, headerOffset: Int)?
        var ds64DataSize: UInt64?
        var offset = 12
        while offset < count, format == nil || data == nil {
            guard count - offset >= 8 else {
                throw WAVError(
                    .truncated,
                    "truncated WAV file: \(count - offset) bytes left where a chunk header (8 bytes) starts",
                    at: offset)
            }
            let id = fourCC(raw, offset) ?? ""
            let declared = UInt64(load(raw, offset + 4, as: UInt32.self))
            let body = offset + 8
            let available = UInt64(count - body)
            var size = declared
            if id == "data", declared == 0xFFFF_FFFF {
                size = isRF64 ? (ds64DataSize ?? available) : available
            }
            guard size <= available else {
                let name = id.isEmpty ? quoted(raw, offset) : "\"\(id)\""
                if id == "data" || format == nil || data == nil {
                    throw WAVError(
                        .truncated,
                        "truncated WAV file: chunk \(name) declares \(size) bytes but only \(available) remain",
                        at: offset)
                }
                break
            }
            let bodySize = Int(size)
            switch id {
            case "ds64" where isRF64:
                guard bodySize >= 24 else {
                    throw WAVError(.malformed, "ds64 chunk is \(bodySize) bytes, at least 24 are needed", at: offset)
                }
                ds64DataSize = load(raw, body + 8, as: UInt64.self)
            case "fmt " where format == nil:
                format = try parseFormat(raw, at: body, size: bodySize)
            case "data" where data == nil:
                data = (body, bodySize, offset)
            default:
                break
            }
            // Chunks are word-aligned: an odd-sized body is followed by a pad byte (absent at EOF).
            offset = body + bodySize + (bodySize & 1)
        }
        guard let format else {
            throw WAVError(.missingChunk, "WAV file has no \"fmt \" chunk describing its samples", at: count)
        }
        guard let data else {
            throw WAVError(.missingChunk, "WAV file has no \"data\" chunk", at: count)
        }
        return WAVLayout(
            encoding: format.encoding, channels: format.channels, sampleRate: format.sampleRate,
            dataOffset: data.offset, frameCount: data.size / format.blockAlign)
    }

    private static func parseFormat(
        _ raw: UnsafeRawBufferPointer, at body: Int, size: Int
    ) throws(WAVError) -> (encoding: WAVSampleEncoding, channels: Int, sampleRate: Int, blockAlign: Int) {
        guard size >= 16 else {
            throw WAVError(.malformed, "fmt chunk is \(size) bytes, at least 16 are needed", at: body - 8)
        }
        var tag = load(raw, body, as: UInt16.self)
        let channels = Int(load(raw, body + 2, as: UInt16.self))
        let sampleRate = Int(load(raw, body + 4, as: UInt32.self))
        let blockAlign = Int(load(raw, body + 12, as: UInt16.self))
        let bits = Int(load(raw, body + 14, as: UInt16.self))
        guard channels > 0 else {
            throw WAVError(.malformed, "fmt chunk declares 0 channels", at: body + 2)
        }
        guard sampleRates.contains(sampleRate) else {
            throw WAVError(
                .unsupported,
                "unsupported sample rate \(sampleRate) Hz (supported: \(sampleRates.lowerBound)...\(sampleRates.upperBound))",
                at: body + 4)
        }
        if tag == formatExtensible {
            guard size >= 40, load(raw, body + 16, as: UInt16.self) >= 22 else {
                throw WAVError(
                    .malformed, "WAVE_FORMAT_EXTENSIBLE fmt chunk is \(size) bytes, 40 are needed", at: body - 8)
            }
            let tail = UnsafeRawBufferPointer(rebasing: raw[(body + 26)..<(body + 40)])
            tag = load(raw, body + 24, as: UInt16.self)
            guard tail.elementsEqual(subformatGUIDTail) else {
                throw WAVError(
                    .unsupported,
                    "unsupported WAVE_FORMAT_EXTENSIBLE subformat: the GUID is neither PCM nor IEEE float",
                    at: body + 24)
            }
        }
        let encoding: WAVSampleEncoding
        switch (tag, bits) {
        case (formatPCM, 1...8): encoding = .unsigned8
        case (formatPCM, 9...16): encoding = .signed16
        case (formatPCM, 17...24): encoding = .signed24
        case (formatPCM, 25...32): encoding = .signed32
        case (formatFloat, 32): encoding = .float32
        case (formatFloat, 64): encoding = .float64
        case (formatPCM, _), (formatFloat, _):
            let kind = tag == formatPCM ? "integer PCM" : "IEEE float"
            throw WAVError(.unsupported, "unsupported sample size: \(bits)-bit \(kind)", at: body + 14)
        default:
            throw WAVError(
                .unsupported,
                "unsupported encoding \(formatName(tag)); convert it to PCM or float first "
                    + "(e.g. `sox in.wav -e signed-integer -b 16 out.wav`)",
                at: body)
        }
        guard blockAlign == channels * encoding.bytesPerSample else {
            throw WAVError(
                .malformed,
                "fmt chunk: block align \(blockAlign) does not match \(channels) channel(s) of \(bits)-bit samples",
                at: body + 12)
        }
        return (encoding, channels, sampleRate, blockAlign)
    }

    private static func formatName(_ tag: UInt16) -> String {
        let hex = String(tag, radix: 16, uppercase: true)
        let code = "0x" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        let names: [UInt16: String] = [
            0x0002: "Microsoft ADPCM", 0x0006: "A-law", 0x0007: "mu-law", 0x0011: "IMA ADPCM",
            0x0031: "GSM 6.10", 0x0050: "MPEG", 0x0055: "MPEG Layer 3", 0x00FF: "AAC",
        ]
        return names[tag].map { "\(code) (\($0))" } ?? "format tag \(code)"
    }

    /// The four bytes at `offset` as text if they are printable ASCII, else nil.
    private static func fourCC(_ raw: UnsafeRawBufferPointer, _ offset: Int) -> String? {
        let bytes = raw[offset..<(offset + 4)]
        guard bytes.allSatisfy({ (0x20...0x7E).contains($0) }) else { return nil }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The four bytes at `offset` for a message: quoted text, or hex when not printable.
    private static func quoted(_ raw: UnsafeRawBufferPointer, _ offset: Int) -> String {
        if let text = fourCC(raw, offset) { return "\"\(text)\"" }
        let end = min(offset + 4, raw.count)
        return "bytes "
            + raw[offset..<end].map { b in
                let hex = String(b, radix: 16, uppercase: true)
                return hex.count == 1 ? "0" + hex : hex
            }.joined(separator: " ")
    }

    @inline(__always)
    private static func load<T: FixedWidthInteger>(_ raw: UnsafeRawBufferPointer, _ offset: Int, as: T.Type) -> T {
        T(littleEndian: raw.loadUnaligned(fromByteOffset: offset, as: T.self))
    }

    /// Converts the data chunk to float samples (mixing down to mono beyond two channels).
    func decodeSamples(_ raw: UnsafeRawBufferPointer) -> AudioClip {
        let sampleCount = frameCount * channels
        let source = UnsafeRawBufferPointer(
            rebasing: raw[dataOffset..<(dataOffset + sampleCount * encoding.bytesPerSample)])
        let interleaved = [Float](unsafeUninitializedCapacity: sampleCount) { buffer, initialized in
            Self.convert(source, encoding, into: buffer.baseAddress!, count: sampleCount)
            initialized = sampleCount
        }
        guard channels > 2 else {
            return AudioClip(sampleRate: sampleRate, channels: channels, samples: interleaved)
        }
        let scale = 1 / Float(channels)
        let mono = [Float](unsafeUninitializedCapacity: frameCount) { buffer, initialized in
            interleaved.withUnsafeBufferPointer { source in
                for frame in 0..<frameCount {
                    var sum: Float = 0
                    for channel in 0..<channels { sum += source[frame * channels + channel] }
                    buffer[frame] = sum * scale
                }
            }
            initialized = frameCount
        }
        return AudioClip(sampleRate: sampleRate, channels: 1, samples: mono)
    }

    /// A float sample limited to -1...1 (what integer formats cannot leave); NaN becomes silence.
    @inline(__always)
    static func clamp(_ value: Float) -> Float {
        value > 1 ? 1 : value < -1 ? -1 : value == value ? value : 0
    }

    static func convert(
        _ source: UnsafeRawBufferPointer, _ encoding: WAVSampleEncoding,
        into out: UnsafeMutablePointer<Float>, count: Int
    ) {
        guard count > 0, let base = source.baseAddress else { return }
        switch encoding {
        case .unsigned8:
            let bytes = base.assumingMemoryBound(to: UInt8.self)
            for i in 0..<count { out[i] = (Float(bytes[i]) - 128) * (1 / 128) }
        case .signed16:
            for i in 0..<count {
                let value = Int16(littleEndian: base.loadUnaligned(fromByteOffset: i &* 2, as: Int16.self))
                out[i] = Float(value) * (1 / 32_768)
            }
        case .signed24:
            let bytes = base.assumingMemoryBound(to: UInt8.self)
            for i in 0..<count {
                let p = bytes + i &* 3
                let unsigned = UInt32(p[0]) | UInt32(p[1]) &<< 8 | UInt32(p[2]) &<< 16
                let value = Int32(bitPattern: unsigned &<< 8) &>> 8
                out[i] = Float(value) * (1 / 8_388_608)
            }
        case .signed32:
            for i in 0..<count {
                let value = Int32(littleEndian: base.loadUnaligned(fromByteOffset: i &* 4, as: Int32.self))
                out[i] = Float(value) * (1 / 2_147_483_648)
            }
        case .float32:
            for i in 0..<count {
                let bits = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: i &* 4, as: UInt32.self))
                let value = Float(bitPattern: bits)
                out[i] = Self.clamp(value)
            }
        case .float64:
            for i in 0..<count {
                let bits = UInt64(littleEndian: base.loadUnaligned(fromByteOffset: i &* 8, as: UInt64.self))
                let value = Float(Double(bitPattern: bits))
                out[i] = Self.clamp(value)
            }
        }
    }
}
