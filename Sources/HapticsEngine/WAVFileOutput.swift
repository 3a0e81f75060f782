import Foundation
public import HapticsSynthesis
import Synchronization
import SystemPackage

/// An output that writes what the engine plays to a WAV file, as fast as it is fed.
///
/// It has no clock: it always has room and nothing is ever waiting to be heard, so the
/// engine's time runs at whatever pace its ticks come (``PacedOutput`` gives it real time).
///
/// The file is written in place, and its header is valid at every moment: after each write the
/// header's sizes are brought up to date with one `pwrite`, so a process that ends in any way (a
/// normal exit, `SIGINT`, `SIGTERM`, even `SIGKILL`) leaves a WAV file that holds everything
/// written up to its last write. No signal handler is needed, and none is installed.
///
/// `start()` after `drain()` (an engine stopped and started again) appends. After `close()` the
/// output is done for good. A device, FIFO or standard output (`-`) is written as a stream: the
/// header is written once, with a frame count of zero, and never rewritten.
public final class WAVFileOutput: AudioOutput {
    /// The path written. For a capture (``init(capturing:format:sampleFormat:bufferFrames:)``),
    /// the path asked for until the first ``start()``, then the name chosen.
    public var name: String { state.withLock { $0.path } }
    public let format: AudioFormat
    public let bufferFrames: Int
    public var periodFrames: Int { bufferFrames / 4 }
    public let sampleFormat: SampleFormat

    private struct State {
        var path: String
        /// A capture not yet started: its file is chosen and created by the first `start()`.
        var unclaimed = false
        var fd: Int32 = -1
        var isStream = false
        var bytes: [UInt8] = []
        /// The header of the frames written so far, kept up to date in place.
        var header: [UInt8] = []
        var frames: Int64 = 0
        var closed = false
    }

    private let state: Mutex<State>
    private let encoder: WAVEncoder
    private let layout: HeaderLayout

    /// Creates `path`, or empties the file there, and writes to it in place.
    public init(
        path: String, format: AudioFormat = AudioFormat(), sampleFormat: SampleFormat = .f32, bufferFrames: Int = 1024
    ) throws(AudioOutputError) {
        self.format = format
        self.sampleFormat = sampleFormat
        self.bufferFrames = bufferFrames
        encoder = WAVEncoder(format: format, sampleFormat: sampleFormat)
        var initial = State(path: path)
        initial.header = WAVHeader.bytes(format: format, sampleFormat: sampleFormat, frameCount: 0)
        layout = HeaderLayout(initial.header)
        initial.bytes.reserveCapacity(bufferFrames * format.channels * sampleFormat.bytesPerSample)
        (initial.fd, initial.isStream) = try Self.open(path)
        try Self.writeHeader(&initial)
        state = Mutex(initial)
    }

    /// A capture of an engine's output to `path`, whose file is chosen and created by the first
    /// ``start()``: `path` itself, or, when this process has already captured there or another
    /// process is capturing there now, the first free numbered name beside it (`out.wav`, then
    /// `out-2.wav`, `out-3.wav`, ...; ``capturePath(_:number:)``). Each engine of a process that
    /// starts so keeps a file of its own (an engine made and never started takes no name), and a
    /// later run of the process replaces an earlier run's files. The choice is race-free: names are
    /// claimed under a process-wide lock, and a file is taken only with an exclusive `flock` on it,
    /// which a capturing process holds until it closes the file or ends. A device, FIFO or `-` is
    /// written as given, never numbered.
    ///
    /// - Throws: when `path`'s folder does not exist.
    public init(
        capturing path: String, format: AudioFormat = AudioFormat(), sampleFormat: SampleFormat = .f32,
        bufferFrames: Int = 1024
    ) throws(AudioOutputError) {
        let folder = path.lastIndex(of: "/").map { String(path[...$0]) } ?? "."
        var status = stat()
        guard path == "-" || stat(folder, &status) == 0 && status.st_mode & S_IFMT == S_IFDIR else {
            throw AudioOutputError(code: .deviceFailure, device: path, message: "folder '\(folder)' does not exist")
        }
        self.format = format
        self.sampleFormat = sampleFormat
        self.bufferFrames = bufferFrames
        encoder = WAVEncoder(format: format, sampleFormat: sampleFormat)
        var initial = State(path: path, unclaimed: true)
        initial.header = WAVHeader.bytes(format: format, sampleFormat: sampleFormat, frameCount: 0)
        layout = HeaderLayout(initial.header)
        initial.bytes.reserveCapacity(bufferFrames * format.channels * sampleFormat.bytesPerSample)
        state = Mutex(initial)
    }

