/// Walks a parsed JSON tree and builds a `HapticPattern`, recording every
/// finding. An element with an error is left out and the walk goes on, so
/// that the linter can report every problem in one run.
///
/// It reads the flat `JSONTree` directly: a value is its index in the tree (`Node`), keys and
/// names are compared as bytes, and no string is built unless it goes into the pattern or a
/// message.
struct AHAPDecoder {
    /// A value's index in `tree`.
    typealias Node = Int

    let limits: AHAPLimits
    let tree: JSONTree
    var diagnostics: [Diagnostic] = []
    /// The path to the value being decoded; turned into a `JSONPath` only for a finding.
    var path: [Step] = []
    var errorCount = 0

    /// The names `JSONTree.named` matches, as bytes.
    static let eventTypeNames = JSONTree.names(EventType.self)
    static let eventParameterNames = JSONTree.names(EventParameterID.self)
    static let dynamicParameterNames = JSONTree.names(DynamicParameterID.self)

    /// Parses and decodes; the pattern is nil when the JSON itself was refused.
    static func run(_ bytes: [UInt8], limits: AHAPLimits) -> (
        pattern: HapticPattern?, diagnostics: [Diagnostic]
    ) {
        let document: JSONDocument
        switch parse(bytes, limits: limits) {
        case .success(let parsed): document = parsed
        case .failure(let refusal): return (nil, [refusal.diagnostic])
        }
        var decoder = AHAPDecoder(limits: limits, tree: document.tree)
        decoder.diagnostics = document.warnings
        let pattern = decoder.decodeTop(document.tree.root)
        return (pattern, documentOrder(decoder.diagnostics))
    }

    /// The JSON tree of a pattern file (AHAP or `.haptic`) within `limits`, or the one finding
    /// that refuses it (`limit-exceeded`, `json-syntax`, ...).
    static func parse(_ bytes: [UInt8], limits: AHAPLimits) -> Result<JSONDocument, JSONSyntaxError> {
        if bytes.count > limits.maxFileBytes {
            return .failure(
                JSONSyntaxError(
                    diagnostic: Diagnostic(
                        .error, code: .limitExceeded,
                        "file is \(bytes.count) bytes; the limit is \(limits.maxFileBytes) (AHAPLimits.maxFileBytes)",
                        at: .root)))
        }
        do {
            return .success(
                try JSONParser.parse(bytes, maxDepth: limits.maxNestingDepth, maxStringBytes: limits.maxStringBytes))
        } catch {
            return .failure(error)
        }
    }

    /// Document order: parser warnings and decoder findings interleaved by position, stable.
    static func documentOrder(_ diagnostics: [Diagnostic]) -> [Diagnostic] {
        diagnostics.enumerated().sorted { a, b in
            let la = a.element.location ?? SourceLocation(line: 0, column: 0)
            let lb = b.element.location ?? SourceLocation(line: 0, column: 0)
            if la.line != lb.line { return la.line < lb.line }
            if la.column != lb.column { return la.column < lb.column }
            return a.offset < b.offset
        }.map(\.element)
    }

    // MARK: Findings

    /// One step of `path`: a key named in code, a member's key in the tree, or an index.
    enum Step {
        case key(StaticString)
        case member(Int)
        case index(Int)
    }

    var currentPath: JSONPath {
        JSONPath(
            path.map { step in
                switch step {
                case .key(let name): .key(name.description)
                case .member(let m): .key(tree.key(m))
                case .index(let i): .index(i)
                }
            })
    }

    /// Records a finding at its rule's default severity; an error makes the element unusable.
    mutating func report(
        _ code: Diagnostic.Code, _ message: String, at location: SourceLocation?, key: String? = nil
    ) {
        var p = currentPath
        if let key { p = p.key(key) }
        diagnostics.append(Diagnostic(code, message, at: p, location: location))
        if code.defaultSeverity == .error { errorCount += 1 }
    }

    /// Whether the member's key is one of `known`.
    func isKnown(_ member: Int, _ known: [StaticString]) -> Bool {
        for key in known where tree.keyIs(member, key) { return true }
        return false
    }

    /// Warns about every member of the object `node` whose key is not in `known`, with a
    /// suggestion. Notes every known key whose value is null (read as absent, as Core Haptics does).
    mutating func checkUnknownKeys(_ node: Node, known: [StaticString], context: String) {
        var unknown = 0
        for member in tree.members(node) {
            guard isKnown(member, known) else {
                unknown += 1
                continue
            }
            let value = tree.value(member)
            if tree.tag(value) == .null {
                let key = tree.key(member)
                report(
                    .nullValue, "\(key) is null; read as absent, as Core Haptics does", at: tree.location(value),
                    key: key)
            }
        }
        guard unknown > 0 else { return }
        for member in tree.members(node) where !isKnown(member, known) {
            let key = tree.key(member)
            var message = "unknown key \"\(key)\" in \(context)"
            if let suggestion = Suggestion.closest(to: key, in: known.map(\.description)) {
                message += " (did you mean \"\(suggestion)\"?)"
            }
            message += "; Core Haptics ignores it"
            report(.unknownKey, message, at: tree.keyLocation(member), key: key)
        }
    }

