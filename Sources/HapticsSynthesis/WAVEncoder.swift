import CRenderKernels

/// The bytes that precede (and, for odd-sized data, follow) the samples of a WAV file.
///
/// Lets a writer stream a file of known length without holding it: write ``bytes``, then each
/// block from ``WAVEncoder``, then ``trailer``.
///
/// ```swift
/// let header = WAVHeader(format: AudioFormat(sampleRate: 48_000, channels: 2),
///                        sampleFormat: .s16, frameCount: frames)
/// write(header.bytes)
/// for block in blocks { encoder.encode(block, into: &buffer); write(buffer) }
/// write(header.trailer)
/// ```
///
/// Layout, following Microsoft's WAVE and RF64/EBU Tech 3306 specifications:
/// - `s16`, `s24`: `WAVE_FORMAT_PCM` with a 16-byte `fmt ` chunk, the classic 44-byte header.
/// - `f32`: `WAVE_FORMAT_IEEE_FLOAT` with an 18-byte `fmt ` chunk (`cbSize` 0) and the `fact`
///   chunk (frame count) that non-PCM data requires: a 58-byte header.
/// - Mono and stereo never use `WAVE_FORMAT_EXTENSIBLE`: every bit of each container is valid and
///   the channel layout is the default, so it would say nothing more, while common readers
///   stumble on it (Python's `wave` before 3.12 rejects it; sox warns on EXTENSIBLE float).
///   Clips of more than two channels (``WAV/encode(_:sampleFormat:)`` only) are EXTENSIBLE, as
///   the specification requires.
/// - More than 4 GiB of samples: the same chunks in an `RF64` file with a `ds64` chunk after
///   `WAVE` (36 more bytes) and `0xFFFFFFFF` in the 32-bit size fields.
public struct WAVHeader: Hashable, Sendable {
    /// Rate and channel count of the samples.
    public var format: AudioFormat
    /// How each sample is stored.
    public var sampleFormat: SampleFormat
    /// Frames that will follow the header.
    public var frameCount: Int64

    /// Describes a file of `frameCount` frames.
    public init(format: AudioFormat, sampleFormat: SampleFormat, frameCount: Int64) {
        precondition(frameCount >= 0, "negative frame count")
        self.format = format
        self.sampleFormat = sampleFormat
        self.frameCount = frameCount
    }

    /// Size of the samples in bytes, without the pad byte.
    public var dataByteCount: Int64 {
        frameCount * Int64(format.channels * sampleFormat.bytesPerSample)
    }

    /// True when the samples do not fit a 32-bit RIFF file and the header is RF64.
    public var isRF64: Bool {
        Self.needsRF64(dataByteCount: dataByteCount, sampleFormat: sampleFormat, channels: format.channels)
    }

    /// Everything before the first sample.
    public var bytes: [UInt8] {
        Self.bytes(
            sampleRate: format.sampleRate, channels: format.channels, sampleFormat: sampleFormat,
            frameCount: frameCount)
    }

    /// What follows the last sample: one zero pad byte when the data size is odd
    /// (`s24` mono with an odd frame count), else nothing.
    public var trailer: [UInt8] { dataByteCount & 1 == 1 ? [0] : [] }

    /// Everything before the first sample of a file with `frameCount` frames.
    ///
    /// ```swift
    /// WAVHeader.bytes(format: AudioFormat(), sampleFormat: .s16, frameCount: 48_000).count  // 44
    /// ```
    public static func bytes(format: AudioFormat, sampleFormat: SampleFormat, frameCount: Int64) -> [UInt8] {
        WAVHeader(format: format, sampleFormat: sampleFormat, frameCount: frameCount).bytes
    }

