import CSndFile
import HapticsSynthesis
import SystemPackage

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why an audio file could not be read: one line that names the file.
///
/// ```swift
/// do { _ = try AudioFileReader(path: "song.txt") } catch {
///     print(error)  // song.txt: not audio: the file starts with "# no", not RIFF, fLaC, OggS, ID3 or an MPEG frame
/// }
/// ```
public struct AudioDecodeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The path (or name) as the caller gave it.
    public var file: String
    /// What went wrong, without the file name.
    public var message: String

    public init(file: String, _ message: String) {
        self.file = file
        self.message = message
    }

    /// `file: message`.
    public var description: String { "\(file): \(message)" }
}

/// The audio containers `haptic convert` recognises by their first bytes.
public enum AudioContainer: String, Hashable, Sendable, CaseIterable {
    case wav, flac, ogg, mp3

    /// The container `prefix` (a file's first bytes; 4 are enough) starts, or nil when it is none of them.
    /// RIFF/RF64/BW64 → WAV, `fLaC` → FLAC, `OggS` → Ogg (Vorbis or Opus), `ID3` or an MPEG audio
    /// frame sync (11 set bits, layer bits not 00) → MP3.
    public static func sniff<Bytes: Collection<UInt8>>(_ prefix: Bytes) -> AudioContainer? {
        let b = Array(prefix.prefix(4))
        func starts(_ text: String) -> Bool { b.starts(with: Array(text.utf8)) }
        if starts("RIFF") || starts("RF64") || starts("BW64") { return .wav }
        if starts("fLaC") { return .flac }
        if starts("OggS") { return .ogg }
        if starts("ID3") { return .mp3 }
        if b.count >= 2, b[0] == 0xFF, b[1] & 0xE0 == 0xE0, b[1] & 0x06 != 0 { return .mp3 }
        return nil
    }
}

/// Reads an audio file block by block as mono floats, so memory is bounded by the block, not the
/// file: WAV through HapticsSynthesis's reader (the header parsed from a mapping, the samples read
/// with `pread`), FLAC, Ogg Vorbis, Opus and MP3 through libsndfile (docs/audio-to-haptics.md).
/// Channels are mixed down to their mean.
///
/// ```swift
/// let reader = try AudioFileReader(path: "song.flac")
/// var block = [Float](repeating: 0, count: 4_096)
/// while case let n = block.withUnsafeMutableBufferPointer({ reader.read(into: $0) }), n > 0 { ... }
/// ```
public final class AudioFileReader {
    /// The file as the caller named it (messages use it).
    public let name: String
    public let container: AudioContainer
    /// Frames per second of the file.
    public let sampleRate: Int
    /// Channels in the file (read mixed to one).
    public let channels: Int
    /// Frames the file declares (libsndfile's count; for MP3 an estimate).
    public let declaredFrames: Int

    private enum Source {
        /// A WAV file, read with `pread` from this descriptor (a mapping would fault, and kill
        /// the process, if the file were cut short while it is read: `haptic play` reads a sound
        /// for as long as it plays).
        case wavFile(WAVBlockReader, Int32)
        /// A WAV file held in memory.
        case wav(WAVBlockReader, UnsafeRawBufferPointer)
        case sndfile(OpaquePointer, VirtualFile?)
    }
    private var source: Source
    private var position = 0
    private var scratch: [Float] = []
    /// A WAV file's sample bytes, as read.
    private var raw: UnsafeMutableRawBufferPointer?

    /// The most channels accepted (libsndfile reads up to 1024; a mix of more is no haptic).
    public static let maxChannels = 64