    /// The values of the object `node`'s known keys, found in one pass; a null value counts as
    /// absent. Unknown keys and nulls are reported as `checkUnknownKeys` does.
    mutating func fields<K: ObjectKeys>(_ node: Node, _: K.Type, context: String) -> Fields<K> {
        var fields = Fields<K>()
        var clean = true
        let table = K.table
        for member in tree.members(node) {
            guard let k = table.position(of: member, in: tree) else {
                clean = false
                continue
            }
            if tree.valueTag(member) == .null {
                clean = false
            } else {
                fields.values[k] = Int32(truncatingIfNeeded: tree.value(member))
            }
        }
        if !clean { checkUnknownKeys(node, known: table.names, context: context) }
        return fields
    }

    /// Runs `body` with `component` pushed on the path.
    mutating func at<T>(_ component: Step, _ body: (inout AHAPDecoder) -> T) -> T {
        path.append(component)
        defer { path.removeLast() }
        return body(&self)
    }

    // MARK: Typed access

    /// The number in `node`, or nil after a `wrong-type` error.
    mutating func number(_ node: Node, name: String) -> Double? {
        if let n = tree.number(node) { return n }
        if let s = tree.string(node), let n = NumberText.parseJSONNumber(s) {
            report(
                .numberAsString,
                "\(name) is the string \(Describe.quoted(s)); read as the number \(Describe.number(n))",
                at: tree.location(node))
            return n
        }
        report(.wrongType, "\(name) must be a number, found \(Describe.node(tree, node))", at: tree.location(node))
        return nil
    }

    mutating func string(_ node: Node, name: String) -> String? {
        if let s = tree.string(node) { return s }
        report(.wrongType, "\(name) must be a string, found \(Describe.node(tree, node))", at: tree.location(node))
        return nil
    }

    mutating func bool(_ node: Node, name: String) -> Bool? {
        if let b = tree.bool(node) { return b }
        report(
            .wrongType, "\(name) must be true or false, found \(Describe.node(tree, node))", at: tree.location(node))
        return nil
    }

    /// The members of the object `node` (for `tree.key`, `tree.value`, ...), or nil after a `wrong-type` error.
    mutating func members(_ node: Node, name: String) -> Range<Int>? {
        if tree.tag(node) == .object { return tree.members(node) }
        report(.wrongType, "\(name) must be an object, found \(Describe.node(tree, node))", at: tree.location(node))
        return nil
    }

    /// The elements of the array `node`, or nil after a `wrong-type` error.
    mutating func items(_ node: Node, name: String) -> Range<Int>? {
        if tree.tag(node) == .array { return tree.elements(node) }
        report(.wrongType, "\(name) must be an array, found \(Describe.node(tree, node))", at: tree.location(node))
        return nil
    }

    /// A time (`Time`, `EventDuration`): a number that is not negative.
    mutating func nonNegative(_ node: Node, name: String, code: Diagnostic.Code) -> Double? {
        guard let value = number(node, name: name) else { return nil }
        if value < 0 {
            report(
                code, "\(name) \(Describe.number(value)) is negative; times are seconds from the start",
                at: tree.location(node))
            return nil
        }
        return value
    }

    /// How far past its range a value may be, as a share of the range, to draw `value-overshoot`
    /// (a note) rather than `value-clamped`: audio-to-AHAP generators normalise levels and land
    /// up to a fifth over 1 (a device plays its maximum there; nothing in the file can ask for
    /// more); a value further out (sharpness 10, levels on another scale) is a mistake
    /// (docs/ahap-support.md says what the public files write).
    static let overshootShare = 0.25

    /// A parameter value clamped to `range`, with a `value-overshoot` note when it was just
    /// outside and a `value-clamped` warning when it was further out.
    mutating func clamped(
        _ value: Double, to range: ClosedRange<Float>, name: @autoclosure () -> String, at location: SourceLocation
    )
        -> Float
    {
        let lower = Double(range.lowerBound)
        let upper = Double(range.upperBound)
        if value < lower || value > upper {
            let to = value < lower ? range.lowerBound : range.upperBound
            let over = (value < lower ? lower - value : value - upper) / (upper - lower)
            if over <= Self.overshootShare {
                report(
                    .valueOvershoot,
                    "\(name()) \(Describe.number(value)) is just outside \(Describe.range(range)); plays as \(Describe.number(Double(to))) (Core Haptics clamps it too)",
                    at: location)
            } else {
                report(
                    .valueClamped,
                    "\(name()) \(Describe.number(value)) is outside \(Describe.range(range)); clamped to \(Describe.number(Double(to)))",
                    at: location)
            }
            return to
        }
        return Float(value)
    }

    // MARK: Top level

