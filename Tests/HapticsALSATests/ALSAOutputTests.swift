import Foundation
import HapticsEngine
import HapticsSynthesis
import Testing
import _HapticsTestSupport

@testable import HapticsALSA

/// ALSA devices that exist everywhere: `null` (discards) and `file` (exact raw capture, not clocked).
@Suite struct ALSAOutputTests {
    @Test func nullDeviceNegotiatesFloatAtTheRequestedRateAndTakesEverything() throws {
        let output = try ALSAOutput(
            .init(device: "null", format: AudioFormat(sampleRate: 48_000, channels: 1)))
        defer { output.close() }
        #expect(output.format == AudioFormat(sampleRate: 48_000, channels: 1))
        #expect(output.sampleFormat == .float32)
        #expect(output.bufferFrames == 960)  // 20 ms at 48 kHz
        #expect(output.periodFrames == 240)

        try output.start()
        let second = [Float](repeating: 0.25, count: 48_000)
        let accepted = try second.withUnsafeBufferPointer { try output.write($0) }
        #expect(accepted == 48_000)
        #expect(output.framesWritten == 48_000)
        #expect(output.underrunCount == 0)
        try output.drain()
    }

    @Test func latencySetsTheBufferAndAQuarterOfItThePeriod() throws {
        let output = try ALSAOutput(
            .init(
                device: "null", format: AudioFormat(sampleRate: 44_100, channels: 2), latencyMilliseconds: 40)
        )
        defer { output.close() }
        #expect(output.format == AudioFormat(sampleRate: 44_100, channels: 2))
        #expect(output.bufferFrames == 1_764)
        #expect(output.periodFrames == 441)
    }

    @Test func fewerPeriodsPerBufferMeanLongerPeriodsAndAHigherStartThreshold() throws {
        let output = try ALSAOutput(.init(device: "null", latencyMilliseconds: 20, periodsPerBuffer: 2))
        defer { output.close() }
        #expect(output.bufferFrames == 960)
        #expect(output.periodFrames == 480)
        let engine = HapticEngine(output: output, ticks: ManualTickSource())
        #expect(engine.tickIntervalNanoseconds == 10_000_000)
    }

    @Test func theNullDeviceHasNoClockSoThereIsAlwaysRoomAndNoDelay() throws {
        let output = try ALSAOutput(.init(device: "null"))
        defer { output.close() }
        try output.start()
        let block = [Float](repeating: 0, count: 2_000)
        #expect(try block.withUnsafeBufferPointer { try output.write($0) } == 2_000)
        #expect(try output.timing() == OutputTiming(availableFrames: 960, delayFrames: 0))
        #expect(try output.playbackPosition() == 2_000)
    }

    @Test func drainedOutputPlaysAgainAfterStart() throws {
        let output = try ALSAOutput(.init(device: "null"))
        defer { output.close() }
        let block = [Float](repeating: 0, count: 480)
        try output.start()
        #expect(try block.withUnsafeBufferPointer { try output.write($0) } == 480)
        try output.drain()
        try output.start()
        #expect(try block.withUnsafeBufferPointer { try output.write($0) } == 480)
        #expect(output.framesWritten == 960)
    }

