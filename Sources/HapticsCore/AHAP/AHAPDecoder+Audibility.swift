extension AHAPDecoder {
    /// The effective intensity (haptic events) or volume (audio events) under which an event
    /// cannot be heard: amplitude grows as the square of it (docs/voicing.md), so an event at
    /// 0.04 renders 56 dB below the same event at full strength, under -57 dBFS.
    static let inaudibleLevel: Float = 0.04

    /// Notes every event that plays under ``inaudibleLevel`` for its whole span: its own
    /// intensity (or volume) is that low, or its control (`HapticIntensityControl`,
    /// `AudioVolumeControl`) holds it there. Without the note such an event, or a whole file of
    /// them, would render silent with nothing said.
    ///
    /// `sources` pairs each element of `pattern` with its index and node in `Pattern`.
    ///
    /// - Complexity: O(*n* log *n* + *k*) for *n* elements and *k* control changes inside events.
    mutating func noteInaudibleEvents(_ pattern: HapticPattern, sources: [(index: Int, node: Node)]) {
        guard pattern.elements.contains(where: { if case .event = $0 { true } else { false } }) else { return }
        let controls = ParameterTimelines(pattern)
        for (element, source) in zip(pattern.elements, sources) {
            guard case .event(let event) = element else { continue }
            let loudest = Self.loudest(of: event, under: controls)
            guard loudest < Self.inaudibleLevel else { continue }
            diagnostics.append(
                Self.inaudibleNote(
                    event, loudest: loudest, at: JSONPath(currentPath.components + [.index(source.index)]),
                    location: tree.location(source.node)))
        }
    }

    /// The highest effective intensity (haptic events) or volume (audio events) of `event`.
    static func loudest(of event: HapticEvent, under controls: ParameterTimelines) -> Float {
        loudest(event.type.isHaptic ? .hapticIntensity : .audioVolume, of: event, under: controls)
    }

    /// The `inaudible-event` note for `event`, whose loudest is `loudest` (under
    /// ``inaudibleLevel``), for the `Pattern` entry at `entry`, located at `location`.
    static func inaudibleNote(_ event: HapticEvent, loudest: Float, at entry: JSONPath, location: SourceLocation)
        -> Diagnostic
    {
        let parameter: EventParameterID = event.type.isHaptic ? .hapticIntensity : .audioVolume
        let base = event.value(of: parameter)
        let name = parameter.rawValue
        // A Float's shortest text (0.04, not 0.03999999910593033), then the usual number form.
        func text(_ value: Float) -> String { Describe.number(Double("\(value)") ?? Double(value)) }
        let why =
            base < Self.inaudibleLevel
            ? "its \(name) is \(text(base))"
            : "its \(name) \(text(base)) is held at \(text(loudest)) or less by \(parameter.control?.rawValue ?? "its control")"
        return Diagnostic(
            .inaudibleEvent,
            "\(event.type.rawValue) at \(Describe.number(event.time)) s cannot be heard: \(why), under \(text(Self.inaudibleLevel)) (56 dB below full strength)",
            at: entry.key("Event"), location: location)
    }

    /// The highest effective value of `parameter` over the event's span: at its start for a
    /// transient, from start to end for a timed event. Controls are piecewise linear, so the
    /// highest value is at an end or at a change inside the span (from either side of it).
    static func loudest(_ parameter: EventParameterID, of event: HapticEvent, under controls: ParameterTimelines)
        -> Float
    {
        let start = event.time
        let end = event.type == .hapticTransient ? start : start + (event.duration ?? 0)
        var loudest = max(
            controls.value(of: parameter, for: event, at: start), controls.value(of: parameter, for: event, at: end))
        guard end > start, let control = DynamicParameterID.control(for: parameter, onHapticEvent: event.type.isHaptic)
        else { return loudest }
        let timeline = controls[control]
        let base = event.value(of: parameter)
        let knots = timeline.knots
        var i = timeline.knotIndex(at: start) + 1
        while i < knots.count, knots[i].time < end {
            loudest = max(loudest, control.apply(knots[i].value, to: base))
            if i > 0 {
                let before = ParameterTimeline.value(of: knots[i - 1], at: knots[i].time)
                loudest = max(loudest, control.apply(before, to: base))
            }
            i += 1
        }
        return loudest
    }
}