    mutating func decodeTop(_ root: Node) -> HapticPattern? {
        guard tree.tag(root) == .object else {
            report(
                .wrongType,
                "the top level must be an object with a Pattern array, found \(Describe.node(tree, root))",
                at: tree.location(root))
            return nil
        }
        let f = fields(root, TopLevelKey.self, context: "the top level")
        var pattern = HapticPattern(version: nil)

        if let version = f[.version] {
            at(.key("Version")) { d in
                guard let v = d.number(version, name: "Version") else { return }
                pattern.version = v
                if v != 1 {
                    d.report(
                        .unknownVersion,
                        "Version \(Describe.number(v)) is not 1, the only AHAP version this reader knows; unknown keys will be ignored",
                        at: d.tree.location(version))
                }
            }
        } else {
            report(.missingVersion, "no Version; reading the file as AHAP version 1", at: tree.location(root))
        }

        if let metadata = f[.metadata] {
            at(.key("Metadata")) { d in
                guard d.tree.tag(metadata) == .object else {
                    d.report(
                        .wrongType, "Metadata must be an object, found \(Describe.node(d.tree, metadata))",
                        at: d.tree.location(metadata))
                    return
                }
                if case .object(let dict) = d.tree.value(of: metadata) { pattern.metadata = dict }
            }
        }

        guard let patternMember = f[.pattern] else {
            report(
                .missingKey,
                "missing key \"Pattern\": an AHAP file needs a Pattern array of events and parameters",
                at: tree.location(root))
            return nil
        }
        let ok = at(.key("Pattern")) { d in d.decodeElements(patternMember, into: &pattern) }
        guard ok else { return nil }

        if let tooLong = Self.durationFinding(pattern.duration, location: tree.location(patternMember), limits: limits)
        {
            diagnostics.append(tooLong)
            errorCount += 1
        }
        return errorCount == 0 ? pattern : nil
    }

    /// The `limit-exceeded` error for a pattern that lasts longer than `limits` allow, at the
    /// `Pattern` array's `location`; nil when it does not.
    static func durationFinding(_ duration: Double, location: SourceLocation, limits: AHAPLimits) -> Diagnostic? {
        guard duration > limits.maxDuration else { return nil }
        return Diagnostic(
            .limitExceeded,
            "pattern lasts \(Describe.number(duration)) s; the limit is \(Describe.number(limits.maxDuration)) s (AHAPLimits.maxDuration)",
            at: JSONPath([.key("Pattern")]), location: location)
    }

    /// Decodes the `Pattern` array; false when it is unusable as a whole.
    mutating func decodeElements(_ node: Node, into pattern: inout HapticPattern) -> Bool {
        guard let entries = items(node, name: "Pattern") else { return false }
        if entries.isEmpty {
            report(.emptyPattern, "Pattern is empty; the file plays nothing", at: tree.location(node))
            return true
        }
        // Count events before walking so that a huge file fails at once (only when there are
        // more entries than events allowed: otherwise the events cannot be too many).
        var eventCount = 0
        if entries.count > limits.maxEvents {
            for entry in entries where tree.field(entry, "Event") != nil { eventCount += 1 }
        }
        if eventCount > limits.maxEvents {
            report(
                .limitExceeded,
                "Pattern has \(eventCount) events; the limit is \(limits.maxEvents) (AHAPLimits.maxEvents)",
                at: tree.location(node))
            return false
        }
        pattern.elements.reserveCapacity(entries.count)
        var sources: [(index: Int, node: Node)] = []
        sources.reserveCapacity(entries.count)
        for (i, entry) in entries.enumerated() {
            if let element = at(.index(i), { d in d.decodeElement(entry) }) {
                pattern.elements.append(element)
                sources.append((i, entry))
            }
        }
        noteInaudibleEvents(pattern, sources: sources)
        return true
    }

    mutating func decodeElement(_ node: Node) -> PatternElement? {
        guard let members = members(node, name: "a Pattern entry") else { return nil }
        _ = fields(node, ElementKey.self, context: "a Pattern entry")
        // The members that are one of Event, Parameter, ParameterCurve and not null.
        var member: Int? = nil
        var ambiguous = false
        for m in members where isKnown(m, ElementKey.table.names) && tree.tag(tree.value(m)) != .null {
            if member == nil {
                member = m
            } else {
                ambiguous = true
                break
            }
        }
        guard let member else {
            if !members.contains(where: { !isKnown($0, ElementKey.table.names) }) {
                report(
                    .emptyElement,
                    "Pattern entry has none of Event, Parameter, ParameterCurve; it is ignored",
                    at: tree.location(node))
            }
            return nil
        }
        if ambiguous {
            let present = members.filter { isKnown($0, ElementKey.table.names) && tree.tag(tree.value($0)) != .null }
            report(
                .ambiguousElement,
                "Pattern entry must hold exactly one of Event, Parameter, ParameterCurve; found "
                    + present.map(tree.key).joined(separator: " and "),
                at: tree.keyLocation(present[1]), key: tree.key(present[1]))
            return nil
        }
        let value = tree.value(member)
        return at(.member(member)) { d -> PatternElement? in
            if d.tree.keyIs(member, "Event") { return d.decodeEvent(value).map(PatternElement.event) }
            if d.tree.keyIs(member, "Parameter") { return d.decodeParameter(value).map(PatternElement.parameter) }
            return d.decodeCurve(value).map(PatternElement.curve)
        }
    }

