public import OrderedCollections

/// A Meta Haptics Studio / Lofelt `.haptic` clip (data model v1): an amplitude envelope whose
/// breakpoints may carry an emphasis, and an optional frequency envelope, both with values in
/// 0...1 and times in seconds.
///
/// The clip becomes a ``HapticPattern`` by the mapping docs/formats.md describes
/// (``pattern``): one continuous carrier whose intensity and sharpness follow the envelopes
/// through parameter curves (intensity = sqrt(amplitude), sharpness = sqrt(frequency), as Meta's
/// and Lofelt's exporters map them), and each emphasis as a transient.
///
/// ```swift
/// let clip = try HapticClip.decode(bytes, file: "boom.haptic").clip
/// let pattern = clip.pattern
/// ```
public struct HapticClip: Hashable, Sendable {
    /// `version`: major, minor, patch.
    public var version: Version
    /// `metadata`, kept verbatim.
    public var metadata: OrderedDictionary<String, JSONValue>
    /// `signals.continuous.envelopes.amplitude`, in ascending time.
    public var amplitude: [AmplitudeBreakpoint]
    /// `signals.continuous.envelopes.frequency`, in ascending time; may be empty.
    public var frequency: [FrequencyBreakpoint]
    /// `signals.impulses`, the beta data model's stand-alone taps (time, amplitude, frequency), in
    /// ascending time; usually empty. Lofelt's v1 reader accepts the key and ignores it; here each
    /// impulse plays as a transient, like an emphasis that needs no breakpoint.
    public var impulses: [Impulse]

    public init(
        version: Version = Version(major: 1, minor: 0, patch: 0),
        metadata: OrderedDictionary<String, JSONValue> = [:],
        amplitude: [AmplitudeBreakpoint], frequency: [FrequencyBreakpoint] = [], impulses: [Impulse] = []
    ) {
        self.version = version
        self.metadata = metadata
        self.amplitude = amplitude
        self.frequency = frequency
        self.impulses = impulses
    }

    public struct Version: Hashable, Sendable {
        public var major: Int
        public var minor: Int
        public var patch: Int

        public init(major: Int, minor: Int, patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }
    }

    /// One amplitude breakpoint.
    public struct AmplitudeBreakpoint: Hashable, Sendable {
        public var time: Double
        public var amplitude: Float
        public var emphasis: Emphasis?

        public init(time: Double, amplitude: Float, emphasis: Emphasis? = nil) {
            self.time = time
            self.amplitude = amplitude
            self.emphasis = emphasis
        }
    }

    /// A short, strong burst on an amplitude breakpoint.
    public struct Emphasis: Hashable, Sendable {
        public var amplitude: Float
        public var frequency: Float

        public init(amplitude: Float, frequency: Float) {
            self.amplitude = amplitude
            self.frequency = frequency
        }
    }

    /// One frequency breakpoint.
    public struct FrequencyBreakpoint: Hashable, Sendable {
        public var time: Double
        public var frequency: Float

        public init(time: Double, frequency: Float) {
            self.time = time
            self.frequency = frequency
        }
    }

    /// A stand-alone tap of the beta data model (`signals.impulses`).
    public struct Impulse: Hashable, Sendable {
        public var time: Double
        public var amplitude: Float
        public var frequency: Float

        public init(time: Double, amplitude: Float, frequency: Float) {
            self.time = time
            self.amplitude = amplitude
            self.frequency = frequency
        }
    }

    /// The clip's length: the time of its last amplitude breakpoint, as Meta's data model defines
    /// it (`HapticData::duration`) and Meta's and Lofelt's players play it; a frequency
    /// breakpoint after it is not played. An impulse of the beta data model after it still is.
    public var duration: Double {
        max(amplitude.last?.time ?? 0, impulses.last?.time ?? 0)
    }
}

/// A decoded `.haptic` file: the clip and what the reader tolerated (unknown keys).
public struct HapticClipDocument: Hashable, Sendable {
    public var clip: HapticClip
    /// Warnings only, in document order.
    public var diagnostics: [Diagnostic]
}

