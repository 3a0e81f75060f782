import Foundation
import Testing

/// Options that scale time (`play --rate`, `order replay --speed`) are checked against the
/// pattern before any time is divided by them: one line and status 1, never a trap (issue 32).
@Suite struct TimeScaleTests {
    @Test func aRateThatSlowsThePatternPastAnHourIsOneLine() async throws {
        let pattern = Haptic.patterns.appending(path: "examples/rising-falling.ahap").path(percentEncoded: false)
        for (rate, length) in [("1e-30", "1.9e+30"), ("1e-07", "19000000")] {
            let result = try await Haptic.run(["play", "--rate", rate, pattern], killAfter: 30)
            #expect(result.status == 1, "\(result.stderr)")
            #expect(
                result.stderr
                    == "haptic: \(pattern): --rate \(rate) would make this 1.9 s pattern last \(length) s; "
                    + "the longest is 3600 s (the slowest rate for it is 0.000528)\n")
        }
        let zero = try await Haptic.run(["play", "--rate", "0", pattern], killAfter: 30)
        #expect(zero.status != 0)
        #expect(zero.stderr.contains("--rate must be above 0"))
    }

    @Test func aSpeedThatStretchesTheReplayPastADayIsOneLine() async throws {
        let scratch = try ScratchFolder()
        let log = try scratch.write(
            "log.jsonl", #"{"change":"checkout","feedback":"success","new":"order x","t":0.5}"# + "\n")
        let result = try await Haptic.run(
            ["order", "replay", log, "--speed", "1e-300", "-o", scratch.path("out.wav")], killAfter: 30)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "haptic: --speed 1e-300 would make the replay of \(log) last 5e+299 s; the longest is 86400 s (one day)\n"
        )
    }
}
