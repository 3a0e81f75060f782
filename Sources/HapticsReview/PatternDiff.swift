public import HapticsCore
import OrderedCollections

/// What changed between two versions of a pattern: events added, removed, moved and
/// re-parameterised; curves and dynamic parameters added, removed, moved or changed; the
/// pattern's duration, version and metadata.
///
/// ```swift
/// let diff = PatternDiff.compare(before, after)
/// if !diff.isEmpty { print(diff.text) }
/// // Duration: 1.000 s -> 1.050 s
/// // Events: 1 moved, 2 unchanged
/// // ~ moved HapticTransient 1.000 s -> 1.050 s (A Pattern[2] -> B Pattern[2])
/// ```
///
/// ## Matching
/// Elements are only ever paired with elements of the same kind and type (events by `EventType`,
/// curves and dynamic parameters by parameter ID). Pairs are found in four passes; each pass
/// considers only elements still unpaired, lists every candidate pair, sorts the candidates by cost
/// (ties: lower index in A, then in B) and takes them greedily, so the result is deterministic and
/// does not depend on the order of equal-cost candidates:
/// 1. identical: same time (within 1 µs) and same content — unchanged, cost = time difference;
/// 2. same time, different content — re-parameterised, cost = parameter distance;
/// 3. same content, time differs by at most `tolerance` — moved, cost = time difference;
/// 4. time differs by at most `tolerance`, content differs — moved and re-parameterised,
///    cost = time difference / tolerance + parameter distance.
///
/// What is left is removed (in A) or added (in B). Content means everything but the time:
/// for events the effective value of every event parameter (an omitted parameter equals its
/// default), the duration and the waveform fields; for curves the control points; for dynamic
/// parameters the value. Parameter distance sums the absolute differences.
///
/// A pass lists each element's candidates among the unpaired elements of the same type within
/// the window. When a window holds more than 32 of them (thousands of events at one time), an
/// element is given the 32 around the one of the same rank in the window, and the pass runs again
/// on what is left (at most 64 rounds): the same pairs whenever elements line up in order, in
/// bounded memory.
///
/// - Complexity: O(n log n) time and O(n) memory in the elements (at most 32 candidates each).
public struct PatternDiff: Hashable, Sendable {
    /// Which kind of pattern element a change is about.
    public enum ElementKind: String, Hashable, Sendable {
        case event
        case parameter
        case curve
    }

    /// What happened to an element.
    public enum ChangeKind: String, Hashable, Sendable {
        case added
        case removed
        case moved
        case reparameterised
        case movedAndReparameterised
    }

    /// One property that differs: its AHAP name and its value before and after, as text.
    public struct PropertyChange: Hashable, Sendable, CustomStringConvertible {
        public var name: String
        public var from: String
        public var to: String

        public init(_ name: String, from: String, to: String) {
            self.name = name
            self.from = from
            self.to = to
        }

        /// `name from -> to`.
        public var description: String { "\(name) \(from) -> \(to)" }
    }

    /// One changed element.
    public struct Change: Hashable, Sendable {
        public var kind: ChangeKind
        public var element: ElementKind
        /// The element in A (nil when added).
        public var before: PatternElement?
        /// The element in B (nil when removed).
        public var after: PatternElement?
        /// Its index in A's `Pattern` array.
        public var beforeIndex: Int?
        /// Its index in B's `Pattern` array.
        public var afterIndex: Int?
        /// What differs, `Time` first when the element moved.
        public var properties: [PropertyChange]

        /// When the change happens: the element's time in B, or in A when removed.
        public var time: Double { (after ?? before)?.time ?? 0 }

        /// The span the changed element covers in A and B together, in seconds.
        public var span: ClosedRange<Double> {
            let ranges = [before, after].compactMap { $0.map(PatternDiff.span(of:)) }
            let lo = ranges.map(\.lowerBound).min() ?? 0
            let hi = ranges.map(\.upperBound).max() ?? lo
            return lo...max(lo, hi)
        }

