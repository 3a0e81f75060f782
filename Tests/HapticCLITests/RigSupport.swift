import Foundation
import HapticsSynthesis
import Synchronization
import Testing

/// The private PulseAudio rig from tools/audio-rig, as the `haptic play` tests use it.
enum Rig {
    static let environment = ProcessInfo.processInfo.environment

    /// Whether the rig's environment is set (`tools/audio-rig/with-rig swift test`).
    static var isRunning: Bool { environment["HAPTIC_RIG_ENV"] != nil }

    /// Rig tests run when the rig is up, and also on CI (`CI=true`), where a missing rig is a failure.
    static var testsEnabled: Bool { isRunning || environment["CI"] == "true" }

    struct Missing: Error, CustomStringConvertible {
        var description: String {
            "CI=true but HAPTIC_RIG_ENV is not set: run the suite under tools/audio-rig/with-rig (tools/test does)"
        }
    }

    /// Throws on CI when the rig is missing, so a rig test fails instead of passing vacuously.
    static func require() throws {
        guard isRunning else { throw Missing() }
    }

    /// Runs `pactl ARGS` against the rig's server; returns its standard output.
    @discardableResult
    static func pactl(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["pactl"] + arguments
        let out = Pipe()
        process.standardOutput = out
        try process.run()
        let bytes = out.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure("pactl \(arguments.joined(separator: " ")) exited with \(process.terminationStatus)")
        }
        return String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// A null sink of its own on the rig's server, so tests running in parallel never hear each other.
    final class Sink {
        let name = "haptic_test_\(UUID().uuidString.prefix(8).lowercased())"
        private let module: String

        init() throws {
            module = try Rig.pactl([
                "load-module", "module-null-sink", "sink_name=\(name)", "rate=48000", "format=float32le",
                "channels=2", "norewinds=1",
            ])
        }

        deinit { _ = try? Rig.pactl(["unload-module", module]) }

        /// The ALSA device that plays into this sink.
        var device: String { "pulse:DEVICE=\(name)" }
    }

    /// `tools/audio-rig/record` on a sink's monitor, as a float WAV.
    final class Recording {
        let file: URL
        private let process = Process()

        /// Starts recording and returns once the capture stream is connected.
        init(_ sink: Sink) throws {
            file = FileManager.default.temporaryDirectory.appending(path: "haptic-play-\(UUID().uuidString).wav")
            process.executableURL = Haptic.packageRoot.appending(path: "tools/audio-rig/record")
            process.arguments = [file.path(percentEncoded: false), "float32le", sink.name]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            var received = Data()
            while !received.contains(UInt8(ascii: "\n")) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { throw Failure("the recorder exited before it started recording") }
                received.append(chunk)
            }
        }

        /// The first channel recorded so far (the file grows while recording).
        func samplesSoFar() throws -> [Float] {
            try Rig.firstChannel(ofFloatWAV: [UInt8](Data(contentsOf: file)))
        }

        /// Stops the recorder and returns the first channel.
        func stop() throws -> [Float] {
            process.terminate()
            process.waitUntilExit()
            defer { try? FileManager.default.removeItem(at: file) }
            return try samplesSoFar()
        }
    }

    /// The first channel of a 32-bit float WAV whose header may still say "unfinished".
    static func firstChannel(ofFloatWAV bytes: [UInt8]) throws -> [Float] {
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        var offset = 12
        var channels = 0
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            var size = u32(offset + 4)
            let body = offset + 8
            if id == "fmt " {
                channels = Int(bytes[body + 2])
            } else if id == "data" {
                guard channels > 0 else { throw Failure("data before fmt") }
                if size == 0 || body + size > bytes.count { size = bytes.count - body }
                let frameBytes = 4 * channels
                return stride(from: body, to: body + size - frameBytes + 1, by: frameBytes).map {
                    Float(bitPattern: UInt32(u32($0)))
                }
            }
            offset = body + size + (size & 1)
        }
        return []
    }

    /// Indices of samples louder than `threshold` that follow at least `gap` quiet samples.
    static func onsets(_ samples: [Float], threshold: Float = 1e-3, gap: Int = 2_400) -> [Int] {
        AudioAnalysis.onsets(samples, channels: 1, threshold: threshold, minGapFrames: gap)
    }
}

/// A `haptic` process running in the background (for real-time playback).
final class RunningHaptic {
    let process = Process()
    private final class Bytes: Sendable { let data = Mutex(Data()) }
    private let errors = Bytes()
    private let drained = DispatchGroup()

    init(_ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = Haptic.executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let stderr = Pipe()
        process.standardError = stderr
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let handle = stderr.fileHandleForReading
        DispatchQueue.global().async(group: drained) { [errors] in
            let bytes = handle.readDataToEndOfFile()
            errors.data.withLock { $0 = bytes }
        }
    }

    /// Waits for exit; returns the status and standard error.
    func wait() -> (status: Int32, stderr: String) {
        process.waitUntilExit()
        drained.wait()
        return (process.terminationStatus, String(decoding: errors.data.withLock { $0 }, as: UTF8.self))
    }
}

/// `key=value` figures from the `haptic: stats:` line of `haptic play --stats`.
func playStatistics(_ stderr: String) -> [String: Double] {
    guard let line = stderr.split(separator: "\n").first(where: { $0.hasPrefix("haptic: stats:") }) else { return [:] }
    var figures: [String: Double] = [:]
    for field in line.split(separator: " ") {
        let parts = field.split(separator: "=", maxSplits: 1)
        if parts.count == 2, let value = Double(parts[1]) { figures[String(parts[0])] = value }
    }
    return figures
}