extension HapticClip {
    /// Decodes a `.haptic` file strictly: what Meta's and Lofelt's validators refuse (a value
    /// outside 0...1, breakpoints out of time order, an empty amplitude envelope, a clip of
    /// length 0, a version other than 1) is an error naming the JSON path and line; unknown
    /// keys are warnings.
    ///
    /// - Throws: `AHAPError` with the first error and every finding.
    /// - Complexity: O(n) in the file size.
    public static func decode(
        _ bytes: [UInt8], file: String? = nil, limits: AHAPLimits = .default
    ) throws(AHAPError) -> HapticClipDocument {
        let (clip, diagnostics) = HapticClipDecoder.run(bytes, limits: limits)
        if let firstError = diagnostics.first(where: { $0.severity == .error }) {
            throw AHAPError(firstError, file: file, diagnostics: diagnostics)
        }
        let empty = HapticClip(amplitude: [])
        return HapticClipDocument(clip: clip ?? empty, diagnostics: diagnostics)
    }

    /// Every finding, errors and warnings, in document order; never throws.
    public static func lint(_ bytes: [UInt8], limits: AHAPLimits = .default) -> [Diagnostic] {
        HapticClipDecoder.run(bytes, limits: limits).diagnostics
    }

    /// Whether `bytes` look like a `.haptic` clip rather than AHAP: a `"signals"` key (v1) or a
    /// `"voices"` key (v0, VIJ) and no `"Pattern"` key. Used when a file's name does not say.
    ///
    /// - Complexity: O(n), without parsing.
    public static func looksLikeClip(_ bytes: [UInt8]) -> Bool {
        func contains(_ needle: String) -> Bool {
            let n = Array(needle.utf8)
            guard bytes.count >= n.count else { return false }
            var i = 0
            while i <= bytes.count - n.count {
                if bytes[i] == n[0], bytes[i..<(i + n.count)].elementsEqual(n) { return true }
                i += 1
            }
            return false
        }
        return (contains("\"signals\"") || contains("\"voices\"")) && !contains("\"Pattern\"")
    }
}

/// Walks a parsed JSON tree and builds a `HapticClip`, recording every finding.
struct HapticClipDecoder {
    let limits: AHAPLimits
    var diagnostics: [Diagnostic] = []
    var path: [JSONPath.Component] = []

    static func run(_ bytes: [UInt8], limits: AHAPLimits) -> (clip: HapticClip?, diagnostics: [Diagnostic]) {
        let document: JSONDocument
        switch AHAPDecoder.parse(bytes, limits: limits) {
        case .success(let parsed): document = parsed
        case .failure(let refusal): return (nil, [refusal.diagnostic])
        }
        var decoder = HapticClipDecoder(limits: limits)
        decoder.diagnostics = document.warnings
        let clip = decoder.decodeTop(document.root)
        let sorted = AHAPDecoder.documentOrder(decoder.diagnostics)
        return (sorted.contains { $0.severity == .error } ? nil : clip, sorted)
    }

    mutating func report(_ code: Diagnostic.Code, _ message: String, at location: SourceLocation?, key: String? = nil) {
        var p = JSONPath(path)
        if let key { p = p.key(key) }
        diagnostics.append(Diagnostic(code, message, at: p, location: location))
    }

    mutating func at<T>(_ component: JSONPath.Component, _ body: (inout HapticClipDecoder) -> T) -> T {
        path.append(component)
        defer { path.removeLast() }
        return body(&self)
    }

    /// The members of `node` if it is an object; warns about keys not in `known`.
    mutating func object(_ node: JSONNode, name: String, known: [String]) -> [JSONNode.Member]? {
        guard case .object(let members) = node.kind else {
            report(.wrongType, "\(name) must be an object, found \(Describe.node(node))", at: node.location)
            return nil
        }
        for member in members where !known.contains(member.key) {
            var message = "unknown key \"\(member.key)\" in \(name)"
            if let suggestion = Suggestion.closest(to: member.key, in: known) {
                message += " (did you mean \"\(suggestion)\"?)"
            }
            report(.unknownKey, message + "; ignored", at: member.keyLocation, key: member.key)
        }
        return members
    }

