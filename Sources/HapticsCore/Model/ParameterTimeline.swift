/// How one dynamic parameter (say `HapticIntensityControl`) moves over a pattern's time.
///
/// A timeline is built from the pattern's `Parameter` and `ParameterCurve` elements for one
/// ``DynamicParameterID``. The rules:
/// - before the first element the control is neutral (1 for multipliers, 0 for offsets);
/// - a `Parameter` sets its value abruptly at its `Time` and holds it;
/// - a `ParameterCurve` takes effect at its `Time`. A first point after that time is reached by a
///   line from the value the control has when the curve starts (the earlier element's, where it
///   has got to, or neutral), as Apple documents it: a control point's time is "the time at which
///   the associated parameter reaches this value", and a curve gives "a smooth transition between
///   the current intensity and the upcoming one" (docs/ahap-support.md). The curve then moves
///   linearly between points (point times are relative to the curve's `Time`) and holds its last
///   value after the last point;
/// - an element that starts later takes over from an earlier one, from the value the earlier one
///   has reached; on equal start times the one given later wins;
/// - points out of order are sorted (stably); every point plays, however many there are.
///
/// ```swift
/// let curve = ParameterCurve(.hapticIntensityControl, time: 1, controlPoints: [
///     .init(time: 0, value: 1), .init(time: 1, value: 0)])
/// let timeline = ParameterTimeline(.hapticIntensityControl, parameters: [], curves: [curve])
/// timeline.value(at: 1.5)  // 0.5
/// ```
public struct ParameterTimeline: Hashable, Sendable {
    /// One stretch of the timeline: from `time` on, the value is `value + slope * (t - time)`.
    public struct Knot: Hashable, Sendable {
        /// Seconds, in the timeline's time base.
        public var time: Double
        /// The value at `time`.
        public var value: Float
        /// Change per second until the next knot (0 for a hold).
        public var slope: Double
        /// When the element this knot belongs to started (decides which source takes over).
        public var elementStart: Double
    }

    /// An element that shapes the timeline: a step (`Parameter`) or a curve.
    public enum Element: Hashable, Sendable {
        case step(time: Double, value: Float)
        case curve(time: Double, points: [ParameterCurve.ControlPoint])

        /// When the element takes effect.
        public var time: Double {
            switch self {
            case .step(let time, _), .curve(let time, _): time
            }
        }
    }

    /// The parameter this timeline drives.
    public let id: DynamicParameterID
    /// The elements, stably sorted by start time.
    public private(set) var elements: [Element]
    /// The compiled piecewise-linear form, sorted by time.
    public private(set) var knots: [Knot]

    /// Builds the timeline of `id` from explicit elements (file order breaks ties).
    ///
    /// - Complexity: O(*n* log *n*) in the number of elements and control points.
    public init(_ id: DynamicParameterID, elements: [Element]) {
        self.id = id
        self.elements = []
        self.knots = []
        let sorted = elements.enumerated().sorted {
            ($0.element.time, $0.offset) < ($1.element.time, $1.offset)
        }
        self.elements = sorted.map(\.element)
        compile()
    }

    /// Builds the timeline of `id` from parameters and curves (other IDs are ignored). Ties between
    /// equal start times go to curves, then to the later one in each list.
    public init(_ id: DynamicParameterID, parameters: [DynamicParameter], curves: [ParameterCurve]) {
        let steps = parameters.filter { $0.id == id }.map { Element.step(time: $0.time, value: $0.value) }
        let ramps = curves.filter { $0.id == id && !$0.controlPoints.isEmpty }
            .map { Element.curve(time: $0.time, points: $0.controlPoints) }
        self.init(id, elements: steps + ramps)
    }

    /// Builds the timeline of `id` from the pattern's elements, keeping their file order for ties.
    public init(_ id: DynamicParameterID, pattern: HapticPattern) {
        var elements: [Element] = []
        for element in pattern.elements {
            switch element {
            case .parameter(let p) where p.id == id: elements.append(.step(time: p.time, value: p.value))
            case .curve(let c) where c.id == id && !c.controlPoints.isEmpty:
                elements.append(.curve(time: c.time, points: c.controlPoints))
            default: break
            }
        }
        self.init(id, elements: elements)
    }

    /// Whether no element ever moves the control away from neutral.
    public var isEmpty: Bool { knots.isEmpty }

