#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A pattern as Android plays it: `VibrationEffect.createWaveform(timings, amplitudes, repeat)`
/// with amplitudes 0...255, or, for a pattern made only of transients, a
/// `VibrationEffect.Composition` of primitives (docs/formats.md).
///
/// ```swift
/// let effect = AndroidVibration(pattern)
/// print(effect.kotlin)   // VibrationEffect.createWaveform(longArrayOf(...), intArrayOf(...), -1)
/// ```
public enum AndroidVibration: Hashable, Sendable {
    /// Millisecond steps and amplitudes (0 is off, 255 full), played once (`repeat` -1).
    case waveform(timings: [Int], amplitudes: [Int])
    /// Primitives in order.
    case composition([Primitive])

    /// One `Composition.addPrimitive(id, scale, delay)`.
    public struct Primitive: Hashable, Sendable {
        /// `PRIMITIVE_CLICK`, `PRIMITIVE_TICK` or `PRIMITIVE_THUD`, without the prefix.
        public var name: String
        /// 0...1.
        public var scale: Float
        /// Milliseconds after the previous primitive.
        public var delayMilliseconds: Int
    }

    /// The waveform's step: amplitudes are sampled every 10 ms and equal runs merged.
    public static let stepMilliseconds = 10

    /// Maps `pattern`: transients only -> a composition (sharpness >= 0.7 CLICK, >= 0.3 TICK,
    /// else THUD; scale = intensity with the controls in force); anything else -> a waveform
    /// whose amplitude every 10 ms is round(255 x intensity^2) of the strongest haptic event
    /// playing then (intensity with the controls applied; the square undoes the sqrt of the
    /// .haptic mapping), a transient holding one step, a continuous event sounding on through
    /// its release (`ReleaseTime`, at least 5 ms) as the synthesizer's release falls.
    ///
    /// - Complexity: O(d / 10 ms + n log n + the events playing in each step, summed) for a
    ///   pattern of d seconds and n events.
    public init(_ pattern: HapticPattern) {
        let intensity = ParameterTimeline(.hapticIntensityControl, pattern: pattern)
        let sharpness = ParameterTimeline(.hapticSharpnessControl, pattern: pattern)
        let haptic = pattern.events.filter(\.type.isHaptic).sorted { $0.time < $1.time }
        if !haptic.isEmpty, haptic.allSatisfy({ $0.type == .hapticTransient }) {
            var primitives: [Primitive] = []
            // Each delay from the previous onset rounded to the millisecond, not the previous
            // delay: rounding each gap on its own drifts (541 taps 11.61 ms apart: 86 ms).
            var previous = 0
            for tap in haptic {
                let scale = intensity.modulate(tap.value(of: .hapticIntensity), at: tap.time)
                let sharp = sharpness.modulate(tap.value(of: .hapticSharpness), at: tap.time)
                let name = sharp >= 0.7 ? "CLICK" : sharp >= 0.3 ? "TICK" : "THUD"
                let onset = Int((tap.time * 1000).rounded())
                primitives.append(Primitive(name: name, scale: scale, delayMilliseconds: onset - previous))
                previous = onset
            }
            self = .composition(primitives)
            return
        }
        let step = Double(Self.stepMilliseconds) / 1000
        let releaseControl = ParameterTimeline(.hapticReleaseTimeControl, pattern: pattern)
        // How long a continuous event sounds after its end: its release (at least 5 ms), with
        // the HapticReleaseTimeControl in force at its onset, as the synthesizer plays it.
        func release(_ event: HapticEvent) -> Double {
            guard event.type == .hapticContinuous else { return 0 }
            let seconds = Double(releaseControl.modulate(event.value(of: .releaseTime), at: event.time))
            return max(seconds, Self.minimumRelease)
        }
        func stop(_ event: HapticEvent) -> Double {
            event.type == .hapticTransient ? event.time + step : event.time + (event.duration ?? 0) + release(event)
        }
        let end = haptic.map(stop).max() ?? 0
        let count = Int((end / step).rounded(.up))
        var timings: [Int] = []
        var amplitudes: [Int] = []
        // A sweep: `haptic` is in time order, so the events that may play in a step are those
        // started before its end (`next` moves on) and not yet over (`active`, pruned as it goes).
        var next = 0
        var active: [(event: HapticEvent, stop: Double)] = []
        for i in 0..<count {
            let t0 = Double(i) * step
            let t1 = t0 + step
            while next < haptic.count, haptic[next].time < t1 {
                let event = haptic[next]
                active.append((event, stop(event)))
                next += 1
            }
            active.removeAll { $0.stop <= t0 }
            var level: Float = 0
            for (event, stop) in active {
                let start = event.time
                // After a continuous event's end, its level there falling over the release, taken
                // at the middle of the step (at its start, a 5 ms release would fill 10 ms).
                let over = event.type == .hapticContinuous ? stop - release(event) : stop
                let at = min(max(start, t0), over)
                let played = intensity.modulate(event.value(of: .hapticIntensity), at: at)
                var fall: Float = 1
                if t0 >= over - 1e-9 { fall = Self.fall((t0 + step / 2 - over) / release(event)) }
                level = max(level, played * (Self.decay(of: event, at: at - start) * fall).squareRoot())
            }
            let amplitude = Int((255 * level * level).rounded())
            if let last = amplitudes.last, last == amplitude {
                timings[timings.count - 1] += Self.stepMilliseconds
            } else {
                timings.append(Self.stepMilliseconds)
                amplitudes.append(amplitude)
            }
        }
        // Steps of 0 at the end (an event that faded out before its EventDuration) are no
        // vibration: the waveform ends with the last one that moves the motor.
        while amplitudes.count > 1, amplitudes.last == 0 {
            amplitudes.removeLast()
            timings.removeLast()
        }
        self = .waveform(timings: timings, amplitudes: amplitudes)
    }

