import HapticsCore

/// The analysis's pattern written as a Meta/Lofelt clip (`.haptic`) while the sound is read: the
/// bytes are exactly those of `HapticClip.encode(HapticClip(pattern:losses:))` of the pattern
/// ``AudioHapticsAnalyzer/finish()`` returns, but the amplitude envelope is written as it is made.
/// What is held: the continuous event being closed and the last few (their curves make the
/// controls), the transients not yet placed, a window of the envelope around them, and the
/// frequency envelope (written after the amplitude, so held whole: a time and a value per
/// sharpness point, 16 bytes; written in pieces at the end).
///
/// It takes the elements ``PatternStream`` writes, in the whole pattern's order, and relies on
/// the shape the analysis makes: continuous events at intensity 1 that do not overlap, each with
/// its intensity and sharpness curves from its start to 10 ms after its end; transients apart.
final class ClipStream {
    private typealias Amplitude = HapticClip.AmplitudeBreakpoint

    private struct Sound {
        var event: HapticEvent
        var curves: [ParameterCurve] = []
        var end: Double { event.time + (event.duration ?? 0) }
    }

    /// A transient placed no sooner than this after the envelope it may touch is known: a held
    /// emphasis's pause (``HapticClip/emphasisHold`` and a ramp) and a margin.
    private static let reach = HapticClip.emphasisHold + 2 * HapticClip.emphasisRamp + 0.03
    /// Finished continuous events kept for the controls.
    private static let keptSounds = 8

    private var encoder = ClipStreamEncoder()
    private let continuousPossible: Bool
    private var open: Sound?
    private var recent: [Sound] = []
    private var controls: (intensity: ParameterTimeline, sharpness: ParameterTimeline)?
    /// The last finished event's end, where the envelope steps to 0 if another event follows.
    private var pendingEnd: Double?
    private var carrierLast: Amplitude?
    /// The envelope not yet written (levels before ducking), after `retained` written ones.
    private var window: [Amplitude] = []
    private var retained = 0
    private var taps: [HapticEvent] = []
    private var tapHead = 0
    private var frequency: [HapticClip.FrequencyBreakpoint] = []
    private var carrierSharpness: Float?
    private var lastSharpness: (time: Double, value: Float)?
    /// The sharpness curve in force, whose knots wait for the next curve's start.
    private var pendingSharpness: ParameterCurve?
    /// The last knot of the sharpness control, and whether its point was kept (not a repeat).
    private var lastKnot: (knot: ParameterTimeline.Knot, kept: Bool)?
    private var duration = 0.0
    private var firstWritten: Amplitude?
    private var lastWritten: Amplitude?
    private var audioEvents = 0
    private var latest = -Double.infinity

    init(options: AudioHapticsOptions) {
        continuousPossible = options.content != .transientsOnly
    }

    /// What the clip cannot hold (an AudioCustom event), as `HapticClip(pattern:losses:)` says.
    var losses: [ConversionLoss] {
        audioEvents == 0
            ? []
            : [
                ConversionLoss(
                    kind: "audio-event", count: audioEvents,
                    message: "AudioCustom events have no .haptic equivalent; left out")
            ]
    }

    var pendingBytes: Int { encoder.pendingBytes }

    func drain(_ body: (UnsafeRawBufferPointer) throws -> Void) throws { try encoder.drain(body) }

    /// The next element of the pattern, in its order.
    func add(_ element: PatternElement) {
        latest = max(latest, element.time)
        switch element {
        case .event(let event):
            duration = max(duration, event.time + (event.duration ?? 0))
            switch event.type {
            case .hapticContinuous:
                if let sound = open { finish(sound) }
                if let end = pendingEnd, event.time > end + 1e-9 { appendCarrier(Amplitude(time: end, amplitude: 0)) }
                pendingEnd = nil
                open = Sound(event: event)
                if carrierSharpness == nil { carrierSharpness = event.value(of: .hapticSharpness) }
            case .hapticTransient:
                if let sound = open, event.time >= sound.end { finish(sound) }
                taps.append(event)
            default:
                audioEvents += 1
            }
        case .curve(let curve):
            duration = max(duration, curve.time)
            open?.curves.append(curve)
            if curve.id == .hapticSharpnessControl, carrierSharpness != nil, !curve.controlPoints.isEmpty {
                // A curve is in force until the next one starts: its knots are known then.
                if let previous = pendingSharpness { addSharpness(previous, until: curve.time) }
                pendingSharpness = curve
            }
        case .parameter(let parameter):
            duration = max(duration, parameter.time)
        }
        placeTaps(final: false)
    }