        /// The change as one line of `PatternDiff.text`.
        public var line: String { PatternDiff.line(for: self) }
    }

    /// The changed elements, in time order.
    public var changes: [Change]
    /// Elements present and identical in both.
    public var unchangedCount: Int
    /// `HapticPattern.duration` of A and of B.
    public var durationBefore: Double
    public var durationAfter: Double
    /// `Version` when it differs.
    public var versionChange: PropertyChange?
    /// Metadata keys added, removed or changed (values as compact JSON; absent is `none`).
    public var metadataChanges: [PropertyChange]
    /// How far (seconds) an element may move and still be recognised as the same element.
    public var tolerance: Double

    /// Whether the patterns have the same elements, duration, version and metadata.
    public var isEmpty: Bool {
        changes.isEmpty && metadataChanges.isEmpty && versionChange == nil && !durationChanged
    }

    /// Whether the pattern's duration differs (by more than 1 µs).
    public var durationChanged: Bool { abs(durationBefore - durationAfter) > Self.epsilon }

    /// The events added to B.
    public var addedEvents: [Change] { changes.filter { $0.element == .event && $0.kind == .added } }
    /// The events of A missing from B.
    public var removedEvents: [Change] { changes.filter { $0.element == .event && $0.kind == .removed } }
    /// The events that only moved in time.
    public var movedEvents: [Change] { changes.filter { $0.element == .event && $0.kind == .moved } }
    /// The events whose parameters changed (whether or not they also moved).
    public var reparameterisedEvents: [Change] {
        changes.filter {
            $0.element == .event && ($0.kind == .reparameterised || $0.kind == .movedAndReparameterised)
        }
    }
    /// The curve and dynamic-parameter changes.
    public var controlChanges: [Change] { changes.filter { $0.element != .event } }

    static let epsilon = 1e-6

    /// Compares `a` (before) with `b` (after). `tolerance` is how far in seconds an element may move
    /// and still count as moved rather than removed and added.
    public static func compare(_ a: HapticPattern, _ b: HapticPattern, tolerance: Double = 0.25) -> PatternDiff {
        var diff = PatternDiff(
            changes: [], unchangedCount: 0, durationBefore: a.duration, durationAfter: b.duration,
            versionChange: nil, metadataChanges: [], tolerance: tolerance)
        if a.version != b.version {
            diff.versionChange = PropertyChange(
                "Version", from: a.version.map { Markup.number($0, decimals: 6) } ?? "none",
                to: b.version.map { Markup.number($0, decimals: 6) } ?? "none")
        }
        for key in a.metadata.keys where b.metadata[key] == nil {
            diff.metadataChanges.append(PropertyChange(key, from: a.metadata[key]!.jsonText, to: "none"))
        }
        for (key, value) in b.metadata where a.metadata[key] != value {
            diff.metadataChanges.append(
                PropertyChange(key, from: a.metadata[key].map(\.jsonText) ?? "none", to: value.jsonText))
        }
        for kind in [ElementKind.event, .parameter, .curve] {
            let left = items(a, kind)
            let right = items(b, kind)
            var matcher = Matcher(a: left, b: right, tolerance: tolerance)
            let result = matcher.run()
            for (i, j) in result.pairs {
                let (x, y) = (left[i], right[j])
                var properties: [PropertyChange] = []
                let moved = abs(x.element.time - y.element.time) > epsilon
                if moved {
                    properties.append(
                        PropertyChange("Time", from: Markup.seconds(x.element.time), to: Markup.seconds(y.element.time))
                    )
                }
                let contentChanges = differences(x.element, y.element)
                properties += contentChanges
                if !moved && contentChanges.isEmpty {
                    diff.unchangedCount += 1
                    continue
                }
                let changeKind: ChangeKind =
                    moved ? (contentChanges.isEmpty ? .moved : .movedAndReparameterised) : .reparameterised
                diff.changes.append(
                    Change(
                        kind: changeKind, element: kind, before: x.element, after: y.element, beforeIndex: x.index,
                        afterIndex: y.index, properties: properties))
            }
            for i in result.unmatchedA {
                diff.changes.append(
                    Change(
                        kind: .removed, element: kind, before: left[i].element, after: nil, beforeIndex: left[i].index,
                        afterIndex: nil, properties: []))
            }
            for j in result.unmatchedB {
                diff.changes.append(
                    Change(
                        kind: .added, element: kind, before: nil, after: right[j].element, beforeIndex: nil,
                        afterIndex: right[j].index, properties: []))
            }
        }
        let kindOrder: [ElementKind: Int] = [.event: 0, .parameter: 1, .curve: 2]
        diff.changes.sort {
            ($0.time, kindOrder[$0.element]!, $0.beforeIndex ?? -1, $0.afterIndex ?? -1)
                < ($1.time, kindOrder[$1.element]!, $1.beforeIndex ?? -1, $1.afterIndex ?? -1)
        }
        return diff
    }

