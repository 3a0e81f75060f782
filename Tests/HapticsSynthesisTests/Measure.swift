import HapticsCore
import HapticsSynthesis

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Measurements on rendered audio, for the tests.
enum Measure {
    static func firstNonZero(_ samples: [Float]) -> Int? { samples.firstIndex { $0 != 0 } }

    static func lastNonZero(_ samples: [Float]) -> Int? { samples.lastIndex { $0 != 0 } }

    static func rms(_ samples: ArraySlice<Float>) -> Double {
        guard !samples.isEmpty else { return 0 }
        return (samples.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(samples.count)).squareRoot()
    }

    static func peak(_ samples: [Float]) -> Float { samples.reduce(0) { max($0, $1.magnitude) } }

    static func maxStep(_ samples: ArraySlice<Float>) -> Float {
        var step: Float = 0
        var previous: Float = 0
        for x in samples {
            step = max(step, (x - previous).magnitude)
            previous = x
        }
        return step
    }

    /// Power at `frequency` (Goertzel).
    static func power(_ samples: ArraySlice<Float>, frequency: Double, rate: Int) -> Double {
        let w = 2 * Double.pi * frequency / Double(rate)
        let c = 2 * cos(w)
        var s1 = 0.0
        var s2 = 0.0
        for x in samples {
            let s = Double(x) + c * s1 - s2
            s2 = s1
            s1 = s
        }
        return s1 * s1 + s2 * s2 - c * s1 * s2
    }

    /// Spectral centroid in Hz over 20 Hz bins up to `limit`.
    static func centroid(_ samples: ArraySlice<Float>, rate: Int, limit: Double = 6_000) -> Double {
        let samples = hann(samples)
        var weighted = 0.0
        var total = 0.0
        var f = 20.0
        while f <= limit {
            let p = power(samples, frequency: f, rate: rate)
            weighted += p * f
            total += p
            f += 20
        }
        return weighted / total
    }

    /// The slice under a Hann window (keeps leakage from smearing power across the spectrum).
    static func hann(_ samples: ArraySlice<Float>) -> ArraySlice<Float> {
        let n = Double(samples.count - 1)
        return ArraySlice(
            samples.enumerated().map { i, x in Float(Double(x) * (0.5 - 0.5 * cos(2 * Double.pi * Double(i) / n))) })
    }

    /// The strongest frequency between `low` and `high` Hz, in 1 Hz steps.
    static func strongest(_ samples: ArraySlice<Float>, rate: Int, from low: Double, to high: Double) -> Double {
        var best = (f: low, p: -1.0)
        var f = low
        while f <= high {
            let p = power(samples, frequency: f, rate: rate)
            if p > best.p { best = (f, p) }
            f += 1
        }
        return best.f
    }
}

func transient(_ time: Double, intensity: Float = 1, sharpness: Float = 0.5) -> PatternElement {
    .event(
        HapticEvent(
            time: time, type: .hapticTransient,
            parameters: [.init(.hapticIntensity, intensity), .init(.hapticSharpness, sharpness)]))
}

func continuous(
    _ time: Double, _ duration: Double, intensity: Float = 1, sharpness: Float = 0.5,
    extra: [EventParameter] = []
) -> PatternElement {
    .event(
        HapticEvent(
            time: time, type: .hapticContinuous, duration: duration,
            parameters: [.init(.hapticIntensity, intensity), .init(.hapticSharpness, sharpness)] + extra))
}
