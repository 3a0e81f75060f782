import HapticsCore
import HapticsTesting
import Synchronization
import Testing

@testable import HapticsEngine
@testable import HapticsSynthesis

@Suite("Player.playbackRate")
struct PlaybackRateTests {
    @Test("Setting the rate a player already has keeps its prepared pattern; another rate prepares anew")
    func sameRateKeepsThePreparedPattern() throws {
        // `haptic play` sets the rate (1) before it starts: preparing a long pattern again held
        // two prepared copies at once (28 MB of a 3-hour sound's peak, BENCHMARKS.md).
        let rig = ManualEngineDriver()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(HapticPattern(elements: [tap(0), tap(0.2), tap(0.4)]))
        func prepared() -> PreparedPattern.Storage { player.state.withLock { $0.prepared.storage } }
        let first = prepared()
        player.playbackRate = 1
        #expect(prepared() === first)
        player.playbackRate = 2
        let doubled = prepared()
        #expect(doubled !== first)
        player.playbackRate = 2
        #expect(prepared() === doubled)
        try player.start(atTime: 0.1)
        rig.advance(by: .seconds(0.6))
        #expect(onsets(rig.samples) == [4_800, 9_600, 14_400])
    }
}
