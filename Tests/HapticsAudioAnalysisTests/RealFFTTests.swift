import Foundation
import Testing

@testable import HapticsAudioAnalysis

/// The analysis' FFT and its log compression against plain double-precision definitions: every
/// pass (the radix-2 first pass, the paired quarter-length-2 groups, the SIMD4 groups, the
/// vector split) is reached by one of the sizes.
@Suite("Analysis: the FFT's power spectrum and the vector log")
struct RealFFTTests {
    /// |X[k]|² by the definition, in double precision.
    static func dft(_ x: [Float]) -> [Double] {
        let n = x.count
        return (0...(n / 2)).map { k in
            var re = 0.0
            var im = 0.0
            for (i, v) in x.enumerated() {
                let angle = -2 * Double.pi * Double(k * i % n) / Double(n)
                re += Double(v) * cos(angle)
                im += Double(v) * sin(angle)
            }
            return re * re + im * im
        }
    }

    @Test("power matches the definition at every size from 4 to 4096", arguments: (2...12).map { 1 << $0 })
    func powerMatchesTheDefinition(size: Int) {
        var noise = Noise(state: UInt64(size))
        // Noise, a DC offset and a sine on bin size/8 + 0.3 (energy in every bin, a peak off-bin).
        let x = (0..<size).map { i in
            0.3 * noise.next() + 0.1 + 0.5
                * Float(sin(2 * Double.pi * (Double(size) / 8 + 0.3) * Double(i) / Double(size)))
        }
        let fft = RealFFT(size: size)
        var out = [Float](repeating: -1, count: size / 2 + 1)
        x.withUnsafeBufferPointer { frame in
            out.withUnsafeMutableBufferPointer { fft.power(frame.baseAddress!, into: $0.baseAddress!) }
        }
        let expected = Self.dft(x)
        let scale = expected.max()!
        var worst = 0.0
        var at = 0
        for k in expected.indices where abs(Double(out[k]) - expected[k]) > worst {
            worst = abs(Double(out[k]) - expected[k])
            at = k
        }
        #expect(worst <= 2e-5 * scale, "size \(size): bin \(at) is \(out[at]), the definition \(expected[at])")
    }

    @Test("the vector log10 is within 2 ulp of log10f from 1 to 10^7")
    func vectorLog() {
        var x: Float = 1
        var worst: Float = 0
        var at: Float = 1
        while x < 1e7 {
            var v = SIMD8<Float>()
            for lane in 0..<8 { v[lane] = x * (1 + Float(lane) / 9) }
            let r = VectorLog.log10(v)
            for lane in 0..<8 {
                let reference = log10f(v[lane])
                let ulps = abs(r[lane] - reference) / max(reference.ulp, Float.leastNormalMagnitude)
                if ulps > worst {
                    worst = ulps
                    at = v[lane]
                }
            }
            x *= 1.000_7
        }
        #expect(worst <= 2, "log10(\(at)): \(worst) ulp from log10f")
    }
}