    /// The report, one line per finding: headline counts first, then each change in time order.
    /// Identical patterns give `No differences.`
    public var text: String {
        if isEmpty { return "No differences.\n" }
        var lines: [String] = []
        if durationChanged {
            lines.append("Duration: \(Markup.seconds(durationBefore)) -> \(Markup.seconds(durationAfter))")
        }
        if let versionChange { lines.append("Version: \(versionChange.from) -> \(versionChange.to)") }
        for change in metadataChanges { lines.append("Metadata \(change.name): \(change.from) -> \(change.to)") }
        for (kind, title) in [
            (ElementKind.event, "Events"), (.parameter, "Dynamic parameters"), (.curve, "Parameter curves"),
        ] {
            let of = changes.filter { $0.element == kind }
            guard !of.isEmpty else { continue }
            var parts: [String] = []
            for changeKind in [ChangeKind.added, .removed, .moved, .reparameterised, .movedAndReparameterised] {
                let n = of.count { $0.kind == changeKind }
                if n > 0 { parts.append("\(n) \(Self.word(changeKind, kind))") }
            }
            lines.append("\(title): " + parts.joined(separator: ", "))
        }
        lines.append("Unchanged elements: \(unchangedCount)")
        lines += changes.map(\.line)
        return lines.joined(separator: "\n") + "\n"
    }

    // MARK: Matching support

    struct Item {
        var element: PatternElement
        var index: Int
        var group: String
    }

    private static func items(_ pattern: HapticPattern, _ kind: ElementKind) -> [Item] {
        pattern.elements.enumerated().compactMap { index, element in
            switch (kind, element) {
            case (.event, .event(let e)): Item(element: element, index: index, group: e.type.rawValue)
            case (.parameter, .parameter(let p)): Item(element: element, index: index, group: p.id.rawValue)
            case (.curve, .curve(let c)): Item(element: element, index: index, group: c.id.rawValue)
            default: nil
            }
        }
    }

