import HapticsCore
import HapticsEngine
import HapticsSynthesis
import HapticsTesting
import Testing

private func tap(_ time: Double) -> PatternElement {
    .event(
        HapticEvent(
            time: time, type: .hapticTransient,
            parameters: [.init(.hapticIntensity, 1), .init(.hapticSharpness, 0.5)]))
}

@Suite struct ManualEngineDriverTests {
    @Test func clockAndDeviceMoveTogether() {
        let driver = ManualEngineDriver()
        driver.advance(by: .milliseconds(10))
        #expect(driver.framesPlayed == 480)
        #expect(driver.clock.nanoseconds == 10_000_000)
        #expect(driver.elapsed == .milliseconds(10))
        driver.advance(to: .milliseconds(25))
        #expect(driver.framesPlayed == 1_200)
        #expect(driver.clock.nanoseconds == 25_000_000)
        driver.advance(to: .milliseconds(5))  // already past: nothing happens
        #expect(driver.framesPlayed == 1_200)
    }

    @Test func unevenTicksStillPlayExactlyTheFramesAsked() {
        let driver = ManualEngineDriver(format: AudioFormat(sampleRate: 44_100, channels: 1))
        driver.advance(frames: 1_000, tickFrames: [7, 300, 64])
        #expect(driver.framesPlayed == 1_000)
        // The clock is the frame count at the rate, never drifting by per-step rounding.
        #expect(driver.clock.nanoseconds == 1_000 * 1_000_000_000 / 44_100)
    }

    @Test func eventsLandOnTheirFrameWhateverTheTickSize() throws {
        for tickFrames in [64, 192, 500] {
            let driver = ManualEngineDriver(tickFrames: tickFrames)
            try driver.engine.start()
            let player = try driver.engine.makePlayer(HapticPattern(elements: [tap(0.1), tap(0.35)]))
            try player.start(atTime: 0)
            driver.advance(by: .milliseconds(500))
            let onsets = AudioAnalysis.onsets(driver.samples, channels: 1, minGapFrames: 960)
            #expect(onsets == [4_800, 16_800], "tick of \(tickFrames) frames")
            #expect(driver.output.underrunCount == 0)
        }
    }

    @Test func theEngineIsMadeOnceOnFirstUse() {
        let driver = ManualEngineDriver()
        #expect(driver.engine === driver.engine)
        #expect(!driver.ticks.isRunning)
    }
}
