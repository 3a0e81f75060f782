import Foundation
import HapticsSynthesis
import Testing
import _ToolTestSupport

/// What the `haptic play` tests add to the shared `AudioRig`: sinks of their own, onsets.
enum Rig {
    /// Runs `pactl ARGS` against the rig's server; returns its standard output.
    @discardableResult
    static func pactl(_ arguments: [String]) async throws -> String {
        let result = try await ChildProcess.run("pactl", arguments)
        guard result.status == 0 else {
            throw Failure("pactl \(arguments.joined(separator: " ")) exited with \(result.status)")
        }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// A null sink of its own on the rig's server, so tests running in parallel never hear each other.
    final class Sink {
        let name = "haptic_test_\(UUID().uuidString.prefix(8).lowercased())"
        private let module: String

        /// A sink of `channels` channels (4: a DualSense's layout).
        init(channels: Int = 2) async throws {
            module = try await Rig.pactl([
                "load-module", "module-null-sink", "sink_name=\(name)", "rate=48000", "format=float32le",
                "channels=\(channels)", "norewinds=1",
            ])
        }

        /// Unloads the sink's module (in the background: a deinit cannot wait).
        deinit {
            let module = module
            Task { _ = try? await Rig.pactl(["unload-module", module]) }
        }

        /// The ALSA device that plays into this sink.
        var device: String { "pulse:DEVICE=\(name)" }
    }

    /// Indices of samples louder than `threshold` that follow at least `gap` quiet samples.
    static func onsets(_ samples: [Float], threshold: Float = 1e-3, gap: Int = 2_400) -> [Int] {
        AudioAnalysis.onsets(samples, channels: 1, threshold: threshold, minGapFrames: gap)
    }
}

/// A `haptic` process running in the background (for real-time playback).
final class RunningHaptic: Sendable {
    let child: ChildProcess

    init(_ arguments: [String], environment: [String: String] = [:]) async throws {
        child = try await ChildProcess.start(
            Haptic.executable.path(percentEncoded: false), arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 })
    }

    /// Waits for exit; returns the status and standard error.
    func wait() async throws -> (status: Int32, stderr: String) {
        let result = try await child.wait()
        return (result.status, result.stderr)
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
