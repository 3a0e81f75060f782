import Foundation
public import HapticsSynthesis
import SystemPackage

/// What an offline render produces: rate, channels, sample format and voicing.
public struct RenderOptions: Hashable, Sendable {
    public var format: AudioFormat
    public var sampleFormat: SampleFormat
    public var voicing: VoicingProfile

    public init(
        format: AudioFormat = AudioFormat(), sampleFormat: SampleFormat = .f32, voicing: VoicingProfile = .standard
    ) {
        self.format = format
        self.sampleFormat = sampleFormat
        self.voicing = voicing
    }
}

/// A failure to write rendered audio, naming the destination.
public struct RenderError: Error, Hashable, Sendable, CustomStringConvertible {
    public var destination: String
    /// What went wrong, in words.
    public var message: String
    /// The system call that failed, with its `errno`, when one did.
    public var cause: SystemCallError?

    public init(destination: String, message: String, cause: SystemCallError? = nil) {
        self.destination = destination
        self.message = message
        self.cause = cause
    }

    public var description: String {
        "\(destination): \(message)" + (cause.map { ": \($0.errno.description) (errno \($0.errno.rawValue))" } ?? "")
    }
}

/// Renders a pattern file to a WAV file or to standard output, block by block.
///
/// A file is written under a temporary name beside the destination and renamed into
/// place only when complete, so a failed or interrupted render never leaves a truncated
/// WAV where a good one was expected. Standard output (`-`) is streamed as it renders.
///
/// - Complexity: O(frames); memory is one block, whatever the pattern's length.
public enum WAVFileRender {
    /// Frames rendered and encoded per block.
    public static let blockFrames = 8192

    /// Renders `file` to `destination` (a path, or `-` for standard output).
    /// - Parameter progress: called after each block with (frames done, frames in all).
    /// - Returns: the frames written.
    @discardableResult
    public static func render(
        _ file: PatternFile, to destination: String, options: RenderOptions,
        progress: ((Int64, Int64) -> Void)? = nil
    ) throws(RenderError) -> Int64 {
        var renderer: PatternRenderer
        do {
            renderer = try PatternRenderer(
                pattern: file.pattern, format: options.format, voicing: options.voicing, clips: file.clips)
        } catch {
            throw RenderError(destination: destination, message: "\(file.path): \(error)")
        }
        let total = renderer.frameCount
        let sink = try OutputFile(destination)
        let header = WAVHeader(format: options.format, sampleFormat: options.sampleFormat, frameCount: total)
        do {
            try sink.write(header.bytes)
            let encoder = WAVEncoder(format: options.format, sampleFormat: options.sampleFormat)
            let channels = options.format.channels
            let size = options.sampleFormat.bytesPerSample
            // The renderer's samples are finite and within -1...1, so f32 little-endian WAV data
            // is their bytes as they are: written straight from the block, with no encoding pass.
            let direct = options.sampleFormat == .f32 && 1.littleEndian == 1
            // Only the frames that sounded are rendered into the block and converted; the silence
            // around them (most of a file, often) is written from one block of zero bytes, which
            // is silence in every sample format.
            let samples = UnsafeMutableBufferPointer<Float>.allocate(capacity: blockFrames * channels)
            let bytes = UnsafeMutableRawBufferPointer.allocate(
                byteCount: direct ? 0 : blockFrames * channels * size, alignment: 16)
            let zeros = UnsafeMutableRawBufferPointer.allocate(byteCount: blockFrames * channels * size, alignment: 16)
            defer {
                samples.deallocate()
                bytes.deallocate()
                zeros.deallocate()
            }
            zeros.initializeMemory(as: UInt8.self, repeating: 0)
            var done: Int64 = 0
            while true {
                let block = renderer.renderBlock(into: samples, writingSilence: false)
                if block.frames == 0 { break }
                let low = block.sounding.lowerBound * channels
                let high = block.sounding.upperBound * channels
                let sound: UnsafeRawBufferPointer
                if direct {
                    sound = UnsafeRawBufferPointer(rebasing: UnsafeRawBufferPointer(samples)[(low * 4)..<(high * 4)])
                } else {
                    let target = UnsafeMutableRawBufferPointer(rebasing: bytes[(low * size)..<(high * size)])
                    encoder.encode(UnsafeBufferPointer(rebasing: samples[low..<high]), to: target)
                    sound = UnsafeRawBufferPointer(target)
                }
                try sink.write(
                    UnsafeRawBufferPointer(rebasing: zeros[..<(low * size)]), sound,
                    UnsafeRawBufferPointer(rebasing: zeros[..<((block.frames * channels - high) * size)]))
                done += Int64(block.frames)
                progress?(done, total)
            }
            try sink.write(header.trailer)
            try sink.commit()
            return done
        } catch {
            sink.abandon()
            throw error
        }
    }
}

/// A destination for bytes: standard output, a file written atomically, or an existing device,
/// FIFO or socket written in place (`-o /dev/null`, a named pipe): a temporary file renamed over
/// one of those would replace it with a regular file.
final class OutputFile {
    private let destination: String
    private let fd: Int32
    /// The file being written, for a regular file; nil for a stream written in place.
    private let file: AtomicFile?
    private var isOpen = true