    // MARK: Events

    mutating func decodeEvent(_ node: Node) -> HapticEvent? {
        guard members(node, name: "Event") != nil else { return nil }
        let errorsBefore = errorCount
        let f = fields(node, EventKey.self, context: "an Event")

        var time: Double?
        if let m = f[.time] {
            time = at(.key("Time")) { d in d.nonNegative(m, name: "Time", code: .negativeTime) }
        } else {
            report(.missingKey, "Event has no Time (seconds from the start of the pattern)", at: tree.location(node))
        }

        var type: EventType?
        if let m = f[.eventType] {
            type = at(.key("EventType")) { d -> EventType? in
                if let t = d.tree.named(m, Self.eventTypeNames) { return t }
                guard let raw = d.string(m, name: "EventType") else { return nil }
                if let t = EventType(rawValue: raw) { return t }
                var message = "unknown EventType \(Describe.quoted(raw))"
                if let s = Suggestion.closest(to: raw, in: EventType.allCases.map(\.rawValue)) {
                    message += " (did you mean \"\(s)\"?)"
                }
                message += "; expected HapticTransient, HapticContinuous, AudioContinuous or AudioCustom"
                d.report(.unknownEventType, message, at: d.tree.location(m))
                return nil
            }
        } else {
            report(.missingKey, "Event has no EventType", at: tree.location(node))
        }

        var duration: Double?
        var durationLocation = tree.location(node)
        if let m = f[.eventDuration] {
            durationLocation = tree.location(m)
            duration = at(.key("EventDuration")) { d in
                d.nonNegative(m, name: "EventDuration", code: .negativeDuration)
            }
        }
        if let type {
            if let written = duration {
                // 0 on a transient or AudioCustom is "not set" (what exportDictionary() writes): no finding.
                if let duration = type.duration(given: written) {
                    at(.key("EventDuration")) { d in d.checkDuration(duration, type: type, at: durationLocation) }
                }
            } else if type.requiresDuration && f[.eventDuration] == nil {
                report(
                    .missingDuration,
                    "\(type.rawValue) event has no EventDuration; continuous events need one",
                    at: tree.location(node))
            }
        }

        var parameters: [EventParameter] = []
        if let m = f[.eventParameters] {
            at(.key("EventParameters")) { d in
                guard let list = d.items(m, name: "EventParameters") else { return }
                parameters.reserveCapacity(list.count)
                // The first item of each ParameterID (by `EventParameterID.ordinal`), or -1.
                var seen = InlineArray<16, Int32>(repeating: -1)
                for (i, item) in list.enumerated() {
                    d.at(.index(i)) { d in
                        guard let p = d.decodeEventParameter(item, type: type) else { return }
                        let first = seen[p.id.ordinal]
                        if first >= 0 {
                            let first = d.tree.location(Int(first))
                            d.report(
                                .duplicateParameter,
                                "\(p.id.rawValue) is given twice in this event (first at line \(first.line), column \(first.column)); the last value wins",
                                at: d.tree.location(item))
                        } else {
                            seen[p.id.ordinal] = Int32(item)
                        }
                        parameters.append(p)
                    }
                }
            }
        }

        // The event is built last, from these, so that it is not copied.
        var waveformPath: String? = nil
        var waveformUsesVolumeEnvelope = true
        var waveformLoopEnabled = false

        if let m = f[.eventWaveformPath] {
            at(.key("EventWaveformPath")) { d in
                guard let path = d.string(m, name: "EventWaveformPath") else { return }
                if path.isEmpty {
                    d.report(
                        .missingWaveform, "EventWaveformPath is empty; name an audio file",
                        at: d.tree.location(m))
                    return
                }
                if let type, type != .audioCustom {
                    d.report(
                        .waveformIgnored,
                        "EventWaveformPath only applies to AudioCustom events; this \(type.rawValue) ignores it",
                        at: d.tree.location(m))
                }
                waveformPath = path
            }
        } else if type == .audioCustom {
            report(
                .missingWaveform, "AudioCustom event has no EventWaveformPath (the audio file to play)",
                at: tree.location(node))
        }
        if let m = f[.eventWaveformUseVolumeEnvelope] {
            at(.key("EventWaveformUseVolumeEnvelope")) { d in
                if let b = d.bool(m, name: "EventWaveformUseVolumeEnvelope") {
                    waveformUsesVolumeEnvelope = b
                }
            }
        }
        if let m = f[.eventWaveformLoopEnabled] {
            at(.key("EventWaveformLoopEnabled")) { d in
                if let b = d.bool(m, name: "EventWaveformLoopEnabled") { waveformLoopEnabled = b }
            }
        }
        guard errorCount == errorsBefore else { return nil }
        return HapticEvent(
            time: time ?? 0, type: type ?? .hapticTransient, duration: playedDuration(duration, type: type),
            parameters: parameters, waveformPath: waveformPath, waveformUsesVolumeEnvelope: waveformUsesVolumeEnvelope,
            waveformLoopEnabled: waveformLoopEnabled)
    }

