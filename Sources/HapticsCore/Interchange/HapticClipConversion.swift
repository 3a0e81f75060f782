package import OrderedCollections

/// What a conversion between formats could not carry over: one line per kind of loss, with how
/// often it happened.
public struct ConversionLoss: Hashable, Sendable, CustomStringConvertible {
    /// A stable kebab-case name, e.g. `audio-event`, `emphasis-clamped`.
    public var kind: String
    /// How many elements lost something this way.
    public var count: Int
    /// What was lost and what was done instead.
    public var message: String

    public init(kind: String, count: Int, message: String) {
        self.kind = kind
        self.count = count
        self.message = message
    }

    public var description: String { "\(kind) (\(count)x): \(message)" }
}

/// Collects losses, one entry per kind.
struct LossLedger {
    var entries: [ConversionLoss] = []

    mutating func add(_ kind: String, _ message: String) {
        if let i = entries.firstIndex(where: { $0.kind == kind }) {
            entries[i].count += 1
        } else {
            entries.append(ConversionLoss(kind: kind, count: 1, message: message))
        }
    }
}

extension HapticClip {
    /// The clip a Core Haptics pattern becomes, and what it loses: the inverse of ``pattern``
    /// (so `.haptic` → AHAP → `.haptic` returns every breakpoint), and for any other pattern
    /// an approximation (docs/formats.md):
    ///
    /// - amplitude = (continuous event intensity × HapticIntensityControl)² where a continuous
    ///   event plays (``carrierEnvelope(_:intensity:)``), 0 elsewhere;
    /// - frequency = (carrier sharpness + HapticSharpnessControl)², at every sharpness curve
    ///   point; without sharpness curves, each continuous event's sharpness over its span;
    ///   nothing after the last amplitude breakpoint, where the clip ends;
    /// - each transient an emphasis on the amplitude breakpoint at its time, or on a new
    ///   breakpoint there: amplitude (intensity × control)², the level Core Haptics plays it at
    ///   (a Meta/Lofelt player does not scale an emphasis), frequency sharpness + control;
    /// - the hold ``pattern`` writes around a loud emphasis goes (its carrier event of its own,
    ///   ``isHoldCarrier(_:in:taps:)``, and the pause it fills), and the breakpoint under it
    ///   comes back (``heldEmphasis(at:in:)``).
    ///
    /// Audio events, dynamic parameters (`Parameter` elements), attack/decay/release and
    /// overlapping carriers cannot be expressed and are reported.
    ///
    /// - Complexity: O(n log n) in the number of elements.
    public init(pattern: HapticPattern, losses: inout [ConversionLoss]) {
        var ledger = LossLedger()
        let events = pattern.events.sorted { $0.time < $1.time }
        let continuous = events.filter { $0.type == .hapticContinuous }
        for event in events where !event.type.isHaptic {
            ledger.add("audio-event", "\(event.type.rawValue) events have no .haptic equivalent; left out")
        }
        for event in events where event.type.isHaptic {
            for id in [EventParameterID.attackTime, .decayTime, .releaseTime, .sustained] where event.sets(id) {
                ledger.add("envelope-parameter", "AttackTime, DecayTime, ReleaseTime and Sustained are not kept")
            }
        }
        for parameter in pattern.dynamicParameters where parameter.id != .hapticIntensityControl {
            ledger.add(
                "dynamic-parameter",
                "Parameter elements (\(parameter.id.rawValue) ...) are not kept; only intensity and sharpness curves are"
            )
        }
        for curve in pattern.parameterCurves
        where curve.id != .hapticIntensityControl && curve.id != .hapticSharpnessControl {
            ledger.add(
                "other-curve", "curves other than HapticIntensityControl and HapticSharpnessControl are left out")
        }
        for (a, b) in zip(continuous, continuous.dropFirst()) where b.time < a.time + (a.duration ?? 0) - 1e-9 {
            ledger.add(
                "overlapping-continuous",
                "a clip has one carrier: continuous events that overlap become one envelope at the level of their sum, with the sharpness of the first; two pitches beating against each other are lost"
            )
        }

        let carrierSharpness = continuous.first?.value(of: .hapticSharpness) ?? 0.5
        let sharpness = Self.points(of: .hapticSharpnessControl, in: pattern)

        let intensityTimeline = ParameterTimeline(.hapticIntensityControl, pattern: pattern)
        let sharpnessTimeline = ParameterTimeline(.hapticSharpnessControl, pattern: pattern)
        let taps = events.filter { $0.type == .hapticTransient }.map(\.time)
        let carriers = continuous.indices.filter { !Self.isHoldCarrier($0, in: continuous, taps: taps) }.map {
            continuous[$0]
        }
        var amplitude = Self.carrierEnvelope(carriers, intensity: intensityTimeline)
        var frequency: [FrequencyBreakpoint]
        if !sharpness.isEmpty {
            // The played sharpness is the carrier's plus the control, clamped to 0...1: where a
            // segment crosses 0 or 1 the clamp bends it, so a breakpoint goes there too (Apple's
            // Inflate sweeps -0.3 to 1.3; without the bends the clip's sweep is a straight line).
            frequency = []
            for (i, point) in sharpness.enumerated() {
                Self.appendFrequency(
                    point, after: i > 0 ? sharpness[i - 1] : nil, carrier: carrierSharpness, to: &frequency)
            }
        } else {
            frequency = []
            for event in carriers {
                let level = event.value(of: .hapticSharpness).squared
                let end = event.time + (event.duration ?? 0)
                if let last = frequency.last, last.time > event.time { continue }
                frequency += [
                    FrequencyBreakpoint(time: event.time, frequency: level),
                    FrequencyBreakpoint(time: end, frequency: level),
                ]
            }
        }
        // A transient sounds at its intensity times the intensity control in force (Core
        // Haptics scales it); an emphasis is not scaled on a Meta/Lofelt player, so its amplitude
        // is what the transient sounds at. Its sharpness is the transient's plus the control.
        for tap in events where tap.type == .hapticTransient {
            Self.placeEmphasis(tap, in: &amplitude, intensity: intensityTimeline, sharpness: sharpnessTimeline)
        }
        // A player ducks the carrier at an emphasis's breakpoint (``emphasisDucking``): each is
        // written that much louder, so that it plays at the level the pattern has there. Done
        // after every emphasis is placed, so that none is placed by a louder neighbour's level.
        for i in amplitude.indices where amplitude[i].emphasis != nil {
            amplitude[i].amplitude = Self.ducked(amplitude[i].amplitude)
        }
        // A pattern with no haptic event (audio only) is a silent clip of its length, not an
        // empty envelope, which every reader refuses (`empty-envelope`).
        if amplitude.isEmpty { amplitude = [AmplitudeBreakpoint(time: 0, amplitude: 0)] }
        // The clip lasts as long as the pattern, its first and last breakpoints apart (what Meta's
        // validator asks): a lone transient gets a breakpoint where its click has died away.
        if let last = amplitude.last, pattern.duration > last.time + 1e-9 {
            amplitude.append(AmplitudeBreakpoint(time: pattern.duration, amplitude: last.amplitude))
        }
        if let first = amplitude.first, let last = amplitude.last, last.time <= first.time {
            amplitude.append(AmplitudeBreakpoint(time: last.time + Self.emphasisHold, amplitude: 0))
        }
        // A player stops at the last amplitude breakpoint; frequency after it is not played.
        if let end = amplitude.last?.time { frequency = Self.clipped(frequency, to: end) }
        self.init(metadata: pattern.metadata, amplitude: amplitude, frequency: frequency)
        losses += ledger.entries
    }