    /// The value of the required key `key`, or nil after a `missing-key` error.
    mutating func required(_ key: String, in members: [JSONNode.Member], of name: String, at location: SourceLocation)
        -> JSONNode?
    {
        if let member = members.last(where: { $0.key == key }), member.value.kind != .null { return member.value }
        report(.missingKey, "\(name) has no \"\(key)\"", at: location)
        return nil
    }

    mutating func number(_ node: JSONNode, name: String) -> Double? {
        if case .number(let n) = node.kind { return n }
        report(.wrongType, "\(name) must be a number, found \(Describe.node(node))", at: node.location)
        return nil
    }

    /// A value that must lie in 0...1.
    mutating func unit(_ node: JSONNode, name: String) -> Float? {
        guard let n = number(node, name: name) else { return nil }
        guard (0...1).contains(n) else {
            report(.valueOutOfRange, "\(name) is \(Describe.number(n)); it must be between 0 and 1", at: node.location)
            return nil
        }
        return Float(n)
    }

    /// A time: a number that is not negative and not past `limits.maxDuration`.
    mutating func time(_ node: JSONNode) -> Double? {
        guard let t = number(node, name: "time") else { return nil }
        if t < 0 {
            report(.negativeTime, "time is \(Describe.number(t)); times start at 0", at: node.location)
            return nil
        }
        if t > limits.maxDuration {
            report(
                .limitExceeded,
                "time is \(Describe.number(t)) s; the limit is \(Describe.number(limits.maxDuration)) s (AHAPLimits.maxDuration)",
                at: node.location)
            return nil
        }
        return t
    }

    mutating func decodeTop(_ root: JSONNode) -> HapticClip? {
        if case .object(let members) = root.kind, members.contains(where: { $0.key == "voices" }),
            !members.contains(where: { $0.key == "signals" })
        {
            return decodeV0(root)
        }
        guard
            let members = object(
                root, name: "the top level", known: ["version", "metadata", "signals"])
        else { return nil }
        var clip = HapticClip(amplitude: [])
        if let version = required("version", in: members, of: "the top level", at: root.location) {
            at(.key("version")) { d in
                guard let fields = d.object(version, name: "version", known: ["major", "minor", "patch"]) else {
                    return
                }
                var parts = [0, 0, 0]
                for (i, key) in ["major", "minor", "patch"].enumerated() {
                    guard let member = fields.last(where: { $0.key == key }) else {
                        if i == 0 { d.report(.missingKey, "version has no \"major\"", at: version.location) }
                        continue
                    }
                    d.at(.key(key)) { d in
                        guard let n = d.number(member.value, name: key) else { return }
                        guard n >= 0, n == n.rounded(), n < 1e6 else {
                            d.report(
                                .wrongType, "\(key) must be a whole number, found \(Describe.number(n))",
                                at: member.value.location)
                            return
                        }
                        parts[i] = Int(n)
                    }
                }
                clip.version = HapticClip.Version(major: parts[0], minor: parts[1], patch: parts[2])
                if parts[0] != 1, let major = fields.last(where: { $0.key == "major" }) {
                    let what =
                        parts[0] == 0
                        ? "version 0 is the VIJ data model, whose haptic data is under \"voices\", not \"signals\""
                        : "only versions 0 (VIJ) and 1 are known"
                    d.at(.key("major")) { d in
                        d.report(
                            .clipVersion, "version \(parts[0]).\(parts[1]).\(parts[2]): \(what)",
                            at: major.value.location)
                    }
                }
            }
        }
        if let metadata = members.last(where: { $0.key == "metadata" }) {
            at(.key("metadata")) { d in
                guard case .object = metadata.value.kind else {
                    d.report(
                        .wrongType, "metadata must be an object, found \(Describe.node(metadata.value))",
                        at: metadata.value.location)
                    return
                }
                if case .object(let dict) = metadata.value.value { clip.metadata = dict }
            }
        }
        guard let signals = required("signals", in: members, of: "the top level", at: root.location) else {
            return nil
        }
        return at(.key("signals")) { d -> HapticClip? in
            guard let fields = d.object(signals, name: "signals", known: ["continuous", "impulses"]),
                let continuous = d.required("continuous", in: fields, of: "signals", at: signals.location)
            else { return nil }
            if let impulses = fields.last(where: { $0.key == "impulses" }), impulses.value.kind != .null {
                clip.impulses = d.at(.key("impulses")) { $0.impulseList(impulses.value) }
            }
            return d.at(.key("continuous")) { d -> HapticClip? in
                guard let fields = d.object(continuous, name: "continuous", known: ["envelopes"]),
                    let envelopes = d.required("envelopes", in: fields, of: "continuous", at: continuous.location)
                else { return nil }
                return d.at(.key("envelopes")) { d -> HapticClip? in
                    guard let fields = d.object(envelopes, name: "envelopes", known: ["amplitude", "frequency"]),
                        let amplitude = d.required("amplitude", in: fields, of: "envelopes", at: envelopes.location)
                    else { return nil }
                    clip.amplitude = d.at(.key("amplitude")) { $0.amplitudeEnvelope(amplitude) }
                    if let frequency = fields.last(where: { $0.key == "frequency" }), frequency.value.kind != .null {
                        clip.frequency = d.at(.key("frequency")) { $0.frequencyEnvelope(frequency.value) }
                    }
                    var written = 0
                    if case .array(let items) = amplitude.kind { written = items.count }
                    d.checkLength(clip, envelopes: envelopes, written: written)
                    return clip
                }
            }
        }
    }