    /// Opens `path`, recognising the container by its first bytes (not by its name).
    ///
    /// - Throws: ``AudioDecodeError`` when the file cannot be opened, is empty, is not audio, or
    ///   its header cannot be read.
    public init(path: String) throws(AudioDecodeError) {
        name = path
        let descriptor: FileDescriptor
        do {
            descriptor = try FileDescriptor.open(path, .readOnly, options: .closeOnExec)
        } catch {
            throw AudioDecodeError(file: path, "cannot open: \(error)")
        }
        var keep = false
        defer { if !keep { try? descriptor.close() } }
        let fd = descriptor.rawValue
        var status = stat()
        guard fstat(fd, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw AudioDecodeError(file: path, "not a regular file")
        }
        let size = Int(status.st_size)
        guard size > 0 else { throw AudioDecodeError(file: path, "not audio: the file is empty (0 bytes)") }
        var head = [UInt8](repeating: 0, count: 4)
        let got = head.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 4, 0) }
        head = Array(head.prefix(max(0, got)))
        guard let container = AudioContainer.sniff(head) else {
            throw AudioDecodeError(file: path, Self.notAudio(head))
        }
        self.container = container
        if container == .wav {
            // The header is parsed from a mapping (its chunks may be anywhere in the file); the
            // samples are read with pread.
            guard let base = mmap(nil, size, PROT_READ, MAP_PRIVATE, fd, 0), base != MAP_FAILED else {
                throw AudioDecodeError(file: path, "cannot map: \(Errno(rawValue: errno))")
            }
            defer { munmap(base, size) }
            do {
                let reader = try WAVBlockReader(UnsafeRawBufferPointer(start: base, count: size))
                (sampleRate, channels, declaredFrames) = (reader.sampleRate, reader.channels, reader.frameCount)
                source = .wavFile(reader, fd)
                keep = true
            } catch {
                throw AudioDecodeError(file: path, "\(error)")
            }
        } else {
            var info = SF_INFO()
            guard let file = sf_open(path, Int32(SFM_READ), &info) else {
                throw AudioDecodeError(file: path, Self.sndfileMessage(container, nil))
            }
            source = .sndfile(file, nil)
            (sampleRate, channels, declaredFrames) = (Int(info.samplerate), Int(info.channels), Int(info.frames))
        }
        try validate()
    }

    /// Reads audio held in memory (tests, the fuzzer); `name` names it in messages.
    public init(bytes: [UInt8], name: String) throws(AudioDecodeError) {
        self.name = name
        guard !bytes.isEmpty else { throw AudioDecodeError(file: name, "not audio: the file is empty (0 bytes)") }
        guard let container = AudioContainer.sniff(bytes) else {
            throw AudioDecodeError(file: name, Self.notAudio(Array(bytes.prefix(4))))
        }
        self.container = container
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 16)
        copy.copyBytes(from: bytes)
        if container == .wav {
            do {
                let reader = try WAVBlockReader(UnsafeRawBufferPointer(copy))
                (sampleRate, channels, declaredFrames) = (reader.sampleRate, reader.channels, reader.frameCount)
                source = .wav(reader, UnsafeRawBufferPointer(copy))
            } catch {
                copy.deallocate()
                throw AudioDecodeError(file: name, "\(error)")
            }
        } else {
            let virtual = VirtualFile(UnsafeRawBufferPointer(copy))
            var info = SF_INFO()
            var io = VirtualFile.callbacks
            guard let file = sf_open_virtual(&io, Int32(SFM_READ), &info, Unmanaged.passUnretained(virtual).toOpaque())
            else {
                copy.deallocate()
                throw AudioDecodeError(file: name, Self.sndfileMessage(container, nil))
            }
            source = .sndfile(file, virtual)
            (sampleRate, channels, declaredFrames) = (Int(info.samplerate), Int(info.channels), Int(info.frames))
        }
        try validate()
    }

    private func validate() throws(AudioDecodeError) {
        guard (1...Self.maxChannels).contains(channels) else {
            throw AudioDecodeError(file: name, "unsupported: \(channels) channels (1...\(Self.maxChannels) are read)")
        }
        guard (1_000...768_000).contains(sampleRate) else {
            throw AudioDecodeError(file: name, "unsupported sample rate \(sampleRate) Hz (1000...768000 are read)")
        }
    }

    deinit {
        switch source {
        case .wavFile(_, let fd):
            close(fd)
        case .wav(_, let bytes):
            bytes.deallocate()
        case .sndfile(let file, let virtual):
            sf_close(file)
            virtual?.bytes.deallocate()
        }
        raw?.deallocate()
    }

    /// Fills `out` with the next frames mixed to mono; returns how many (0 at the end).
    /// A read error part-way (a truncated compressed file, a file cut short while it is read)
    /// ends the audio there.
    public func read(into out: UnsafeMutableBufferPointer<Float>) -> Int {
        guard let base = out.baseAddress, !out.isEmpty else { return 0 }
        let want = out.count
        if scratch.count < want * channels { scratch = [Float](repeating: 0, count: want * channels) }
        let frames: Int = scratch.withUnsafeMutableBufferPointer { scratch in
            switch source {
            case .wavFile(let reader, let fd):
                let n = readFile(
                    reader, fd, frames: min(want, reader.frameCount - position), into: scratch.baseAddress!)
                position += n
                return n
            case .wav(let reader, let bytes):
                let n = reader.read(bytes, frames: position..<(position + want), into: scratch.baseAddress!)
                position += n
                return n
            case .sndfile(let file, _):
                let n = Int(sf_readf_float(file, scratch.baseAddress!, sf_count_t(want)))
                position += max(0, n)
                return max(0, n)
            }
        }
        guard frames > 0 else { return 0 }
        scratch.withUnsafeBufferPointer { scratch in
            if channels == 1 {
                for i in 0..<frames { base[i] = Self.finite(scratch[i]) }
            } else if channels == 2 {
                // The common case, in a loop the compiler vectorises (interleaved loads, no inner loop).
                for i in 0..<frames { base[i] = Self.finite((scratch[2 &* i] + scratch[2 &* i &+ 1]) * 0.5) }
            } else {
                let scale = 1 / Float(channels)
                for i in 0..<frames {
                    var sum: Float = 0
                    for c in 0..<channels { sum += scratch[i &* channels &+ c] }
                    base[i] = Self.finite(sum * scale)
                }
            }
        }
        return frames
    }

    /// Frames read so far.
    public var framesRead: Int { position }

    @inline(__always)
    private static func finite(_ x: Float) -> Float { x > 1 ? 1 : x < -1 ? -1 : x == x ? x : 0 }

    /// Reads up to `frames` frames from `position` of a WAV file into `out` (interleaved);
    /// returns the whole frames read: fewer, down to 0, where the file ends early (cut short
    /// since it was opened) or cannot be read.
    private func readFile(
        _ reader: WAVBlockReader, _ fd: Int32, frames: Int, into out: UnsafeMutablePointer<Float>
    ) -> Int {
        guard frames > 0 else { return 0 }
        let wanted = frames * reader.bytesPerFrame
        if (raw?.count ?? 0) < wanted {
            raw?.deallocate()
            raw = .allocate(byteCount: wanted, alignment: 16)
        }
        guard let bytes = raw?.baseAddress else { return 0 }
        let offset = reader.dataOffset + position * reader.bytesPerFrame
        var got = 0
        while got < wanted {
            let n = pread(fd, bytes + got, wanted - got, off_t(offset + got))
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { break }
            got += n
        }
        return reader.convert(UnsafeRawBufferPointer(start: bytes, count: got), into: out)
    }

    private static func notAudio(_ head: [UInt8]) -> String {
        let printable = head.allSatisfy { (0x20...0x7E).contains($0) }
        let shown =
            printable
            ? "\"\(String(decoding: head, as: UTF8.self))\""
            : head.map { b in (b < 16 ? "0" : "") + String(b, radix: 16, uppercase: true) }.joined(separator: " ")
        return "not audio: the file starts with \(shown), not RIFF, fLaC, OggS, ID3 or an MPEG frame"
    }

    private static func sndfileMessage(_ container: AudioContainer, _ file: OpaquePointer?) -> String {
        let reason = String(cString: sf_strerror(file))
        return "cannot decode this \(container.rawValue.uppercased()) file: \(reason)"
    }
}