    /// The frequency breakpoints of one sharpness control point: where the played sharpness
    /// (carrier + control, clamped to 0...1) crosses 0 or 1 since `previous`, a bend, then the
    /// point. Shared by ``init(pattern:losses:)`` and the streamed writer of audio analysis.
    package static func appendFrequency(
        _ point: (time: Double, value: Float), after previous: (time: Double, value: Float)?, carrier: Float,
        to frequency: inout [FrequencyBreakpoint]
    ) {
        if let previous, previous.time < point.time {
            let (a, b) = (carrier + previous.value, carrier + point.value)
            let crossings = [Float(0), 1].compactMap { edge -> Double? in
                guard (a - edge) * (b - edge) < 0 else { return nil }
                return previous.time + (point.time - previous.time) * Double((edge - a) / (b - a))
            }
            for t in crossings.sorted() {
                let level = Self.unit(a + (b - a) * Float((t - previous.time) / (point.time - previous.time)))
                frequency.append(FrequencyBreakpoint(time: t, frequency: level.squared))
            }
        }
        frequency.append(FrequencyBreakpoint(time: point.time, frequency: Self.unit(carrier + point.value).squared))
    }

    /// A transient as an emphasis in `amplitude` (the carrier's breakpoints and the emphases
    /// placed before it): on the breakpoint at its time, in a held emphasis's pause, or on a new
    /// breakpoint there. Shared by ``init(pattern:losses:)`` and the streamed writer of audio
    /// analysis, which hands it a window of the envelope around the transient.
    package static func placeEmphasis(
        _ tap: HapticEvent, in amplitude: inout [AmplitudeBreakpoint], intensity: ParameterTimeline,
        sharpness: ParameterTimeline
    ) {
        let sharp = Self.unit(sharpness.modulate(tap.value(of: .hapticSharpness), at: tap.time))
        let level = intensity.modulate(tap.value(of: .hapticIntensity), at: tap.time)
        if let i = amplitude.firstIndex(where: { abs($0.time - tap.time) < 1e-9 && $0.emphasis == nil }) {
            amplitude[i].emphasis = Emphasis(amplitude: Self.unit(level).squared, frequency: sharp)
        } else if let held = Self.heldEmphasis(at: tap.time, in: amplitude) {
            // What ``pattern`` writes at an emphasis louder than its breakpoint: the carrier
            // pauses around it. The breakpoint comes back, on the line the envelope leaves.
            amplitude.replaceSubrange(
                held.range,
                with: [
                    AmplitudeBreakpoint(
                        time: tap.time, amplitude: held.amplitude,
                        emphasis: Emphasis(amplitude: Self.unit(level).squared, frequency: sharp))
                ])
        } else {
            let emphasis = Emphasis(amplitude: Self.unit(level).squared, frequency: sharp)
            let value = Self.interpolate(amplitude.map { (time: $0.time, value: $0.amplitude) }, at: tap.time)
            let at = amplitude.firstIndex { $0.time > tap.time } ?? amplitude.endIndex
            let inside = at > 0 && at < amplitude.endIndex
            amplitude.insert(
                AmplitudeBreakpoint(time: tap.time, amplitude: inside ? value : 0, emphasis: emphasis),
                at: at)
        }
    }

