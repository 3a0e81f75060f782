import Testing
import _HapticsTestSupport

@testable import HapticsSynthesis

/// `ConversionCheck`'s envelope rule on generated envelopes (one value per 5 ms hop): a flat
/// original is judged by its level, any other by the correlation of its shape.
@Suite struct FlatEnvelopeCheckTests {
    /// `count` hops at `level` with an independent ripple of +-`ripple` (relative), as two
    /// renders of one flat level differ by their carriers' ripple.
    static func flat(_ level: Double, ripple: Double, count: Int = 400, seed: UInt64) -> [Double] {
        var random = SplitMix64(seed: seed)
        return (0..<count).map { _ in level * (1 + ripple * (2 * Double(random.next() % 10_000) / 10_000 - 1)) }
    }

    @Test func aFlatPairWithinTheToleranceIsKeptThoughItsRippleDoesNotCorrelate() {
        // doom.ahap's case: 3 % ripple on each side, independent; the levels agree.
        let (a, b) = (Self.flat(0.2, ripple: 0.04, seed: 1), Self.flat(0.2, ripple: 0.04, seed: 2))
        let judged = ConversionCheck.judge(original: a, converted: b)
        #expect((judged.correlation ?? 1) < 0.5, "\(judged)")
        #expect((judged.spread ?? 1) < ConversionCheck.flatSpread, "\(judged)")
        #expect((judged.levelDifference ?? 9) < ConversionCheck.flatLevelTolerance, "\(judged)")
        #expect(judged.kept, "\(judged)")
    }

    @Test func aFlatPair3dBApartIsNotKept() {
        let a = Self.flat(0.2, ripple: 0.04, seed: 1)
        let b = Self.flat(0.2 * 1.4125, ripple: 0.04, seed: 2)  // +3 dB
        let judged = ConversionCheck.judge(original: a, converted: b)
        #expect(abs((judged.levelDifference ?? 0) - 3) < 0.5, "\(judged)")
        #expect(!judged.kept, "\(judged)")
    }

    @Test func aFlatPairThatEndsEarlyIsNotKept() {
        // The level rule reads the length too: 10 % of the original's windows silent in the other.
        let a = Self.flat(0.2, ripple: 0.04, seed: 1)
        let b = Array(Self.flat(0.2, ripple: 0.04, seed: 2).prefix(360))
        #expect(!ConversionCheck.judge(original: a, converted: b).kept)
    }

    @Test func aShapedEnvelopeIsStillJudgedByCorrelation() {
        // A 90 ms gap in a 2 s buzz (spread 22 %): lost in the conversion, the levels still agree
        // on 95.5 % of the windows, so only the correlation sees it. (A gap of 1 % of the length
        // or less reads as flat; the onset rule names it when it is 10 ms or longer.)
        var a = Self.flat(0.2, ripple: 0.04, seed: 1)
        for i in 200..<218 { a[i] = 0.0005 }
        let b = Self.flat(0.2, ripple: 0.04, seed: 2)
        let lost = ConversionCheck.judge(original: a, converted: b)
        #expect((lost.spread ?? 0) > ConversionCheck.flatSpread, "\(lost)")
        #expect((lost.levelDifference ?? 9) < ConversionCheck.flatLevelTolerance, "\(lost)")
        #expect(!lost.kept, "\(lost)")
        // The same shape 3 dB louder: the correlation keeps it, as before.
        let louder = ConversionCheck.judge(original: a, converted: a.map { $0 * 1.4125 })
        #expect((louder.correlation ?? 0) > 0.99 && louder.kept, "\(louder)")
    }
}