    /// The content differences (everything but `Time`), in AHAP names.
    static func differences(_ x: PatternElement, _ y: PatternElement) -> [PropertyChange] {
        var out: [PropertyChange] = []
        switch (x, y) {
        case (.event(let a), .event(let b)):
            for id in EventParameterID.allCases where a.value(of: id) != b.value(of: id) {
                out.append(
                    PropertyChange(id.rawValue, from: Markup.value(a.value(of: id)), to: Markup.value(b.value(of: id))))
            }
            if !same(a.duration, b.duration) {
                out.append(
                    PropertyChange(
                        "EventDuration", from: a.duration.map(Markup.seconds) ?? "none",
                        to: b.duration.map(Markup.seconds) ?? "none"))
            }
            if a.waveformPath != b.waveformPath {
                out.append(
                    PropertyChange("EventWaveformPath", from: a.waveformPath ?? "none", to: b.waveformPath ?? "none"))
            }
            if a.waveformUsesVolumeEnvelope != b.waveformUsesVolumeEnvelope {
                out.append(
                    PropertyChange(
                        "EventWaveformUseVolumeEnvelope", from: "\(a.waveformUsesVolumeEnvelope)",
                        to: "\(b.waveformUsesVolumeEnvelope)"))
            }
            if a.waveformLoopEnabled != b.waveformLoopEnabled {
                out.append(
                    PropertyChange(
                        "EventWaveformLoopEnabled", from: "\(a.waveformLoopEnabled)", to: "\(b.waveformLoopEnabled)"))
            }
        case (.parameter(let a), .parameter(let b)):
            if a.value != b.value {
                out.append(PropertyChange("ParameterValue", from: Markup.value(a.value), to: Markup.value(b.value)))
            }
        case (.curve(let a), .curve(let b)):
            let pa = a.controlPoints
            let pb = b.controlPoints
            if pa.count == pb.count {
                for k in pa.indices where !same(pa[k], pb[k]) {
                    out.append(
                        PropertyChange("ParameterCurveControlPoints[\(k)]", from: point(pa[k]), to: point(pb[k])))
                }
            } else {
                out.append(
                    PropertyChange(
                        "ParameterCurveControlPoints", from: pa.map(point).joined(separator: ", "),
                        to: pb.map(point).joined(separator: ", ")))
            }
        default:
            break
        }
        return out
    }

    /// How different two elements' contents are (0 = identical).
    static func distance(_ x: PatternElement, _ y: PatternElement) -> Double {
        switch (x, y) {
        case (.event(let a), .event(let b)):
            var d = 0.0
            for id in EventParameterID.allCases { d += Double(abs(a.value(of: id) - b.value(of: id))) }
            d += abs((a.duration ?? 0) - (b.duration ?? 0)) + ((a.duration == nil) != (b.duration == nil) ? 1 : 0)
            if a.waveformPath != b.waveformPath { d += 1 }
            if a.waveformUsesVolumeEnvelope != b.waveformUsesVolumeEnvelope { d += 1 }
            if a.waveformLoopEnabled != b.waveformLoopEnabled { d += 1 }
            return d
        case (.parameter(let a), .parameter(let b)):
            return Double(abs(a.value - b.value))
        case (.curve(let a), .curve(let b)):
            var d = Double(abs(a.controlPoints.count - b.controlPoints.count))
            for (p, q) in zip(a.controlPoints, b.controlPoints) {
                d += abs(p.time - q.time) + Double(abs(p.value - q.value))
            }
            return d
        default:
            return .infinity
        }
    }

