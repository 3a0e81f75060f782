import Testing
import _HapticsTestSupport

@testable import HapticsSynthesis

/// A phase increment is rounded without a call to `rint` (`Synthesizer.roundedToEven`); it must
/// give what `rounded(.toNearestOrEven)` gives, bit for bit, ties and edges included.
@Suite struct RoundingTests {
    static let big = 4_503_599_627_370_496.0  // 2^52

    @Test func tiesGoToTheEvenNeighbour() {
        let ties: [(Double, Double)] = [
            (0.5, 0), (1.5, 2), (2.5, 2), (3.5, 4), (2_147_483_646.5, 2_147_483_646),
            (2_147_483_647.5, 2_147_483_648), (Self.big - 1.5, Self.big - 2),
        ]
        for (x, expected) in ties {
            #expect(Synthesizer.roundedToEven(x) == expected, "\(x)")
        }
    }

    @Test func everyValueRoundsAsTheStandardLibraryRounds() {
        var random = SplitMix64(seed: 12)
        var values: [Double] = [
            0, -0.0, 0.49999999999999994, 0.5000000000000001, 1, 4_294_967_296, Self.big - 0.5, Self.big,
            Self.big + 1, -0.5, -1.5, -2.5, 1e300, -.infinity, .infinity, .nan,
            .leastNonzeroMagnitude, .greatestFiniteMagnitude,
        ]
        for _ in 0..<20_000 {
            // Phase increments: up to 2^31, with fractions of every kind.
            values.append(Double(random.next() % (1 << 31)) + Double(random.next() % 1_024) / 1_024)
            values.append(Double(bitPattern: random.next()))
        }
        for x in values {
            let expected = x.rounded(.toNearestOrEven)
            let got = Synthesizer.roundedToEven(x)
            #expect(got.bitPattern == expected.bitPattern || (got.isNaN && expected.isNaN), "\(x)")
        }
    }
}