    /// What a device plays: a continuous event stops at Core Haptics' maximum and its release
    /// follows, so render, play, info, plot and review all see the same event.
    func playedDuration(_ duration: Double?, type: EventType?) -> Double? {
        guard let duration, type?.requiresDuration == true else { return duration }
        return min(duration, limits.maxContinuousDuration)
    }

    /// The EventDuration rules that depend on the event type. The path points at EventDuration.
    mutating func checkDuration(_ duration: Double, type: EventType, at location: SourceLocation) {
        switch type {
        case .hapticContinuous, .audioContinuous:
            if duration == 0 {
                report(.zeroDuration, "\(type.rawValue) event lasts 0 s and plays nothing", at: location)
            } else if duration > limits.maxContinuousDuration {
                report(
                    .durationTooLong,
                    "EventDuration \(Describe.number(duration)) s is longer than Core Haptics' \(Describe.number(limits.maxContinuousDuration)) s maximum for a continuous event; it plays for \(Describe.number(limits.maxContinuousDuration)) s, as on a device",
                    at: location)
            }
        case .hapticTransient:
            report(
                .transientDuration,
                "EventDuration \(Describe.number(duration)) on a HapticTransient does not lengthen the tap; it only pads the pattern",
                at: location)
        case .audioCustom:
            break
        }
    }

    mutating func decodeEventParameter(_ node: Node, type: EventType?) -> EventParameter? {
        guard members(node, name: "an EventParameters entry") != nil else { return nil }
        let f = fields(node, EventParameterKey.self, context: "an event parameter")
        guard let idMember = f[.parameterID] else {
            report(.missingKey, "event parameter has no ParameterID", at: tree.location(node))
            return nil
        }
        let id = at(.key("ParameterID")) { d -> EventParameterID? in
            if let id = d.tree.named(idMember, Self.eventParameterNames) { return id }
            guard let raw = d.string(idMember, name: "ParameterID") else { return nil }
            if let id = EventParameterID(rawValue: raw) { return id }
            var message = "unknown event ParameterID \(Describe.quoted(raw))"
            if let dynamic = DynamicParameterID(rawValue: raw) {
                message +=
                    " (\(raw) is a dynamic parameter: use it in a Parameter or ParameterCurve entry; here did you mean \"\(dynamic.target.rawValue)\"?)"
            } else if let s = Suggestion.closest(to: raw, in: EventParameterID.allCases.map(\.rawValue)) {
                message += " (did you mean \"\(s)\"?)"
            }
            d.report(.unknownParameterID, message, at: d.tree.location(idMember))
            return nil
        }
        guard let id else { return nil }

        var value = id.defaultValue
        if let valueMember = f[.parameterValue] {
            let decoded = at(.key("ParameterValue")) { d -> Float? in
                let v = valueMember
                if id == .sustained, let b = d.tree.bool(v) {
                    d.report(
                        .booleanValue,
                        "Sustained is written as a number in AHAP; \(b) is read as \(b ? 1 : 0)",
                        at: d.tree.location(v))
                    return b ? 1 : 0
                }
                guard let n = d.number(v, name: id.rawValue) else { return nil }
                let clampedValue = d.clamped(n, to: id.range, name: id.rawValue, at: d.tree.location(v))
                if id == .sustained && clampedValue != 0 && clampedValue != 1 {
                    d.report(
                        .sustainedNotBoolean,
                        "Sustained \(Describe.number(n)) is neither 0 nor 1; it is a flag, read as 1 (sustained) because it is not 0",
                        at: d.tree.location(v))
                }
                return clampedValue
            }
            guard let decoded else { return nil }
            value = decoded
        } else {
            report(
                .missingValue,
                "\(id.rawValue) has no ParameterValue; Core Haptics uses the default \(Describe.number(Double(id.defaultValue)))",
                at: tree.location(node))
        }

        if let type, !Self.applies(id, to: type) {
            at(.key("ParameterID")) { d in
                d.report(
                    .parameterNotApplicable,
                    "\(id.rawValue) has no effect on a \(type.rawValue) event", at: d.tree.location(idMember))
            }
        }
        return EventParameter(id, value)
    }

    /// Whether an event parameter acts on an event type.
    static func applies(_ id: EventParameterID, to type: EventType) -> Bool {
        switch id {
        case .hapticIntensity, .hapticSharpness: type.isHaptic
        case .audioVolume, .audioPitch, .audioPan, .audioBrightness: !type.isHaptic
        case .attackTime, .decayTime, .releaseTime, .sustained: type != .hapticTransient
        }
    }