    /// Meta's validator's rules on the envelopes as a whole (`HapticData::validate`): at least
    /// two amplitude breakpoints, a first and a last at different times; each is reported
    /// whatever else is wrong, so one run lists every error. A frequency breakpoint outside the
    /// amplitude envelope is refused by Meta's strict validator but loaded by Haptics Studio
    /// (its legacy mode), written by Lofelt Studio and Meta Haptics Studio and ignored by the
    /// players, so it is a note: normal exporter output a strict reader would still mention.
    mutating func checkLength(_ clip: HapticClip, envelopes: JSONNode, written: Int) {
        let amplitude = clip.amplitude
        if written == 1 {
            at(.key("amplitude")) { d in
                d.report(
                    .tooFewBreakpoints,
                    "the amplitude envelope has 1 breakpoint; a clip needs at least 2, its length is from the first to the last",
                    at: envelopes.location)
            }
        } else if amplitude.count == written, written > 1, let first = amplitude.first,
            amplitude.allSatisfy({ $0.time == first.time })
        {
            reportZeroLength(first.time, envelopes: envelopes)
        }
        guard let first = amplitude.first, let last = amplitude.last, amplitude.count > 1 else { return }
        let outside = clip.frequency.indices.filter {
            clip.frequency[$0].time < first.time - 1e-9 || clip.frequency[$0].time > last.time + 1e-9
        }
        if let i = outside.first {
            let t = clip.frequency[i].time
            at(.key("frequency")) { d in
                d.at(.index(i)) { d in
                    d.report(
                        .frequencyPastEnd,
                        "\(outside.count) frequency breakpoint(s) from \(Describe.number(t)) s lie outside the amplitude envelope (\(Describe.number(first.time))...\(Describe.number(last.time)) s); Meta's and Lofelt's players stop at the last amplitude breakpoint, so they are not played (Meta's strict validator refuses this)",
                        at: envelopes.location)
                }
            }
        }
    }

    mutating func reportZeroLength(_ time: Double, envelopes: JSONNode) {
        report(
            .zeroLengthClip,
            "every amplitude breakpoint is at time \(Describe.number(time)), so the clip lasts 0 s and plays nothing; give the last breakpoint a later time",
            at: envelopes.location)
    }

