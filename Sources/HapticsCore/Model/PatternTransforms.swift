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

    /// Why the pattern cannot be played at `rate`, or nil when it can: `rate` must be a number
    /// above 0, and the pattern played at it (``duration`` divided by `rate`) must last at most
    /// `maxSeconds`. What checks a rate from a user (`haptic play --rate`, the studio's `rate`)
    /// before any time is scaled by it.
    ///
    /// ```swift
    /// pattern.rateProblem(1e-7, maxSeconds: 3600)   // a 1 s pattern
    /// // "rate 1e-07 would make this 1 s pattern last 10000000 s; the longest is 3600 s
    /// //  (the slowest rate for it is 0.000278)"
    /// ```
    public func rateProblem(_ rate: Double, maxSeconds: Double) -> String? {
        guard rate.isFinite, rate > 0 else { return "rate \(rate) must be a number above 0" }
        let length = duration / rate
        guard length <= maxSeconds else {
            // The slowest rate, rounded up to 3 significant digits (as a Float prints it).
            var slowest = duration / maxSeconds
            var scale = 1.0
            while slowest * scale < 100 { scale *= 10 }
            while slowest * scale >= 1000 { scale /= 10 }
            slowest = (slowest * scale).rounded(.up) / scale
            return "rate \(Describe.number(rate)) would make this \(Describe.number(duration)) s pattern last "
                + "\(Self.brief(length)) s; the longest is \(Describe.number(maxSeconds)) s "
                + "(the slowest rate for it is \(Float(slowest)))"
        }
        return nil
    }

    /// A length for a message: to the millisecond below 10^9 s, else 1.9e+30.
    static func brief(_ seconds: Double) -> String {
        guard seconds.isFinite, seconds >= 1e9 else { return Describe.number((seconds * 1000).rounded() / 1000) }
        var mantissa = seconds
        var exponent = 0
        while mantissa >= 10 {
            mantissa /= 10
            exponent += 1
        }
        return Describe.number((mantissa * 100).rounded() / 100) + "e+\(exponent)"
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