    /// An emphasis's breakpoint amplitude made louder by the players' ducking (``emphasisDucking``).
    package static func ducked(_ amplitude: Float) -> Float { unit(amplitude / (1 - emphasisDucking).squared) }

    /// The line `id`'s curves draw, as points in absolute time in ascending order: each curve
    /// point, and where a curve starts before the previous one has ended, the later one takes over
    /// from there (``ParameterTimeline``, Core Haptics' rule): the earlier curve's later points go,
    /// and where the later curve does not start from the value reached, two points at its start
    /// make the step. A chunk's first point that repeats the previous chunk's last (what
    /// ``curves(_:_:)`` writes) is kept once.
    static func points(of id: DynamicParameterID, in pattern: HapticPattern) -> [(time: Double, value: Float)] {
        let knots = ParameterTimeline(id, parameters: [], curves: pattern.parameterCurves).knots
        var result: [(time: Double, value: Float)] = []
        for (i, knot) in knots.enumerated() {
            if let last = result.last, abs(last.time - knot.time) < 1e-9, last.value == knot.value { continue }
            result.append((knot.time, knot.value))
            guard i + 1 < knots.count else { continue }
            let next = knots[i + 1]
            let reached = knot.value + Float(knot.slope * (next.time - knot.time))
            if abs(reached - next.value) > 1e-6 { result.append((next.time, reached)) }
        }
        return result
    }