    // MARK: Dynamic parameters and curves

    /// The ParameterID `idMember` of the Parameter or ParameterCurve `node`.
    mutating func dynamicID(_ idMember: Node?, in node: Node, element: String) -> DynamicParameterID? {
        guard let idMember else {
            report(.missingKey, "\(element) has no ParameterID", at: tree.location(node))
            return nil
        }
        return at(.key("ParameterID")) { d -> DynamicParameterID? in
            if let id = d.tree.named(idMember, Self.dynamicParameterNames) { return id }
            guard let raw = d.string(idMember, name: "ParameterID") else { return nil }
            if let id = DynamicParameterID(rawValue: raw) { return id }
            var message = "unknown dynamic ParameterID \(Describe.quoted(raw))"
            if let eventID = EventParameterID(rawValue: raw), let control = eventID.control {
                message += " (\(raw) is an event parameter; did you mean \"\(control.rawValue)\"?)"
            } else if let s = Suggestion.closest(to: raw, in: DynamicParameterID.allCases.map(\.rawValue)) {
                message += " (did you mean \"\(s)\"?)"
            }
            d.report(.unknownParameterID, message, at: d.tree.location(idMember))
            return nil
        }
    }

    /// `Time` of a Parameter or ParameterCurve: required, not negative.
    mutating func elementTime(_ m: Node?, in node: Node, element: String) -> Double? {
        guard let m else {
            report(
                .missingKey, "\(element) has no Time (seconds from the start of the pattern)",
                at: tree.location(node))
            return nil
        }
        return at(.key("Time")) { d in d.nonNegative(m, name: "Time", code: .negativeTime) }
    }

    /// A control value: clamped to the control's range; missing means neutral (with a warning).
    mutating func controlValue(_ m: Node?, in node: Node, id: DynamicParameterID?, owner: String) -> Float? {
        guard let m else {
            let neutral = id?.neutralValue ?? 0
            report(
                .missingValue,
                "\(owner) has no ParameterValue; using the neutral value \(Describe.number(Double(neutral)))",
                at: tree.location(node))
            return neutral
        }
        return at(.key("ParameterValue")) { d -> Float? in
            guard let n = d.number(m, name: "ParameterValue") else { return nil }
            guard let id else { return Float(n) }
            return d.clamped(n, to: id.range, name: "\(id.rawValue) value", at: d.tree.location(m))
        }
    }

    mutating func decodeParameter(_ node: Node) -> DynamicParameter? {
        guard members(node, name: "Parameter") != nil else { return nil }
        let errorsBefore = errorCount
        let f = fields(node, ParameterKey.self, context: "a Parameter")
        let id = dynamicID(f[.parameterID], in: node, element: "Parameter")
        let time = elementTime(f[.time], in: node, element: "Parameter")
        let value = controlValue(f[.parameterValue], in: node, id: id, owner: "Parameter")
        guard errorCount == errorsBefore, let id, let time, let value else { return nil }
        return DynamicParameter(id, value: value, time: time)
    }

    mutating func decodeCurve(_ node: Node) -> ParameterCurve? {
        guard members(node, name: "ParameterCurve") != nil else { return nil }
        let errorsBefore = errorCount
        let f = fields(node, CurveKey.self, context: "a ParameterCurve")
        let id = dynamicID(f[.parameterID], in: node, element: "ParameterCurve")
        let time = elementTime(f[.time], in: node, element: "ParameterCurve")
        var points: [ParameterCurve.ControlPoint] = []
        if let m = f[.parameterCurveControlPoints] {
            at(.key("ParameterCurveControlPoints")) { d in
                guard let list = d.items(m, name: "ParameterCurveControlPoints") else { return }
                if list.isEmpty {
                    d.report(.emptyCurve, "ParameterCurve has no control points", at: d.tree.location(m))
                    return
                }
                if list.count > d.limits.maxControlPoints {
                    d.report(
                        .limitExceeded,
                        "ParameterCurve has \(list.count) control points; haptic reads at most \(d.limits.maxControlPoints) in one curve",
                        at: d.tree.location(m))
                    return
                }
                if list.count > d.limits.recommendedControlPoints {
                    d.report(
                        .tooManyControlPoints,
                        "ParameterCurve has \(list.count) control points; Core Haptics tooling uses at most \(d.limits.recommendedControlPoints) per curve and splits longer ones",
                        at: d.tree.location(m))
                }
                points.reserveCapacity(list.count)
                var locations: [SourceLocation] = []
                locations.reserveCapacity(list.count)
                for (i, item) in list.enumerated() {
                    d.at(.index(i)) { d in
                        if let p = d.decodeControlPoint(item, id: id) {
                            points.append(p)
                            locations.append(d.tree.location(item))
                        }
                    }
                }
                d.checkOrder(&points, locations: locations, listLocation: d.tree.location(m))
            }
        } else {
            report(
                .missingKey,
                "ParameterCurve has no ParameterCurveControlPoints (an array of {Time, ParameterValue})",
                at: tree.location(node))
        }
        guard errorCount == errorsBefore, let id, let time else { return nil }
        return ParameterCurve(id, time: time, controlPoints: points)
    }