/// Bytes in memory behind libsndfile's virtual I/O.
final class VirtualFile {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    private static func of(_ user: UnsafeMutableRawPointer?) -> VirtualFile {
        Unmanaged<VirtualFile>.fromOpaque(user!).takeUnretainedValue()
    }

    static var callbacks: SF_VIRTUAL_IO {
        SF_VIRTUAL_IO(
            get_filelen: { user in sf_count_t(VirtualFile.of(user).bytes.count) },
            seek: { offset, whence, user in
                let file = VirtualFile.of(user)
                let base: Int
                switch whence {
                case SEEK_CUR: base = file.offset
                case SEEK_END: base = file.bytes.count
                default: base = 0
                }
                let (target, overflow) = base.addingReportingOverflow(Int(offset))
                guard !overflow, target >= 0 else { return -1 }
                file.offset = target
                return sf_count_t(target)
            },
            read: { pointer, count, user in
                let file = VirtualFile.of(user)
                guard let pointer, count > 0, file.offset < file.bytes.count else { return 0 }
                let n = min(Int(count), file.bytes.count - file.offset)
                pointer.copyMemory(from: file.bytes.baseAddress! + file.offset, byteCount: n)
                file.offset += n
                return sf_count_t(n)
            },
            write: { _, _, _ in 0 },
            tell: { user in sf_count_t(VirtualFile.of(user).offset) })
    }
}
