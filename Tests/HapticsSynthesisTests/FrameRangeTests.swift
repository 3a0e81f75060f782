import HapticsCore
import HapticsSynthesis
import Testing

/// A time that cannot become a frame count is an error, never a trap (issue 32: the studio died
/// with SIGILL converting a 1-second event at rate 1e-40).
@Suite struct FrameRangeTests {
    static let format = AudioFormat(sampleRate: 48_000)

    @Test func framePositionsOfOrdinaryTimesAreRoundedProducts() throws {
        #expect(try Self.format.frame(at: 3_600) == 172_800_000)
        #expect(try Self.format.frame(at: 0.1003) == 4_814)
        #expect(try Self.format.frame(at: -0.5) == -24_000)
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity, 1e40, -1e300, 1e300, 2.4e10])
    func aTimeOutsideTheFrameRangeThrows(seconds: Double) {
        #expect(throws: FrameRangeError.self) { try Self.format.frame(at: seconds) }
    }

    @Test func theErrorSaysWhichTimeAndTheLimit() {
        let error = FrameRangeError(seconds: 1e40, sampleRate: 48_000)
        #expect(
            error.description
                == "time 1e+40 s cannot be a frame position at 48000 Hz (times must be finite and within ±23456248059 s)"
        )
    }

    @Test func aPatternBuiltInCodeWithSuchATimeIsRefusedByTheRenderer() {
        let far = HapticPattern(elements: [.event(HapticEvent(time: 1e300, type: .hapticTransient))])
        #expect(throws: FrameRangeError.self) { _ = try PatternRenderer(pattern: far, format: Self.format) }
        let endless = HapticPattern(elements: [
            .event(HapticEvent(time: 0, type: .hapticContinuous, duration: .infinity))
        ])
        #expect(throws: FrameRangeError.self) { _ = try PatternRenderer.render(endless, format: Self.format) }
        #expect(throws: FrameRangeError.self) {
            _ = try Synthesizer.prepare(far, clips: [:], format: Self.format, voicing: .standard)
        }
    }

    @Test func aRateIsCheckedAgainstThePatternsLength() {
        let second = HapticPattern(elements: [
            .event(HapticEvent(time: 0, type: .hapticContinuous, duration: 1))
        ])
        #expect(second.rateProblem(0.5, maxSeconds: 3_600) == nil)
        #expect(second.rateProblem(1.0 / 3_600, maxSeconds: 3_600) == nil)
        #expect(
            second.rateProblem(1e-7, maxSeconds: 3_600)
                == "rate 1e-07 would make this 1 s pattern last 10000000 s; the longest is 3600 s "
                + "(the slowest rate for it is 0.000278)")
        #expect(second.rateProblem(1e-40, maxSeconds: 3_600)?.hasPrefix("rate 1e-40 would make") == true)
        #expect(second.rateProblem(0, maxSeconds: 3_600) == "rate 0.0 must be a number above 0")
        #expect(second.rateProblem(-2, maxSeconds: 3_600) == "rate -2.0 must be a number above 0")
        #expect(second.rateProblem(.nan, maxSeconds: 3_600) == "rate nan must be a number above 0")
    }
}
