/// A small seeded random number generator (SplitMix64), so "random" tests are reproducible:
/// the same seed gives the same sequence on every platform and run.
///
/// ```swift
/// var generator = SplitMix64(seed: 0x5EED)
/// let frames = Int.random(in: 1...3_000, using: &generator)
/// let byte = UInt8(truncatingIfNeeded: generator.next())
/// ```
///
/// Not for cryptography: its whole state is one 64-bit word.
package struct SplitMix64: RandomNumberGenerator, Hashable, Sendable {
    /// The generator's state; `next()` advances it by a fixed odd constant.
    package var state: UInt64

    /// A generator that starts from `seed`.
    package init(seed: UInt64) { state = seed }

    /// The next 64 pseudo-random bits.
    ///
    /// - Complexity: O(1).
    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
