// Whole-pattern transforms, in one place: what the engine (playback rate), sensory feedback (an
// impact's intensity) and the order replay (a cue's time) do to a pattern.

extension HapticPattern {
    /// The pattern played `rate` times as fast: times and durations divided by `rate`, values kept.
    ///
    /// ```swift
    /// let twiceAsFast = pattern.scaled(by: 2)   // an event at 1 s now starts at 0.5 s
    /// ```
    ///
    /// - Complexity: O(n) in the elements and curve points.
    public func scaled(by rate: Double) -> HapticPattern {
        guard rate > 0, rate != 1 else { return self }
        var copy = self
        copy.elements = elements.map { element in
            switch element {
            case .event(var event):
                event.time /= rate
                event.duration = event.duration.map { $0 / rate }
                return .event(event)
            case .parameter(var parameter):
                parameter.time /= rate
                return .parameter(parameter)
            case .curve(var curve):
                curve.time /= rate
                curve.controlPoints = curve.controlPoints.map { .init(time: $0.time / rate, value: $0.value) }
                return .curve(curve)
            }
        }
        return copy
    }

    /// The pattern with every element `offset` seconds later.
    ///
    /// - Complexity: O(n) in the elements.
    public func shifted(by offset: Double) -> HapticPattern {
        var copy = self
        copy.elements = elements.map { $0.shifted(by: offset) }
        return copy
    }

    /// The pattern with every haptic event's intensity multiplied by `scale` (0...1), as the
    /// intensity control does live. Events without an intensity get `scale` times the default.
    ///
    /// - Complexity: O(n) in the elements.
    public func scalingIntensity(by scale: Float) -> HapticPattern {
        guard scale < 1 else { return self }
        var copy = self
        copy.elements = elements.map { element in
            guard case .event(var event) = element else { return element }
            let scaled = event.value(of: .hapticIntensity) * max(0, scale)
            event.parameters.removeAll { $0.id == .hapticIntensity }
            event.parameters.append(EventParameter(.hapticIntensity, scaled))
            return .event(event)
        }
        return copy
    }
}

extension PatternElement {
    /// The element `offset` seconds later (its curve points are relative to it, so they move too).
    public func shifted(by offset: Double) -> PatternElement {
        switch self {
        case .event(var event):
            event.time += offset
            return .event(event)
        case .parameter(var parameter):
            parameter.time += offset
            return .parameter(parameter)
        case .curve(var curve):
            curve.time += offset
            return .curve(curve)
        }
    }
}