    /// Everything is known: the rest of the envelope, its end, the frequency envelope, handed
    /// to `write` as it goes.
    func finish(_ write: (UnsafeRawBufferPointer) throws -> Void) throws {
        if let sound = open { finish(sound) }
        if let previous = pendingSharpness { addSharpness(previous, until: .infinity) }
        pendingSharpness = nil
        placeTaps(final: true)
        self.write(before: .infinity)
        if lastWritten == nil { emit(Amplitude(time: 0, amplitude: 0)) }
        if let last = lastWritten, duration > last.time + 1e-9 {
            emit(Amplitude(time: duration, amplitude: last.amplitude))
        }
        if let first = firstWritten, let last = lastWritten, last.time <= first.time {
            emit(Amplitude(time: last.time + HapticClip.emphasisHold, amplitude: 0))
        }
        frequency = HapticClip.clipped(frequency, to: lastWritten?.time ?? 0)
        for point in frequency {
            encoder.appendFrequency(point)
            if encoder.pendingBytes >= 1 << 16 { try encoder.drain(write) }
        }
        encoder.finish()
        try encoder.drain(write)
    }

    // MARK: The frequency envelope

    /// The frequency breakpoints of `curve`'s knots while it is in force (until `end`), as
    /// `HapticClip`'s points of a control: each knot, and where the next knot does not start from
    /// the value reached, a point at its time that makes the step.
    private func addSharpness(_ curve: ParameterCurve, until end: Double) {
        guard let carrier = carrierSharpness else { return }
        let current = lastKnot.map { ParameterTimeline.value(of: $0.knot, at: curve.time) } ?? 0
        ParameterTimeline.knots(of: .curve(time: curve.time, points: curve.controlPoints), until: end, from: current) {
            knot in
            if let last = lastKnot, last.kept {
                let reached = ParameterTimeline.value(of: last.knot, at: knot.time)
                if abs(reached - knot.value) > 1e-6 { addFrequency((knot.time, reached), carrier: carrier) }
            }
            let point = (time: knot.time, value: knot.value)
            let repeated = lastSharpness.map { abs($0.time - point.time) < 1e-9 && $0.value == point.value } ?? false
            if !repeated { addFrequency(point, carrier: carrier) }
            lastKnot = (knot, !repeated)
        }
    }

    private func addFrequency(_ point: (time: Double, value: Float), carrier: Float) {
        HapticClip.appendFrequency(point, after: lastSharpness, carrier: carrier, to: &frequency)
        lastSharpness = point
    }

    // MARK: The envelope

    private func finish(_ sound: Sound) {
        open = nil
        recent.append(sound)
        if recent.count > Self.keptSounds { recent.removeFirst() }
        controls = nil
        let made = HapticClip.carrierEnvelope([sound.event], intensity: timelines().intensity, after: carrierLast)
        for point in made { appendCarrier(point) }
        pendingEnd = sound.end
    }

    private func appendCarrier(_ point: Amplitude) {
        if let last = carrierLast, abs(last.time - point.time) < 1e-9, last.amplitude == point.amplitude { return }
        carrierLast = point
        window.append(point)
    }

    /// The controls of the last events: the same values as the whole pattern's from the start
    /// of the second of them on.
    private func timelines() -> (intensity: ParameterTimeline, sharpness: ParameterTimeline) {
        if let controls { return controls }
        let curves = recent.flatMap(\.curves)
        let made = (
            ParameterTimeline(.hapticIntensityControl, parameters: [], curves: curves),
            ParameterTimeline(.hapticSharpnessControl, parameters: [], curves: curves)
        )
        controls = made
        return made
    }

    /// Places the transients whose surroundings are known, then writes what they can no longer touch.
    private func placeTaps(final: Bool) {
        let known = open == nil && pendingEnd == nil ? -Double.infinity : carrierLast?.time ?? -.infinity
        while tapHead < taps.count {
            let tap = taps[tapHead]
            guard final || !continuousPossible || tap.time + Self.reach < known else { break }
            let controls = timelines()
            HapticClip.placeEmphasis(tap, in: &window, intensity: controls.intensity, sharpness: controls.sharpness)
            tapHead += 1
        }
        if tapHead > 64, tapHead * 2 > taps.count {
            taps.removeFirst(tapHead)
            tapHead = 0
        }
        // Transients still to come are no earlier than the last element taken.
        let next = tapHead < taps.count ? taps[tapHead].time : latest
        write(before: min(next, latest) - Self.reach)
    }

    /// Writes the envelope's breakpoints before `bound`, keeping a few written ones for the
    /// transients still to place (the line before a pause, whether a breakpoint comes before).
    private func write(before bound: Double) {
        while retained < window.count, window[retained].time < bound {
            var point = window[retained]
            if point.emphasis != nil { point.amplitude = HapticClip.ducked(point.amplitude) }
            emit(point)
            retained += 1
        }
        if retained > 68 {
            window.removeFirst(retained - 4)
            retained = 4
        }
    }

    private func emit(_ point: Amplitude) {
        if firstWritten == nil { firstWritten = point }
        lastWritten = point
        encoder.append(point)
    }
}