    @Test func everyCallAfterCloseSaysTheOutputIsClosed() throws {
        let output = try ALSAOutput(.init(device: "null"))
        output.close()
        output.close()
        let expected = "device 'null' was already closed; open a new output to play again"
        let error = #expect(throws: AudioOutputError.self) {
            try [Float](repeating: 0, count: 4).withUnsafeBufferPointer { try output.write($0) }
        }
        #expect(error?.code == .closed)
        #expect(error?.description == expected)
        #expect(throws: AudioOutputError.closed(device: "null")) { try output.availableFrames() }
        #expect(throws: AudioOutputError.closed(device: "null")) { try output.timing() }
        #expect(throws: AudioOutputError.closed(device: "null")) { try output.drain() }
    }

    // MARK: Missing and busy devices

    @Test(arguments: [
        (
            "haptic-no-such-device",
            "device 'haptic-no-such-device' not found: ALSA says 'No such file or directory' "
                + "(Unknown PCM haptic-no-such-device); list devices with `haptic devices`"
        ),
        (
            "hw:31",
            "device 'hw:31' not found: ALSA says 'No such file or directory' "
                + "(Cannot get card index for 31); list devices with `haptic devices`"
        ),
    ])
    func missingDeviceSaysSoAndHowToListDevices(device: String, message: String) {
        let error = #expect(throws: AudioOutputError.self) { try ALSAOutput(.init(device: device)) }
        #expect(error?.code == .deviceNotFound)
        #expect(error?.device == device)
        #expect(error?.description == message)
    }

    @Test func busyDeviceSuggestsClosingTheOtherProgramOrSharing() {
        // No machine in CI has a sound card to hold open; the funnel's mapping is what decides the text.
        let call = ALSACall(device: "hw:0")
        call.clearDiagnostic()
        let error = call.error(errorNumber: EBUSY, "be opened for playback")
        #expect(error.code == .deviceBusy)
        #expect(error.systemErrorNumber == EBUSY)
        #expect(
            error.description
                == "device 'hw:0' is busy: another program is using it (ALSA says 'Device or resource busy'); "
                + "close that program, or play through 'default', which can share the device")
    }

    @Test func otherFailuresSayWhatWeWereDoing() {
        let call = ALSACall(device: "default")
        call.clearDiagnostic()
        let error = call.error(errorNumber: EIO, "report its free room and delay")
        #expect(error.code == .deviceFailure)
        #expect(
            error.description
                == "device 'default' could not report its free room and delay: ALSA says 'Input/output error'"
        )
    }

    // MARK: Exact capture through the file PCM

    /// Samples whose conversions are known by hand: halves and quarters, both rails, out of range, NaN.
    static let probe: [Float] = [0, 0.5, -0.5, 1, -1, 1.5, -2, 0.25, .nan, -0.25]

    @Test(arguments: [
        (
            ALSASampleFormat.signed16,
            [0, 16_384, -16_384, 32_767, -32_767, 32_767, -32_767, 8_192, 0, -8_192]
        ),
        (
            ALSASampleFormat.signed32,
            [
                0, 1_073_741_824, -1_073_741_824, 2_147_483_647, -2_147_483_647, 2_147_483_647,
                -2_147_483_647,
                536_870_912, 0, -536_870_912,
            ]
        ),
    ])
    func integerDevicesGetClampedRoundedSamples(format: ALSASampleFormat, expected: [Int64]) throws {
        let bytes = try capture(Self.probe, format: format, channels: 1)
        let decoded: [Int64] =
            format == .signed16
            ? littleEndianIntegers(bytes, width: 2).map { Int64(Int16(truncatingIfNeeded: $0)) }
            : littleEndianIntegers(bytes, width: 4).map { Int64(Int32(truncatingIfNeeded: $0)) }
        #expect(decoded == expected)
    }

    @Test func floatDevicesGetOurSamplesBitForBit() throws {
        let bytes = try capture(Self.probe, format: .float32, channels: 1)
        let expected = Self.probe.flatMap { withUnsafeBytes(of: $0.bitPattern.littleEndian, Array.init) }
        #expect(bytes == expected)
    }

    /// A long stereo ramp written in odd-sized blocks crosses the conversion buffer many times.
    @Test(arguments: ALSASampleFormat.allCases, [1, 2])
    func longWritesArriveCompleteAndInOrder(format: ALSASampleFormat, channels: Int) throws {
        let frames = 10_007
        let signal = (0..<(frames * channels)).map { Float($0 % 64 - 32) / 32 }
        let bytes = try capture(signal, format: format, channels: channels, blockFrames: 1_531)
        #expect(bytes.count == frames * channels * format.bytesPerSample)
        switch format {
        case .float32:
            #expect(littleEndianIntegers(bytes, width: 4).map { Float(bitPattern: UInt32($0)) } == signal)
        case .signed32:
            let expected = signal.map { Int32((Double($0) * 2_147_483_647).rounded()) }
            #expect(littleEndianIntegers(bytes, width: 4).map { Int32(truncatingIfNeeded: $0) } == expected)
        case .signed16:
            let expected = signal.map { Int16((Double($0) * 32_767).rounded()) }
            #expect(littleEndianIntegers(bytes, width: 2).map { Int16(truncatingIfNeeded: $0) } == expected)
        }
    }

    /// With the rig's config loaded, its `haptic_capture` PCM (tools/audio-rig/capture.conf) does the same.
    /// (ALSA's device list leaves out PCMs that need arguments, so it is not listed.)
    @Test(.enabled(if: AudioRig.testsEnabled, "needs tools/audio-rig/start"))
    func rigCapturePCMKeepsEveryByte() throws {
        try AudioRig.require()
        let bytes = try capture(
            Self.probe, format: .signed16, channels: 1, device: { "haptic_capture:FILE=\($0)" })
        #expect(littleEndianIntegers(bytes, width: 2).count == Self.probe.count)
        #expect(littleEndianIntegers(bytes, width: 2)[1] == 16_384)
    }

    // MARK: Device list

    @Test func deviceListOffersNullWithItsDescription() throws {
        let devices = try ALSADevices.list()
        #expect(
            devices.contains(
                DeviceInfo(
                    name: "null",
                    description: "Discard all samples (playback) or generate zero samples (capture)")))
        #expect(Set(devices.map(\.name)).count == devices.count)
    }

    @Test(.enabled(if: AudioRig.testsEnabled, "needs tools/audio-rig/start"))
    func deviceListOffersTheRigDevices() throws {
        try AudioRig.require()
        let devices = try ALSADevices.list()
        #expect(
            devices.contains(
                DeviceInfo(name: "rig", description: "swift-haptics audio rig (private PulseAudio null sink)")
            ))
    }

    // MARK: Helpers

    /// Writes `samples` through ALSA's `file` PCM in the given format and returns the raw bytes it stored.
    private func capture(
        _ samples: [Float], format: ALSASampleFormat, channels: Int, blockFrames: Int = 3,
        device: (String) -> String = { "file:FILE=\($0),FORMAT=raw" }
    ) throws -> [UInt8] {
        let path = FileManager.default.temporaryDirectory
            .appending(path: "haptic-capture-\(UUID().uuidString).raw").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = try ALSAOutput(
            .init(
                device: device(path), format: AudioFormat(sampleRate: 48_000, channels: channels),
                sampleFormats: [format]))
        #expect(output.sampleFormat == format)
        #expect(output.format.channels == channels)
        try output.start()
        try samples.withUnsafeBufferPointer { all in
            var offset = 0
            while offset < all.count {
                let end = min(all.count, offset + blockFrames * channels)
                let accepted = try output.write(UnsafeBufferPointer(rebasing: all[offset..<end]))
                #expect(accepted == (end - offset) / channels)
                offset = end
            }
        }
        try output.drain()
        output.close()
        return Array(try Data(contentsOf: URL(filePath: path)))
    }

    private func littleEndianIntegers(_ bytes: [UInt8], width: Int) -> [UInt64] {
        stride(from: 0, to: bytes.count - width + 1, by: width).map { start in
            (0..<width).reduce(UInt64(0)) { $0 | UInt64(bytes[start + $1]) << (8 * $1) }
        }
    }
}
