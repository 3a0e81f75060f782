/// Base-10 logarithms eight at a time, for the analysis' per-band log compression.
///
/// glibc's `log10f` is a call per value that does not vectorise, and one per band of every frame
/// was a tenth of a conversion's time (BENCHMARKS.md, issue 30). This is the Cephes library's
/// `logf` on SIMD lanes: the exponent and the mantissa taken from the bits, the mantissa brought
/// into [√½, √2), a degree-9 polynomial for log(1 + f); within 2 ulp of `log10f` from 1 to 10^7
/// (`RealFFTTests`). A library (SLEEF) would add a system dependency and a build flag for this
/// one function.
enum VectorLog {
    typealias V = SIMD8<Float>

    /// log10(x) per lane. `x` must be positive, normal and finite (the analysis passes
    /// 1 + λ·|X| >= 1); other lanes give a finite but meaningless value, never a trap.
    @inline(__always)
    static func log10(_ x: V) -> V {
        let bits = unsafeBitCast(x, to: SIMD8<Int32>.self)
        var exponent = V((bits &>> 23) &- 127)
        var m = unsafeBitCast((bits & 0x007F_FFFF) | 0x3F80_0000, to: V.self)
        let high = m .> V(repeating: 1.414_213_56)
        m.replace(with: m * 0.5, where: high)
        exponent.replace(with: exponent + 1, where: high)
        let f = m - 1
        let z = f * f
        var y = V(repeating: 7.037_683_629_2e-2)
        y = y * f - 1.151_461_031_0e-1
        y = y * f + 1.167_699_874_0e-1
        y = y * f - 1.242_014_084_6e-1
        y = y * f + 1.424_932_278_7e-1
        y = y * f - 1.666_805_766_5e-1
        y = y * f + 2.000_071_476_5e-1
        y = y * f - 2.499_999_399_3e-1
        y = y * f + 3.333_333_117_4e-1
        y = y * f * z
        y += exponent * -2.121_944_40e-4
        y -= 0.5 * z
        let ln = f + y + exponent * 0.693_359_375
        return ln * 0.434_294_481_903_251_8
    }
}