    /// Header for any channel count (``AudioClip`` may hold more than two).
    static func bytes(sampleRate: Int, channels: Int, sampleFormat: SampleFormat, frameCount: Int64) -> [UInt8] {
        let blockAlign = channels * sampleFormat.bytesPerSample
        let dataSize = frameCount * Int64(blockAlign)
        let rf64 = needsRF64(dataByteCount: dataSize, sampleFormat: sampleFormat, channels: channels)
        let extensible = channels > 2
        let fmtSize = fmtChunkSize(sampleFormat: sampleFormat, channels: channels)
        let factSize = sampleFormat == .f32 ? 12 : 0
        let headerSize = 12 + (rf64 ? 36 : 0) + 8 + fmtSize + factSize + 8
        let riffSize = Int64(headerSize - 8) + dataSize + (dataSize & 1)
        let unknown = UInt32.max
        precondition(sampleRate <= Int(UInt32.max), "sample rate does not fit a WAV header")

        var out: [UInt8] = []
        out.reserveCapacity(headerSize)
        func u16(_ value: Int) { out.append(UInt8(value & 0xFF)); out.append(UInt8(value >> 8 & 0xFF)) }
        func u32(_ value: UInt32) {
            for shift in stride(from: 0, to: 32, by: 8) { out.append(UInt8(value >> shift & 0xFF)) }
        }
        func u64(_ value: Int64) {
            for shift in stride(from: 0, to: 64, by: 8) { out.append(UInt8(value >> shift & 0xFF)) }
        }
        func id(_ text: StaticString) { out.append(contentsOf: UnsafeBufferPointer(start: text.utf8Start, count: 4)) }

        id(rf64 ? "RF64" : "RIFF")
        u32(rf64 ? unknown : UInt32(riffSize))
        id("WAVE")
        if rf64 {
            id("ds64"); u32(28)
            u64(riffSize); u64(dataSize); u64(frameCount)
            u32(0)  // no table of other oversized chunks
        }
        id("fmt "); u32(UInt32(fmtSize))
        let tag = sampleFormat == .f32 ? WAVLayout.formatFloat : WAVLayout.formatPCM
        u16(Int(extensible ? WAVLayout.formatExtensible : tag))
        u16(channels)
        u32(UInt32(sampleRate))
        u32(UInt32(clamping: sampleRate * blockAlign))  // byte rate: informational
        u16(blockAlign)
        u16(sampleFormat.bytesPerSample * 8)
        if fmtSize == 18 {
            u16(0)  // cbSize: non-PCM formats carry the (empty) extension size
        }
        if extensible {
            u16(22)  // cbSize
            u16(sampleFormat.bytesPerSample * 8)  // valid bits: all of the container
            u32(0)  // channel mask: no speaker assignment
            u16(Int(tag))
            out.append(contentsOf: WAVLayout.subformatGUIDTail)
        }
        if factSize > 0 {
            id("fact"); u32(4)
            u32(rf64 || frameCount > Int64(UInt32.max) ? unknown : UInt32(frameCount))
        }
        id("data")
        u32(rf64 ? unknown : UInt32(dataSize))
        assert(out.count == headerSize)
        return out
    }

    /// 40 for WAVE_FORMAT_EXTENSIBLE (more than two channels), 18 for IEEE float, 16 for PCM.
    static func fmtChunkSize(sampleFormat: SampleFormat, channels: Int) -> Int {
        channels > 2 ? 40 : sampleFormat == .f32 ? 18 : 16
    }

    /// Whether the RIFF size field (file size minus 8) would overflow 32 bits.
    static func needsRF64(dataByteCount: Int64, sampleFormat: SampleFormat, channels: Int) -> Bool {
        let fmtSize = fmtChunkSize(sampleFormat: sampleFormat, channels: channels)
        let classicHeader = 12 + 8 + fmtSize + (sampleFormat == .f32 ? 12 : 0) + 8
        return Int64(classicHeader - 8) + dataByteCount + (dataByteCount & 1) > Int64(UInt32.max)
    }
}

/// Converts blocks of float samples to WAV sample bytes, reusing the caller's buffer.
///
/// Samples are clamped to -1...1 (NaN becomes 0). Integer formats scale by 2^(bits-1)
/// (so -1 maps to the most negative code and +1 clips to the most positive one) and round to
/// nearest, ties to even, without dither: the same floats always give the same bytes, and
/// decoding with ``WAV/decode(_:)-([UInt8])`` then encoding again reproduces every integer sample.
///
/// ```swift
/// let encoder = WAVEncoder(format: AudioFormat(sampleRate: 48_000, channels: 2), sampleFormat: .s24)
/// var bytes: [UInt8] = []
/// block.withUnsafeBufferPointer { encoder.encode($0, into: &bytes) }
/// ```
public struct WAVEncoder: Hashable, Sendable {
    /// Rate and channel count of the samples.
    public var format: AudioFormat
    /// How each sample is stored.
    public var sampleFormat: SampleFormat