    private mutating func compile() {
        knots.removeAll(keepingCapacity: true)
        for (i, element) in elements.enumerated() {
            let end = i + 1 < elements.count ? elements[i + 1].time : .infinity
            // The earlier elements' knots all lie before this element's start: the last one is in force.
            let current = knots.last.map { Self.value(of: $0, at: element.time) } ?? id.neutralValue
            Self.knots(of: element, until: end, from: current) { knots.append($0) }
        }
    }

    /// The knots `element` contributes while it is in force, from its start until `end` (when a
    /// later element takes over), passed to `body` in time order. `current` is the control's
    /// value when the element starts: a curve whose first point comes later ramps from it.
    ///
    /// `timeScale` converts the element's seconds into the time base of the knots: 1 for
    /// pattern seconds, the sample rate for frames (the synthesizer keeps live controls in
    /// frames). `element.time` and `end` are in that time base already.
    ///
    /// Two control points closer together than the time base can tell apart (a subnormal
    /// spacing, say) make a step, not a ramp with an infinite slope: a value never becomes NaN
    /// or infinite.
    ///
    /// Allocates only to sort control points that are not in ascending order.
    public static func knots(
        of element: Element, until end: Double, timeScale: Double = 1, from current: Float,
        _ body: (Knot) -> Void
    ) {
        let start = element.time
        switch element {
        case .step(_, let value):
            if start < end { body(Knot(time: start, value: value, slope: 0, elementStart: start)) }
        case .curve(_, let given):
            let ascending = zip(given, given.dropFirst()).allSatisfy { $0.time <= $1.time }
            let points = ascending ? given : given.sorted { $0.time < $1.time }
            if start < end, points[0].time > 0 {
                let rise = Double(points[0].value - current) / (points[0].time * timeScale)
                body(Knot(time: start, value: current, slope: rise.isFinite ? rise : 0, elementStart: start))
            }
            for j in points.indices {
                let point = points[j]
                let t = start + max(0, point.time) * timeScale
                guard t < end else { break }
                var slope = 0.0
                if j + 1 < points.count {
                    let dt = (points[j + 1].time - point.time) * timeScale
                    let rise = Double(points[j + 1].value - point.value) / dt
                    if dt > 0, rise.isFinite { slope = rise }
                }
                body(Knot(time: t, value: point.value, slope: slope, elementStart: start))
            }
        }
    }

    /// The index of the last knot at or before `t`, or -1.
    @inlinable
    func knotIndex(at t: Double) -> Int {
        knots.withUnsafeBufferPointer { Self.lastKnot(in: $0, atOrBefore: t) }
    }

    /// The index of the last of `knots` (sorted by time) at or before `t`, or -1: the one
    /// binary search every lookup and cursor uses.
    ///
    /// - Complexity: O(log *n*).
    @inlinable
    public static func lastKnot(in knots: UnsafeBufferPointer<Knot>, atOrBefore t: Double) -> Int {
        var low = 0
        var high = knots.count
        while low < high {
            let mid = (low + high) / 2
            if knots[mid].time <= t { low = mid + 1 } else { high = mid }
        }
        return low - 1
    }

    /// The control's value at `t` seconds (neutral before the first element).
    ///
    /// - Complexity: O(log *n*) in the number of knots.
    @inlinable
    public func value(at t: Double) -> Float {
        let i = knotIndex(at: t)
        return i < 0 ? id.neutralValue : Self.value(of: knots[i], at: t)
    }

    /// When the element in force at `t` started, or -infinity if none is.
    public func elementStart(at t: Double) -> Double {
        let i = knotIndex(at: t)
        return i < 0 ? -.infinity : knots[i].elementStart
    }

    /// The event parameter value `base` as modulated by this control at `t`: multiplied
    /// (intensity, volume) or offset (all others), then clamped to the parameter's range.
    ///
    /// ```swift
    /// // HapticIntensityControl at 0.5 halves an intensity of 0.8:
    /// timeline.modulate(0.8, at: t)  // 0.4
    /// ```
    @inlinable
    public func modulate(_ base: Float, at t: Double) -> Float {
        id.apply(value(at: t), to: base)
    }