    /// Claims the first free capture name for `state.path`, opens it and writes the header.
    private static func claim(_ state: inout State) throws(AudioOutputError) {
        var number = 1
        while true {
            let candidate = capturePath(state.path, number: number)
            let fresh = claimedPaths.withLock { $0.insert(candidate).inserted }
            if fresh, let (fd, isStream) = try openClaimed(candidate) {
                state.path = candidate
                (state.fd, state.isStream) = (fd, isStream)
                state.unclaimed = false
                try writeHeader(&state)
                return
            }
            number += 1
        }
    }

    private static func writeHeader(_ state: inout State) throws(AudioOutputError) {
        do throws(SystemCallError) {
            try writeAll(state.fd, state.header, path: state.path)
        } catch {
            Glibc.close(state.fd)
            state.closed = true
            throw AudioOutputError(
                code: .deviceFailure, device: state.path, message: "cannot write WAV file: \(error)",
                systemErrorNumber: error.errno.rawValue)
        }
    }

    deinit { close() }

    /// The name of a process's `number`th capture of `path`: `path` itself for the first, then the
    /// number before the extension (`out.wav` → `out-2.wav`; `out` → `out-2`).
    public static func capturePath(_ path: String, number: Int) -> String {
        guard number > 1 else { return path }
        let folderEnd = path.lastIndex(of: "/").map { path.index(after: $0) } ?? path.startIndex
        let name = path[folderEnd...]
        // A leading dot starts a hidden name, not an extension.
        if let dot = name.lastIndex(of: "."), dot != name.startIndex {
            return String(path[..<dot]) + "-\(number)" + String(path[dot...])
        }
        return path + "-\(number)"
    }

    /// Paths this process has captured to; never reused, so no capture replaces another.
    private static let claimedPaths = Mutex<Set<String>>([])

    /// Opens `path` for writing in place: a regular file is created or emptied; a device, FIFO or
    /// `-` is a stream.
    private static func open(_ path: String) throws(AudioOutputError) -> (Int32, Bool) {
        if path == "-" {
            return (try call(path, "cannot write to standard output", "dup") { dup(STDOUT_FILENO) }, true)
        }
        var status = stat()
        if stat(path, &status) == 0 && status.st_mode & S_IFMT != S_IFREG {
            guard status.st_mode & S_IFMT != S_IFDIR else {
                throw AudioOutputError(code: .deviceFailure, device: path, message: "is a folder; name a file to write")
            }
            return (try call(path, "cannot open for writing", "open") { Glibc.open(path, O_WRONLY | O_CLOEXEC) }, true)
        }
        let fd = try call(path, "cannot create WAV file", "open") {
            Glibc.open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        }
        do throws(AudioOutputError) {
            try call(path, "cannot empty WAV file", "ftruncate") { ftruncate(fd, 0) }
        } catch {
            Glibc.close(fd)
            throw error
        }
        return (fd, false)
    }