    private static func same(_ a: Double?, _ b: Double?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): abs(a - b) <= epsilon
        default: false
        }
    }

    private static func same(_ a: ParameterCurve.ControlPoint, _ b: ParameterCurve.ControlPoint) -> Bool {
        abs(a.time - b.time) <= epsilon && a.value == b.value
    }

    private static func point(_ p: ParameterCurve.ControlPoint) -> String {
        "(\(Markup.number(p.time, decimals: 3)) s, \(Markup.value(p.value)))"
    }

    /// The time range an element covers: events their duration, curves their control points.
    static func span(of element: PatternElement) -> ClosedRange<Double> {
        switch element {
        case .event(let e): e.time...(e.time + max(0, e.duration ?? 0))
        case .parameter(let p): p.time...p.time
        case .curve(let c): c.time...(c.time + max(0, c.controlPoints.last?.time ?? 0))
        }
    }

    // MARK: Text

    static func word(_ kind: ChangeKind, _ element: ElementKind) -> String {
        switch kind {
        case .added: "added"
        case .removed: "removed"
        case .moved: "moved"
        case .reparameterised: element == .event ? "re-parameterised" : "changed"
        case .movedAndReparameterised: element == .event ? "moved and re-parameterised" : "moved and changed"
        }
    }

    static func name(of element: PatternElement) -> String {
        switch element {
        case .event(let e): e.type.rawValue
        case .parameter(let p): "Parameter \(p.id.rawValue)"
        case .curve(let c): "ParameterCurve \(c.id.rawValue)"
        }
    }

    /// The content of an added or removed element in brief.
    static func summary(of element: PatternElement) -> String {
        switch element {
        case .event(let e):
            var parts: [String] = []
            if let d = e.duration { parts.append("duration \(Markup.seconds(d))") }
            if e.type.isHaptic {
                parts.append("intensity \(Markup.value(e.value(of: .hapticIntensity)))")
                parts.append("sharpness \(Markup.value(e.value(of: .hapticSharpness)))")
            } else {
                if let path = e.waveformPath { parts.append(path) }
                parts.append("volume \(Markup.value(e.value(of: .audioVolume)))")
            }
            return parts.joined(separator: ", ")
        case .parameter(let p): return "value \(Markup.value(p.value))"
        case .curve(let c): return c.controlPoints.map(point).joined(separator: ", ")
        }
    }

    static func line(for change: Change) -> String {
        let word = word(change.kind, change.element)
        let a = change.beforeIndex.map { "A Pattern[\($0)]" }
        let b = change.afterIndex.map { "B Pattern[\($0)]" }
        switch change.kind {
        case .added:
            let e = change.after!
            return "+ \(word) \(name(of: e)) at \(Markup.seconds(e.time)) (\(b!)): \(summary(of: e))"
        case .removed:
            let e = change.before!
            return "- \(word) \(name(of: e)) at \(Markup.seconds(e.time)) (\(a!)): \(summary(of: e))"
        case .moved:
            let (x, y) = (change.before!, change.after!)
            return "~ \(word) \(name(of: y)) \(Markup.seconds(x.time)) -> \(Markup.seconds(y.time)) (\(a!) -> \(b!))"
        case .reparameterised:
            let y = change.after!
            return "* \(word) \(name(of: y)) at \(Markup.seconds(y.time)) (\(a!) -> \(b!)): "
                + change.properties.map(\.description).joined(separator: "; ")
        case .movedAndReparameterised:
            let (x, y) = (change.before!, change.after!)
            return "* \(word) \(name(of: y)) \(Markup.seconds(x.time)) -> \(Markup.seconds(y.time)) (\(a!) -> \(b!)): "
                + change.properties.dropFirst().map(\.description).joined(separator: "; ")
        }
    }
}

/// The greedy pairing behind `PatternDiff.compare`; see its documentation for the passes.
private struct Matcher {
    let a: [PatternDiff.Item]
    let b: [PatternDiff.Item]
    let tolerance: Double
    var usedA: [Bool]
    var usedB: [Bool]
    var pairs: [(Int, Int)] = []
    /// A's and B's indices per group, each sorted by time (then index).
    let aByGroup: [(group: String, indices: [Int])]
    let bByGroup: [String: [Int]]

    /// The most candidates one element of A is given in a round of a pass: every unpaired element
    /// of B in the window when there are no more (so ordinary patterns are matched exactly as by
    /// listing every pair), else this many around the element of B at the same rank in the window.
    static let candidatesPerElement = 32
    /// The most rounds of one pass; a round after the first only happens when a window was dense.
    static let maxRounds = 64

    init(a: [PatternDiff.Item], b: [PatternDiff.Item], tolerance: Double) {
        self.a = a
        self.b = b
        self.tolerance = max(0, tolerance)
        usedA = Array(repeating: false, count: a.count)
        usedB = Array(repeating: false, count: b.count)
        func grouped(_ items: [PatternDiff.Item]) -> [String: [Int]] {
            var groups: [String: [Int]] = [:]
            for (k, item) in items.enumerated() { groups[item.group, default: []].append(k) }
            for key in groups.keys {
                groups[key]!.sort { (items[$0].element.time, $0) < (items[$1].element.time, $1) }
            }
            return groups
        }
        aByGroup = grouped(a).sorted { $0.key < $1.key }.map { (group: $0.key, indices: $0.value) }
        bByGroup = grouped(b)
    }