    /// The value a knot gives at `t` (its value, plus its slope times the time since it).
    @inlinable
    public static func value(of knot: Knot, at t: Double) -> Float {
        knot.slope == 0 ? knot.value : knot.value + Float(knot.slope * (t - knot.time))
    }

    /// Walks a timeline forward in time without a search per step.
    ///
    /// Ask for non-decreasing times; a step back falls back to a binary search.
    ///
    /// ```swift
    /// var cursor = ParameterTimeline.Cursor()
    /// for frame in 0..<n { let v = cursor.value(in: timeline, at: Double(frame) / 48_000) }
    /// ```
    /// - Complexity: amortized O(1) per call for non-decreasing times.
    public struct Cursor: Hashable, Sendable {
        @usableFromInline var index: Int = -1

        public init() {}

        /// Moves to `t` and returns the index of the knot in force (or -1).
        @inlinable
        public mutating func seek(in timeline: ParameterTimeline, to t: Double) -> Int {
            timeline.knots.withUnsafeBufferPointer { seek(in: $0, to: t) }
        }

        /// Moves to `t` over a timeline's knots held in memory the caller owns (the synthesizer's
        /// hot path: no reference counting per step).
        @inlinable
        public mutating func seek(in knots: UnsafeBufferPointer<Knot>, to t: Double) -> Int {
            if index >= knots.count || (index >= 0 && knots[index].time > t) {
                index = ParameterTimeline.lastKnot(in: knots, atOrBefore: t)
                return index
            }
            while index + 1 < knots.count, knots[index + 1].time <= t { index += 1 }
            return index
        }

        /// The control's value at `t`.
        @inlinable
        public mutating func value(in timeline: ParameterTimeline, at t: Double) -> Float {
            let i = seek(in: timeline, to: t)
            return i < 0 ? timeline.id.neutralValue : ParameterTimeline.value(of: timeline.knots[i], at: t)
        }

        /// When the control next changes after `t`: the next knot, or `t` itself while a ramp is
        /// in force; +infinity when it holds for ever.
        @inlinable
        public mutating func nextChange(in timeline: ParameterTimeline, after t: Double) -> Double {
            let i = seek(in: timeline, to: t)
            if i >= 0, timeline.knots[i].slope != 0 { return t }
            return i + 1 < timeline.knots.count ? timeline.knots[i + 1].time : .infinity
        }
    }
}

extension DynamicParameterID {
    /// Applies a control value to an event parameter value: multiplies (intensity, volume) or adds
    /// (all others), then clamps to the event parameter's range.
    ///
    /// ```swift
    /// DynamicParameterID.hapticSharpnessControl.apply(0.3, to: 0.9)  // 1.0 (clamped)
    /// ```
    @inlinable
    public func apply(_ control: Float, to base: Float) -> Float {
        let range = target.range
        let raw = isMultiplicative ? base * control : base + control
        return min(max(raw, range.lowerBound), range.upperBound)
    }
}

/// The timelines of all twelve dynamic parameters of a pattern, and the effective event parameter
/// values they produce.
///
/// ```swift
/// let controls = ParameterTimelines(pattern)
/// let intensity = controls.value(of: .hapticIntensity, for: event, at: 0.25)
/// ```
public struct ParameterTimelines: Hashable, Sendable {
    /// One timeline per ``DynamicParameterID``.
    public private(set) var timelines: ControlTable<ParameterTimeline>

    /// Compiles every dynamic parameter and curve of `pattern`.
    ///
    /// - Complexity: O(*n* log *n*) in the number of elements.
    public init(_ pattern: HapticPattern) {
        timelines = ControlTable { ParameterTimeline($0, pattern: pattern) }
    }

    /// The timeline of `id`.
    public subscript(id: DynamicParameterID) -> ParameterTimeline {
        get { timelines[id] }
        set { timelines[id] = newValue }
    }

    /// The effective value of `parameter` for `event` at pattern time `t`: the event's own value
    /// modulated by the matching control (haptic controls for haptic events, audio controls for
    /// audio events) and clamped to the parameter's range.
    public func value(of parameter: EventParameterID, for event: HapticEvent, at t: Double) -> Float {
        let base = event.value(of: parameter)
        guard let control = DynamicParameterID.control(for: parameter, onHapticEvent: event.type.isHaptic) else {
            return base
        }
        return self[control].modulate(base, at: t)
    }
}