    /// The synthesizer's shortest release, seconds (docs/voicing.md).
    static let minimumRelease = 0.005

    /// The synthesizer's exponential-like fall (docs/voicing.md), `f` of the way through it:
    /// aimed 1 % below zero so that it ends at 0.
    static func fall(_ f: Double) -> Float {
        guard f > 0 else { return 1 }
        guard f < 1 else { return 0 }
        let overshoot = 0.01
        return Float(max(0, (1 + overshoot) * pow(overshoot / (1 + overshoot), f) - overshoot))
    }

    /// How much of a continuous event's level is left `elapsed` seconds after its onset: 1 for a
    /// sustained event; for one with `Sustained` 0, the synthesizer's fall after the attack
    /// (docs/voicing.md: an exponential over DecayTime seconds, at least 20 ms, aimed 1 % below
    /// zero so that it ends at 0), so a waveform fades where the event fades.
    static func decay(of event: HapticEvent, at elapsed: Double) -> Float {
        guard event.type == .hapticContinuous, event.value(of: .sustained) < 0.5 else { return 1 }
        let attack = max(Double(event.value(of: .attackTime)), 0.002)
        let length = max(Double(event.value(of: .decayTime)), 0.020)
        return fall((elapsed - attack) / length)
    }

    /// `{"type": "waveform", "timings": [...], "amplitudes": [...], "repeat": -1}` or
    /// `{"type": "composition", "primitives": [{"primitive": "CLICK", "scale": 1, "delayMs": 0}]}`.
    public var json: String {
        var w = AHAPWriter()
        switch self {
        case .waveform(let timings, let amplitudes):
            w.object([
                ("type", { $0.string("waveform") }),
                ("timings", { $0.raw("[" + timings.map(String.init).joined(separator: ", ") + "]") }),
                ("amplitudes", { $0.raw("[" + amplitudes.map(String.init).joined(separator: ", ") + "]") }),
                ("repeat", { $0.raw("-1") }),
            ])
        case .composition(let primitives):
            w.object([
                ("type", { $0.string("composition") }),
                (
                    "primitives",
                    { w in
                        w.array(primitives) { w, p in
                            w.object([
                                ("primitive", { $0.string(p.name) }),
                                ("scale", { $0.number(p.scale) }),
                                ("delayMs", { $0.raw("\(p.delayMilliseconds)") }),
                            ])
                        }
                    }
                ),
            ])
        }
        w.raw("\n")
        return String(decoding: w.out, as: UTF8.self)
    }

