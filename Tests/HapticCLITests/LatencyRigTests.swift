import Dispatch
import Foundation
import Testing
import _HapticsTestSupport

/// `--latency` below what PulseAudio can keep (2-4 ms plays in slow motion, 10-35 % of real time):
/// said once, and raised unless `--latency-strict`.
@Suite(.serialized, .enabled(if: AudioRig.testsEnabled, "needs the audio rig: tools/audio-rig/with-rig swift test"))
struct LatencyRigTests {
    static let taps =
        #"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}},"#
        + #"{"Event":{"Time":1,"EventType":"HapticTransient"}}]}"#

    @Test func aLatencyTheDeviceCannotKeepIsSaidOnceAndRaised() throws {
        try AudioRig.require()
        let scratch = try ScratchFolder()
        let pattern = try scratch.write("taps.ahap", Self.taps)
        let started = DispatchTime.now().uptimeNanoseconds
        let result = try Haptic.run(["play", pattern, "--latency", "2"], killAfter: 60)
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        #expect(result.status == 0, "\(result.stderr)")
        let said = result.stderr.split(separator: "\n").filter { $0.contains("latency") }
        #expect(said.count == 1, "\(result.stderr)")
        #expect(said.first?.hasPrefix("haptic: device 'default' cannot keep a 2 ms latency (it played ") == true)
        #expect(said.first?.contains(" ms instead (--latency-strict keeps 2 ms)") == true, "\(result.stderr)")
        // A 1 s pattern in real time plus the probes, not the 3-10 s of slow motion.
        #expect(seconds < 3.5, "playing took \(seconds) s")
    }

    @Test func strictKeepsTheLatencyAndSaysSo() throws {
        try AudioRig.require()
        let scratch = try ScratchFolder()
        let pattern = try scratch.write(
            "tap.ahap", #"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}}]}"#)
        let result = try Haptic.run(["play", pattern, "--latency", "2", "--latency-strict"], killAfter: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("cannot keep a 2 ms latency"), "\(result.stderr)")
        #expect(result.stderr.contains("keeping it as asked (--latency-strict), so expect slow motion"))
    }

    @Test func theDefaultLatencyIsNotProbed() throws {
        try AudioRig.require()
        let scratch = try ScratchFolder()
        let pattern = try scratch.write(
            "tap.ahap", #"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}}]}"#)
        let result = try Haptic.run(["play", pattern], killAfter: 60)
        #expect(result.status == 0)
        #expect(!result.stderr.contains("latency"), "\(result.stderr)")
    }
}
