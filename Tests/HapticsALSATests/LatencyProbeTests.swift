import HapticsEngine
import HapticsSynthesis
import Testing
import _HapticsTestSupport

@testable import HapticsALSA

/// `--latency` below what PulseAudio can keep (2-4 ms plays in slow motion, 10-35 % of real time):
/// found by a probe, said once, raised unless strict. In the rig suite, which is serialized: a
/// 2 ms stream keeps the server busy enough to disturb the suite's own timing if run beside it.
extension PulseRigTests {
    @Test func aLatencyTheDeviceCannotKeepIsFoundAndRaised() throws {
        try AudioRig.require()
        let (output, finding) = try LatencyProbe.open(.init(device: "rig", latencyMilliseconds: 2))
        defer { output.close() }
        let found = try #require(finding, "2 ms on the pulse PCM kept up")
        #expect(found.requested.latencyMilliseconds == 2)
        #expect(found.requested.realTimeRatio < 0.9 || found.requested.underruns > 1)
        let working = try #require(found.working)
        #expect(working.keepsUp)
        #expect(working.latencyMilliseconds > 2 && working.latencyMilliseconds <= LatencyProbe.maximumMilliseconds)
        // The output plays at the latency that works: its buffer is that long.
        let bufferMilliseconds = output.bufferFrames * 1_000 / output.format.sampleRate
        #expect(abs(bufferMilliseconds - working.latencyMilliseconds) <= 2, "buffer \(bufferMilliseconds) ms")
    }

    @Test func strictKeepsTheRequestedLatency() throws {
        try AudioRig.require()
        let (output, finding) = try LatencyProbe.open(.init(device: "rig", latencyMilliseconds: 2), strict: true)
        defer { output.close() }
        #expect(finding != nil)
        #expect(output.bufferFrames * 1_000 / output.format.sampleRate <= 3)
    }

    @Test func theDefaultLatencyIsNotProbed() throws {
        try AudioRig.require()
        let (output, finding) = try LatencyProbe.open(.init(device: "rig", latencyMilliseconds: 20))
        output.close()
        #expect(finding == nil)
    }
}

@Suite struct LatencyFindingTests {
    static let requested = LatencyProbe.Measurement(
        latencyMilliseconds: 2, realTimeRatio: 0.104, underruns: 6, seconds: 0.25)
    static let working = LatencyProbe.Measurement(
        latencyMilliseconds: 8, realTimeRatio: 0.99, underruns: 0, seconds: 0.25)

    @Test func theMessageSaysWhatWasMeasuredAndWhatHappensNow() {
        let finding = LatencyProbe.Finding(device: "default", requested: Self.requested, working: Self.working)
        #expect(
            finding.message(strict: false)
                == "device 'default' cannot keep a 2 ms latency (it played 10 % of real time with 6 underruns in 0.2 s); "
                + "playing at 8 ms instead (--latency-strict keeps 2 ms)")
        #expect(
            finding.message(strict: true)
                == "device 'default' cannot keep a 2 ms latency (it played 10 % of real time with 6 underruns in 0.2 s); "
                + "keeping it as asked (--latency-strict), so expect slow motion; 8 ms works")
        let hopeless = LatencyProbe.Finding(device: "default", requested: Self.requested, working: nil)
        #expect(hopeless.message(strict: false).hasSuffix("; no latency up to 80 ms kept up either"))
    }

    @Test func keepingUpMeansNinetyPercentAndAtMostOneUnderrun() {
        #expect(Self.working.keepsUp)
        #expect(!Self.requested.keepsUp)
        #expect(
            !LatencyProbe.Measurement(latencyMilliseconds: 5, realTimeRatio: 0.97, underruns: 8, seconds: 0.25).keepsUp)
    }
}