    mutating func decodeControlPoint(_ node: Node, id: DynamicParameterID?) -> ParameterCurve
        .ControlPoint?
    {
        guard members(node, name: "a control point") != nil else { return nil }
        let f = fields(node, ControlPointKey.self, context: "a control point")
        guard let m = f[.time] else {
            report(
                .missingKey, "control point has no Time (seconds from the curve's start)", at: tree.location(node)
            )
            return nil
        }
        let time = at(.key("Time")) { d in d.nonNegative(m, name: "Time", code: .negativeTime) }
        let value = controlValue(f[.parameterValue], in: node, id: id, owner: "control point")
        guard let time, let value else { return nil }
        return ParameterCurve.ControlPoint(time: time, value: value)
    }

    /// Warns when the curve does not start at 0, and sorts points that are not ascending.
    mutating func checkOrder(
        _ points: inout [ParameterCurve.ControlPoint], locations: [SourceLocation],
        listLocation: SourceLocation
    ) {
        guard !points.isEmpty else { return }
        if let k = points.indices.dropFirst().first(where: { points[$0].time < points[$0 - 1].time }) {
            path.append(.index(k))
            report(
                .curveUnsorted,
                "control point Time \(Describe.number(points[k].time)) comes after \(Describe.number(points[k - 1].time)); points must ascend, so they were sorted by Time",
                at: locations[k])
            path.removeLast()
            // Stable: points with equal times keep their file order.
            points = points.enumerated().sorted {
                ($0.element.time, $0.offset) < ($1.element.time, $1.offset)
            }.map(\.element)
        }
        let start = points[0].time
        if start > 0 {
            path.append(.index(0))
            report(
                .curveStartNotZero,
                "first control point is at \(Describe.number(start)) s, not 0; from the curve's start the control moves in a line from the value it has then to this point's value",
                at: locations[0])
            path.removeLast()
        }
    }
}

// MARK: - Describing values in messages

enum Describe {
    /// Shortest round-trip decimal, `1` rather than `1.0`.
    static func number(_ value: Double) -> String { NumberText.double(value) }

    static func range(_ range: ClosedRange<Float>) -> String {
        "\(number(Double(range.lowerBound)))...\(number(Double(range.upperBound)))"
    }

    static func quoted(_ s: String) -> String {
        JSONValue.string(s.count > 40 ? String(s.prefix(40)) + "..." : s).jsonText
    }

    /// `string "0.5"`, `number 3`, `an array`, ... for "found ..." in messages.
    static func node(_ tree: JSONTree, _ node: Int) -> String {
        switch tree.tag(node) {
        case .null: "null"
        case .false: "false"
        case .true: "true"
        case .number: "number \(number(tree.number(node)!))"
        case .string: "string \(quoted(tree.string(node)!))"
        case .array: "an array"
        case .object: "an object"
        }
    }

    static func node(_ node: JSONNode) -> String { self.node(node.tree, node.index) }
}

// MARK: - Did you mean

enum Suggestion {
    /// The candidate closest to `word` by edit distance (ignoring case), if it is close enough
    /// to be a typo: at most a third of the word's length, and at least 1, away.
    static func closest(to word: String, in candidates: [String]) -> String? {
        let lower = word.lowercased()
        // Names with a family prefix they do not take: HapticAttackTime -> AttackTime.
        for prefix in ["haptic", "audio"] where lower.hasPrefix(prefix) && lower.count > prefix.count {
            let rest = lower.dropFirst(prefix.count)
            if let match = candidates.first(where: { $0.lowercased() == rest }) { return match }
        }
        let w = Array(lower.utf8)
        var best: (String, Int)? = nil
        for candidate in candidates {
            let c = Array(candidate.lowercased().utf8)
            let d = distance(w, c)
            if d <= max(1, min(w.count, c.count) / 3), d < (best?.1 ?? .max) { best = (candidate, d) }
        }
        return best?.0
    }

    /// Levenshtein distance with adjacent transpositions counting as one edit.
    static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
        if a.isEmpty { return b.count }
        if b.isEmpty { return a.count }
        var before = [Int](repeating: 0, count: b.count + 1)
        var previous = Array(0...b.count)
        var current = [Int](repeating: 0, count: b.count + 1)
        for i in 1...a.count {
            current[0] = i
            for j in 1...b.count {
                let cost = a[i - 1] == b[j - 1] ? 0 : 1
                var v = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
                if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                    v = min(v, before[j - 2] + 1)
                }
                current[j] = v
            }
            swap(&before, &previous)
            swap(&previous, &current)
        }
        return previous[b.count]
    }
}

