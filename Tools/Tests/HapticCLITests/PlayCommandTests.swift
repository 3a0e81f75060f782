import Foundation
import HapticsSynthesis
import Testing
import _ToolTestSupport

/// A pattern of full-strength transients every `spacing` seconds for `seconds`.
private func clicks(every spacing: Double, for seconds: Double) -> String {
    let count = Int((seconds / spacing).rounded()) + 1
    let events = (0..<count).map { k in
        let time = String(format: "%.3f", Double(k) * spacing)
        let sharpness = String(format: "%.2f", Double(k % 5) / 4)
        return """
            {"Event":{"Time":\(time),"EventType":"HapticTransient","EventParameters":[\
            {"ParameterID":"HapticIntensity","ParameterValue":1},\
            {"ParameterID":"HapticSharpness","ParameterValue":\(sharpness)}]}}
            """
    }
    return "{\"Version\":1,\"Pattern\":[\(events.joined(separator: ","))]}"
}

/// The offline render of `path` as 48 kHz mono float samples (`haptic render --format f32`).
private func offlineRender(_ path: String) async throws -> [Float] {
    let result = try await Haptic.run(["render", path, "-o", "-", "--format", "f32"])
    #expect(result.status == 0, "\(result.stderr)")
    return try WAV.decode(result.stdout).samples
}

/// What a `file` PCM captured (raw FLOAT_LE mono) equals the offline render of `pattern`,
/// sample for sample, after the leading silence, with nothing but silence after it.
func expectCapture(_ capture: String, equalsTheOfflineRenderOf pattern: String) async throws {
    let bytes = try [UInt8](Data(contentsOf: URL(filePath: capture)))
    let played = stride(from: 0, to: bytes.count - 3, by: 4).map { at in
        Float(
            bitPattern: UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16
                | UInt32(bytes[at + 3]) << 24)
    }
    let reference = try await offlineRender(pattern)
    let start = try #require(played.firstIndex { $0 != 0 })
    let first = try #require(reference.firstIndex { $0 != 0 })
    let offset = start - first
    try #require(offset >= 0 && offset + reference.count <= played.count, "capture too short: \(played.count)")
    let mismatches = (0..<reference.count).filter { played[offset + $0] != reference[$0] }
    #expect(mismatches.isEmpty, "\(mismatches.count) samples differ, first at \(mismatches.first ?? -1)")
    #expect(played[(offset + reference.count)...].allSatisfy { $0 == 0 }, "sound after the pattern's end")
}

private func elapsedMilliseconds(since start: UInt64) -> Double {
    Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
}

/// `haptic play` without a rig: ALSA's `file` PCM and a missing device.
@Suite struct PlayCommandTests {
    @Test func playThroughALSAsFilePCMWritesExactlyTheOfflineRender() async throws {
        let scratch = try ScratchFolder()
        let pattern = try scratch.write("clicks.ahap", clicks(every: 0.1, for: 0.6))
        let capture = scratch.path("capture.raw")
        let result = try await Haptic.run(["play", pattern, "--device", "file:FILE=\(capture),FORMAT=raw"])
        #expect(result.status == 0, "\(result.stderr)")
        // The device negotiated FLOAT_LE mono at 48 kHz: the file holds our samples, raw.
        try await expectCapture(capture, equalsTheOfflineRenderOf: pattern)
    }

