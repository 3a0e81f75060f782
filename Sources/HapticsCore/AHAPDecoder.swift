/// Walks a parsed JSON tree and builds a `HapticPattern`, recording every
/// finding. An element with an error is left out and the walk goes on, so
/// that the linter can report every problem in one run.
struct AHAPDecoder {
    let limits: AHAPLimits
    var diagnostics: [Diagnostic] = []
    /// The path to the value being decoded; turned into a `JSONPath` only for a finding.
    var path: [JSONPath.Component] = []
    var errorCount = 0

    static let topLevelKeys = ["Version", "Metadata", "Pattern"]
    static let elementKeys = ["Event", "Parameter", "ParameterCurve"]
    static let eventKeys = [
        "Time", "EventType", "EventDuration", "EventParameters", "EventWaveformPath",
        "EventWaveformUseVolumeEnvelope", "EventWaveformLoopEnabled",
    ]
    static let eventParameterKeys = ["ParameterID", "ParameterValue"]
    static let parameterKeys = ["ParameterID", "Time", "ParameterValue"]
    static let curveKeys = ["ParameterID", "Time", "ParameterCurveControlPoints"]
    static let controlPointKeys = ["Time", "ParameterValue"]

    /// Parses and decodes; the pattern is nil when the JSON itself was refused.
    static func run(_ bytes: [UInt8], limits: AHAPLimits) -> (
        pattern: HapticPattern?, diagnostics: [Diagnostic]
    ) {
        let document: JSONDocument
        switch parse(bytes, limits: limits) {
        case .success(let parsed): document = parsed
        case .failure(let refusal): return (nil, [refusal.diagnostic])
        }
        var decoder = AHAPDecoder(limits: limits)
        decoder.diagnostics = document.warnings
        let pattern = decoder.decodeTop(document.root)
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

    var currentPath: JSONPath { JSONPath(path) }

    /// Records a finding at its rule's default severity; an error makes the element unusable.
    mutating func report(
        _ code: Diagnostic.Code, _ message: String, at location: SourceLocation?, key: String? = nil
    ) {
        var p = currentPath
        if let key { p = p.key(key) }
        diagnostics.append(Diagnostic(code, message, at: p, location: location))
        if code.defaultSeverity == .error { errorCount += 1 }
    }

    /// Warns about every member of `members` that is not in `known`, with a suggestion.
    /// Notes every known key whose value is null (read as absent, as Core Haptics does).
    mutating func checkUnknownKeys(_ members: [JSONNode.Member], known: [String], context: String) {
        for member in members where member.value.kind == .null && known.contains(member.key) {
            report(
                .nullValue, "\(member.key) is null; read as absent, as Core Haptics does",
                at: member.value.location, key: member.key)
        }
        for member in members where !known.contains(member.key) {
            var message = "unknown key \"\(member.key)\" in \(context)"
            if let suggestion = Suggestion.closest(to: member.key, in: known) {
                message += " (did you mean \"\(suggestion)\"?)"
            }
            message += "; Core Haptics ignores it"
            report(.unknownKey, message, at: member.keyLocation, key: member.key)
        }
    }

    /// Runs `body` with `component` pushed on the path.
    mutating func at<T>(_ component: JSONPath.Component, _ body: (inout AHAPDecoder) -> T) -> T {
        path.append(component)
        defer { path.removeLast() }
        return body(&self)
    }

    // MARK: Typed access

    /// The number in `node`, or nil after a `wrong-type` error.
    mutating func number(_ node: JSONNode, name: String) -> Double? {
        if case .number(let n) = node.kind { return n }
        if case .string(let s) = node.kind, let n = NumberText.parseJSONNumber(s) {
            report(
                .numberAsString,
                "\(name) is the string \(Describe.quoted(s)); read as the number \(Describe.number(n))",
                at: node.location)
            return n
        }
        report(.wrongType, "\(name) must be a number, found \(Describe.node(node))", at: node.location)
        return nil
    }

    mutating func string(_ node: JSONNode, name: String) -> String? {
        if case .string(let s) = node.kind { return s }
        report(.wrongType, "\(name) must be a string, found \(Describe.node(node))", at: node.location)
        return nil
    }

    mutating func bool(_ node: JSONNode, name: String) -> Bool? {
        if case .bool(let b) = node.kind { return b }
        report(.wrongType, "\(name) must be true or false, found \(Describe.node(node))", at: node.location)
        return nil
    }

    mutating func members(_ node: JSONNode, name: String) -> [JSONNode.Member]? {
        if case .object(let m) = node.kind { return m }
        report(.wrongType, "\(name) must be an object, found \(Describe.node(node))", at: node.location)
        return nil
    }

    mutating func items(_ node: JSONNode, name: String) -> [JSONNode]? {
        if case .array(let a) = node.kind { return a }
        report(.wrongType, "\(name) must be an array, found \(Describe.node(node))", at: node.location)
        return nil
    }

    /// A time (`Time`, `EventDuration`): a number that is not negative.
    mutating func nonNegative(_ node: JSONNode, name: String, code: Diagnostic.Code) -> Double? {
        guard let value = number(node, name: name) else { return nil }
        if value < 0 {
            report(
                code, "\(name) \(Describe.number(value)) is negative; times are seconds from the start",
                at: node.location)
            return nil
        }
        return value
    }

    /// A parameter value clamped to `range`, with a `value-clamped` warning when it was outside.
    mutating func clamped(
        _ value: Double, to range: ClosedRange<Float>, name: String, at location: SourceLocation
    )
        -> Float
    {
        let lower = Double(range.lowerBound)
        let upper = Double(range.upperBound)
        if value < lower || value > upper {
            let to = value < lower ? range.lowerBound : range.upperBound
            report(
                .valueClamped,
                "\(name) \(Describe.number(value)) is outside \(Describe.range(range)); clamped to \(Describe.number(Double(to)))",
                at: location)
            return to
        }
        return Float(value)
    }

    // MARK: Top level

    mutating func decodeTop(_ root: JSONNode) -> HapticPattern? {
        guard case .object(let members) = root.kind else {
            report(
                .wrongType,
                "the top level must be an object with a Pattern array, found \(Describe.node(root))",
                at: root.location)
            return nil
        }
        checkUnknownKeys(members, known: Self.topLevelKeys, context: "the top level")
        var pattern = HapticPattern(version: nil)

        if let version = root.field("Version") {
            at(.key("Version")) { d in
                guard let v = d.number(version.value, name: "Version") else { return }
                pattern.version = v
                if v != 1 {
                    d.report(
                        .unknownVersion,
                        "Version \(Describe.number(v)) is not 1, the only AHAP version this reader knows; unknown keys will be ignored",
                        at: version.value.location)
                }
            }
        } else {
            report(.missingVersion, "no Version; reading the file as AHAP version 1", at: root.location)
        }

        if let metadata = root.field("Metadata") {
            at(.key("Metadata")) { d in
                guard case .object = metadata.value.kind else {
                    d.report(
                        .wrongType, "Metadata must be an object, found \(Describe.node(metadata.value))",
                        at: metadata.value.location)
                    return
                }
                if case .object(let dict) = metadata.value.value { pattern.metadata = dict }
            }
        }

        guard let patternMember = root.field("Pattern") else {
            report(
                .missingKey,
                "missing key \"Pattern\": an AHAP file needs a Pattern array of events and parameters",
                at: root.location)
            return nil
        }
        let ok = at(.key("Pattern")) { d in d.decodeElements(patternMember.value, into: &pattern) }
        guard ok else { return nil }

        let duration = pattern.duration
        if duration > limits.maxDuration {
            at(.key("Pattern")) { d in
                d.report(
                    .limitExceeded,
                    "pattern lasts \(Describe.number(duration)) s; the limit is \(Describe.number(d.limits.maxDuration)) s (AHAPLimits.maxDuration)",
                    at: patternMember.value.location)
            }
        }
        return errorCount == 0 ? pattern : nil
    }

    /// Decodes the `Pattern` array; false when it is unusable as a whole.
    mutating func decodeElements(_ node: JSONNode, into pattern: inout HapticPattern) -> Bool {
        guard let entries = items(node, name: "Pattern") else { return false }
        if entries.isEmpty {
            report(.emptyPattern, "Pattern is empty; the file plays nothing", at: node.location)
            return true
        }
        // Count events before walking so that a huge file fails at once.
        var eventCount = 0
        for entry in entries where entry.field("Event") != nil { eventCount += 1 }
        if eventCount > limits.maxEvents {
            report(
                .limitExceeded,
                "Pattern has \(eventCount) events; the limit is \(limits.maxEvents) (AHAPLimits.maxEvents)",
                at: node.location)
            return false
        }
        pattern.elements.reserveCapacity(entries.count)
        for (i, entry) in entries.enumerated() {
            if let element = at(.index(i), { d in d.decodeElement(entry) }) {
                pattern.elements.append(element)
            }
        }
        return true
    }

    mutating func decodeElement(_ node: JSONNode) -> PatternElement? {
        guard let members = members(node, name: "a Pattern entry") else { return nil }
        checkUnknownKeys(members, known: Self.elementKeys, context: "a Pattern entry")
        let present = members.filter { Self.elementKeys.contains($0.key) && $0.value.kind != .null }
        guard let member = present.first else {
            if !members.contains(where: { !Self.elementKeys.contains($0.key) }) {
                report(
                    .emptyElement,
                    "Pattern entry has none of Event, Parameter, ParameterCurve; it is ignored",
                    at: node.location)
            }
            return nil
        }
        if present.count > 1 {
            report(
                .ambiguousElement,
                "Pattern entry must hold exactly one of Event, Parameter, ParameterCurve; found "
                    + present.map(\.key).joined(separator: " and "),
                at: present[1].keyLocation, key: present[1].key)
            return nil
        }
        return at(.key(member.key)) { d -> PatternElement? in
            switch member.key {
            case "Event": d.decodeEvent(member.value).map(PatternElement.event)
            case "Parameter": d.decodeParameter(member.value).map(PatternElement.parameter)
            default: d.decodeCurve(member.value).map(PatternElement.curve)
            }
        }
    }

    // MARK: Events

    mutating func decodeEvent(_ node: JSONNode) -> HapticEvent? {
        guard let members = members(node, name: "Event") else { return nil }
        let errorsBefore = errorCount
        checkUnknownKeys(members, known: Self.eventKeys, context: "an Event")

        var time: Double?
        if let m = node.field("Time") {
            time = at(.key("Time")) { d in d.nonNegative(m.value, name: "Time", code: .negativeTime) }
        } else {
            report(.missingKey, "Event has no Time (seconds from the start of the pattern)", at: node.location)
        }

        var type: EventType?
        if let m = node.field("EventType") {
            type = at(.key("EventType")) { d -> EventType? in
                guard let raw = d.string(m.value, name: "EventType") else { return nil }
                if let t = EventType(rawValue: raw) { return t }
                var message = "unknown EventType \(Describe.quoted(raw))"
                if let s = Suggestion.closest(to: raw, in: EventType.allCases.map(\.rawValue)) {
                    message += " (did you mean \"\(s)\"?)"
                }
                message += "; expected HapticTransient, HapticContinuous, AudioContinuous or AudioCustom"
                d.report(.unknownEventType, message, at: m.value.location)
                return nil
            }
        } else {
            report(.missingKey, "Event has no EventType", at: node.location)
        }

        var duration: Double?
        var durationLocation = node.location
        if let m = node.field("EventDuration") {
            durationLocation = m.value.location
            duration = at(.key("EventDuration")) { d in
                d.nonNegative(m.value, name: "EventDuration", code: .negativeDuration)
            }
        }
        if let type {
            if let duration {
                at(.key("EventDuration")) { d in d.checkDuration(duration, type: type, at: durationLocation) }
            } else if type.requiresDuration && node.field("EventDuration") == nil {
                report(
                    .missingDuration,
                    "\(type.rawValue) event has no EventDuration; continuous events need one",
                    at: node.location)
            }
        }

        var parameters: [EventParameter] = []
        if let m = node.field("EventParameters") {
            at(.key("EventParameters")) { d in
                guard let list = d.items(m.value, name: "EventParameters") else { return }
                parameters.reserveCapacity(list.count)
                var seen: [EventParameterID: SourceLocation] = [:]
                for (i, item) in list.enumerated() {
                    d.at(.index(i)) { d in
                        guard let p = d.decodeEventParameter(item, type: type) else { return }
                        if let first = seen[p.id] {
                            d.report(
                                .duplicateParameter,
                                "\(p.id.rawValue) is given twice in this event (first at line \(first.line), column \(first.column)); the last value wins",
                                at: item.location)
                        } else {
                            seen[p.id] = item.location
                        }
                        parameters.append(p)
                    }
                }
            }
        }

        var event = HapticEvent(
            time: time ?? 0, type: type ?? .hapticTransient, duration: playedDuration(duration, type: type),
            parameters: parameters)

        if let m = node.field("EventWaveformPath") {
            at(.key("EventWaveformPath")) { d in
                guard let path = d.string(m.value, name: "EventWaveformPath") else { return }
                if path.isEmpty {
                    d.report(
                        .missingWaveform, "EventWaveformPath is empty; name an audio file",
                        at: m.value.location)
                    return
                }
                if let type, type != .audioCustom {
                    d.report(
                        .waveformIgnored,
                        "EventWaveformPath only applies to AudioCustom events; this \(type.rawValue) ignores it",
                        at: m.value.location)
                }
                event.waveformPath = path
            }
        } else if type == .audioCustom {
            report(
                .missingWaveform, "AudioCustom event has no EventWaveformPath (the audio file to play)",
                at: node.location)
        }
        if let m = node.field("EventWaveformUseVolumeEnvelope") {
            at(.key("EventWaveformUseVolumeEnvelope")) { d in
                if let b = d.bool(m.value, name: "EventWaveformUseVolumeEnvelope") {
                    event.waveformUsesVolumeEnvelope = b
                }
            }
        }
        if let m = node.field("EventWaveformLoopEnabled") {
            at(.key("EventWaveformLoopEnabled")) { d in
                if let b = d.bool(m.value, name: "EventWaveformLoopEnabled") { event.waveformLoopEnabled = b }
            }
        }
        return errorCount == errorsBefore ? event : nil
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

    mutating func decodeEventParameter(_ node: JSONNode, type: EventType?) -> EventParameter? {
        guard let members = members(node, name: "an EventParameters entry") else { return nil }
        checkUnknownKeys(members, known: Self.eventParameterKeys, context: "an event parameter")
        guard let idMember = node.field("ParameterID") else {
            report(.missingKey, "event parameter has no ParameterID", at: node.location)
            return nil
        }
        let id = at(.key("ParameterID")) { d -> EventParameterID? in
            guard let raw = d.string(idMember.value, name: "ParameterID") else { return nil }
            if let id = EventParameterID(rawValue: raw) { return id }
            var message = "unknown event ParameterID \(Describe.quoted(raw))"
            if let dynamic = DynamicParameterID(rawValue: raw) {
                message +=
                    " (\(raw) is a dynamic parameter: use it in a Parameter or ParameterCurve entry; here did you mean \"\(dynamic.target.rawValue)\"?)"
            } else if let s = Suggestion.closest(to: raw, in: EventParameterID.allCases.map(\.rawValue)) {
                message += " (did you mean \"\(s)\"?)"
            }
            d.report(.unknownParameterID, message, at: idMember.value.location)
            return nil
        }
        guard let id else { return nil }

        var value = id.defaultValue
        if let valueMember = node.field("ParameterValue") {
            let decoded = at(.key("ParameterValue")) { d -> Float? in
                let v = valueMember.value
                if id == .sustained, case .bool(let b) = v.kind {
                    d.report(
                        .booleanValue,
                        "Sustained is written as a number in AHAP; \(b) is read as \(b ? 1 : 0)",
                        at: v.location)
                    return b ? 1 : 0
                }
                guard let n = d.number(v, name: id.rawValue) else { return nil }
                let clampedValue = d.clamped(n, to: id.range, name: id.rawValue, at: v.location)
                if id == .sustained && clampedValue != 0 && clampedValue != 1 {
                    d.report(
                        .sustainedNotBoolean,
                        "Sustained \(Describe.number(n)) is neither 0 nor 1; it is a flag, read as 1 (sustained) because it is not 0",
                        at: v.location)
                }
                return clampedValue
            }
            guard let decoded else { return nil }
            value = decoded
        } else {
            report(
                .missingValue,
                "\(id.rawValue) has no ParameterValue; Core Haptics uses the default \(Describe.number(Double(id.defaultValue)))",
                at: node.location)
        }

        if let type, !Self.applies(id, to: type) {
            at(.key("ParameterID")) { d in
                d.report(
                    .parameterNotApplicable,
                    "\(id.rawValue) has no effect on a \(type.rawValue) event", at: idMember.value.location)
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

    mutating func dynamicID(in node: JSONNode, element: String) -> DynamicParameterID? {
        guard let idMember = node.field("ParameterID") else {
            report(.missingKey, "\(element) has no ParameterID", at: node.location)
            return nil
        }
        return at(.key("ParameterID")) { d -> DynamicParameterID? in
            guard let raw = d.string(idMember.value, name: "ParameterID") else { return nil }
            if let id = DynamicParameterID(rawValue: raw) { return id }
            var message = "unknown dynamic ParameterID \(Describe.quoted(raw))"
            if let eventID = EventParameterID(rawValue: raw), let control = eventID.control {
                message += " (\(raw) is an event parameter; did you mean \"\(control.rawValue)\"?)"
            } else if let s = Suggestion.closest(to: raw, in: DynamicParameterID.allCases.map(\.rawValue)) {
                message += " (did you mean \"\(s)\"?)"
            }
            d.report(.unknownParameterID, message, at: idMember.value.location)
            return nil
        }
    }

    /// `Time` of a Parameter or ParameterCurve: required, not negative.
    mutating func elementTime(in node: JSONNode, element: String) -> Double? {
        guard let m = node.field("Time") else {
            report(
                .missingKey, "\(element) has no Time (seconds from the start of the pattern)",
                at: node.location)
            return nil
        }
        return at(.key("Time")) { d in d.nonNegative(m.value, name: "Time", code: .negativeTime) }
    }

    /// A control value: clamped to the control's range; missing means neutral (with a warning).
    mutating func controlValue(in node: JSONNode, id: DynamicParameterID?, owner: String) -> Float? {
        guard let m = node.field("ParameterValue") else {
            let neutral = id?.neutralValue ?? 0
            report(
                .missingValue,
                "\(owner) has no ParameterValue; using the neutral value \(Describe.number(Double(neutral)))",
                at: node.location)
            return neutral
        }
        return at(.key("ParameterValue")) { d -> Float? in
            guard let n = d.number(m.value, name: "ParameterValue") else { return nil }
            guard let id else { return Float(n) }
            return d.clamped(n, to: id.range, name: "\(id.rawValue) value", at: m.value.location)
        }
    }

    mutating func decodeParameter(_ node: JSONNode) -> DynamicParameter? {
        guard let members = members(node, name: "Parameter") else { return nil }
        let errorsBefore = errorCount
        checkUnknownKeys(members, known: Self.parameterKeys, context: "a Parameter")
        let id = dynamicID(in: node, element: "Parameter")
        let time = elementTime(in: node, element: "Parameter")
        let value = controlValue(in: node, id: id, owner: "Parameter")
        guard errorCount == errorsBefore, let id, let time, let value else { return nil }
        return DynamicParameter(id, value: value, time: time)
    }

    mutating func decodeCurve(_ node: JSONNode) -> ParameterCurve? {
        guard let members = members(node, name: "ParameterCurve") else { return nil }
        let errorsBefore = errorCount
        checkUnknownKeys(members, known: Self.curveKeys, context: "a ParameterCurve")
        let id = dynamicID(in: node, element: "ParameterCurve")
        let time = elementTime(in: node, element: "ParameterCurve")
        var points: [ParameterCurve.ControlPoint] = []
        if let m = node.field("ParameterCurveControlPoints") {
            at(.key("ParameterCurveControlPoints")) { d in
                guard let list = d.items(m.value, name: "ParameterCurveControlPoints") else { return }
                if list.isEmpty {
                    d.report(.emptyCurve, "ParameterCurve has no control points", at: m.value.location)
                    return
                }
                if list.count > d.limits.maxControlPoints {
                    d.report(
                        .limitExceeded,
                        "ParameterCurve has \(list.count) control points; haptic reads at most \(d.limits.maxControlPoints) in one curve",
                        at: m.value.location)
                    return
                }
                if list.count > d.limits.recommendedControlPoints {
                    d.report(
                        .tooManyControlPoints,
                        "ParameterCurve has \(list.count) control points; Core Haptics tooling uses at most \(d.limits.recommendedControlPoints) per curve and splits longer ones",
                        at: m.value.location)
                }
                points.reserveCapacity(list.count)
                var locations: [SourceLocation] = []
                locations.reserveCapacity(list.count)
                for (i, item) in list.enumerated() {
                    d.at(.index(i)) { d in
                        if let p = d.decodeControlPoint(item, id: id) {
                            points.append(p)
                            locations.append(item.location)
                        }
                    }
                }
                d.checkOrder(&points, locations: locations, listLocation: m.value.location)
            }
        } else {
            report(
                .missingKey,
                "ParameterCurve has no ParameterCurveControlPoints (an array of {Time, ParameterValue})",
                at: node.location)
        }
        guard errorCount == errorsBefore, let id, let time else { return nil }
        return ParameterCurve(id, time: time, controlPoints: points)
    }

    mutating func decodeControlPoint(_ node: JSONNode, id: DynamicParameterID?) -> ParameterCurve
        .ControlPoint?
    {
        guard let members = members(node, name: "a control point") else { return nil }
        checkUnknownKeys(members, known: Self.controlPointKeys, context: "a control point")
        guard let m = node.field("Time") else {
            report(
                .missingKey, "control point has no Time (seconds from the curve's start)", at: node.location
            )
            return nil
        }
        let time = at(.key("Time")) { d in d.nonNegative(m.value, name: "Time", code: .negativeTime) }
        let value = controlValue(in: node, id: id, owner: "control point")
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
                "first control point is at \(Describe.number(start)) s, not 0; until then the control keeps its previous value",
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
    static func node(_ node: JSONNode) -> String {
        switch node.kind {
        case .null: "null"
        case .bool(let b): "\(b)"
        case .number(let n): "number \(number(n))"
        case .string(let s): "string \(quoted(s))"
        case .array: "an array"
        case .object: "an object"
        }
    }
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

extension JSONNode {
    /// The member named `key` unless its value is null: Core Haptics reads a null as absent.
    fileprivate func field(_ key: String) -> Member? {
        guard case .object(let members) = kind else { return nil }
        return members.first { $0.key == key && $0.value.kind != .null }
    }
}