    /// The Kotlin expression that builds the effect.
    public var kotlin: String {
        switch self {
        case .waveform(let timings, let amplitudes):
            let t = timings.map { "\($0)L" }.joined(separator: ", ")
            let a = amplitudes.map(String.init).joined(separator: ", ")
            return "VibrationEffect.createWaveform(longArrayOf(\(t)), intArrayOf(\(a)), -1)\n"
        case .composition(let primitives):
            var out = "VibrationEffect.startComposition()\n"
            for p in primitives {
                out +=
                    "    .addPrimitive(VibrationEffect.Composition.PRIMITIVE_\(p.name), \(NumberText.float(p.scale))f, \(p.delayMilliseconds))\n"
            }
            return out + "    .compose()\n"
        }
    }

    /// The waveform's length in milliseconds (the sum of its timings), or the composition's
    /// last onset.
    public var milliseconds: Int {
        switch self {
        case .waveform(let timings, _): timings.reduce(0, +)
        case .composition(let primitives): primitives.reduce(0) { $0 + $1.delayMilliseconds }
        }
    }
}

extension AndroidVibration {
    /// What the Android effect cannot carry: sharpness (a waveform has none), audio events,
    /// the shape inside each 10 ms step, and for a composition the exact intensities and spacing
    /// (Android counts a delay from the end of the previous primitive, whose length the device
    /// decides).
    public static func losses(of pattern: HapticPattern, as effect: AndroidVibration) -> [ConversionLoss] {
        var ledger = LossLedger()
        for event in pattern.events where !event.type.isHaptic {
            ledger.add("audio-event", "\(event.type.rawValue) events have no Android equivalent; left out")
        }
        switch effect {
        case .waveform:
            for event in pattern.events where event.type.isHaptic {
                ledger.add(
                    "sharpness",
                    "a waveform has amplitude only: sharpness is dropped, each transient is one 10 ms step, and a level under half of amplitude 1/255 (about -56 dBFS) rounds to 0"
                )
            }
            let continuous = pattern.events.filter { $0.type == .hapticContinuous }.sorted { $0.time < $1.time }
            var end = -Double.infinity
            for event in continuous {
                if event.time < end - 1e-9 {
                    ledger.add(
                        "overlapping-continuous",
                        "a waveform has one amplitude: where continuous events overlap it plays the strongest, not their sum or their beating"
                    )
                }
                end = max(end, event.time + (event.duration ?? 0))
            }
        case .composition:
            for event in pattern.events where event.type == .hapticTransient {
                ledger.add(
                    "primitive",
                    "a transient becomes the nearest primitive (CLICK, TICK or THUD by sharpness); Android counts each delay from the end of the previous primitive"
                )
            }
        }
        return ledger.entries
    }
}

extension AndroidVibration {
    /// How the effect plays, as a Core Haptics pattern (for `convert --check`): each waveform step
    /// a continuous event of intensity sqrt(amplitude / 255), sharpness 0.5; each primitive a
    /// transient (CLICK sharpness 1, TICK 0.5, THUD 0) of intensity `scale` at its onset.
    public var pattern: HapticPattern {
        var elements: [PatternElement] = []
        switch self {
        case .waveform(let timings, let amplitudes):
            var t = 0
            for (length, amplitude) in zip(timings, amplitudes) {
                if amplitude > 0 {
                    elements.append(
                        .event(
                            HapticEvent(
                                time: Double(t) / 1000, type: .hapticContinuous, duration: Double(length) / 1000,
                                parameters: [
                                    .init(.hapticIntensity, (Float(amplitude) / 255).squareRoot()),
                                    .init(.hapticSharpness, 0.5),
                                ])))
                }
                t += length
            }
        case .composition(let primitives):
            var t = 0
            for p in primitives {
                t += p.delayMilliseconds
                let sharpness: Float = p.name == "CLICK" ? 1 : p.name == "TICK" ? 0.5 : 0
                elements.append(
                    .event(
                        HapticEvent(
                            time: Double(t) / 1000, type: .hapticTransient,
                            parameters: [.init(.hapticIntensity, p.scale), .init(.hapticSharpness, sharpness)])))
            }
        }
        return HapticPattern(elements: elements)
    }
}