    @Test func withoutADeviceSaysWhyAndWritesTheOfflineRenderToAWAVFile() async throws {
        let scratch = try ScratchFolder()
        let pattern = try scratch.write("knock.ahap", clicks(every: 0.2, for: 0.4))
        let result = try await Haptic.run(
            ["play", pattern, "--device", "haptic-no-such-device"],
            environment: ProcessInfo.processInfo.environment.merging(["TMPDIR": scratch.url.path]) { $1 })
        let printed = result.output
        let said = result.stderr
        #expect(result.status == 0)
        let lines = said.split(separator: "\n")
        #expect(lines.count == 1)
        #expect(said.hasPrefix("haptic: no usable audio device (device 'haptic-no-such-device' not found: ALSA says"))
        #expect(said.hasSuffix("; writing the preview to a WAV file instead\n"))
        let path = printed.trimmingCharacters(in: .newlines)
        #expect(path == scratch.url.appending(path: "haptic-preview/knock.wav").path(percentEncoded: false))
        let reference = scratch.path("reference.wav")
        // The preview is what `haptic render` writes with default options but 32-bit float samples.
        #expect(try await Haptic.run(["render", pattern, "-o", reference, "--format", "f32"]).status == 0)
        #expect(try Data(contentsOf: URL(filePath: path)) == Data(contentsOf: URL(filePath: reference)))
    }
}

/// `haptic play` through real ALSA into the PulseAudio rig, recorded from the sink's monitor.
/// Each test plays into a null sink of its own, so they may run in parallel.
/// Serialized: the load test keeps both cores busy, which would skew the others.
@Suite(.serialized, .enabled(if: AudioRig.testsEnabled, "needs the audio rig: tools/audio-rig/with-rig swift test"))
struct PlayThroughRigTests {
    /// At the default 20 ms, judged on a run in which the machine never stalled for 10 ms or
    /// more: on this virtual machine the hypervisor stops the cores now and then (steal time),
    /// and each run that failed here had seen a stall of 14-24 ms (BENCHMARKS.md, "Underruns on
    /// a quiet machine").
    @Test func everyClickKeepsItsSpacingWithinAMillisecondAndPlaybackTakesRealTime() async throws {
        try AudioRig.require()
        let scratch = try ScratchFolder()
        let pattern = try scratch.write("clicks.ahap", clicks(every: 0.125, for: 2))
        let (status, stderr, recorded, wall) = try await onAStillMachine(stallsBelow: 10) {
            let sink = try await Rig.Sink()
            let recording = try AudioRig.Recording(sink: sink.name)
            let started = DispatchTime.now().uptimeNanoseconds
            let play = try await RunningHaptic(["play", pattern, "--device", sink.device, "--stats"])
            let (status, stderr) = try await play.wait()
            let wall = elapsedMilliseconds(since: started) / 1000
            return (status, stderr, try recording.stop(), wall)
        }
        #expect(status == 0, "\(stderr)")
        #expect(playStatistics(stderr)["underruns"] == 0, "\(stderr)")
        let expected = Rig.onsets(try await offlineRender(pattern))
        let heard = Rig.onsets(recorded)
        #expect(expected.count == 17)
        try #require(heard.count == expected.count, "heard \(heard.count) clicks: \(heard)")
        let drift = zip(heard, expected).map { abs(($0 - heard[0]) - ($1 - expected[0])) }
        #expect(drift.max()! <= 48, "spacing off by \(drift.max()!) frames (48 = 1 ms); heard \(heard)")
        // 2 s of clicks plus the last click's ring; start-up and the 20 ms buffer on top.
        #expect(wall >= 2.0 && wall < 2.8, "took \(wall) s")
    }

