import HapticsCore
import HapticsEngine
import HapticsSynthesis
import HapticsTesting
import Testing

/// Times and rates given to the engine that cannot become frame positions are refused with an
/// error, never a trap (issue 32).
@Suite struct FrameRangeEngineTests {
    @Test func aPatternWithATimeOutOfRangeIsInvalidPatternData() throws {
        var configuration = HapticEngine.Configuration()
        configuration.maxPatternSeconds = .infinity  // as CHHapticEngine has it
        let rig = ManualEngineDriver(configuration: configuration)
        try rig.engine.start()
        let far = HapticPattern(elements: [tap(1e300)])
        #expect(throws: HapticEngineError.self) { _ = try rig.engine.makePlayer(far) }
        do {
            _ = try rig.engine.makePlayer(far)
        } catch {
            #expect(error.code == .invalidPatternData)
            #expect(error.description.contains("cannot be a frame position"), "\(error)")
        }
    }

    @Test func tinyRatesAreIgnoredAndHugeTimesRefused() throws {
        let rig = ManualEngineDriver()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(HapticPattern(elements: [tap(0), tap(0.5)]))
        for rate: Float in [1e-30, .leastNonzeroMagnitude, 1e-7] {
            player.playbackRate = rate
            #expect(player.playbackRate == 1, "rate \(rate) would make 0.5 s last more than an hour")
        }
        player.playbackRate = 2
        #expect(player.playbackRate == 2)
        #expect(throws: HapticEngineError.self) { try player.start(atTime: 1e300) }
        #expect(throws: HapticEngineError.self) {
            try player.sendParameters([DynamicParameter(.hapticIntensityControl, value: 1, time: 1e300)], atTime: 0)
        }
        // A seek past everything plays nothing; a loop end past the frame range plays the pattern
        // (taps at 0 and 0.25 s at rate 2). Neither traps.
        try player.seek(toOffset: 1e300)
        try player.start(atTime: 0)
        rig.advance(by: .seconds(0.1))
        #expect(rig.samples.allSatisfy { $0 == 0 })
        try player.stop(atTime: 0)
        player.loopEnd = 1e300
        player.loopEnabled = true
        try player.start(atTime: 0)
        rig.advance(by: .seconds(0.5))
        #expect(onsets(rig.samples).count == 2, "\(onsets(rig.samples))")
    }
}