    init(_ destination: String) throws(RenderError) {
        self.destination = destination
        if destination == "-" {
            fd = STDOUT_FILENO
            file = nil
            return
        }
        var status = stat()
        if stat(destination, &status) == 0 && status.st_mode & S_IFMT != S_IFREG {
            if status.st_mode & S_IFMT == S_IFDIR {
                throw RenderError(destination: destination, message: "is a folder; name a file to write")
            }
            fd = try Self.call(destination, "cannot open for writing", "open", destination) {
                open(destination, O_WRONLY | O_CLOEXEC)
            }
            file = nil
            return
        }
        let url = URL(filePath: destination)
        let folder = url.deletingLastPathComponent().path(percentEncoded: false)
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder.isEmpty ? "." : folder, isDirectory: &isDirectory),
            isDirectory.boolValue
        else {
            throw RenderError(destination: destination, message: "folder '\(folder)' does not exist")
        }
        do {
            let file = try AtomicFile(replacing: destination, mode: 0o644)
            self.file = file
            fd = file.descriptor
        } catch {
            throw RenderError(destination: destination, message: "cannot create file", cause: error)
        }
    }

    /// Runs one system call through the funnel; a failure becomes a RenderError that keeps it.
    @discardableResult
    private static func call<Result: FixedWidthInteger>(
        _ destination: String, _ message: String, _ name: String, _ path: String? = nil, _ body: () -> Result
    ) throws(RenderError) -> Result {
        do {
            return try systemCall(name, path: path, body)
        } catch {
            throw RenderError(destination: destination, message: message, cause: error)
        }
    }

    @discardableResult
    private func call<Result: FixedWidthInteger>(
        _ message: String, _ name: String, _ path: String? = nil, _ body: () -> Result
    ) throws(RenderError) -> Result {
        try Self.call(destination, message, name, path, body)
    }

    func write(_ bytes: [UInt8]) throws(RenderError) {
        try bytes.withUnsafeBytes { raw in Result { () throws(RenderError) in try write(raw) } }.get()
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws(RenderError) {
        let none = UnsafeRawBufferPointer(start: nil, count: 0)
        try write(bytes, none, none)
    }

    /// Writes three runs of bytes in order, with one `writev` where the system takes them all
    /// (and more where it takes part: a pipe, a signal).
    func write(_ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer, _ c: UnsafeRawBufferPointer)
        throws(RenderError)
    {
        try Self.write(a, b, c, to: destination) { vectors, count throws(RenderError) in
            try call("write failed", "writev") { writev(fd, vectors, count) }
        }
    }

    /// The runs `a`, `b`, `c` through `writev`-like calls of `gather`, which may take any part of
    /// what it is offered and returns how much it took; taking nothing is an error (never a loop).
    static func write(
        _ a: UnsafeRawBufferPointer, _ b: UnsafeRawBufferPointer, _ c: UnsafeRawBufferPointer,
        to destination: String, gather: (UnsafePointer<iovec>, Int32) throws(RenderError) -> Int
    ) throws(RenderError) {
        func vector(_ run: UnsafeRawBufferPointer) -> iovec {
            iovec(iov_base: UnsafeMutableRawPointer(mutating: run.baseAddress), iov_len: run.count)
        }
        var vectors = (vector(a), vector(b), vector(c))
        try withUnsafeMutableBytes(of: &vectors) { raw throws(RenderError) in
            let runs = raw.bindMemory(to: iovec.self)
            var first = 0
            while true {
                while first < runs.count && runs[first].iov_len == 0 { first += 1 }
                if first == runs.count { return }
                var taken = try gather(runs.baseAddress! + first, Int32(runs.count - first))
                guard taken > 0 else {
                    throw RenderError(destination: destination, message: "write failed: nothing written")
                }
                // Past what was taken: whole runs, then part of one.
                while taken > 0 {
                    let n = min(taken, runs[first].iov_len)
                    runs[first].iov_base = runs[first].iov_base.map { $0 + n }
                    runs[first].iov_len -= n
                    taken -= n
                    if runs[first].iov_len == 0 { first += 1 }
                }
            }
        }
    }

    /// Whether the bytes go to standard output, a device, a FIFO or a socket: what is written
    /// cannot be rewritten, and there is nothing to move into place.
    var isStream: Bool { file == nil }

    /// Replaces bytes already written at `offset` (a header completed at the end).
    func overwrite(_ bytes: [UInt8], at offset: Int64) throws(RenderError) {
        guard file != nil else {
            throw RenderError(destination: destination, message: "a stream cannot be rewritten")
        }
        var done = 0
        while done < bytes.count {
            done += try call("write failed", "pwrite") {
                bytes.withUnsafeBytes {
                    pwrite(fd, $0.baseAddress! + done, $0.count - done, off_t(offset) + off_t(done))
                }
            }
        }
    }

    /// Makes the file durable and moves it into place.
    func commit() throws(RenderError) {
        guard let file else {
            if fd != STDOUT_FILENO && isOpen { close(fd) }
            isOpen = false
            return
        }
        isOpen = false
        do {
            try file.commit()
        } catch {
            let message = error.call == "fsync" ? "fsync failed" : "cannot move file into place"
            throw RenderError(destination: destination, message: message, cause: error)
        }
    }

    /// Removes the partial file after a failure.
    func abandon() {
        guard let file else {
            if fd != STDOUT_FILENO && isOpen { close(fd) }
            isOpen = false
            return
        }
        isOpen = false
        file.abandon()
    }
}
