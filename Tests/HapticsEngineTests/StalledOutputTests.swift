import Dispatch
import Foundation
import HapticsCore
import HapticsEngine
import HapticsSynthesis
import Synchronization
import Testing

/// A device whose sound server stops: it plays (paced by the wall clock) until `stallAfter`, then
/// takes no frames, and `drain()` and `close()` block, as ALSA's PulseAudio plugin does while it
/// waits for a stopped server, until ``release()``. After `reportAfter` more seconds it reports the
/// stall, as ``AudioOutput/stallError`` of a real device does.
final class StallingOutput: AudioOutput {
    let name = "stalling"
    let format = AudioFormat(sampleRate: 48_000, channels: 1)
    let bufferFrames = 960
    let periodFrames = 240
    private let began = DispatchTime.now().uptimeNanoseconds
    private let stallAt: UInt64
    private let reportAt: UInt64
    private let written = Atomic<Int64>(0)
    private let released = DispatchSemaphore(value: 0)
    private let releasedOnce = Atomic<Bool>(false)

    init(stallAfter: Double, reportAfter: Double) {
        stallAt = began + UInt64(stallAfter * 1e9)
        reportAt = stallAt + UInt64(min(reportAfter, 1e6) * 1e9)
    }

    var stalled: Bool { DispatchTime.now().uptimeNanoseconds >= stallAt }

    func start() throws(AudioOutputError) {}
    func availableFrames() throws(AudioOutputError) -> Int { try timing().availableFrames }
    func delayFrames() throws(AudioOutputError) -> Int { try timing().delayFrames }

    func timing() throws(AudioOutputError) -> OutputTiming {
        let now = min(DispatchTime.now().uptimeNanoseconds, stallAt)
        let heard = Int64(Double(now - began) / 1e9 * Double(format.sampleRate))
        let delay = Int(max(0, min(Int64(bufferFrames), written.load(ordering: .relaxed) - heard)))
        return OutputTiming(availableFrames: bufferFrames - delay, delayFrames: delay)
    }

    func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioOutputError) -> Int {
        let room = try availableFrames()
        let frames = min(room, samples.count)
        written.add(Int64(frames), ordering: .relaxed)
        return frames
    }

    func waitForRoom(timeoutMilliseconds: Int) throws(AudioOutputError) -> Bool {
        usleep(UInt32(timeoutMilliseconds * 1_000))
        return try availableFrames() >= periodFrames
    }

    var framesWritten: Int64 { written.load(ordering: .relaxed) }
    var underrunCount: Int { 0 }

    func drain() throws(AudioOutputError) {
        if stalled { released.wait() }
    }

    func close() {
        if stalled { released.wait() }
    }

    var stallError: AudioOutputError? {
        guard DispatchTime.now().uptimeNanoseconds >= reportAt else { return nil }
        return AudioOutputError(code: .deviceStalled, device: name, message: "device 'stalling' stalled")
    }

    /// Lets every blocked call return (the server resumed).
    func release() {
        guard !releasedOnce.exchange(true, ordering: .relaxed) else { return }
        for _ in 0..<16 { released.signal() }
    }
}

/// `LivePlayback` on a device that stops taking frames: the stall is reported, and Ctrl-C still
/// ends playback at once, though the device never drains or closes.
@Suite struct StalledOutputTests {
    static let file = PatternFile(
        path: "buzz.ahap",
        pattern: HapticPattern(elements: [.event(HapticEvent(time: 0, type: .hapticContinuous, duration: 1))]))

    @Test func aStalledDeviceEndsPlaybackAsFailedWithinTheBound() throws {
        let output = StallingOutput(stallAfter: 0.2, reportAfter: 0.3)
        defer { output.release() }
        let playback = try LivePlayback(file: Self.file, output: output, options: .init(loop: true))
        let started = DispatchTime.now().uptimeNanoseconds
        let outcome = playback.run()
        let seconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
        #expect(outcome == .failed("device 'stalling' stalled"))
        // Stalled at 0.2 s, reported at 0.5 s, polled every 20 ms, stop abandoned after 50 ms.
        #expect(seconds >= 0.5 && seconds < 0.8, "run() took \(seconds) s")
        #expect(playback.statistics.abandonedDevice)
    }

    @Test func ctrlCDuringAStallEndsRunWithinTheStopBudget() throws {
        let output = StallingOutput(stallAfter: 0.2, reportAfter: .infinity)
        defer { output.release() }
        let playback = try LivePlayback(file: Self.file, output: output, options: .init(loop: true))
        let interrupted = Mutex<UInt64>(0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) {
            interrupted.withLock { $0 = DispatchTime.now().uptimeNanoseconds }
            playback.interrupt()
        }
        let outcome = playback.run()
        let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - interrupted.withLock { $0 }) / 1e6
        #expect(outcome == .interrupted)
        // The budget: a 5 ms fade, the 20 ms buffer and 40 ms; the device itself never drains.
        #expect(playback.stopBudgetSeconds(after: .interrupted) == 0.005 + 0.02 + 0.04)
        #expect(milliseconds < 100, "run() returned \(milliseconds) ms after the interrupt")
        #expect(playback.statistics.abandonedDevice)
    }
}