    static func unit(_ value: Float) -> Float { min(1, max(0, value)) }

    /// The amplitude a carrier of `continuous` events plays at under the intensity control:
    /// (event intensity x control) squared at each event's start and end and at every knot of the
    /// control in between (two breakpoints at a knot where the control jumps); 0 where no
    /// continuous event plays, with a step at each event that starts after silence. A control
    /// over no continuous event shapes no carrier (Apple's Gravel and Rumble: transients under
    /// an intensity curve) and only scales the transients.
    ///
    /// Where continuous events overlap, Core Haptics plays every one of them and sums them; a
    /// clip has one carrier, so the amplitude there is the level of that sum, the square root
    /// of the sum of the events' squared amplitudes (carriers of different sharpness add as
    /// uncorrelated tones do; the beating of two pitches is lost and reported).
    ///
    /// `previous`: the envelope's last breakpoint before these events (the streamed writer of
    /// audio analysis makes the envelope an event at a time); it is not returned.
    package static func carrierEnvelope(
        _ continuous: [HapticEvent], intensity: ParameterTimeline, after previous: AmplitudeBreakpoint? = nil
    ) -> [AmplitudeBreakpoint] {
        let overlapping = zip(continuous, continuous.dropFirst()).contains {
            $1.time < $0.time + ($0.duration ?? 0) - 1e-9
        }
        if overlapping { return summedEnvelope(continuous, intensity: intensity) }
        var result: [AmplitudeBreakpoint] = previous.map { [$0] } ?? []
        func add(_ time: Double, _ amplitude: Float) {
            if let last = result.last, abs(last.time - time) < 1e-9, last.amplitude == amplitude { return }
            result.append(AmplitudeBreakpoint(time: time, amplitude: amplitude))
        }
        let knots = intensity.knots
        var k = 0
        for (i, event) in continuous.enumerated() {
            let start = max(event.time, result.last?.time ?? event.time)
            let end = event.time + (event.duration ?? 0)
            guard end > start else { continue }
            let base = event.value(of: .hapticIntensity)
            func level(_ t: Double) -> Float { unit(intensity.modulate(base, at: t)).squared }
            if start > 0, result.last.map({ $0.time < start - 1e-9 }) ?? true { add(start, 0) }
            add(start, level(start))
            while k < knots.count, knots[k].time <= start + 1e-9 { k += 1 }
            while k < knots.count, knots[k].time < end - 1e-9 {
                let knot = knots[k]
                let before =
                    k > 0 ? ParameterTimeline.value(of: knots[k - 1], at: knot.time) : intensity.id.neutralValue
                if abs(before - knot.value) > 1e-6 {
                    add(knot.time, unit(intensity.id.apply(before, to: base)).squared)
                }
                add(knot.time, unit(intensity.id.apply(knot.value, to: base)).squared)
                k += 1
            }
            let last = k > 0 ? ParameterTimeline.value(of: knots[k - 1], at: end) : intensity.id.neutralValue
            add(end, unit(intensity.id.apply(last, to: base)).squared)
            let next = i + 1 < continuous.count ? continuous[i + 1].time : nil
            if let next, next > end + 1e-9 { add(end, 0) }
        }
        return previous == nil ? result : Array(result.dropFirst())
    }