    /// ``open(_:)`` for a capture: nil when another process holds the file's lock.
    private static func openClaimed(_ path: String) throws(AudioOutputError) -> (Int32, Bool)? {
        var status = stat()
        if path == "-" || stat(path, &status) == 0 && status.st_mode & S_IFMT != S_IFREG {
            return try open(path)
        }
        let fd = try call(path, "cannot create WAV file", "open") {
            Glibc.open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o644)
        }
        do throws(AudioOutputError) {
            // Held until the descriptor is closed or the process ends; emptied only once held.
            do throws(SystemCallError) {
                try systemCall("flock", path: path) { flock(fd, LOCK_EX | LOCK_NB) }
            } catch  where error.errno == .wouldBlock {
                Glibc.close(fd)
                return nil
            } catch {
                throw AudioOutputError(
                    code: .deviceFailure, device: path, message: "cannot lock WAV file: \(error)",
                    systemErrorNumber: error.errno.rawValue)
            }
            try call(path, "cannot empty WAV file", "ftruncate") { ftruncate(fd, 0) }
        } catch {
            Glibc.close(fd)
            throw error
        }
        return (fd, false)
    }

    @discardableResult
    private static func call<Result: FixedWidthInteger>(
        _ path: String, _ message: String, _ name: String, _ body: () -> Result
    ) throws(AudioOutputError) -> Result {
        do {
            return try systemCall(name, path: path, body)
        } catch {
            throw AudioOutputError(
                code: .deviceFailure, device: path, message: "\(message): \(error)",
                systemErrorNumber: error.errno.rawValue)
        }
    }

    private static func writeAll(_ fd: Int32, _ bytes: [UInt8], path: String) throws(SystemCallError) {
        try bytes.withUnsafeBytes { raw in
            Result { () throws(SystemCallError) in
                var done = 0
                while done < raw.count {
                    let n = try systemCall("write", path: path) {
                        Glibc.write(fd, raw.baseAddress! + done, raw.count - done)
                    }
                    guard n > 0 else { throw SystemCallError(call: "write", path: path, errno: .noSpace) }
                    done += n
                }
            }
        }.get()
    }

    /// Creates a capture's file at its first start; nothing to do after that (the file stays open
    /// until ``close()``).
    public func start() throws(AudioOutputError) {
        try state.withLock { (state) throws(AudioOutputError) in
            guard !state.closed else {
                throw AudioOutputError(code: .closed, device: state.path, message: "the WAV file is already closed")
            }
            if state.unclaimed { try Self.claim(&state) }
        }
    }

    public func availableFrames() throws(AudioOutputError) -> Int { bufferFrames }
    public func delayFrames() throws(AudioOutputError) -> Int { 0 }
    public func waitForRoom(timeoutMilliseconds: Int) throws(AudioOutputError) -> Bool { true }
    public var framesWritten: Int64 { state.withLock { $0.frames } }
    public var underrunCount: Int { 0 }

    /// Appends the samples, then brings the header's sizes up to date.
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioOutputError) -> Int {
        try state.withLock { (state) throws(AudioOutputError) -> Int in
            let name = state.path
            guard !state.closed, !state.unclaimed else {
                throw AudioOutputError(
                    code: .closed, device: name,
                    message: state.closed ? "the WAV file is already closed" : "the capture is not started")
            }
            state.bytes.removeAll(keepingCapacity: true)
            encoder.encode(samples, into: &state.bytes)
            do throws(SystemCallError) {
                try Self.writeAll(state.fd, state.bytes, path: name)
            } catch {
                throw AudioOutputError(
                    code: .deviceFailure, device: name, message: "write failed: \(error)",
                    systemErrorNumber: error.errno.rawValue)
            }
            state.frames += Int64(samples.count / format.channels)
            try updateHeader(&state)
            return samples.count / format.channels
        }
    }

    /// Appends `frames` of silence: zero bytes, which are silence in every sample format. A
    /// regular file is extended in one call (the file system stores the zeros as a hole), so a
    /// long gap costs no more than a short one.
    public func writeSilence(frames: Int) throws(AudioOutputError) {
        try state.withLock { (state) throws(AudioOutputError) in
            let name = state.path
            guard !state.closed, !state.unclaimed else {
                throw AudioOutputError(
                    code: .closed, device: name,
                    message: state.closed ? "the WAV file is already closed" : "the capture is not started")
            }
            let bytesPerFrame = format.channels * sampleFormat.bytesPerSample
            let fd = state.fd
            if state.isStream {
                state.bytes.removeAll(keepingCapacity: true)
                state.bytes.append(contentsOf: repeatElement(0, count: min(frames, bufferFrames) * bytesPerFrame))
                var left = frames
                while left > 0 {
                    let count = min(left, bufferFrames)
                    do throws(SystemCallError) {
                        try Self.writeAll(fd, Array(state.bytes[..<(count * bytesPerFrame)]), path: name)
                    } catch {
                        throw AudioOutputError(
                            code: .deviceFailure, device: name, message: "write failed: \(error)",
                            systemErrorNumber: error.errno.rawValue)
                    }
                    left -= count
                }
            } else {
                let end = off_t(state.header.count) + off_t(state.frames + Int64(frames)) * off_t(bytesPerFrame)
                try Self.call(name, "cannot extend the WAV file", "ftruncate") { ftruncate(fd, end) }
                try Self.call(name, "cannot seek in the WAV file", "lseek") { lseek(fd, 0, SEEK_END) }
            }
            state.frames += Int64(frames)
            try updateHeader(&state)
        }
    }

    /// Rewrites the header (one `pwrite` of the whole of it, so no reader sees half an update).
    private func updateHeader(_ state: inout State) throws(AudioOutputError) {
        guard !state.isStream else { return }
        layout.set(
            frames: state.frames, bytesPerFrame: format.channels * sampleFormat.bytesPerSample, in: &state.header)
        let fd = state.fd
        let name = state.path
        let done = try state.header.withUnsafeBytes { raw in
            Result { () throws(AudioOutputError) in
                try Self.call(name, "cannot update the WAV header", "pwrite") {
                    pwrite(fd, raw.baseAddress!, raw.count, 0)
                }
            }
        }.get()
        if done != state.header.count {
            throw AudioOutputError(
                code: .deviceFailure, device: name, message: "cannot update the WAV header: short write")
        }
    }

    /// Makes what was written durable (the header is always complete).
    public func drain() throws(AudioOutputError) {
        try state.withLock { (state) throws(AudioOutputError) in
            let name = state.path
            guard !state.closed, !state.unclaimed, !state.isStream else { return }
            let fd = state.fd
            try Self.call(name, "cannot flush the WAV file", "fsync") { fsync(fd) }
        }
    }

    /// Flushes and closes the file; later writes fail.
    public func close() {
        try? drain()
        state.withLock { state in
            guard !state.closed else { return }
            state.closed = true
            if !state.unclaimed { Glibc.close(state.fd) }
        }
    }
}

