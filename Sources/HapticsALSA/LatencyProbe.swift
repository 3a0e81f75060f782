import Dispatch
import Foundation
import Glibc
public import HapticsEngine
import HapticsSynthesis

/// Whether a device keeps up at a latency: the answer to "`--latency 2` plays in slow motion".
///
/// PulseAudio's ALSA plugin accepts any buffer size, but below its own scheduling granularity a
/// tiny buffer runs dry between refills: every underrun restarts the stream, and playback crawls
/// at 10-35 % of real time. The probe plays silence the way the engine feeds a device (topping
/// it up every few milliseconds) and compares the frames heard with the wall time, counting
/// underruns.
///
/// ```swift
/// let (output, finding) = try LatencyProbe.open(.init(device: "default", latencyMilliseconds: 2))
/// if let finding { print(finding.message(strict: false)) }   // "... playing at 8 ms instead ..."
/// ```
public enum LatencyProbe {
    /// What one probe measured.
    public struct Measurement: Hashable, Sendable {
        public var latencyMilliseconds: Int
        /// Frames heard per frame of wall time (1: real time).
        public var realTimeRatio: Double
        public var underruns: Int
        public var seconds: Double

        /// Keeps up: at least 90 % of real time and at most one underrun.
        public var keepsUp: Bool { realTimeRatio >= 0.9 && underruns <= 1 }
    }

    /// A requested latency the device could not keep, and the one that works.
    public struct Finding: Hashable, Sendable {
        public var device: String
        public var requested: Measurement
        /// The lowest latency tried that keeps up; nil when none up to the limit did.
        public var working: Measurement?

        /// One line for the user.
        public func message(strict: Bool) -> String {
            let said = """
                device '\(device)' cannot keep a \(requested.latencyMilliseconds) ms latency \
                (it played \(Int((requested.realTimeRatio * 100).rounded())) % of real time with \
                \(requested.underruns) underruns in \(String(format: "%.1f", requested.seconds)) s)
                """
            guard let working else { return said + "; no latency up to \(maximumMilliseconds) ms kept up either" }
            if strict {
                return said + "; keeping it as asked (--latency-strict), so expect slow motion; "
                    + "\(working.latencyMilliseconds) ms works"
            }
            return said + "; playing at \(working.latencyMilliseconds) ms instead (--latency-strict keeps "
                + "\(requested.latencyMilliseconds) ms)"
        }
    }

    /// Latencies at or above this are not probed: PulseAudio keeps them (measured, BENCHMARKS.md).
    public static let trustedMilliseconds = 10
    /// The largest latency the search raises to.
    public static let maximumMilliseconds = 80

    /// Opens `configuration`'s device; below ``trustedMilliseconds`` first probes the requested
    /// latency and, when it does not keep up, doubles it until one does (unless `strict`). Returns
    /// the output to play through and, when the requested latency failed, what was found.
    public static func open(
        _ configuration: ALSAOutput.Configuration, strict: Bool = false, seconds: Double = 0.25
    ) throws(AudioOutputError) -> (ALSAOutput, Finding?) {
        guard configuration.latencyMilliseconds < trustedMilliseconds else {
            return (try ALSAOutput(configuration), nil)
        }
        let requested = try measure(configuration, seconds: seconds)
        guard !requested.keepsUp else { return (try ALSAOutput(configuration), nil) }
        var finding = Finding(device: configuration.device, requested: requested, working: nil)
        var trial = configuration
        while trial.latencyMilliseconds < maximumMilliseconds {
            trial.latencyMilliseconds = min(maximumMilliseconds, trial.latencyMilliseconds * 2)
            let measurement = try measure(trial, seconds: seconds)
            if measurement.keepsUp {
                finding.working = measurement
                break
            }
        }
        let chosen = strict || finding.working == nil ? configuration : trial
        return (try ALSAOutput(chosen), finding)
    }

    /// Plays silence through a fresh output at `configuration`, fed like the engine feeds it, and
    /// measures over `seconds` how much was heard, after `warmUpSeconds` (PulseAudio's first
    /// 50-250 ms report no or stale delays while it prebuffers; tools/audio-rig/README.md).
    public static func measure(
        _ configuration: ALSAOutput.Configuration, seconds: Double = 0.25, warmUpSeconds: Double = 0.1,
        tickMilliseconds: Int = 4
    ) throws(AudioOutputError) -> Measurement {
        let output = try ALSAOutput(configuration)
        defer { output.close() }
        try output.start()
        let channels = output.format.channels
        let silence = [Float](repeating: 0, count: output.bufferFrames * channels * 8)
        let began = DispatchTime.now().uptimeNanoseconds
        let measureFrom = began + UInt64(warmUpSeconds * 1e9)
        let end = measureFrom + UInt64(seconds * 1e9)
        var first: (nanoseconds: UInt64, heard: Int64, underruns: Int)?
        var last: (nanoseconds: UInt64, heard: Int64) = (began, 0)
        while true {
            let now = DispatchTime.now().uptimeNanoseconds
            let timing = try output.timing()
            let heard = output.framesWritten - Int64(timing.delayFrames)
            if now >= measureFrom && first == nil { first = (now, heard, output.underrunCount) }
            last = (now, heard)
            if now >= end { break }
            let room = min(timing.availableFrames, silence.count / channels)
            if room > 0 {
                _ = try silence.withUnsafeBufferPointer { samples throws(AudioOutputError) in
                    try output.write(UnsafeBufferPointer(rebasing: samples[..<(room * channels)]))
                }
            }
            usleep(UInt32(tickMilliseconds * 1_000))
        }
        let start = first ?? (last.nanoseconds, last.heard, 0)
        let wall = Double(last.nanoseconds - start.nanoseconds) / 1e9
        let ratio = wall > 0 ? Double(max(0, last.heard - start.heard)) / (wall * Double(output.format.sampleRate)) : 0
        return Measurement(
            latencyMilliseconds: configuration.latencyMilliseconds, realTimeRatio: ratio,
            underruns: output.underrunCount - start.underruns, seconds: wall)
    }
}