    /// The breakpoints of one envelope, checked for order; `read` decodes one breakpoint's fields.
    mutating func envelope<B>(
        _ node: JSONNode, name: String, known: [String]? = nil,
        _ read: (inout HapticClipDecoder, [JSONNode.Member], JSONNode, Double) -> B?, time: (B) -> Double
    ) -> [B] {
        guard case .array(let items) = node.kind else {
            report(
                .wrongType, "\(name) must be an array of breakpoints, found \(Describe.node(node))", at: node.location)
            return []
        }
        guard items.count <= limits.maxControlPoints else {
            report(
                .limitExceeded,
                "\(name) has \(items.count) breakpoints; the limit is \(limits.maxControlPoints) (AHAPLimits.maxControlPoints)",
                at: node.location)
            return []
        }
        var result: [B] = []
        result.reserveCapacity(items.count)
        var previous: Double?
        for (i, item) in items.enumerated() {
            at(.index(i)) { d in
                guard
                    let fields = d.object(
                        item, name: "a breakpoint",
                        known: known
                            ?? (name == "amplitude" ? ["time", "amplitude", "emphasis"] : ["time", "frequency"])),
                    let timeNode = d.required("time", in: fields, of: "the breakpoint", at: item.location),
                    let t = d.at(.key("time"), { $0.time(timeNode) })
                else { return }
                if let previous, t < previous {
                    d.at(.key("time")) { d in
                        d.report(
                            .breakpointOrder,
                            "time \(Describe.number(t)) comes before the previous breakpoint's \(Describe.number(previous)); breakpoints must be in ascending time",
                            at: timeNode.location)
                    }
                }
                previous = max(previous ?? t, t)
                if let b = read(&d, fields, item, t) { result.append(b) }
            }
        }
        return result
    }

    mutating func amplitudeEnvelope(_ node: JSONNode) -> [HapticClip.AmplitudeBreakpoint] {
        let points = envelope(
            node, name: "amplitude",
            { d, fields, item, t -> HapticClip.AmplitudeBreakpoint? in
                guard let valueNode = d.required("amplitude", in: fields, of: "the breakpoint", at: item.location),
                    let a = d.at(.key("amplitude"), { $0.unit(valueNode, name: "amplitude") })
                else { return nil }
                var point = HapticClip.AmplitudeBreakpoint(time: t, amplitude: a)
                if let emphasis = fields.last(where: { $0.key == "emphasis" }), emphasis.value.kind != .null {
                    let parsed = d.at(.key("emphasis")) { d -> HapticClip.Emphasis? in
                        guard
                            let e = d.object(emphasis.value, name: "emphasis", known: ["amplitude", "frequency"]),
                            let an = d.required("amplitude", in: e, of: "emphasis", at: emphasis.value.location),
                            let fn = d.required("frequency", in: e, of: "emphasis", at: emphasis.value.location),
                            let ea = d.at(.key("amplitude"), { $0.unit(an, name: "emphasis amplitude") }),
                            let ef = d.at(.key("frequency"), { $0.unit(fn, name: "emphasis frequency") })
                        else { return nil }
                        return HapticClip.Emphasis(amplitude: ea, frequency: ef)
                    }
                    guard let parsed else { return nil }
                    point.emphasis = parsed
                }
                return point
            }, time: \.time)
        if points.isEmpty, case .array(let items) = node.kind, items.isEmpty {
            report(
                .emptyEnvelope, "the amplitude envelope has no breakpoints; a clip needs at least one",
                at: node.location)
        }
        return points
    }

    mutating func frequencyEnvelope(_ node: JSONNode) -> [HapticClip.FrequencyBreakpoint] {
        envelope(
            node, name: "frequency",
            { d, fields, item, t -> HapticClip.FrequencyBreakpoint? in
                guard let valueNode = d.required("frequency", in: fields, of: "the breakpoint", at: item.location),
                    let f = d.at(.key("frequency"), { $0.unit(valueNode, name: "frequency") })
                else { return nil }
                return HapticClip.FrequencyBreakpoint(time: t, frequency: f)
            }, time: \.time)
    }

    /// `signals.impulses`: taps with a time, an amplitude and a frequency, in ascending time.
    mutating func impulseList(_ node: JSONNode) -> [HapticClip.Impulse] {
        envelope(
            node, name: "impulses", known: ["time", "amplitude", "frequency"],
            { d, fields, item, t -> HapticClip.Impulse? in
                guard let an = d.required("amplitude", in: fields, of: "the impulse", at: item.location),
                    let fn = d.required("frequency", in: fields, of: "the impulse", at: item.location),
                    let a = d.at(.key("amplitude"), { $0.unit(an, name: "amplitude") }),
                    let f = d.at(.key("frequency"), { $0.unit(fn, name: "frequency") })
                else { return nil }
                return HapticClip.Impulse(time: t, amplitude: a, frequency: f)
            }, time: \.time)
    }
}
