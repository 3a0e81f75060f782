import Foundation
public import HapticsSynthesis
import Synchronization

/// An output that writes what the engine plays to a WAV file, as fast as it is fed.
///
/// It has no clock: it always has room and nothing is ever waiting to be heard, so the
/// engine's time runs at whatever pace its ticks come. The file is written under a
/// temporary name and moved into place, with its header completed, by `drain()` or `close()`.
///
/// `start()` after `drain()` (an engine stopped and started again) appends: what was written
/// stays, and the next `drain()` moves the longer file into place. The time the output was
/// stopped is not in the file. After `close()` the output is done for good.
public final class WAVFileOutput: AudioOutput {
    public let name: String
    public let format: AudioFormat
    public let bufferFrames: Int
    public var periodFrames: Int { bufferFrames / 4 }
    public let sampleFormat: SampleFormat

    private struct State {
        var file: OutputFile?
        var bytes: [UInt8] = []
        var frames: Int64 = 0
        var closed = false
    }

    private let state: Mutex<State>
    private let encoder: WAVEncoder

    /// Creates `path` (replacing it when complete).
    public init(
        path: String, format: AudioFormat = AudioFormat(), sampleFormat: SampleFormat = .f32, bufferFrames: Int = 1024
    ) throws(AudioOutputError) {
        name = path
        self.format = format
        self.sampleFormat = sampleFormat
        self.bufferFrames = bufferFrames
        encoder = WAVEncoder(format: format, sampleFormat: sampleFormat)
        let file: OutputFile
        do {
            file = try OutputFile(path)
            try file.write(WAVHeader.bytes(format: format, sampleFormat: sampleFormat, frameCount: 0))
        } catch {
            throw AudioOutputError(
                code: .deviceFailure, device: path, message: "cannot write WAV file: \(error.message)")
        }
        var initial = State(file: file)
        initial.bytes.reserveCapacity(bufferFrames * format.channels * sampleFormat.bytesPerSample)
        state = Mutex(initial)
    }

    /// Reopens a drained file to append to it; nothing to do while it is open.
    public func start() throws(AudioOutputError) {
        let name = self.name
        try state.withLock { (state) throws(AudioOutputError) in
            guard state.file == nil else { return }
            guard !state.closed else {
                throw AudioOutputError(code: .closed, device: name, message: "the WAV file is already closed")
            }
            do throws(RenderError) {
                state.file = try reopen(frames: &state.frames)
            } catch {
                throw AudioOutputError(
                    code: .deviceFailure, device: name, message: "cannot reopen WAV file: \(error.message)")
            }
        }
    }

    /// A new partial file holding the completed one's header and samples, to write on after them;
    /// a fresh file (and `frames` 0) when the completed one is gone or not what this output wrote.
    private func reopen(frames: inout Int64) throws(RenderError) -> OutputFile {
        let header = WAVHeader.bytes(format: format, sampleFormat: sampleFormat, frameCount: 0)
        let bytesPerFrame = Int64(format.channels * sampleFormat.bytesPerSample)
        let expected = Int64(header.count) + frames * bytesPerFrame
        let file = try OutputFile(name)
        let size = (try? FileManager.default.attributesOfItem(atPath: name)[.size] as? Int).map(Int64.init)
        guard frames > 0, size == expected, let old = FileHandle(forReadingAtPath: name) else {
            frames = 0
            try file.write(header)
            return file
        }
        defer { try? old.close() }
        while let chunk = try? old.read(upToCount: 1 << 20), !chunk.isEmpty {
            try file.write([UInt8](chunk))
        }
        return file
    }
    public func availableFrames() throws(AudioOutputError) -> Int { bufferFrames }
    public func delayFrames() throws(AudioOutputError) -> Int { 0 }
    public func waitForRoom(timeoutMilliseconds: Int) throws(AudioOutputError) -> Bool { true }
    public var framesWritten: Int64 { state.withLock { $0.frames } }
    public var underrunCount: Int { 0 }

    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioOutputError) -> Int {
        let name = self.name
        return try state.withLock { (state) throws(AudioOutputError) -> Int in
            guard let file = state.file else {
                throw AudioOutputError(code: .closed, device: name, message: "the WAV file is already closed")
            }
            state.bytes.removeAll(keepingCapacity: true)
            encoder.encode(samples, into: &state.bytes)
            do throws(RenderError) {
                try file.write(state.bytes)
            } catch {
                throw AudioOutputError(code: .deviceFailure, device: name, message: error.message)
            }
            let frames = samples.count / format.channels
            state.frames += Int64(frames)
            return frames
        }
    }

    /// Completes the header and moves the file into place.
    public func drain() throws(AudioOutputError) {
        let name = self.name
        try state.withLock { (state) throws(AudioOutputError) in
            guard let file = state.file else { return }
            state.file = nil
            do throws(RenderError) {
                let header = WAVHeader.bytes(format: format, sampleFormat: sampleFormat, frameCount: state.frames)
                // A stream (`HAPTIC_OUTPUT=/dev/null`, a FIFO) keeps the header it was given.
                if !file.isStream { try file.overwrite(header, at: 0) }
                try file.commit()
            } catch {
                file.abandon()
                throw AudioOutputError(code: .deviceFailure, device: name, message: error.message)
            }
        }
    }

    public func close() {
        try? drain()
        state.withLock { $0.closed = true }
    }
}
