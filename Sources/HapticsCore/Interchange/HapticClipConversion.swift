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
    /// - amplitude = (carrier intensity × HapticIntensityControl)², at every intensity curve
    ///   point; without intensity curves, each continuous event is a step up at its start and
    ///   down at its end;
    /// - frequency = (carrier sharpness + HapticSharpnessControl)², at every sharpness curve
    ///   point; without sharpness curves, each continuous event's sharpness over its span;
    /// - each transient an emphasis (amplitude intensity², frequency (sharpness + control)²) on
    ///   the amplitude breakpoint at its time, or on a new breakpoint there.
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
        for parameter in pattern.dynamicParameters {
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
            ledger.add("overlapping-continuous", "overlapping continuous events are flattened into one envelope")
        }

        let carrierIntensity = continuous.first?.value(of: .hapticIntensity) ?? 1
        let carrierSharpness = continuous.first?.value(of: .hapticSharpness) ?? 0.5
        let intensity = Self.points(of: .hapticIntensityControl, in: pattern)
        let sharpness = Self.points(of: .hapticSharpnessControl, in: pattern)

        var amplitude: [AmplitudeBreakpoint]
        if !intensity.isEmpty {
            amplitude = intensity.map {
                AmplitudeBreakpoint(time: $0.time, amplitude: Self.unit(carrierIntensity * $0.value).squared)
            }
        } else {
            amplitude = []
            for event in continuous {
                let level = event.value(of: .hapticIntensity).squared
                let end = event.time + (event.duration ?? 0)
                if let last = amplitude.last, last.time > event.time { continue }
                amplitude += [
                    AmplitudeBreakpoint(time: event.time, amplitude: 0),
                    AmplitudeBreakpoint(time: event.time, amplitude: level),
                    AmplitudeBreakpoint(time: end, amplitude: level),
                    AmplitudeBreakpoint(time: end, amplitude: 0),
                ]
            }
        }
        var frequency: [FrequencyBreakpoint]
        if !sharpness.isEmpty {
            // The played sharpness is the carrier's plus the control, clamped to 0...1: where a
            // segment crosses 0 or 1 the clamp bends it, so a breakpoint goes there too (Apple's
            // Inflate sweeps -0.3 to 1.3; without the bends the clip's sweep is a straight line).
            frequency = []
            for (i, point) in sharpness.enumerated() {
                if i > 0 {
                    let previous = sharpness[i - 1]
                    let (a, b) = (carrierSharpness + previous.value, carrierSharpness + point.value)
                    let crossings = [Float(0), 1].compactMap { edge -> Double? in
                        guard (a - edge) * (b - edge) < 0 else { return nil }
                        return previous.time + (point.time - previous.time) * Double((edge - a) / (b - a))
                    }
                    for t in crossings.sorted() {
                        let level = Self.unit(a + (b - a) * Float((t - previous.time) / (point.time - previous.time)))
                        frequency.append(FrequencyBreakpoint(time: t, frequency: level.squared))
                    }
                }
                frequency.append(
                    FrequencyBreakpoint(time: point.time, frequency: Self.unit(carrierSharpness + point.value).squared))
            }
        } else {
            frequency = []
            for event in continuous {
                let level = event.value(of: .hapticSharpness).squared
                let end = event.time + (event.duration ?? 0)
                if let last = frequency.last, last.time > event.time { continue }
                frequency += [
                    FrequencyBreakpoint(time: event.time, frequency: level),
                    FrequencyBreakpoint(time: end, frequency: level),
                ]
            }
        }
        let sharpnessPoints = sharpness.map { (time: $0.time, value: $0.value) }
        for tap in events where tap.type == .hapticTransient {
            let offset = sharpnessPoints.isEmpty ? 0 : Self.interpolate(sharpnessPoints, at: tap.time)
            let sharp = tap.value(of: .hapticSharpness) + offset
            let emphasis = Emphasis(
                amplitude: tap.value(of: .hapticIntensity).squared, frequency: Self.unit(sharp).squared)
            if let i = amplitude.firstIndex(where: { abs($0.time - tap.time) < 1e-9 && $0.emphasis == nil }) {
                amplitude[i].emphasis = emphasis
            } else {
                let level = Self.interpolate(amplitude.map { (time: $0.time, value: $0.amplitude) }, at: tap.time)
                let at = amplitude.firstIndex { $0.time > tap.time } ?? amplitude.endIndex
                let inside = at > 0 && at < amplitude.endIndex
                amplitude.insert(
                    AmplitudeBreakpoint(time: tap.time, amplitude: inside ? level : 0, emphasis: emphasis), at: at)
            }
        }
        // An opening hit whose carrier starts ``emphasisLeadIn`` later (what ``pattern`` writes
        // for a clip that opens on an emphasis at amplitude 0): the lead-in breakpoint lies on the
        // ramp from the hit's breakpoint to the next one, so it goes, and the clip comes back as
        // it was.
        if amplitude.count > 2, amplitude[0].amplitude == 0, amplitude[0].emphasis != nil,
            amplitude[1].emphasis == nil, amplitude[1].time - amplitude[0].time <= Self.emphasisLeadIn + 1e-9
        {
            // On the ramp as the intensity curve draws it: linear in sqrt(amplitude).
            let (a, b, c) = (amplitude[0], amplitude[1], amplitude[2])
            let (ra, rc) = (a.amplitude.squareRoot(), c.amplitude.squareRoot())
            let onRamp = ra + (rc - ra) * Float((b.time - a.time) / (c.time - a.time))
            if c.time > a.time, abs(onRamp - b.amplitude.squareRoot()) < 1e-3 { amplitude.remove(at: 1) }
        }
        // The clip lasts as long as the pattern.
        if let last = amplitude.last, pattern.duration > max(last.time, frequency.last?.time ?? 0) + 1e-9 {
            amplitude.append(AmplitudeBreakpoint(time: pattern.duration, amplitude: last.amplitude))
        }
        self.init(metadata: pattern.metadata, amplitude: amplitude, frequency: frequency)
        losses += ledger.entries
    }

    /// Every control point of `id`'s curves in absolute time, in order; a chunk's first point that
    /// repeats the previous chunk's last (what ``curves(_:_:)`` writes) is kept once.
    static func points(of id: DynamicParameterID, in pattern: HapticPattern) -> [(time: Double, value: Float)] {
        var result: [(time: Double, value: Float)] = []
        for curve in pattern.parameterCurves.filter({ $0.id == id }).sorted(by: { $0.time < $1.time }) {
            for point in curve.controlPoints {
                let time = curve.time + point.time
                if let last = result.last, abs(last.time - time) < 1e-9, last.value == point.value { continue }
                result.append((time, point.value))
            }
        }
        return result
    }

    static func unit(_ value: Float) -> Float { min(1, max(0, value)) }
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
    /// What ``pattern`` cannot say exactly in Core Haptics: an emphasis on a breakpoint quieter
    /// than full scale is scaled by the intensity control there (it plays at
    /// sqrt(emphasis amplitude × amplitude)), and an emphasis sharpness the sharpness control
    /// pushes outside 0...1 is clamped.
    public var ahapLosses: [ConversionLoss] {
        var ledger = LossLedger()
        let sharpness = frequency.map { (time: $0.time, value: $0.frequency.squareRoot()) }
        for point in amplitude {
            guard let emphasis = point.emphasis else { continue }
            if point.amplitude < 1, emphasis.amplitude > 0 {
                ledger.add(
                    "emphasis-scaled",
                    "Core Haptics scales a transient by the intensity control in force, so an emphasis plays at sqrt(emphasis amplitude × amplitude), quieter than on a Meta/Lofelt player"
                )
            }
            if !sharpness.isEmpty {
                let offset = Self.interpolate(sharpness, at: point.time) - sharpness[0].value
                let sharp = emphasis.frequency.squareRoot() - offset
                if sharp < 0 || sharp > 1 {
                    ledger.add(
                        "emphasis-sharpness-clamped",
                        "an emphasis frequency the sharpness curve pushes outside 0...1 is clamped")
                }
            }
        }
        if !impulses.isEmpty, amplitude.contains(where: { $0.amplitude < 1 && $0.amplitude > 0 }) {
            ledger.add(
                "impulse-scaled",
                "Core Haptics scales a transient by the intensity control in force, so an impulse under a quiet envelope plays quieter than on a Meta/Lofelt player"
            )
        }
        return ledger.entries
    }
}
