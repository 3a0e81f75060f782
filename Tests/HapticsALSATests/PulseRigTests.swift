import Dispatch
import HapticsEngine
import HapticsSynthesis
import Testing
import _HapticsTestSupport

@testable import HapticsALSA

/// Real-time playback through ALSA's `pulse` PCM into the rig's private PulseAudio null sink,
/// recorded from the sink's monitor. Start the rig first: `tools/audio-rig/with-rig swift test`.
///
/// Serialized: every test here plays into the same sink, and the recording hears all of them.
@Suite(
    .serialized, .enabled(if: AudioRig.testsEnabled, "needs the audio rig: tools/audio-rig/with-rig swift test"))
struct PulseRigTests {
    static let rate = 48_000
    static let clickSpacing = 4_800  // 100 ms
    static let clickLength = 24  // 0.5 ms

    /// One second of silence with a 0.5 ms, 0.8-amplitude click every 100 ms (10 clicks).
    static let clicks: [Float] = (0..<rate).map { frame in frame % clickSpacing < clickLength ? 0.8 : 0 }

    /// Judged on a run in which the machine never stalled for 10 ms or more (`onAStillMachine`):
    /// the hypervisor's stalls of 14 to 28 ms are heard as gaps whatever the output does, a fault
    /// of ours in every run.
    @Test func clicksWrittenInRealTimeArriveEvenlySpacedAfterOneSecond() async throws {
        try AudioRig.require()
        let (output, began, seconds, ticks, recorded) = try await onAStillMachine(stallsBelow: 10) {
            let output = try ALSAOutput(
                .init(
                    device: "rig", format: AudioFormat(sampleRate: Self.rate, channels: 1),
                    latencyMilliseconds: 40))
            defer { output.close() }
            let recording = try AudioRig.Recording()
            try output.start()
            let began = DispatchTime.now().uptimeNanoseconds
            let ticks = try await AudioRig.play(Self.clicks, through: output, tickMilliseconds: 5)
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - began) / 1e9
            return (output, began, seconds, ticks, try recording.stop())
        }
        #expect(output.format.sampleRate == Self.rate)

        // Playback paced itself by the device: it took the signal's own second, not less.
        #expect(seconds >= 0.98 && seconds < 1.5, "playing 1 s took \(seconds) s")
        #expect(output.framesWritten == Int64(Self.rate))
        #expect(output.underrunCount == 0)

        // Every click arrived, 100 ms apart within 1 ms (48 frames).
        var onsets: [Int] = []
        for (index, sample) in recorded.enumerated() where sample > 0.4 {
            if let last = onsets.last, index - last < Self.clickSpacing / 2 { continue }
            onsets.append(index)
        }
        #expect(onsets.count == 10, "click onsets at \(onsets)")
        let spacings = zip(onsets.dropFirst(), onsets).map { $0 - $1 }
        #expect(spacings.allSatisfy { abs($0 - Self.clickSpacing) <= 48 }, "spacings \(spacings)")

        // The device position (framesWritten - delay) only moves forward. PulseAudio's first 50-250 ms
        // are unreliable (it reports a delay of 0 or a stale one until its timing info arrives), and
        // later a rare tick still reads a stale delay, so judge the second half robustly: measured over
        // 100 ms spans the position advances at the sample rate, and nearly every tick's delay plus
        // free room is the buffer give or take a period or two (what the server holds).
        let running = ticks.filter { $0.position > 0 }
        #expect(zip(running.dropFirst(), running).allSatisfy { $0.position >= $1.position })
        let settled = ticks.filter { $0.uptimeNanoseconds >= began + 500_000_000 }
        #expect(settled.count > 50)
        let rates = settled.indices.compactMap { start -> Double? in
            guard
                let end = settled[start...].firstIndex(where: {
                    $0.uptimeNanoseconds >= settled[start].uptimeNanoseconds + 100_000_000
                })
            else { return nil }
            return Double(settled[end].position - settled[start].position) * 1e9
                / Double(settled[end].uptimeNanoseconds - settled[start].uptimeNanoseconds)
        }.sorted()
        let medianRate = rates.isEmpty ? 0 : rates[rates.count / 2]
        #expect(
            abs(medianRate - Double(Self.rate)) < Double(Self.rate) * 0.01,
            "position advanced at \(medianRate) frames/s")
        let sane =
            (output.bufferFrames - output.periodFrames)...(output.bufferFrames + 2 * output.periodFrames)
        let saneTicks = settled.filter { sane.contains($0.timing.delayFrames + $0.timing.availableFrames) }
        #expect(
            saneTicks.count * 10 >= settled.count * 9,
            "delay + room outside \(sane) in \(settled.count - saneTicks.count) of \(settled.count) ticks")
    }

    @Test func beforePlaybackStartsTheDelayIsExactlyWhatIsQueued() throws {
        try AudioRig.require()
        // PulseAudio's PCM cannot report a delay before it runs (EIO); nothing has been heard yet,
        // so the output answers with the frames queued.
        let output = try ALSAOutput(.init(device: "rig", latencyMilliseconds: 20))
        defer { output.close() }
        try output.start()
        let fewFrames = [Float](repeating: 0, count: 100)  // less than the 240-frame start threshold
        #expect(try fewFrames.withUnsafeBufferPointer { try output.write($0) } == 100)
        #expect(try output.timing() == OutputTiming(availableFrames: 860, delayFrames: 100))
        #expect(try output.delayFrames() == 100)
        #expect(try output.playbackPosition() == 0)
    }

    @Test func starvingTheDeviceCountsAnUnderrunAndPlaybackResumes() async throws {
        try AudioRig.require()
        let output = try ALSAOutput(.init(device: "rig", latencyMilliseconds: 20))
        defer { output.close() }
        try output.start()
        let silence = [Float](repeating: 0, count: output.bufferFrames)
        #expect(try silence.withUnsafeBufferPointer { try output.write($0) } == output.bufferFrames)

        // Write nothing more: within a few buffer lengths the device must notice it ran dry.
        let starved = try await AudioRig.poll(everyMilliseconds: 5, timeoutMilliseconds: 2_000) {
            _ = try output.timing()
            return output.underrunCount > 0
        }
        #expect(starved)
        #expect(output.underrunCount == 1)

        // After recovery it takes a full buffer again and plays it out.
        #expect(try output.availableFrames() == output.bufferFrames)
        #expect(try silence.withUnsafeBufferPointer { try output.write($0) } == output.bufferFrames)
        try output.drain()
        #expect(output.framesWritten == Int64(2 * output.bufferFrames))
    }
}
