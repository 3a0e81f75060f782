import OrderedCollections

/// Writes a `HapticPattern` as pretty-printed AHAP bytes (see `AHAP.encode`), and any JSON value as
/// pretty or one-line text (``JSONValue/jsonText``): the project's one JSON writer.
struct AHAPWriter {
    var out: [UInt8] = []
    var indentLevel = 0
    /// One line: `{"a": 1, "b": [1, 2]}` instead of one member per line.
    var compact = false

    init(compact: Bool = false) {
        self.compact = compact
        out.reserveCapacity(compact ? 64 : 4096)
    }

    mutating func raw(_ s: String) { out.append(contentsOf: s.utf8) }

    /// Hands the bytes written since the last drain to `body`, then forgets them: how the
    /// streamed encoders (AHAP, `.haptic`) give their text away a piece at a time.
    mutating func drain<E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> Void) throws(E) {
        guard !out.isEmpty else { return }
        defer { out.removeAll(keepingCapacity: true) }
        try out.withUnsafeBytes { raw in Result { () throws(E) in try body(raw) } }.get()
    }

    /// Between members: a new line at the current indent, or nothing on one line (a separator's
    /// space is written by ``separator()``).
    mutating func newline() {
        if compact { return }
        out.append(0x0A)
        for _ in 0..<indentLevel * 4 { out.append(0x20) }
    }

    mutating func separator() {
        out.append(UInt8(ascii: ","))
        if compact { out.append(0x20) }
    }

    /// Writes `{ "k": v, ... }` with one member per line; `members` write the values.
    mutating func object(_ members: [(String, (inout AHAPWriter) -> Void)]) {
        if members.isEmpty {
            raw("{}")
            return
        }
        out.append(UInt8(ascii: "{"))
        indentLevel += 1
        for (i, (key, value)) in members.enumerated() {
            newline()
            string(key)
            raw(": ")
            value(&self)
            if i < members.count - 1 { separator() }
        }
        indentLevel -= 1
        newline()
        out.append(UInt8(ascii: "}"))
    }

    mutating func array<C: Collection>(_ items: C, _ body: (inout AHAPWriter, C.Element) -> Void) {
        if items.isEmpty {
            raw("[]")
            return
        }
        out.append(UInt8(ascii: "["))
        indentLevel += 1
        var first = true
        for item in items {
            if !first { separator() }
            first = false
            newline()
            body(&self, item)
        }
        indentLevel -= 1
        newline()
        out.append(UInt8(ascii: "]"))
    }

    mutating func string(_ s: String) {
        out.append(UInt8(ascii: "\""))
        for b in s.utf8 {
            switch b {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0x08: raw("\\b")
            case 0x0C: raw("\\f")
            case 0..<0x20: raw("\\u\(hex(b, width: 4))")
            default: out.append(b)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    mutating func number(_ d: Double) { raw(NumberText.double(d)) }
    mutating func number(_ f: Float) { raw(NumberText.float(f)) }

    mutating func json(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case .bool(let b): raw(b ? "true" : "false")
        case .number(let n): number(n)
        case .string(let s): string(s)
        case .array(let items): array(items) { w, item in w.json(item) }
        case .object(let dict): object(dict.map { key, v in (key, { (w: inout AHAPWriter) in w.json(v) }) })
        }
    }

    mutating func write(_ pattern: HapticPattern) {
        precondition(!compact, "AHAP files are written one member per line")
        var top: [(String, (inout AHAPWriter) -> Void)] = []
        if let version = pattern.version { top.append(("Version", { $0.number(version) })) }
        if !pattern.metadata.isEmpty { top.append(("Metadata", { $0.json(.object(pattern.metadata)) })) }
        top.append(("Pattern", { w in w.array(pattern.elements) { w, e in w.element(e) } }))
        object(top)
        out.append(0x0A)
    }

    mutating func element(_ element: PatternElement) {
        switch element {
        case .event(let e): object([("Event", { $0.event(e) })])
        case .parameter(let p):
            object([
                (
                    "Parameter",
                    { w in
                        w.object([
                            ("ParameterID", { $0.string(p.id.rawValue) }),
                            ("Time", { $0.number(p.time) }),
                            ("ParameterValue", { $0.number(p.value) }),
                        ])
                    }
                )
            ])
        case .curve(let c):
            object([
                (
                    "ParameterCurve",
                    { w in
                        w.object([
                            ("ParameterID", { $0.string(c.id.rawValue) }),
                            ("Time", { $0.number(c.time) }),
                            (
                                "ParameterCurveControlPoints",
                                { w in
                                    w.array(c.controlPoints) { w, point in
                                        w.object([
                                            ("Time", { $0.number(point.time) }),
                                            ("ParameterValue", { $0.number(point.value) }),
                                        ])
                                    }
                                }
                            ),
                        ])
                    }
                )
            ])
        }
    }

    mutating func event(_ e: HapticEvent) {
        var members: [(String, (inout AHAPWriter) -> Void)] = [
            ("Time", { $0.number(e.time) }),
            ("EventType", { $0.string(e.type.rawValue) }),
        ]
        if let duration = e.duration { members.append(("EventDuration", { $0.number(duration) })) }
        if !e.parameters.isEmpty {
            members.append(
                (
                    "EventParameters",
                    { w in
                        w.array(e.parameters) { w, p in
                            w.object([
                                ("ParameterID", { $0.string(p.id.rawValue) }),
                                ("ParameterValue", { $0.number(p.value) }),
                            ])
                        }
                    }
                ))
        }
        if let path = e.waveformPath { members.append(("EventWaveformPath", { $0.string(path) })) }
        if !e.waveformUsesVolumeEnvelope {
            members.append(("EventWaveformUseVolumeEnvelope", { $0.raw("false") }))
        }
        if e.waveformLoopEnabled { members.append(("EventWaveformLoopEnabled", { $0.raw("true") })) }
        object(members)
    }
}

/// Numbers as AHAP authors write them: the shortest text that reads back to the
/// same value, without a trailing `.0` (`1`, `0.25`, `1e-05`).
enum NumberText {
    /// The number a string holds when it is exactly a JSON number (`"0.5"`, `"1"`), else nil.
    static func parseJSONNumber(_ text: String) -> Double? {
        guard let first = text.utf8.first, first == UInt8(ascii: "-") || (first &- 0x30) < 10,
            case .number(let n)? = try? JSONParser.parse(Array(text.utf8)).root.kind
        else { return nil }
        return n
    }

    /// JSON has no NaN or infinity; a non-finite value (only possible in a pattern
    /// built in code, never in a decoded one) is written as 0.
    static func double(_ d: Double) -> String { d.isFinite ? trim(d.description) : "0" }
    static func float(_ f: Float) -> String { f.isFinite ? trim(f.description) : "0" }

    static func trim(_ s: String) -> String {
        s.hasSuffix(".0") ? String(s.dropLast(2)) : s
    }
}

extension JSONValue {
    /// The value as one line of JSON: `{"Project": "x", "Count": 3}`, with AHAP's escaping and
    /// shortest round-trip numbers. For messages, diffs and pages.
    public var jsonText: String {
        var writer = AHAPWriter(compact: true)
        writer.json(self)
        return String(decoding: writer.out, as: UTF8.self)
    }
}
