public import HapticsCore

/// A Meta/Lofelt clip as Meta's and Lofelt's players play it, written straight from the clip
/// and independent of ``HapticClip/pattern`` (the mapping the conversions use), so that
/// ``ConversionCheck`` can compare a conversion against the clip's own semantics.
///
/// Lofelt's Core Haptics player (NiceVibrations `CoreHapticsPlayer.m`) and Meta's exporter
/// (`meta-haptics-sdk` `core/haptic_data/src/ahap.rs`, which writes a continuous and a
/// transient AHAP to be played on two players) play two layers, as docs/formats.md cites:
///
/// - the continuous layer: one carrier at intensity 1 and sharpness 0 from 0 to the last
///   amplitude breakpoint, its intensity control through sqrt(amplitude), ramping from 0 at time
///   0 to a first breakpoint after 0, 20 % lower at a breakpoint with an emphasis (both ducks
///   the carrier there), its sharpness control through sqrt(frequency) up to the clip's end;
/// - the emphasis layer, with no control over it: each emphasis (and beta impulse) a transient
///   at intensity sqrt(emphasis amplitude) and sharpness emphasis frequency.
public enum ClipPlayback {
    /// How much quieter the carrier is at a breakpoint with an emphasis (Lofelt's and Meta's
    /// `AMPLITUDE_DUCKING`).
    public static let ducking: Float = 0.2

    /// The two layers, each a pattern to render on its own and mix: the continuous layer (nil
    /// when the envelope is 0 throughout) and the emphasis layer (nil without emphases).
    public static func layers(_ clip: HapticClip) -> (continuous: HapticPattern?, emphases: HapticPattern?) {
        let end = clip.amplitude.last?.time ?? 0
        var continuous: HapticPattern?
        if clip.amplitude.contains(where: { $0.amplitude > 0 }), end > 0 {
            var elements: [PatternElement] = []
            var t = 0.0
            while end - t > 1e-9 {
                let length = min(30, end - t)
                elements.append(
                    .event(
                        HapticEvent(
                            time: t, type: .hapticContinuous, duration: length,
                            parameters: [.init(.hapticIntensity, 1), .init(.hapticSharpness, 0)])))
                t += length
            }
            var intensity = clip.amplitude.map {
                (time: $0.time, value: $0.amplitude.squareRoot() * ($0.emphasis == nil ? 1 : 1 - ducking))
            }
            if let first = intensity.first, first.time > 0 { intensity.insert((0, 0), at: 0) }
            elements += chunks(.hapticIntensityControl, intensity)
            let sharpness = clip.frequency.filter { $0.time <= end }.map {
                (time: $0.time, value: $0.frequency.squareRoot())
            }
            elements += chunks(.hapticSharpnessControl, sharpness)
            continuous = HapticPattern(version: 1, elements: elements)
        }
        var taps: [PatternElement] = []
        for point in clip.amplitude {
            guard let e = point.emphasis else { continue }
            taps.append(tap(point.time, e.amplitude, e.frequency))
        }
        for impulse in clip.impulses { taps.append(tap(impulse.time, impulse.amplitude, impulse.frequency)) }
        return (continuous, taps.isEmpty ? nil : HapticPattern(version: 1, elements: taps))
    }

    /// Where the clip's emphases and impulses are, seconds, in order.
    public static func emphasisTimes(_ clip: HapticClip) -> [Double] {
        (clip.amplitude.filter { $0.emphasis != nil }.map(\.time) + clip.impulses.map(\.time)).sorted()
    }

    static func tap(_ time: Double, _ amplitude: Float, _ frequency: Float) -> PatternElement {
        .event(
            HapticEvent(
                time: time, type: .hapticTransient,
                parameters: [.init(.hapticIntensity, amplitude.squareRoot()), .init(.hapticSharpness, frequency)]))
    }

    /// Curves of at most 16 points, each after the first starting on the previous one's last.
    static func chunks(_ id: DynamicParameterID, _ points: [(time: Double, value: Float)]) -> [PatternElement] {
        var result: [PatternElement] = []
        var first = 0
        while first < points.count {
            let last = min(points.count - 1, first + 15)
            let origin = points[first].time
            result.append(
                .curve(
                    ParameterCurve(
                        id, time: origin,
                        controlPoints: points[first...last].map { .init(time: $0.time - origin, value: $0.value) })))
            if last == points.count - 1 { break }
            first = last
        }
        return result
    }
}
