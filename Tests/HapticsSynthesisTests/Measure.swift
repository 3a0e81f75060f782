import HapticsCore
import HapticsSynthesis

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Sample positions and single-frequency measures the tests need beyond ``AudioAnalysis``.
enum Measure {
    static func firstNonZero(_ samples: [Float]) -> Int? { samples.firstIndex { $0 != 0 } }

    static func lastNonZero(_ samples: [Float]) -> Int? { samples.lastIndex { $0 != 0 } }

    /// The largest difference between neighbouring samples (the first against 0): a click shows up as a jump.
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
}

/// ``AudioAnalysis`` on a span of a rendered array, without copying it.
extension AudioAnalysis {
    static func peak(_ samples: ArraySlice<Float>) -> Float { samples.withUnsafeBufferPointer { peak($0) } }

    static func rmsDBFS(_ samples: ArraySlice<Float>) -> Double { samples.withUnsafeBufferPointer { rmsDBFS($0) } }

    static func spectralCentroid(_ samples: ArraySlice<Float>, sampleRate: Int) -> Double {
        samples.withUnsafeBufferPointer { spectralCentroid($0, sampleRate: sampleRate) }
    }

    static func dominantFrequency(_ samples: ArraySlice<Float>, sampleRate: Int) -> Double {
        samples.withUnsafeBufferPointer { dominantFrequency($0, sampleRate: sampleRate) }
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
