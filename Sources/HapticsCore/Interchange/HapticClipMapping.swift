extension HapticClip {
    /// The most control points the mapping puts in one parameter curve (what Core Haptics'
    /// tooling writes); longer envelopes become consecutive curves sharing their boundary point.
    public static let curvePointLimit = 16
    /// The longest continuous event the mapping writes (Core Haptics stops one at 30 s); a longer
    /// carrier becomes consecutive events.
    public static let continuousLimit = 30.0
    /// How much later than an opening emphasis the carrier and its intensity curve start, when the
    /// clip opens on a breakpoint of amplitude 0 that carries it (a hit before the buzz).
    public static let emphasisLeadIn = 0.0005

    /// The clip as a Core Haptics pattern (docs/formats.md):
    ///
    /// - a carrier of `HapticContinuous` events from the first amplitude breakpoint to the end of
    ///   the clip (split every ``continuousLimit`` seconds), intensity 1, sharpness
    ///   sqrt(first frequency) (0.5 without a frequency envelope);
    /// - `HapticIntensityControl` curves through sqrt(amplitude) at every amplitude breakpoint;
    /// - `HapticSharpnessControl` curves through sqrt(frequency) minus the carrier's sharpness at
    ///   every frequency breakpoint (the control adds to the event's value);
    /// - each impulse (`signals.impulses`, the beta data model's taps) a `HapticTransient` at its
    ///   time, mapped as an emphasis is;
    /// - each emphasis a `HapticTransient` at its breakpoint, intensity sqrt(emphasis amplitude)
    ///   (as Meta's exporter writes it; Core Haptics' intensity control scales it by the envelope
    ///   there) and sharpness sqrt(emphasis frequency) once the sharpness control there is added.
    ///
    /// Curves are chunked at ``curvePointLimit`` points. A clip whose amplitude is 0 throughout
    /// is emphasis only: its transients alone, without carrier or curves.
    ///
    /// - Complexity: O(n) in the number of breakpoints (O(n log n) for the emphasis look-ups).
    public var pattern: HapticPattern {
        var elements: [PatternElement] = []
        // A clip whose envelope is silent throughout is emphasis only: transients as they are,
        // with no carrier and no curves (an intensity control of 0 would silence them too).
        let silent = amplitude.allSatisfy { $0.amplitude == 0 }
        var envelope = amplitude.map { (time: $0.time, value: $0.amplitude.squareRoot()) }
        // Core Haptics scales a transient by the intensity control in force, and at an opening
        // breakpoint of amplitude 0 that is 0: the hit would be silent. So the carrier and its
        // intensity curve start ``emphasisLeadIn`` later (on the envelope's own ramp), and the
        // hit plays before the control is in force, at its own intensity.
        if let first = amplitude.first, first.amplitude == 0, first.emphasis != nil, amplitude.count > 1 {
            let t = first.time + min(Self.emphasisLeadIn, (amplitude[1].time - first.time) / 2)
            if t > first.time { envelope[0] = (time: t, value: Self.interpolate(envelope, at: t)) }
        }
        let start = envelope.first?.time ?? 0
        let end = duration
        let base: Float = frequency.first.map { $0.frequency.squareRoot() } ?? 0.5
        var t = start
        while !silent {
            let length = min(Self.continuousLimit, end - t)
            elements.append(
                .event(
                    HapticEvent(
                        time: t, type: .hapticContinuous, duration: length,
                        parameters: [.init(.hapticIntensity, 1), .init(.hapticSharpness, base)])))
            t += length
            if end - t <= 1e-9 { break }
        }
        let sharpness = silent ? [] : frequency.map { (time: $0.time, value: $0.frequency.squareRoot()) }
        // A tap (an emphasis on its breakpoint, or an impulse of the beta data model) is a
        // transient at sqrt(amplitude), its sharpness net of the sharpness control in force there.
        func tap(at time: Double, amplitude: Float, frequency: Float) -> PatternElement {
            let offset = sharpness.isEmpty ? 0 : Self.interpolate(sharpness, at: time) - base
            let sharp = min(1, max(0, frequency.squareRoot() - offset))
            return .event(
                HapticEvent(
                    time: time, type: .hapticTransient,
                    parameters: [.init(.hapticIntensity, amplitude.squareRoot()), .init(.hapticSharpness, sharp)]))
        }
        for point in amplitude {
            guard let emphasis = point.emphasis else { continue }
            elements.append(tap(at: point.time, amplitude: emphasis.amplitude, frequency: emphasis.frequency))
        }
        for impulse in impulses {
            elements.append(tap(at: impulse.time, amplitude: impulse.amplitude, frequency: impulse.frequency))
        }
        if !silent {
            elements += Self.curves(.hapticIntensityControl, envelope)
            elements += Self.curves(
                .hapticSharpnessControl, sharpness.map { (time: $0.time, value: $0.value - base) })
        }
        return HapticPattern(version: 1, metadata: metadata, elements: elements)
    }

    /// `points` (absolute times) as curves of at most ``curvePointLimit`` points; each curve after
    /// the first starts with the previous one's last point, so the control never jumps.
    static func curves(_ id: DynamicParameterID, _ points: [(time: Double, value: Float)]) -> [PatternElement] {
        guard !points.isEmpty else { return [] }
        var result: [PatternElement] = []
        var first = 0
        while true {
            let last = min(points.count - 1, first + curvePointLimit - 1)
            let origin = points[first].time
            let controlPoints = points[first...last].map {
                ParameterCurve.ControlPoint(time: $0.time - origin, value: $0.value)
            }
            result.append(.curve(ParameterCurve(id, time: origin, controlPoints: controlPoints)))
            if last == points.count - 1 { break }
            first = last
        }
        return result
    }

    /// The piecewise-linear value of `points` at `time`, holding the first and last values outside.
    static func interpolate(_ points: [(time: Double, value: Float)], at time: Double) -> Float {
        guard let first = points.first, let last = points.last else { return 0 }
        if time <= first.time { return first.value }
        if time >= last.time { return last.value }
        var low = 0
        var high = points.count - 1
        while high - low > 1 {
            let mid = (low + high) / 2
            if points[mid].time <= time { low = mid } else { high = mid }
        }
        let a = points[low]
        let b = points[high]
        let span = b.time - a.time
        guard span > 0 else { return b.value }
        return a.value + (b.value - a.value) * Float((time - a.time) / span)
    }
}
