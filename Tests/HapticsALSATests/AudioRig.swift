import Dispatch
import Foundation
import HapticsEngine
import HapticsSynthesis
import Synchronization

/// The private PulseAudio rig from tools/audio-rig, as the tests see it.
enum AudioRig {
    /// Whether the test process runs with the rig's environment (`. "$(tools/audio-rig/start)"`).
    static var isRunning: Bool { ProcessInfo.processInfo.environment["HAPTIC_RIG_ENV"] != nil }

    /// Rig tests run when the rig is up, and also on CI (`CI=true`), where a missing rig is a failure.
    static var testsEnabled: Bool { isRunning || ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Throws when the rig is missing (only reached on CI), so a rig test fails instead of passing vacuously.
    static func require() throws {
        guard isRunning else {
            throw Failure.recorder(
                "CI=true but HAPTIC_RIG_ENV is not set: run the suite under tools/audio-rig/with-rig (tools/test does)")
        }
    }

    /// The package root: this file is <root>/Tests/HapticsALSATests/AudioRig.swift.
    static let packageRoot = URL(filePath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    enum Failure: Error, CustomStringConvertible {
        case recorder(String)
        case wav(String)

        var description: String {
            switch self {
            case .recorder(let message): "audio rig recorder: \(message)"
            case .wav(let message): "recording is not a float WAV: \(message)"
            }
        }
    }

    /// A running `tools/audio-rig/record` capturing the rig sink's monitor to a float WAV.
    final class Recording {
        let file: URL
        private let process = Process()

        /// Starts recording and returns once the capture stream is connected.
        init() throws {
            file = FileManager.default.temporaryDirectory.appending(
                path: "haptic-rig-\(UUID().uuidString).wav")
            process.executableURL = AudioRig.packageRoot.appending(path: "tools/audio-rig/record")
            process.arguments = [file.path, "float32le"]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            // The recorder prints "recording" once parec is connected; reading blocks until then.
            var received = Data()
            while !received.contains(UInt8(ascii: "\n")) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { throw Failure.recorder("exited before it started recording") }
                received.append(chunk)
            }
            guard String(decoding: received, as: UTF8.self).hasPrefix("recording") else {
                throw Failure.recorder("said \(String(decoding: received, as: UTF8.self))")
            }
        }

        /// Stops the recorder and returns the first channel of what it captured.
        func stop() throws -> [Float] {
            process.interrupt()
            process.waitUntilExit()
            defer { try? FileManager.default.removeItem(at: file) }
            return try AudioRig.firstChannel(ofFloatWAV: try Data(contentsOf: file))
        }
    }

    /// The first channel of a 32-bit float WAV (as parec writes it).
    static func firstChannel(ofFloatWAV data: Data) throws -> [Float] {
        let bytes = [UInt8](data)
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8),
            bytes[8..<12].elementsEqual("WAVE".utf8)
        else { throw Failure.wav("no RIFF/WAVE header") }
        var offset = 12
        var channels = 0
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            var size = u32(offset + 4)
            let body = offset + 8
            if id == "fmt " {
                channels = u16(body + 2)
                guard u16(body + 14) == 32 else { throw Failure.wav("\(u16(body + 14))-bit samples") }
            } else if id == "data" {
                guard channels > 0 else { throw Failure.wav("data before fmt") }
                if size == 0 || body + size > bytes.count { size = bytes.count - body }  // Unfinished header.
                let frameBytes = 4 * channels
                return stride(from: body, to: body + size - frameBytes + 1, by: frameBytes).map {
                    Float(bitPattern: UInt32(u32($0)))
                }
            }
            offset = body + size + (size & 1)
        }
        throw Failure.wav("no data chunk")
    }

    /// One engine-style tick: when it happened and where the device was.
    struct Tick {
        var uptimeNanoseconds: UInt64
        var timing: OutputTiming
        var framesWritten: Int64
        /// `framesWritten - delay`: the frame being heard.
        var position: Int64 { framesWritten - Int64(timing.delayFrames) }
    }

    /// Feeds `signal` (mono or interleaved) to `output` the way the engine will: a DispatchSourceTimer
    /// on a high-QoS serial queue asks for room every `tickMilliseconds` and writes that much. Drains
    /// at the end. Returns every tick's measurement.
    static func play(_ signal: [Float], through output: any AudioOutput, tickMilliseconds: Int) async throws
        -> [Tick]
    {
        let queue = DispatchQueue(label: "haptic.rig.player", qos: .userInteractive)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let state = Mutex((offset: 0, ticks: [Tick](), finished: false))
        let channels = output.format.channels
        return try await withCheckedThrowingContinuation { continuation in
            timer.setEventHandler {
                do {
                    let timing = try output.timing()
                    let tick = Tick(
                        uptimeNanoseconds: DispatchTime.now().uptimeNanoseconds, timing: timing,
                        framesWritten: output.framesWritten)
                    let offset = state.withLock { $0.offset }
                    let frames = min(timing.availableFrames, (signal.count - offset) / channels)
                    let accepted = try signal.withUnsafeBufferPointer {
                        try output.write(
                            UnsafeBufferPointer(rebasing: $0[offset..<(offset + frames * channels)]))
                    }
                    let done = state.withLock { state in
                        state.offset += accepted * channels
                        state.ticks.append(tick)
                        return state.offset == signal.count
                    }
                    if done {
                        timer.cancel()
                        try output.drain()
                        continuation.resume(returning: state.withLock { $0.ticks })
                    }
                } catch {
                    timer.cancel()
                    continuation.resume(throwing: error)
                }
            }
            timer.schedule(
                deadline: .now(), repeating: .milliseconds(tickMilliseconds), leeway: .microseconds(500))
            timer.activate()
        }
    }

    /// Polls `condition` on a DispatchSourceTimer every `tickMilliseconds` until it holds (true) or
    /// `timeoutMilliseconds` pass (false). For waiting on a device, which is what the engine does too.
    static func poll(
        everyMilliseconds tickMilliseconds: Int, timeoutMilliseconds: Int,
        until condition: @escaping @Sendable () throws -> Bool
    ) async throws -> Bool {
        let queue = DispatchQueue(label: "haptic.rig.poll", qos: .userInteractive)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeoutMilliseconds) * 1_000_000
        return try await withCheckedThrowingContinuation { continuation in
            timer.setEventHandler {
                do {
                    if try condition() {
                        timer.cancel()
                        continuation.resume(returning: true)
                    } else if DispatchTime.now().uptimeNanoseconds > deadline {
                        timer.cancel()
                        continuation.resume(returning: false)
                    }
                } catch {
                    timer.cancel()
                    continuation.resume(throwing: error)
                }
            }
            timer.schedule(
                deadline: .now(), repeating: .milliseconds(tickMilliseconds), leeway: .microseconds(500))
            timer.activate()
        }
    }
}