    mutating func run() -> (pairs: [(Int, Int)], unmatchedA: [Int], unmatchedB: [Int]) {
        let eps = PatternDiff.epsilon
        let tol = tolerance
        pass(window: eps) { same, dt, _ in same ? dt : nil }
        pass(window: eps) { same, _, distance in same ? nil : distance() }
        if tol > eps {
            pass(window: tol) { same, dt, _ in same ? dt : nil }
            pass(window: tol) { _, dt, distance in dt / tol + distance() }
        }
        pairs.sort { ($0.0, $0.1) < ($1.0, $1.1) }
        return (pairs, a.indices.filter { !usedA[$0] }, b.indices.filter { !usedB[$0] })
    }

    /// One pass: unpaired (i, j) of one group within `window` seconds whose `cost` is not nil,
    /// taken greedily by (cost, i, j); in rounds while a dense window left some out.
    private mutating func pass(window: Double, cost: (_ same: Bool, _ dt: Double, _ distance: () -> Double) -> Double?)
    {
        for _ in 0..<Self.maxRounds {
            let (made, truncated) = round(window: window, cost: cost)
            if made == 0 || !truncated { break }
        }
    }

    /// One round of a pass: at most ``candidatesPerElement`` candidates per element of A, so the
    /// memory is linear and the time O(n log n) in the elements whatever how many share a time.
    private mutating func round(
        window: Double, cost: (_ same: Bool, _ dt: Double, _ distance: () -> Double) -> Double?
    ) -> (made: Int, truncated: Bool) {
        let most = Self.candidatesPerElement
        var candidates: [(cost: Double, i: Int, j: Int)] = []
        var truncated = false
        for (group, all) in aByGroup {
            guard let allB = bByGroup[group] else { continue }
            let free = allB.filter { !usedB[$0] }
            let open = all.filter { !usedA[$0] }
            guard !free.isEmpty else { continue }
            for (rank, i) in open.enumerated() {
                let t = a[i].element.time
                let lo = Self.first(free, in: b) { $0 >= t - window }
                let hi = Self.first(free, in: b) { $0 > t + window }
                guard lo < hi else { continue }
                var range = lo..<hi
                if hi - lo > most {
                    truncated = true
                    // i's rank among the open elements of A in the window picks the stretch of B.
                    let rankInWindow = rank - Self.first(open, in: a) { $0 >= t - window }
                    let start = min(max(lo + rankInWindow - most / 2, lo), hi - most)
                    range = start..<(start + most)
                }
                let x = a[i].element
                for k in range {
                    let j = free[k]
                    let y = b[j].element
                    let distance = PatternDiff.distance(x, y)
                    if let c = cost(distance == 0, abs(x.time - y.time), { distance }) {
                        candidates.append((c, i, j))
                    }
                }
            }
        }
        candidates.sort { ($0.cost, $0.i, $0.j) < ($1.cost, $1.i, $1.j) }
        var made = 0
        for candidate in candidates where !usedA[candidate.i] && !usedB[candidate.j] {
            usedA[candidate.i] = true
            usedB[candidate.j] = true
            pairs.append((candidate.i, candidate.j))
            made += 1
        }
        return (made, truncated)
    }

    /// The first position in `sorted` (indices into `items`, in time order) whose time passes `test`.
    private static func first(_ sorted: [Int], in items: [PatternDiff.Item], where test: (Double) -> Bool) -> Int {
        var lo = 0
        var hi = sorted.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if test(items[sorted[mid]].element.time) { hi = mid } else { lo = mid + 1 }
        }
        return lo
    }
}