    /// ``carrierEnvelope(_:intensity:)`` for events that overlap: each event's own breakpoints
    /// (its start and end, every knot of the control inside it), then at every one of their
    /// times the level of the events playing summed by power, with a step where the sum jumps.
    static func summedEnvelope(_ continuous: [HapticEvent], intensity: ParameterTimeline) -> [AmplitudeBreakpoint] {
        let knots = intensity.knots
        var lines: [[(time: Double, value: Float)]] = []
        for event in continuous {
            let start = event.time
            let end = event.time + (event.duration ?? 0)
            guard end > start + 1e-9 else { continue }
            let base = event.value(of: .hapticIntensity)
            var line: [(time: Double, value: Float)] = [(start, unit(intensity.modulate(base, at: start)).squared)]
            var k = knots.withUnsafeBufferPointer { ParameterTimeline.lastKnot(in: $0, atOrBefore: start + 1e-9) } + 1
            while k < knots.count, knots[k].time < end - 1e-9 {
                let knot = knots[k]
                let before =
                    k > 0 ? ParameterTimeline.value(of: knots[k - 1], at: knot.time) : intensity.id.neutralValue
                line.append((knot.time, unit(intensity.id.apply(before, to: base)).squared))
                line.append((knot.time, unit(intensity.id.apply(knot.value, to: base)).squared))
                k += 1
            }
            let last = k > 0 ? ParameterTimeline.value(of: knots[k - 1], at: end) : intensity.id.neutralValue
            line.append((end, unit(intensity.id.apply(last, to: base)).squared))
            lines.append(line)
        }
        // A sweep over the times in order: the lines started (`next` moves on) and not yet over
        // (`active`, pruned as it goes), each with the index of its first point at or after `t`.
        var times = lines.flatMap { $0.map(\.time) }.sorted()
        times = times.enumerated().filter { $0.offset == 0 || $0.element - times[$0.offset - 1] > 1e-9 }.map(\.element)
        lines.sort { $0[0].time < $1[0].time }
        var result: [AmplitudeBreakpoint] = []
        func add(_ time: Double, _ amplitude: Float) {
            if let last = result.last, abs(last.time - time) < 1e-9, last.amplitude == amplitude { return }
            result.append(AmplitudeBreakpoint(time: time, amplitude: amplitude))
        }
        var next = 0
        var active: [(line: Int, at: Int)] = []
        for (n, t) in times.enumerated() {
            while next < lines.count, lines[next][0].time < t + 1e-9 {
                active.append((next, 0))
                next += 1
            }
            active.removeAll { lines[$0.line][lines[$0.line].count - 1].time < t - 1e-9 }
            var (left, right): (Float, Float) = (0, 0)
            for a in active.indices {
                let line = lines[active[a].line]
                var i = active[a].at
                while line[i].time < t - 1e-9 { i += 1 }
                active[a].at = i
                // Just before `t`: 0 at the line's start; the first point at `t`, else on the segment.
                func onSegment(_ i: Int) -> Float {
                    let (p, q) = (line[i - 1], line[i])
                    guard q.time - p.time > 1e-12 else { return q.value }
                    return p.value + (q.value - p.value) * Float((t - p.time) / (q.time - p.time))
                }
                let l: Float = i == 0 ? 0 : abs(line[i].time - t) < 1e-9 ? line[i].value : onSegment(i)
                // Just after `t`: the last point at `t`, 0 at the line's end.
                var j = i
                while j + 1 < line.count, line[j + 1].time < t + 1e-9 { j += 1 }
                let r: Float =
                    abs(line[j].time - t) >= 1e-9 ? onSegment(j) : j == line.count - 1 ? 0 : line[j].value
                left += l * l
                right += r * r
            }
            let (before, after) = (unit(left.squareRoot()), unit(right.squareRoot()))
            if n > 0 || t > 0 { add(t, before) }
            if n < times.count - 1 { add(t, after) }
        }
        return result
    }

    /// The frequency envelope up to `end`, with a last point interpolated there.
    package static func clipped(_ points: [FrequencyBreakpoint], to end: Double) -> [FrequencyBreakpoint] {
        guard let i = points.firstIndex(where: { $0.time > end + 1e-9 }) else { return points }
        var kept = Array(points[..<i])
        if i > 0, kept.last.map({ $0.time < end - 1e-9 }) ?? true {
            let value = interpolate(points.map { (time: $0.time, value: $0.frequency) }, at: end)
            kept.append(FrequencyBreakpoint(time: end, frequency: value))
        }
        return kept
    }

