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

        /// The primitive a transient becomes under the controls in force at its time;
        /// `previous` is the previous primitive's onset in milliseconds (0 for the first), and
        /// becomes this one's. The whole-pattern mapping and the streamed one share it.
        package init(
            _ tap: HapticEvent, intensity: ParameterTimeline, sharpness: ParameterTimeline, after previous: inout Int
        ) {
            let sharp = sharpness.modulate(tap.value(of: .hapticSharpness), at: tap.time)
            // Each delay from the previous onset rounded to the millisecond, not the previous
            // delay: rounding each gap on its own drifts (541 taps 11.61 ms apart: 86 ms).
            let onset = Int((tap.time * 1000).rounded())
            self.init(
                name: sharp >= 0.7 ? "CLICK" : sharp >= 0.3 ? "TICK" : "THUD",
                scale: intensity.modulate(tap.value(of: .hapticIntensity), at: tap.time),
                delayMilliseconds: onset - previous)
            previous = onset
        }

        init(name: String, scale: Float, delayMilliseconds: Int) {
            self.name = name
            self.scale = scale
            self.delayMilliseconds = delayMilliseconds
        }
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
            var previous = 0
            self = .composition(
                haptic.map { Primitive($0, intensity: intensity, sharpness: sharpness, after: &previous) })
            return
        }
        let releaseControl = ParameterTimeline(.hapticReleaseTimeControl, pattern: pattern)
        var sweep = WaveformSweep()
        for event in haptic { sweep.add(event, release: releaseControl) }
        let count = sweep.stepCount
        var runs = WaveformRuns()
        var timings: [Int] = []
        var amplitudes: [Int] = []
        // A sweep: `haptic` is in time order, so the events that may play in a step are those
        // started before its end (all added above; the sweep takes them in order).
        while sweep.index < count {
            if let run = runs.add(sweep.step(intensity: intensity)) {
                timings.append(run.milliseconds)
                amplitudes.append(run.amplitude)
            }
        }
        if let run = runs.finish(afterOthers: !amplitudes.isEmpty) {
            timings.append(run.milliseconds)
            amplitudes.append(run.amplitude)
        }
        self = .waveform(timings: timings, amplitudes: amplitudes)
    }

    /// The waveform's steps, one at a time, for events given in time order: the whole-pattern
    /// mapping and the streamed one (`AndroidVibrationStream`) share it, so their amplitudes agree.
    /// A step may be taken once every event starting before its end has been added.
    package struct WaveformSweep {
        private static let step = Double(AndroidVibration.stepMilliseconds) / 1000
        /// The next step to take.
        package private(set) var index = 0
        /// The latest moment any event added so far sounds until.
        private var end = 0.0
        private var waiting: [(event: HapticEvent, stop: Double, release: Double)] = []
        private var waitingHead = 0
        private var active: [(event: HapticEvent, stop: Double, release: Double)] = []

        package init() {}

        /// Steps up to the end of the last event added (with its release).
        package var stepCount: Int { Int((end / Self.step).rounded(.up)) }

        /// Where the next step ends: an event starting at or after it does not play in it.
        package var nextStepEnd: Double { Double(index) * Self.step + Self.step }

        /// The earliest moment whose control values a later step may read.
        package var earliestNeeded: Double {
            var t = Double(index) * Self.step
            for (event, _, _) in active { t = min(t, event.time) }
            if waitingHead < waiting.count { t = min(t, waiting[waitingHead].event.time) }
            return t
        }

        /// Adds a haptic event, not before the last one added; `release` is the
        /// HapticReleaseTimeControl (read at the event's onset).
        package mutating func add(_ event: HapticEvent, release control: ParameterTimeline) {
            var release = 0.0
            if event.type == .hapticContinuous {
                release = max(
                    Double(control.modulate(event.value(of: .releaseTime), at: event.time)),
                    AndroidVibration.minimumRelease)
            }
            let stop =
                event.type == .hapticTransient ? event.time + Self.step : event.time + (event.duration ?? 0) + release
            end = max(end, stop)
            waiting.append((event, stop, release))
        }

        /// The next step's amplitude, 0...255: round(255 x level^2) of the strongest event
        /// playing in it, `intensity` the HapticIntensityControl.
        package mutating func step(intensity: ParameterTimeline) -> Int {
            let t0 = Double(index) * Self.step
            let t1 = t0 + Self.step
            index += 1
            while waitingHead < waiting.count, waiting[waitingHead].event.time < t1 {
                active.append(waiting[waitingHead])
                waitingHead += 1
            }
            if waitingHead > 64, waitingHead * 2 > waiting.count {
                waiting.removeFirst(waitingHead)
                waitingHead = 0
            }
            active.removeAll { $0.stop <= t0 }
            var level: Float = 0
            for (event, stop, release) in active {
                let start = event.time
                // After a continuous event's end, its level there falling over the release, taken
                // at the middle of the step (at its start, a 5 ms release would fill 10 ms).
                let over = event.type == .hapticContinuous ? stop - release : stop
                let at = min(max(start, t0), over)
                let played = intensity.modulate(event.value(of: .hapticIntensity), at: at)
                var fall: Float = 1
                if t0 >= over - 1e-9 { fall = AndroidVibration.fall((t0 + Self.step / 2 - over) / release) }
                level = max(level, played * (AndroidVibration.decay(of: event, at: at - start) * fall).squareRoot())
            }
            return Int((255 * level * level).rounded())
        }
    }

    /// Equal steps merged into runs; a run of 0 at the end dropped.
    package struct WaveformRuns {
        private var current: (milliseconds: Int, amplitude: Int)?

        package init() {}

        /// The next step's amplitude; returns the run it ends, if any.
        package mutating func add(_ amplitude: Int) -> (milliseconds: Int, amplitude: Int)? {
            if let run = current, run.amplitude == amplitude {
                current = (run.milliseconds + AndroidVibration.stepMilliseconds, amplitude)
                return nil
            }
            defer { current = (AndroidVibration.stepMilliseconds, amplitude) }
            return current
        }

        /// The last run, unless it is 0 after `afterOthers` runs: steps of 0 at the end (an event
        /// that faded out before its EventDuration) are no vibration, so the waveform ends with the
        /// last one that moves the motor.
        package func finish(afterOthers: Bool) -> (milliseconds: Int, amplitude: Int)? {
            guard let run = current else { return nil }
            return afterOthers && run.amplitude == 0 ? nil : run
        }
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
        switch self {
        case .waveform(let timings, let amplitudes):
            WaveformText.json.text(timings: timings, amplitudes: amplitudes)
        case .composition(let primitives):
            CompositionText.json.text(primitives)
        }
    }

    /// The Kotlin expression that builds the effect.
    public var kotlin: String {
        switch self {
        case .waveform(let timings, let amplitudes):
            return WaveformText.kotlin.text(timings: timings, amplitudes: amplitudes)
        case .composition(let primitives):
            return CompositionText.kotlin.text(primitives)
        }
    }

    /// A composition's text, as JSON or Kotlin: a head, each primitive, a tail (a composition
    /// has at least one primitive). Shared by ``json``, ``kotlin`` and the streamed writer, which
    /// writes each primitive as its transient comes.
    package struct CompositionText: Sendable {
        package var head: String
        package var tail: String
        private var isKotlin: Bool

        package static let json = CompositionText(
            head: "{\n    \"type\": \"composition\",\n    \"primitives\": [", tail: "\n    ]\n}\n", isKotlin: false)
        package static let kotlin = CompositionText(
            head: "VibrationEffect.startComposition()\n", tail: "    .compose()\n", isKotlin: true)

        /// One primitive as written, `first` when none comes before it.
        package func primitive(_ p: Primitive, first: Bool) -> String {
            if isKotlin {
                return
                    "    .addPrimitive(VibrationEffect.Composition.PRIMITIVE_\(p.name), \(NumberText.float(p.scale))f, \(p.delayMilliseconds))\n"
            }
            var w = AHAPWriter()
            if !first { w.separator() }
            w.indentLevel = 2
            w.newline()
            w.object([
                ("primitive", { $0.string(p.name) }),
                ("scale", { $0.number(p.scale) }),
                ("delayMs", { $0.raw("\(p.delayMilliseconds)") }),
            ])
            return String(decoding: w.out, as: UTF8.self)
        }

        func text(_ primitives: [Primitive]) -> String {
            var out = head
            for (i, p) in primitives.enumerated() { out += primitive(p, first: i == 0) }
            return out + tail
        }
    }

    /// A waveform's text around its two lists, as JSON or Kotlin: the timings come whole before
    /// the amplitudes. Shared by ``json``, ``kotlin`` and the streamed writer.
    package struct WaveformText: Sendable {
        package var head: String
        package var timingSuffix: String
        package var middle: String
        package var tail: String
        package static let separator = ", "

        package static let json = WaveformText(
            head: "{\n    \"type\": \"waveform\",\n    \"timings\": [", timingSuffix: "",
            middle: "],\n    \"amplitudes\": [", tail: "],\n    \"repeat\": -1\n}\n")
        package static let kotlin = WaveformText(
            head: "VibrationEffect.createWaveform(longArrayOf(", timingSuffix: "L", middle: "), intArrayOf(",
            tail: "), -1)\n")

        /// One timing as written.
        package func timing(_ milliseconds: Int) -> String { "\(milliseconds)" + timingSuffix }

        func text(timings: [Int], amplitudes: [Int]) -> String {
            head + timings.map(timing).joined(separator: Self.separator) + middle
                + amplitudes.map(String.init).joined(separator: Self.separator) + tail
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
        var tally = LossTally()
        for event in pattern.events where !event.type.isHaptic { tally.add(event) }
        for event in pattern.events.filter(\.type.isHaptic).sorted(by: { $0.time < $1.time }) { tally.add(event) }
        if case .waveform = effect { return tally.entries(waveform: true) }
        return tally.entries(waveform: false)
    }

    /// The losses counted one event at a time (events in time order): the whole-pattern report
    /// and the streamed writer's share it.
    package struct LossTally {
        private var audio: [String: Int] = [:]
        private var audioOrder: [String] = []
        private var haptic = 0
        private var transients = 0
        private var overlaps = 0
        private var continuousEnd = -Double.infinity

        package init() {}

        package mutating func add(_ event: HapticEvent) {
            guard event.type.isHaptic else {
                if audio[event.type.rawValue] == nil { audioOrder.append(event.type.rawValue) }
                audio[event.type.rawValue, default: 0] += 1
                return
            }
            haptic += 1
            if event.type == .hapticTransient { transients += 1 }
            if event.type == .hapticContinuous {
                if event.time < continuousEnd - 1e-9 { overlaps += 1 }
                continuousEnd = max(continuousEnd, event.time + (event.duration ?? 0))
            }
        }

        /// The report for a waveform, or for a composition.
        package func entries(waveform: Bool) -> [ConversionLoss] {
            var entries: [ConversionLoss] = []
            if let first = audioOrder.first {
                // One kind for every audio event, its message naming the first type met.
                entries.append(
                    ConversionLoss(
                        kind: "audio-event", count: audio.values.reduce(0, +),
                        message: "\(first) events have no Android equivalent; left out"))
            }
            func add(_ kind: String, _ count: Int, _ message: String) {
                if count > 0 { entries.append(ConversionLoss(kind: kind, count: count, message: message)) }
            }
            if waveform {
                add(
                    "sharpness", haptic,
                    "a waveform has amplitude only: sharpness is dropped, each transient is one 10 ms step, and a level under half of amplitude 1/255 (about -56 dBFS) rounds to 0"
                )
                add(
                    "overlapping-continuous", overlaps,
                    "a waveform has one amplitude: where continuous events overlap it plays the strongest, not their sum or their beating"
                )
            } else {
                add(
                    "primitive", transients,
                    "a transient becomes the nearest primitive (CLICK, TICK or THUD by sharpness); Android counts each delay from the end of the previous primitive"
                )
            }
            return entries
        }
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