    /// An encoder for interleaved `format` audio stored as `sampleFormat`.
    public init(format: AudioFormat, sampleFormat: SampleFormat) {
        self.format = format
        self.sampleFormat = sampleFormat
    }

    /// Replaces the contents of `out` with the little-endian encoding of interleaved `samples`.
    ///
    /// `out` ends up exactly `samples.count * sampleFormat.bytesPerSample` bytes long; its
    /// capacity is reused, so once it has grown to the block size no call allocates.
    /// `samples` must hold whole frames (a multiple of `format.channels`).
    ///
    /// - Complexity: O(*n*); `f32` runs at memory bandwidth, `s16`/`s24` in a branch-free loop.
    public func encode(_ samples: UnsafeBufferPointer<Float>, into out: inout [UInt8]) {
        precondition(samples.count % format.channels == 0, "a block must hold whole frames")
        let byteCount = samples.count * sampleFormat.bytesPerSample
        if out.count < byteCount {
            out.append(contentsOf: repeatElement(0, count: byteCount - out.count))
        } else if out.count > byteCount {
            out.removeLast(out.count - byteCount)
        }
        out.withUnsafeMutableBytes { Self.write(samples, as: sampleFormat, to: $0) }
    }

    /// Encodes `samples` into raw memory with room for `samples.count × bytesPerSample` bytes: part
    /// of a block written in place (the WAV writer converts only the frames that sounded).
    public func encode(_ samples: UnsafeBufferPointer<Float>, to out: UnsafeMutableRawBufferPointer) {
        Self.write(samples, as: sampleFormat, to: out)
    }

    /// Encodes into raw memory that has room for `samples.count * format.bytesPerSample` bytes
    /// (CRenderKernels: eight samples at a time, the same bytes from either kernel build).
    static func write(
        _ samples: UnsafeBufferPointer<Float>, as format: SampleFormat, to out: UnsafeMutableRawBufferPointer,
        kernels: Kernels.Set = .best
    ) {
        precondition(out.count >= samples.count * format.bytesPerSample)
        guard let source = samples.baseAddress, let target = out.baseAddress else { return }
        let cFormat =
            switch format {
            case .f32: HK_SAMPLES_F32
            case .s16: HK_SAMPLES_S16
            case .s24: HK_SAMPLES_S24
            }
        hk_encode(
            kernels.c, cFormat, source, target.assumingMemoryBound(to: UInt8.self), Int64(samples.count))
    }
}

extension WAV {
    /// Encodes a whole clip as a WAV file (header, samples and any pad byte).
    ///
    /// ```swift
    /// let bytes = WAV.encode(clip, sampleFormat: .s16)   // 44 + 2 * clip.samples.count bytes
    /// ```
    ///
    /// Clips of more than two channels are written as `WAVE_FORMAT_EXTENSIBLE` with no speaker
    /// assignment; data beyond 4 GiB is written as RF64 (see ``WAVHeader``).
    ///
    /// - Complexity: O(*n*) in the number of samples; one allocation.
    public static func encode(_ clip: AudioClip, sampleFormat: SampleFormat) -> [UInt8] {
        let header = WAVHeader.bytes(
            sampleRate: clip.sampleRate, channels: clip.channels, sampleFormat: sampleFormat,
            frameCount: Int64(clip.frameCount))
        let dataSize = clip.samples.count * sampleFormat.bytesPerSample
        let total = header.count + dataSize + (dataSize & 1)
        return [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            let raw = UnsafeMutableRawBufferPointer(buffer)
            raw.copyBytes(from: header)
            clip.samples.withUnsafeBufferPointer { samples in
                WAVEncoder.write(
                    samples, as: sampleFormat,
                    to: UnsafeMutableRawBufferPointer(rebasing: raw[header.count..<(header.count + dataSize)]))
            }
            if dataSize & 1 == 1 { raw[total - 1] = 0 }
            initialized = total
        }
    }
}