    /// Whether `continuous[i]` is the carrier ``pattern`` writes over the hold around a held
    /// emphasis: at most 2 ``emphasisRamp`` + ``emphasisHold`` + ``emphasisRamp`` long, quieter
    /// than 1, against the carrier before or after it, with a transient at most 2
    /// ``emphasisRamp`` after its start and ``emphasisHold`` + ``emphasisRamp`` before its end.
    /// `taps`: the transients' times, in order.
    static func isHoldCarrier(_ i: Int, in continuous: [HapticEvent], taps: [Double]) -> Bool {
        let slack = 1e-6
        let event = continuous[i]
        let length = event.duration ?? 0
        let end = event.time + length
        guard length > 0, length <= 3 * emphasisRamp + emphasisHold + slack,
            event.value(of: .hapticIntensity) < 1
        else { return false }
        let before = i > 0 && abs(continuous[i - 1].time + (continuous[i - 1].duration ?? 0) - event.time) < 1e-9
        let after = i + 1 < continuous.count && abs(continuous[i + 1].time - end) < 1e-9
        guard before || after else { return false }
        var low = 0
        var high = taps.count
        while low < high {
            let mid = (low + high) / 2
            if taps[mid] < event.time - slack { low = mid + 1 } else { high = mid }
        }
        guard low < taps.count else { return false }
        let t = taps[low]
        return t - event.time <= 2 * emphasisRamp + slack && end - t <= emphasisHold + emphasisRamp + slack
    }

    /// Whether a transient at `time` sits in the pause ``pattern`` writes around a held
    /// emphasis: the carrier stops at most 2 ``emphasisRamp`` before it and starts again at
    /// most ``emphasisHold`` + ``emphasisRamp`` after it (amplitude 0 between). Returns the
    /// breakpoints of the pause and the amplitude the emphasis's breakpoint had, on the line
    /// through the two points before the pause (at the start, the two after it).
    static func heldEmphasis(at time: Double, in points: [AmplitudeBreakpoint]) -> (
        range: Range<Int>, amplitude: Float
    )? {
        let slack = 1e-6
        let after = points.firstIndex { $0.time > time } ?? points.endIndex
        // The carrier's return: a step up from 0 soon after.
        guard after + 1 < points.count, points[after].amplitude == 0,
            points[after + 1].time == points[after].time,
            points[after].time - time <= emphasisHold + emphasisRamp + slack
        else { return nil }
        var lower = after
        if after > 0 {
            // The carrier's pause: a step down to 0 just before.
            guard after >= 2, points[after - 1].amplitude == 0, points[after - 2].time == points[after - 1].time,
                time - points[after - 1].time <= 2 * emphasisRamp + slack
            else { return nil }
            lower = after - 2
        }
        func line(_ a: AmplitudeBreakpoint, _ b: AmplitudeBreakpoint) -> Float {
            guard b.time != a.time else { return b.amplitude.squareRoot() }
            let (ra, rb) = (Double(a.amplitude.squareRoot()), Double(b.amplitude.squareRoot()))
            return Float(ra + (rb - ra) * (time - a.time) / (b.time - a.time))
        }
        let root: Float
        if lower > 0 {
            root = line(points[lower - 1], points[lower])
        } else if after + 2 < points.count {
            root = line(points[after + 2], points[after + 1])
        } else {
            root = points[after + 1].amplitude.squareRoot()
        }
        return (lower..<(after + 2), unit(root).squared)
    }
}

extension Float {
    fileprivate var squared: Float { self * self }
}

extension HapticClip {
    /// The clip as `.haptic` JSON, pretty-printed: `version`, `metadata`, `signals`, and in each
    /// breakpoint `time`, then the value, then `emphasis`; numbers in their shortest form.
    public static func encode(_ clip: HapticClip) -> [UInt8] {
        var w = AHAPWriter()
        w.object([
            (
                "version",
                { w in
                    w.object([
                        ("major", { $0.raw("\(clip.version.major)") }),
                        ("minor", { $0.raw("\(clip.version.minor)") }),
                        ("patch", { $0.raw("\(clip.version.patch)") }),
                    ])
                }
            ),
            ("metadata", { w in w.json(.object(clip.metadata)) }),
            (
                "signals",
                { w in
                    var signals: [(String, (inout AHAPWriter) -> Void)] = [
                        (
                            "continuous",
                            { w in
                                w.object([
                                    (
                                        "envelopes",
                                        { w in
                                            var members: [(String, (inout AHAPWriter) -> Void)] = [
                                                ("amplitude", { w in w.array(clip.amplitude, writeAmplitude) })
                                            ]
                                            if !clip.frequency.isEmpty {
                                                members.append(
                                                    ("frequency", { w in w.array(clip.frequency, writeFrequency) }))
                                            }
                                            w.object(members)
                                        }
                                    )
                                ])
                            }
                        )
                    ]
                    if !clip.impulses.isEmpty {
                        signals.append(("impulses", { w in w.array(clip.impulses, writeImpulse) }))
                    }
                    w.object(signals)
                }
            ),
        ])
        w.raw("\n")
        return w.out
    }