    /// Both cores busy for 20 s: the device never runs dry and the stream `play` hands it is the
    /// offline render to the sample. A tap (ALSA's `file` PCM in front of the rig's clocked
    /// PulseAudio sink) keeps that exact stream while it plays in real time; a recording of the
    /// sink would also measure PulseAudio and the recorder, which lose whole periods under load.
    @Test func twentySecondsWithBothCoresBusyLoseAndMoveNothing() async throws {
        try AudioRig.require()
        let scratch = try ScratchFolder()
        let pattern = try scratch.write("long.ahap", clicks(every: 0.25, for: 20))
        let sink = try await Rig.Sink()
        let tap = scratch.path("tap.raw")
        let conf = try scratch.write(
            "tap.conf",
            """
            pcm.haptic_tap {
                type file
                slave.pcm { type pulse; device "\(sink.name)" }
                file "\(tap)"
                format "raw"
            }
            """)
        let config =
            (ProcessInfo.processInfo.environment["ALSA_CONFIG_PATH"] ?? "/usr/share/alsa/alsa.conf") + ":" + conf
        let load = try BusyLoops(count: 2)
        let started = DispatchTime.now().uptimeNanoseconds
        let play = try await RunningHaptic(
            // 40 ms: the buffer docs/timing.md recommends on a loaded machine (20 ms, the interactive
            // default, runs dry about once in ten 20-second runs with both cores saturated).
            ["play", pattern, "--device", "haptic_tap", "--latency", "40", "--stats"],
            environment: ["ALSA_CONFIG_PATH": config])
        let (status, stderr) = try await play.wait()
        let wall = elapsedMilliseconds(since: started) / 1000
        load.stop()
        #expect(status == 0, "\(stderr)")
        #expect(playStatistics(stderr)["underruns"] == 0, "\(stderr)")
        #expect(wall >= 20, "20 s of clicks played in \(wall) s: not paced by the device")
        try await expectCapture(tap, equalsTheOfflineRenderOf: pattern)
    }

    @Test func ctrlCStopsWithinFiftyMillisecondsWithAFadeAndExitStatus130() async throws {
        try AudioRig.require()
        let scratch = try ScratchFolder()
        let pattern = try scratch.write(
            "hum.ahap",
            """
            {"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":30,\
            "EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1},\
            {"ParameterID":"HapticSharpness","ParameterValue":0.5}]}}]}
            """)
        // Judged on a run without a stall of the machine as long as half the buffer: a stall moves
        // the recording against the engine's frames (everyClickKeepsItsSpacing…).
        let (status, stderr, exitMilliseconds, recorded) = try await onAStillMachine(stallsBelow: 10) {
            let sink = try await Rig.Sink()
            let recording = try AudioRig.Recording(sink: sink.name)
            let play = try await RunningHaptic(["play", pattern, "--device", sink.device, "--loop", "--stats"])
            // Interrupt once half a second of sound has reached the sink (polling the growing recording).
            var polls = 0
            while true {
                let soFar = try recording.samplesSoFar()
                if let first = soFar.firstIndex(where: { abs($0) > 1e-4 }), soFar.count - first > 24_000 { break }
                polls += 1
                try #require(polls < 500, "no sound reached the sink within 5 s")
                try await Task.sleep(for: .milliseconds(10))
            }
            let signalled = DispatchTime.now().uptimeNanoseconds
            play.child.signal(SIGINT)
            let (status, stderr) = try await play.wait()
            let exitMilliseconds = elapsedMilliseconds(since: signalled)
            return (status, stderr, exitMilliseconds, try recording.stop())
        }
        #expect(status == 130, "\(stderr)")
        #expect(exitMilliseconds < 100, "exited \(exitMilliseconds) ms after SIGINT")

        // Where the listener was at the signal (engine's report, pattern frames), found in the recording.
        let figures = playStatistics(stderr)
        let heardAtSignal = try #require(figures["interrupt-pattern-frame"], "\(stderr)")
        let first = try #require(recorded.firstIndex { abs($0) > 1e-4 })
        let last = try #require(recorded.lastIndex { abs($0) > 1e-4 })
        let tail = Double(last - first) - heardAtSignal
        #expect(tail > 0 && tail < 2_400, "sound went on \(tail / 48) ms after SIGINT")

        // The last 5 ms decay: no sample above a linear 5 ms fade from the hum's peak, and the end is quiet.
        let peak = recorded[first...last].map(abs).max()!
        let fade = 240
        let over = (last - fade...last).filter { abs(recorded[$0]) > peak * (Float(last - $0 + 12) / Float(fade)) }
        #expect(over.isEmpty, "\(over.count) samples above a 5 ms fade, first \(over.first ?? -1) (end \(last))")
        #expect(abs(recorded[last]) < peak * 0.05)
        #expect(recorded[(last + 1)...].allSatisfy { abs($0) <= 1e-4 })
    }
}
