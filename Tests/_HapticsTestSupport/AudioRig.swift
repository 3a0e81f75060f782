package import Foundation

/// The private PulseAudio rig from tools/audio-rig, as tests see it: whether it is up, and
/// recordings of its sinks' monitors.
///
/// ```swift
/// @Test(.enabled(if: AudioRig.testsEnabled)) func plays() throws {
///     try AudioRig.require()
///     let recording = try AudioRig.Recording()
///     // ... play through ALSA's "rig" device ...
///     let heard = try recording.stop()
/// }
/// ```
package enum AudioRig {
    /// Whether the test process runs with the rig's environment (`tools/audio-rig/with-rig`).
    package static var isRunning: Bool { ProcessInfo.processInfo.environment["HAPTIC_RIG_ENV"] != nil }

    /// Rig tests run when the rig is up, and also on CI (`CI=true`), where a missing rig is a failure.
    package static var testsEnabled: Bool { isRunning || ProcessInfo.processInfo.environment["CI"] == "true" }

    /// Throws when the rig is missing (only reached on CI), so a rig test fails instead of passing vacuously.
    package static func require() throws {
        guard isRunning else {
            throw Failure(
                "CI=true but HAPTIC_RIG_ENV is not set: run the suite under tools/audio-rig/with-rig (tools/test does)")
        }
    }

    /// The repository root, where `tools/audio-rig` is.
    package static let packageRoot = TestFiles.packageRoot

    /// What went wrong with the rig or a recording.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        package init(_ description: String) { self.description = description }
    }

    /// A running `tools/audio-rig/record` capturing a sink's monitor to a float WAV.
    package final class Recording {
        package let file: URL
        private let process = Process()

        /// Starts recording `sink` (the rig's default sink when nil) and returns once the capture
        /// stream is connected.
        package init(sink: String? = nil) throws {
            file = FileManager.default.temporaryDirectory.appending(path: "haptic-rig-\(UUID().uuidString).wav")
            process.executableURL = AudioRig.packageRoot.appending(path: "tools/audio-rig/record")
            process.arguments = [file.path(percentEncoded: false), "float32le"] + (sink.map { [$0] } ?? [])
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            // The recorder prints "recording" once parec is connected; reading blocks until then.
            var received = Data()
            while !received.contains(UInt8(ascii: "\n")) {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { throw Failure("the recorder exited before it started recording") }
                received.append(chunk)
            }
            guard String(decoding: received, as: UTF8.self).hasPrefix("recording") else {
                throw Failure("the recorder said \(String(decoding: received, as: UTF8.self))")
            }
        }

        /// The first channel recorded so far (the file grows while recording).
        package func samplesSoFar() throws -> [Float] {
            try AudioRig.firstChannel(ofFloatWAV: [UInt8](Data(contentsOf: file)))
        }

        /// Stops the recorder and returns the first channel of what it captured.
        package func stop() throws -> [Float] {
            process.interrupt()
            process.waitUntilExit()
            defer { try? FileManager.default.removeItem(at: file) }
            return try samplesSoFar()
        }
    }

    /// The first channel of a 32-bit float WAV that may still be growing. The product's `WAV.decode`
    /// rightly refuses a data chunk that claims more (or, mid-capture, fewer) bytes than are there;
    /// a recording read while parec writes it needs exactly that leniency.
    package static func firstChannel(ofFloatWAV bytes: [UInt8]) throws -> [Float] {
        func u32(_ at: Int) -> Int { (0..<4).reduce(0) { $0 | Int(bytes[at + $1]) << (8 * $1) } }
        func u16(_ at: Int) -> Int { Int(bytes[at]) | Int(bytes[at + 1]) << 8 }
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8)
        else { throw Failure("recording is not a WAV file: no RIFF/WAVE header") }
        var offset = 12
        var channels = 0
        while offset + 8 <= bytes.count {
            let id = String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
            var size = u32(offset + 4)
            let body = offset + 8
            if id == "fmt " {
                channels = u16(body + 2)
                guard u16(body + 14) == 32 else {
                    throw Failure("recording has \(u16(body + 14))-bit samples, not float")
                }
            } else if id == "data" {
                guard channels > 0 else { throw Failure("recording has its data before its format") }
                if size == 0 || body + size > bytes.count { size = bytes.count - body }  // Unfinished header.
                let frameBytes = 4 * channels
                return stride(from: body, to: body + size - frameBytes + 1, by: frameBytes).map {
                    Float(bitPattern: UInt32(u32($0)))
                }
            }
            offset = body + size + (size & 1)
        }
        throw Failure("recording has no data chunk")
    }
}