    static func writeAmplitude(_ w: inout AHAPWriter, _ point: AmplitudeBreakpoint) {
        var members: [(String, (inout AHAPWriter) -> Void)] = [
            ("time", { $0.number(point.time) }),
            ("amplitude", { $0.number(point.amplitude) }),
        ]
        if let emphasis = point.emphasis {
            members.append(
                (
                    "emphasis",
                    { w in
                        w.object([
                            ("amplitude", { $0.number(emphasis.amplitude) }),
                            ("frequency", { $0.number(emphasis.frequency) }),
                        ])
                    }
                ))
        }
        w.object(members)
    }

    static func writeImpulse(_ w: inout AHAPWriter, _ impulse: Impulse) {
        w.object([
            ("time", { $0.number(impulse.time) }), ("amplitude", { $0.number(impulse.amplitude) }),
            ("frequency", { $0.number(impulse.frequency) }),
        ])
    }

    static func writeFrequency(_ w: inout AHAPWriter, _ point: FrequencyBreakpoint) {
        w.object([("time", { $0.number(point.time) }), ("frequency", { $0.number(point.frequency) })])
    }
}

extension HapticClip {
    /// What ``pattern`` cannot say exactly in Core Haptics: at an emphasis louder than its
    /// breakpoint the intensity control is held up around it (the carrier is louder there for
    /// ``emphasisHold``); an emphasis sharpness the sharpness control pushes outside 0...1 is
    /// clamped; an impulse louder than the envelope around it is clamped.
    public var ahapLosses: [ConversionLoss] {
        var ledger = LossLedger()
        let plan = playPlan
        let silent = amplitude.allSatisfy { $0.amplitude == 0 }
        let base = plan.base
        let sharpness = frequency.filter { $0.time <= duration + 1e-9 }.map {
            (time: $0.time, value: $0.frequency.squareRoot())
        }
        for point in amplitude {
            guard let emphasis = point.emphasis else { continue }
            if !silent, emphasis.amplitude.squareRoot() > point.amplitude.squareRoot() * (1 - Self.emphasisDucking) {
                ledger.add(
                    "emphasis-held",
                    "Core Haptics scales a transient by the intensity control in force, so at an emphasis louder than its breakpoint the control is held at the emphasis's level for \(Int(Self.emphasisHold * 1000)) ms and the carrier under it is an event of its own at the envelope's level, with 1 ms ramps a Meta/Lofelt player does not have"
                )
            }
            if !silent, !sharpness.isEmpty {
                let sharp = emphasis.frequency - (Self.interpolate(sharpness, at: point.time) - base)
                if sharp < 0 || sharp > 1 {
                    ledger.add(
                        "emphasis-sharpness-clamped",
                        "an emphasis frequency the sharpness curve pushes outside 0...1 is clamped")
                }
            }
        }
        let line = amplitude.map { (time: $0.time, value: $0.amplitude.squareRoot()) }
        for impulse in impulses where !silent {
            let onEmphasis = amplitude.contains { abs($0.time - impulse.time) <= 1e-9 && $0.emphasis != nil }
            guard impulse.amplitude.squareRoot() > Self.interpolate(line, at: impulse.time) + 1e-6 else { continue }
            if onEmphasis || impulse.time > duration + 1e-9 {
                ledger.add(
                    "impulse-scaled",
                    "Core Haptics scales a transient by the intensity control in force, so an impulse louder than the envelope on a breakpoint that has an emphasis plays quieter than on a Meta/Lofelt player"
                )
            } else {
                ledger.add(
                    "emphasis-held",
                    "Core Haptics scales a transient by the intensity control in force, so at an emphasis louder than its breakpoint the control is held at the emphasis's level for \(Int(Self.emphasisHold * 1000)) ms and the carrier under it is an event of its own at the envelope's level, with 1 ms ramps a Meta/Lofelt player does not have"
                )
            }
        }
        return ledger.entries
    }
}