/// Where a WAV header's three size fields sit, found once, so that updating them allocates nothing.
private struct HeaderLayout: Sendable {
    /// The offsets of the RIFF size, the `fact` frame count (float data only) and the data size.
    let riff: Int
    let fact: Int?
    let data: Int

    init(_ header: [UInt8]) {
        func find(_ id: String) -> Int? {
            let bytes = Array(id.utf8)
            return stride(from: 12, to: header.count - 7, by: 1).first { Array(header[$0..<($0 + 4)]) == bytes }
        }
        riff = 4
        fact = find("fact").map { $0 + 8 }
        data = find("data")! + 4
    }

    /// Sets the sizes for `frames` frames; sizes past what 32 bits hold (about 6 hours of 48 kHz
    /// mono float) stay at their largest value, which readers take as "to the end of the file".
    func set(frames: Int64, bytesPerFrame: Int, in header: inout [UInt8]) {
        let dataSize = frames * Int64(bytesPerFrame)
        func put(_ value: Int64, at offset: Int) {
            let word = UInt32(clamping: value)
            for index in 0..<4 { header[offset + index] = UInt8(truncatingIfNeeded: word >> (8 * UInt32(index))) }
        }
        put(Int64(header.count - 8) + dataSize, at: riff)
        if let fact { put(frames, at: fact) }
        put(dataSize, at: data)
    }
}
