extension HapticClip {
    /// The most control points the mapping puts in one parameter curve (what Core Haptics'
    /// tooling writes); longer envelopes become consecutive curves sharing their boundary point.
    public static let curvePointLimit = 16
    /// The longest continuous event the mapping writes (Core Haptics stops one at 30 s); a longer
    /// carrier becomes consecutive events.
    public static let continuousLimit = 30.0
    /// How long the intensity control is held up at an emphasis on a breakpoint quieter than
    /// the emphasis (see ``pattern``): long enough for a transient's click to have died away.
    public static let emphasisHold = 0.020
    /// The ramps into and out of that hold.
    public static let emphasisRamp = 0.001
    /// How much lower the carrier's intensity is at a breakpoint with an emphasis: Lofelt's and
    /// Meta's Core Haptics players duck it there (`AMPLITUDE_DUCKING`), so the mapping does too.
    public static let emphasisDucking: Float = 0.2

    /// The clip as a Core Haptics pattern (docs/formats.md), the one mapping every command uses
    /// to play, draw and convert a clip:
    ///
    /// - a carrier of `HapticContinuous` events from 0 to the last amplitude breakpoint (split
    ///   every ``continuousLimit`` seconds), intensity 1, sharpness sqrt(first frequency) (0
    ///   without a frequency envelope: Meta's exporter and Lofelt's player write their carrier
    ///   at sharpness 0 and add no sharpness curve then), moved where that would push a
    ///   transient's sharpness outside 0...1 (``carrierSharpness(_:)``);
    /// - `HapticIntensityControl` curves through sqrt(amplitude) at every amplitude breakpoint,
    ///   ``emphasisDucking`` lower at a breakpoint with an emphasis (as the players duck the
    ///   carrier there), from 0 at time 0 when the first breakpoint comes later (Lofelt's player
    ///   ramps up to it);
    /// - `HapticSharpnessControl` curves through sqrt(frequency) minus the carrier's sharpness at
    ///   every frequency breakpoint up to the clip's end (the control adds to the event's value),
    ///   from time 0 when the carrier's sharpness is not the first frequency's;
    /// - each emphasis a `HapticTransient` at its breakpoint that sounds at intensity
    ///   sqrt(emphasis amplitude) and sharpness emphasis frequency, whatever the envelope there,
    ///   as Meta's and Lofelt's players play it (a transient of its own, not scaled by the
    ///   envelope). Core Haptics scales a transient by the intensity control in force, so the
    ///   transient's intensity is divided by the control there; where the control is lower than
    ///   the emphasis, the control is held at the emphasis's intensity from ``emphasisRamp``
    ///   before it to ``emphasisHold`` after it (ramps of ``emphasisRamp`` from and back to the
    ///   envelope), the carrier over the hold is an event of its own at the envelope's level
    ///   divided by the held control (so it goes on as loud as the envelope; a pause under a
    ///   silent breakpoint) and the transient is written at 1;
    /// - each impulse (`signals.impulses`) a transient as an emphasis is, on a point the
    ///   intensity curve gets on its line at the impulse's time (no ducking there), held as an
    ///   emphasis is when louder than the envelope.
    ///
    /// A clip whose amplitude is 0 throughout keeps its length: a carrier of intensity 0 and no
    /// curves, its transients as they are. Curves are chunked at ``curvePointLimit`` points.
    ///
    /// - Complexity: O(n log n) in the number of breakpoints.
    public var pattern: HapticPattern {
        let plan = playPlan
        var elements: [PatternElement] = []
        // The carrier, from 0 to the end: intensity 1 under the envelope, and over each hold
        // around a held emphasis an event of its own at the envelope's level there divided by
        // the held control, so that it goes on as loud as the envelope (none under a silent
        // breakpoint: a pause).
        var segments: [(start: Double, end: Double, intensity: Float)] = []
        var from = 0.0
        let carrier: Float = plan.silent ? 0 : 1
        for gap in plan.gaps {
            if gap.start > from + 1e-9 { segments.append((from, gap.start, carrier)) }
            if gap.fill > 0, gap.end > gap.start + 1e-9 { segments.append((gap.start, gap.end, gap.fill)) }
            from = gap.end
        }
        if duration > from + 1e-9 || segments.isEmpty { segments.append((from, max(from, duration), carrier)) }
        for segment in segments where segment.end > segment.start {
            var t = segment.start
            while segment.end - t > 1e-9 {
                let length = min(Self.continuousLimit, segment.end - t)
                elements.append(
                    .event(
                        HapticEvent(
                            time: t, type: .hapticContinuous, duration: length,
                            parameters: [
                                .init(.hapticIntensity, segment.intensity), .init(.hapticSharpness, plan.base),
                            ])))
                t += length
            }
        }
        for tap in plan.taps {
            elements.append(
                .event(
                    HapticEvent(
                        time: tap.time, type: .hapticTransient,
                        parameters: [.init(.hapticIntensity, tap.intensity), .init(.hapticSharpness, tap.sharpness)])))
        }
        if !plan.silent {
            elements += Self.curves(.hapticIntensityControl, plan.intensity)
            elements += Self.curves(.hapticSharpnessControl, plan.sharpness)
        }
        return HapticPattern(version: 1, metadata: metadata, elements: elements)
    }