/// A clip written a breakpoint at a time, for clips too long to hold whole: the bytes are exactly
/// those ``HapticClip/encode(_:)`` writes for a clip with the same version, metadata, amplitude
/// breakpoints (in the order appended) and frequency breakpoints (appended after the amplitude
/// ones), and no impulses.
package struct ClipStreamEncoder {
    private var writer = AHAPWriter()
    private var count = 0
    private var frequencyCount = 0
    private var finished = false

    /// Starts the document, up to the amplitude array.
    package init(
        version: HapticClip.Version = .init(major: 1, minor: 0, patch: 0),
        metadata: OrderedDictionary<String, JSONValue> = [:]
    ) {
        writer.raw("{")
        writer.indentLevel = 1
        writer.newline()
        writer.string("version")
        writer.raw(": ")
        writer.object([
            ("major", { $0.raw("\(version.major)") }),
            ("minor", { $0.raw("\(version.minor)") }),
            ("patch", { $0.raw("\(version.patch)") }),
        ])
        writer.separator()
        writer.newline()
        writer.string("metadata")
        writer.raw(": ")
        writer.json(.object(metadata))
        writer.separator()
        for key in ["signals", "continuous", "envelopes"] {
            writer.newline()
            writer.string(key)
            writer.raw(": {")
            writer.indentLevel += 1
        }
        writer.newline()
        writer.string("amplitude")
        writer.raw(": ")
    }

    /// Amplitude breakpoints appended so far.
    package var amplitudeCount: Int { count }

    /// Writes the next amplitude breakpoint.
    package mutating func append(_ point: HapticClip.AmplitudeBreakpoint) {
        precondition(!finished && frequencyCount == 0, "amplitude breakpoints come before frequency ones")
        if count == 0 {
            writer.raw("[")
            writer.indentLevel += 1
        } else {
            writer.separator()
        }
        count += 1
        writer.newline()
        HapticClip.writeAmplitude(&writer, point)
    }

    /// Closes the amplitude array, writes the frequency envelope and closes the document.
    package mutating func finish(frequency: [HapticClip.FrequencyBreakpoint]) {
        for point in frequency { appendFrequency(point) }
        finish()
    }

    /// Writes the next frequency breakpoint (after the last amplitude breakpoint).
    package mutating func appendFrequency(_ point: HapticClip.FrequencyBreakpoint) {
        precondition(!finished, "a ClipStreamEncoder takes no breakpoints after finish()")
        if frequencyCount == 0 {
            closeAmplitude()
            writer.separator()
            writer.newline()
            writer.string("frequency")
            writer.raw(": [")
            writer.indentLevel += 1
        } else {
            writer.separator()
        }
        frequencyCount += 1
        writer.newline()
        HapticClip.writeFrequency(&writer, point)
    }

    private mutating func closeAmplitude() {
        if count == 0 {
            writer.raw("[]")
        } else {
            writer.indentLevel -= 1
            writer.newline()
            writer.raw("]")
        }
    }

    /// Closes the arrays and the document.
    package mutating func finish() {
        guard !finished else { return }
        finished = true
        if frequencyCount == 0 {
            closeAmplitude()
        } else {
            writer.indentLevel -= 1
            writer.newline()
            writer.raw("]")
        }
        for _ in 0..<4 {
            writer.indentLevel -= 1
            writer.newline()
            writer.raw("}")
        }
        writer.raw("\n")
    }

    /// Bytes written since the last drain.
    package var pendingBytes: Int { writer.out.count }

    /// Hands the bytes written since the last drain to `body`, then forgets them.
    package mutating func drain<E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> Void) throws(E) {
        try writer.drain(body)
    }
}
