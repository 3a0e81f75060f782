import HapticsEngine
import HapticsSynthesis
import HapticsTesting
import Synchronization
import Testing

@testable import HapticsALSA

/// The outputs that need no device: NullOutput (offline runs) and RecordingOutput (the test double).
@Suite struct OutputDoublesTests {
    @Test func nullOutputTakesEverythingAtOnceAndCountsFrames() throws {
        let output = NullOutput(format: AudioFormat(sampleRate: 48_000, channels: 2))
        #expect(output.bufferFrames == 960)
        #expect(output.periodFrames == 240)
        try output.start()
        let stereo = [Float](repeating: 0.1, count: 2 * 10_000)
        #expect(try stereo.withUnsafeBufferPointer { try output.write($0) } == 10_000)
        #expect(try output.timing() == OutputTiming(availableFrames: 960, delayFrames: 0))
        #expect(try output.waitForRoom(timeoutMilliseconds: 1_000))
        #expect(output.framesWritten == 10_000)
        #expect(try output.playbackPosition() == 10_000)
        #expect(output.underrunCount == 0)
    }

    @Test func nullOutputRefusesWorkAfterClose() throws {
        let output = NullOutput(name: "offline")
        output.close()
        let error = #expect(throws: AudioOutputError.self) { try output.availableFrames() }
        #expect(error?.code == .closed)
        #expect(error?.description == "device 'offline' was already closed; open a new output to play again")
    }

    @Test func recordingOutputFillsItsBufferAndFreesRoomAsItPlays() throws {
        let output = RecordingOutput(format: AudioFormat(sampleRate: 48_000, channels: 1), bufferFrames: 8)
        try output.start()
        let ramp: [Float] = (0..<12).map { Float($0) / 16 }
        // Only 8 frames fit; the rest is refused, as a full device would.
        #expect(try ramp.withUnsafeBufferPointer { try output.write($0) } == 8)
        #expect(try output.timing() == OutputTiming(availableFrames: 0, delayFrames: 8))
        output.play(frames: 3)
        #expect(try output.timing() == OutputTiming(availableFrames: 3, delayFrames: 5))
        #expect(try output.playbackPosition() == 3)
        #expect(try ramp[8...].withUnsafeBufferPointer { try output.write($0) } == 3)
        #expect(output.samples == Array(ramp[0..<11]))
        #expect(output.writes.map(\.firstFrame) == [0, 8])
        #expect(output.writes.map(\.delayFrames) == [0, 5])
        #expect(output.underrunCount == 0)
    }

    @Test func recordingOutputStampsWritesWithTheInjectedClock() throws {
        let now = Mutex<UInt64>(1_000)
        let output = RecordingOutput(playback: .clockless, clock: { now.withLock { $0 } })
        try output.start()
        let block = [Float](repeating: 0.5, count: 4_000)
        _ = try block.withUnsafeBufferPointer { try output.write($0) }
        now.withLock { $0 = 6_000_000 }
        _ = try block.withUnsafeBufferPointer { try output.write($0) }
        #expect(output.writes.map(\.uptimeNanoseconds) == [1_000, 6_000_000])
        #expect(output.writes.map(\.firstFrame) == [0, 4_000])
        #expect(try output.availableFrames() == 960)  // Clockless: never fills up.
    }

    @Test func recordingOutputCountsAnUnderrunWhenPlayedDry() throws {
        let output = RecordingOutput(bufferFrames: 100)
        try output.start()
        let block = [Float](repeating: 0, count: 50)
        _ = try block.withUnsafeBufferPointer { try output.write($0) }
        output.play(frames: 50)
        #expect(output.underrunCount == 0)
        output.play(frames: 1)
        #expect(output.underrunCount == 1)
        #expect(try output.delayFrames() == 0)
        try output.drain()
        output.play(frames: 10)  // Stopped devices do not run dry.
        #expect(output.underrunCount == 1)
        #expect(output.isDrained)
    }

    @Test func recordingOutputThrowsAnInjectedErrorOnce() throws {
        let output = RecordingOutput()
        let failure = AudioOutputError(code: .deviceFailure, device: "recording", message: "unplugged")
        output.failNextCall(with: failure)
        #expect(throws: failure) { try output.availableFrames() }
        #expect(try output.availableFrames() == 960)
        output.close()
        #expect(throws: AudioOutputError.closed(device: "recording")) { try output.start() }
        #expect(output.isClosed)
    }
}

@Suite struct StallClockTests {
    /// The stall watchdog reads its clock, then the time a call began on another thread: a call
    /// that began after the read is no time at all (a wrapped subtraction once declared a healthy
    /// device stalled under load).
    @Test func aStartLaterThanNowIsNoTimeAtAll() {
        #expect(ALSAOutput.nanoseconds(from: 2_000_000_000, to: 1_999_999_000) == 0)
        #expect(ALSAOutput.nanoseconds(from: 1_000, to: 2_500_000_000) == 2_499_999_000)
    }
}