extension EventParameterID {
    /// A small number per case (0..<16), for tables indexed by the ID.
    fileprivate var ordinal: Int {
        switch self {
        case .hapticIntensity: 0
        case .hapticSharpness: 1
        case .attackTime: 2
        case .decayTime: 3
        case .releaseTime: 4
        case .sustained: 5
        case .audioVolume: 6
        case .audioPitch: 7
        case .audioPan: 8
        case .audioBrightness: 9
        }
    }
}

// MARK: - Keys

/// The keys one kind of AHAP object has, in the order messages suggest them (each case's raw
/// value is its position); `AHAPDecoder.fields` finds all their values in one pass.
protocol ObjectKeys: CaseIterable, RawRepresentable where RawValue == Int {
    var name: StaticString { get }
    static var table: KeyTable { get }
}

/// The names of an `ObjectKeys` type, indexed by length for matching a member's key as bytes.
struct KeyTable: Sendable {
    let names: [StaticString]
    /// Bit k of `byLength[n]`: `names[k]` is n bytes long.
    let byLength: [UInt8]

    init<K: ObjectKeys>(_: K.Type) {
        names = K.allCases.map(\.name)
        assert(K.allCases.enumerated().allSatisfy { $0.offset == $0.element.rawValue } && names.count <= 8)
        var byLength = [UInt8](repeating: 0, count: (names.map(\.utf8CodeUnitCount).max() ?? 0) + 1)
        for (k, name) in names.enumerated() { byLength[name.utf8CodeUnitCount] |= 1 << k }
        self.byLength = byLength
    }

    /// The position in `names` of the member's key (compared as Swift compares `String`s).
    @inline(__always) func position(of member: Int, in tree: JSONTree) -> Int? {
        let key = tree.members[member].key
        if key.flags & JSONTree.nonASCII != 0 { return names.firstIndex { tree.equals(key, $0) } }
        let length = Int(key.length)
        guard length < byLength.count else { return nil }
        var candidates = byLength[length]
        while candidates != 0 {
            let k = candidates.trailingZeroBitCount
            if tree.sameBytes(key, names[k].utf8Start) { return k }
            candidates &= candidates - 1
        }
        return nil
    }
}

/// The values `AHAPDecoder.fields` found, by key.
struct Fields<K: ObjectKeys> {
    /// Each key's value (its index in the tree), or -1. Not a `SIMD8`: setting one lane of a
    /// vector held in memory stores four bytes and reloads sixteen, a store-forwarding stall per
    /// member (about 40% of the time spent in `fields`, measured).
    var values = InlineArray<8, Int32>(repeating: -1)

    subscript(key: K) -> Int? {
        let value = values[key.rawValue]
        return value < 0 ? nil : Int(value)
    }
}

enum TopLevelKey: Int, ObjectKeys {
    case version, metadata, pattern
    static let table = KeyTable(Self.self)
    var name: StaticString {
        switch self {
        case .version: "Version"
        case .metadata: "Metadata"
        case .pattern: "Pattern"
        }
    }
}

enum ElementKey: Int, ObjectKeys {
    case event, parameter, parameterCurve
    static let table = KeyTable(Self.self)
    var name: StaticString {
        switch self {
        case .event: "Event"
        case .parameter: "Parameter"
        case .parameterCurve: "ParameterCurve"
        }
    }
}

enum EventKey: Int, ObjectKeys {
    case time, eventType, eventDuration, eventParameters, eventWaveformPath, eventWaveformUseVolumeEnvelope,
        eventWaveformLoopEnabled
    static let table = KeyTable(Self.self)
    var name: StaticString {
        switch self {
        case .time: "Time"
        case .eventType: "EventType"
        case .eventDuration: "EventDuration"
        case .eventParameters: "EventParameters"
        case .eventWaveformPath: "EventWaveformPath"
        case .eventWaveformUseVolumeEnvelope: "EventWaveformUseVolumeEnvelope"
        case .eventWaveformLoopEnabled: "EventWaveformLoopEnabled"
        }
    }
}

enum EventParameterKey: Int, ObjectKeys {
    case parameterID, parameterValue
    static let table = KeyTable(Self.self)
    var name: StaticString {
        switch self {
        case .parameterID: "ParameterID"
        case .parameterValue: "ParameterValue"
        }
    }
}

enum ParameterKey: Int, ObjectKeys {
    case parameterID, time, parameterValue
    static let table = KeyTable(Self.self)
    var name: StaticString {
        switch self {
        case .parameterID: "ParameterID"
        case .time: "Time"
        case .parameterValue: "ParameterValue"
        }
    }
}

enum CurveKey: Int, ObjectKeys {
    case parameterID, time, parameterCurveControlPoints
    static let table = KeyTable(Self.self)
    var name: StaticString {
        switch self {
        case .parameterID: "ParameterID"
        case .time: "Time"
        case .parameterCurveControlPoints: "ParameterCurveControlPoints"
        }
    }
}

enum ControlPointKey: Int, ObjectKeys {
    case time, parameterValue
    static let table = KeyTable(Self.self)
    var name: StaticString {
        switch self {
        case .time: "Time"
        case .parameterValue: "ParameterValue"
        }
    }
}