    /// What ``pattern`` writes, before it becomes elements.
    struct PlayPlan {
        var silent: Bool
        var base: Float
        /// Control points, absolute times.
        var intensity: [(time: Double, value: Float)]
        var sharpness: [(time: Double, value: Float)]
        var taps: [(time: Double, intensity: Float, sharpness: Float)]
        /// The holds around held emphases, where the carrier is an event of its own at intensity
        /// `fill` (the envelope's level over the held control), so that the held control raises
        /// the transient only; 0 under a silent breakpoint.
        var gaps: [(start: Double, end: Double, fill: Float)] = []
    }

    var playPlan: PlayPlan {
        let silent = amplitude.allSatisfy { $0.amplitude == 0 }
        let end = duration
        var envelope = amplitude.map {
            (time: $0.time, value: $0.amplitude.squareRoot() * ($0.emphasis == nil ? 1 : 1 - Self.emphasisDucking))
        }
        if let first = envelope.first, first.time > 0 { envelope.insert((time: 0, value: 0), at: 0) }
        var sharpnessAbsolute = frequency.filter { $0.time <= end + 1e-9 }.map {
            (time: $0.time, value: $0.frequency.squareRoot())
        }
        let base = silent ? (sharpnessAbsolute.first?.value ?? 0) : carrierSharpness(sharpnessAbsolute)
        // Before the first frequency breakpoint the carrier is at its first value, as it is
        // with no control there when the carrier is written at that value.
        if let first = sharpnessAbsolute.first, first.time > 0, first.value != base {
            sharpnessAbsolute.insert((time: 0, value: first.value), at: 0)
        }
        let offsetAt: (Double) -> Float = { time in
            sharpnessAbsolute.isEmpty ? 0 : Self.interpolate(sharpnessAbsolute, at: time) - base
        }
        var taps: [(time: Double, intensity: Float, sharpness: Float)] = []
        var intensity: [(time: Double, value: Float)] = []
        intensity.reserveCapacity(envelope.count)
        var gaps: [(start: Double, end: Double, fill: Float)] = []
        // The control at `level` from the breakpoint `i` for ``emphasisHold``, with ramps of
        // ``emphasisRamp`` from and back to the envelope, each at most a third of the way to the
        // neighbouring breakpoint.
        func hold(_ level: Float, at i: Int) {
            let t = envelope[i].time
            let previous = intensity.last?.time
            let next = i + 1 < envelope.count ? envelope[i + 1].time : nil
            let before = min(Self.emphasisRamp, previous.map { (t - $0) / 4 } ?? 0)
            let after = min(Self.emphasisRamp, next.map { ($0 - t) / 3 } ?? 0)
            let length = min(Self.emphasisHold, next.map { ($0 - t) / 3 } ?? 0)
            // The control is at `level` a ramp before the breakpoint, so a transient starting
            // there starts under it.
            var gap = (start: t, end: t, fill: level > 0 ? Self.unit(envelope[i].value / level) : 0)
            if before > 1e-6 {
                gap.start = t - 2 * before
                intensity.append((gap.start, Self.interpolate(envelope, at: gap.start)))
                intensity.append((t - before, level))
            }
            intensity.append((t, level))
            if after > 1e-6, length > 1e-6 {
                gap.end = t + length + after
                intensity.append((t + length, level))
                intensity.append((gap.end, Self.interpolate(envelope, at: gap.end)))
            }
            gaps.append(gap)
        }
        // The taps on the envelope: each emphasis on its breakpoint, and each impulse (beta data
        // model) on a point put on the envelope's line at its time (or on the breakpoint there),
        // so that a loud impulse is held as an emphasis is; neither player ducks at an impulse.
        // An impulse on a breakpoint with an emphasis, or past the end, is a tap of its own.
        var marks: [(level: Float, frequency: Float)?] =
            [(level: Float, frequency: Float)?](repeating: nil, count: envelope.count - amplitude.count)
            + amplitude.map { $0.emphasis.map { (level: $0.amplitude.squareRoot(), frequency: $0.frequency) } }
        var loose: [Impulse] = []
        for impulse in impulses {
            let at = envelope.firstIndex { $0.time >= impulse.time - 1e-9 } ?? envelope.endIndex
            let mark = (level: impulse.amplitude.squareRoot(), frequency: impulse.frequency)
            if silent || at == envelope.endIndex {
                loose.append(impulse)
            } else if abs(envelope[at].time - impulse.time) <= 1e-9 {
                if marks[at] == nil { marks[at] = mark } else { loose.append(impulse) }
            } else {
                envelope.insert((time: impulse.time, value: Self.interpolate(envelope, at: impulse.time)), at: at)
                marks.insert(mark, at: at)
            }
        }
        // Walk the envelope, writing each point and, at a tap the control would quieten below
        // its own intensity, the hold around it.
        for (i, point) in envelope.enumerated() {
            if silent {
                if let mark = marks[i] { taps.append((point.time, mark.level, mark.frequency)) }
                continue
            }
            guard let mark = marks[i] else {
                intensity.append(point)
                continue
            }
            let level = mark.level
            let sharp = Self.unit(mark.frequency - offsetAt(point.time))
            var last = i
            while last + 1 < envelope.count, envelope[last + 1].time == point.time { last += 1 }
            let control = envelope[last].value
            if level <= control || level == 0 {
                intensity.append(point)
                taps.append((point.time, control > 0 ? Self.unit(level / control) : 0, sharp))
            } else if last > i {
                // On the first breakpoint of a step: scaled by the step's last value.
                intensity.append(point)
                taps.append((point.time, Self.unit(level / control), sharp))
            } else {
                hold(level, at: i)
                taps.append((point.time, 1, sharp))
            }
        }
        for impulse in loose {
            let control = silent ? 1 : Self.interpolate(intensity, at: impulse.time)
            let level = impulse.amplitude.squareRoot()
            taps.append(
                (
                    impulse.time, control > 0 ? Self.unit(level / control) : 0,
                    Self.unit(impulse.frequency - offsetAt(impulse.time))
                ))
        }
        taps.sort { $0.time < $1.time }
        return PlayPlan(
            silent: silent, base: base, intensity: intensity,
            sharpness: silent ? [] : sharpnessAbsolute.map { (time: $0.time, value: $0.value - base) }, taps: taps,
            gaps: gaps)
    }

    /// The carrier's `HapticSharpness` under a sharpness curve through `sharpness` (absolute,
    /// sqrt(frequency)): sqrt(first frequency), unless a transient's sharpness would then leave
    /// 0...1. The control adds to every event, so a tap at sharpness `f` under a curve at `s` is
    /// written at `f - (s - base)`; the carrier plays `s` whatever `base` is, so `base` is free
    /// in 0...1 and is moved (as little as it takes) to where every emphasis and impulse is
    /// written within 0...1. Where no value serves them all, the middle of what would serve the
    /// lowest and the highest.
    func carrierSharpness(_ sharpness: [(time: Double, value: Float)]) -> Float {
        guard let first = sharpness.first else { return 0 }
        // Each tap wants base within `s - f ... s - f + 1`.
        var low: Float = 0
        var high: Float = 1
        func include(_ time: Double, _ frequency: Float) {
            let offset = Self.interpolate(sharpness, at: time) - frequency
            low = max(low, offset)
            high = min(high, offset + 1)
        }
        for point in amplitude { if let e = point.emphasis { include(point.time, e.frequency) } }
        for impulse in impulses { include(impulse.time, impulse.frequency) }
        return low <= high ? min(max(first.value, low), high) : (low + high) / 2
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
