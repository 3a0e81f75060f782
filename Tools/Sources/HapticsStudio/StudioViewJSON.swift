import Foundation
import HapticsCore
import Hummingbird
package import NIOCore
import OrderedCollections

extension Studio {
    /// The pattern view as JSON: the same bytes as ``jsonText(_:)`` writes (members in sorted
    /// order, strings escaped and numbers written as JSONEncoder writes them), written straight
    /// into the buffer the response sends. JSONEncoder first builds a tree of boxes of its own for
    /// every value of the view, `ahap`'s every member included, then the text, a `Data` of it, a
    /// `String` of that and the response's copy: a gigabyte at its peak for a 9.8 MB file of
    /// curves (BENCHMARKS.md, "Opening a large file", issue 28). This keeps only the text, in 64 KiB
    /// pieces appended to one buffer. A number that is not finite, which JSONEncoder refuses,
    /// makes the whole answer JSONEncoder's.
    ///
    /// With `document`, `ahap` is that text's value, written from it an entry at a time (each
    /// parsed and written in turn), so no tree of the whole file is made either.
    package static func viewJSON(_ view: PatternViewResponse, document: SourcePatch? = nil) -> ByteBuffer {
        var writer = ViewJSONWriter()
        writer.write(view, document: document)
        guard let buffer = writer.finish() else {
            var whole = view
            if let document { whole.ahap = AnyJSON(document.value) }
            return ByteBuffer(string: jsonText(whole))
        }
        return buffer
    }

    /// A 200 answer of the pattern view's JSON (``viewJSON(_:document:)``).
    static func encoded(_ view: PatternViewResponse) -> Response {
        Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: viewJSON(view)))
    }
}

/// Writes JSON as `JSONEncoder` with `[.sortedKeys, .withoutEscapingSlashes]` writes it.
struct ViewJSONWriter {
    var buffer = ByteBufferAllocator().buffer(capacity: 0)
    /// Bytes not yet in `buffer` (appended a piece at a time: a byte at a time into a ByteBuffer
    /// costs a capacity check each).
    var piece: [UInt8] = []
    /// A number was not finite: JSONEncoder would refuse the whole value.
    var failed = false
    static let pieceBytes = 64 << 10

    init() { piece.reserveCapacity(Self.pieceBytes + 1024) }

    mutating func finish() -> ByteBuffer? {
        flush()
        return failed ? nil : buffer
    }

    mutating func flush() {
        buffer.writeBytes(piece)
        piece.removeAll(keepingCapacity: true)
    }

    @inline(__always) mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { piece.append(contentsOf: $0) }
        if piece.count >= Self.pieceBytes { flush() }
    }

    @inline(__always) mutating func byte(_ byte: UInt8) { piece.append(byte) }

    /// `,"key":`, or with `opening`, `{"key":` (an object's first member); `key` is plain ASCII.
    mutating func key(_ key: StaticString, opening: Bool = false) {
        byte(opening ? UInt8(ascii: "{") : UInt8(ascii: ","))
        byte(UInt8(ascii: "\""))
        raw(key)
        byte(UInt8(ascii: "\""))
        byte(UInt8(ascii: ":"))
    }

    /// As JSONEncoder: a `Double`'s description without a trailing `.0` (`1`, `0.25`, `1e-05`).
    mutating func number(_ value: Double) {
        guard value.isFinite else {
            failed = true
            return
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        piece.append(contentsOf: text.utf8)
    }

    mutating func number(_ value: Int) { piece.append(contentsOf: value.description.utf8) }

    mutating func bool(_ value: Bool) { raw(value ? "true" : "false") }

    /// As JSONEncoder: `"` and `\` escaped, control characters as `\n`-style or `\u00XX`
    /// escapes, everything else (slashes, characters past ASCII) as it is.
    mutating func string(_ text: String) {
        byte(UInt8(ascii: "\""))
        for unit in text.utf8 {
            switch unit {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"):
                byte(UInt8(ascii: "\\"))
                byte(unit)
            case 0x08: raw("\\b")
            case 0x09: raw("\\t")
            case 0x0A: raw("\\n")
            case 0x0C: raw("\\f")
            case 0x0D: raw("\\r")
            case 0..<0x20:
                raw("\\u00")
                byte(Self.hex[Int(unit >> 4)])
                byte(Self.hex[Int(unit & 15)])
            default: byte(unit)
            }
            if piece.count >= Self.pieceBytes { flush() }
        }
        byte(UInt8(ascii: "\""))
    }

    static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    mutating func numbers(_ values: [Double]) {
        byte(UInt8(ascii: "["))
        for (index, value) in values.enumerated() {
            if index > 0 { byte(UInt8(ascii: ",")) }
            number(value)
            if piece.count >= Self.pieceBytes { flush() }
        }
        byte(UInt8(ascii: "]"))
    }

    /// Any JSON value; an object's members in JSONEncoder's sorted order.
    mutating func value(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case .bool(let b): bool(b)
        case .number(let n): number(n)
        case .string(let s): string(s)
        case .array(let items):
            byte(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { byte(UInt8(ascii: ",")) }
                self.value(item)
            }
            byte(UInt8(ascii: "]"))
        case .object(let members):
            byte(UInt8(ascii: "{"))
            let keys = members.keys
            Self.withSortedOrder(keys) { order in
                for (n, index) in order.enumerated() {
                    if n > 0 { byte(UInt8(ascii: ",")) }
                    string(keys[index])
                    byte(UInt8(ascii: ":"))
                    self.value(members.values[index])
                }
            }
            byte(UInt8(ascii: "}"))
        }
        if piece.count >= Self.pieceBytes { flush() }
    }

    /// The indices of `keys` in the order JSONEncoder's `.sortedKeys` writes them: for keys in
    /// ASCII, their bytes' order; otherwise the order JSONEncoder itself gives them (canonically
    /// equivalent spellings sort as Strings do, which bytes alone cannot tell).
    static func withSortedOrder<R>(_ keys: OrderedSet<String>, _ body: (UnsafeBufferPointer<Int>) -> R) -> R {
        withUnsafeTemporaryAllocation(of: Int.self, capacity: keys.count) { order in
            for i in 0..<keys.count { order[i] = i }
            if keys.allSatisfy({ key in key.utf8.allSatisfy { $0 < 0x80 } }) {
                // Insertion sort: objects have a handful of members.
                for i in 1..<max(1, keys.count) {
                    let moving = order[i]
                    var j = i
                    while j > 0, keys[moving].utf8.lexicographicallyPrecedes(keys[order[j - 1]].utf8) {
                        order[j] = order[j - 1]
                        j -= 1
                    }
                    order[j] = moving
                }
            } else {
                let probe = OrderedDictionary(
                    uniqueKeysWithValues: keys.enumerated().map { ($1, JSONValue.number(Double($0))) })
                let sorted = (try? JSONValue(parsing: Array(Studio.jsonText(AnyJSON(.object(probe))).utf8)))
                if case .object(let written)? = sorted, written.count == keys.count {
                    for (i, position) in written.values.enumerated() {
                        if case .number(let n) = position { order[i] = Int(n) }
                    }
                }
            }
            return body(UnsafeBufferPointer(order))
        }
    }

    // MARK: - The view

    /// The value of a JSON text (the whole file) as `value` writes it: the top level's members
    /// as parsing resolves them (a duplicate key's last value, at its first place), each parsed
    /// from its text and written in turn, the `Pattern` array an entry at a time.
    mutating func document(_ patch: SourcePatch) {
        let root = patch.root
        guard root.isObject else { return value(patch.value) }
        var members = OrderedDictionary<String, SourcePatch.Span>()
        for member in root.members { members[member.key] = member.value }
        let pattern = patch.pattern
        let keys = members.keys
        byte(UInt8(ascii: "{"))
        Self.withSortedOrder(keys) { order in
            for (n, index) in order.enumerated() {
                if n > 0 { byte(UInt8(ascii: ",")) }
                string(keys[index])
                byte(UInt8(ascii: ":"))
                let span = members.values[index]
                if let pattern, span === pattern {
                    byte(UInt8(ascii: "["))
                    for (k, entry) in span.elements.enumerated() {
                        if k > 0 { byte(UInt8(ascii: ",")) }
                        value(patch.value(of: entry))
                    }
                    byte(UInt8(ascii: "]"))
                } else {
                    value(patch.value(of: span))
                }
            }
        }
        byte(UInt8(ascii: "}"))
    }

    mutating func write(_ view: Studio.PatternViewResponse, document: SourcePatch?) {
        key("ahap", opening: true)
        if let document { self.document(document) } else { value(view.ahap.value) }
        key("analyzeMilliseconds")
        number(view.analyzeMilliseconds)
        key("curves")
        byte(UInt8(ascii: "["))
        for (n, curve) in view.curves.enumerated() {
            if n > 0 { byte(UInt8(ascii: ",")) }
            key("index", opening: true)
            number(curve.index)
            key("jsonPath")
            string(curve.jsonPath)
            key("parameter")
            string(curve.parameter)
            key("points")
            byte(UInt8(ascii: "["))
            for (m, point) in curve.points.enumerated() {
                if m > 0 { byte(UInt8(ascii: ",")) }
                key("time", opening: true)
                number(point.time)
                key("value")
                number(point.value)
                byte(UInt8(ascii: "}"))
                if piece.count >= Self.pieceBytes { flush() }
            }
            byte(UInt8(ascii: "]"))
            key("time")
            number(curve.time)
            byte(UInt8(ascii: "}"))
        }
        byte(UInt8(ascii: "]"))
        if let diagnostics = view.diagnostics {
            key("diagnostics")
            byte(UInt8(ascii: "["))
            for (n, finding) in diagnostics.enumerated() {
                if n > 0 { byte(UInt8(ascii: ",")) }
                value(finding.value)
            }
            byte(UInt8(ascii: "]"))
        }
        key("duration")
        number(view.duration)
        key("effective")
        key("intensity", opening: true)
        numbers(view.effective.intensity)
        key("sharpness")
        numbers(view.effective.sharpness)
        key("times")
        numbers(view.effective.times)
        byte(UInt8(ascii: "}"))
        key("events")
        byte(UInt8(ascii: "["))
        for (n, event) in view.events.enumerated() {
            if n > 0 { byte(UInt8(ascii: ",")) }
            key("duration", opening: true)
            number(event.duration)
            key("index")
            number(event.index)
            key("intensity")
            number(event.intensity)
            key("jsonPath")
            string(event.jsonPath)
            key("sharpness")
            number(event.sharpness)
            key("time")
            number(event.time)
            key("type")
            string(event.type)
            byte(UInt8(ascii: "}"))
        }
        byte(UInt8(ascii: "]"))
        key("findingsKey")
        string(view.findingsKey)
        key("format")
        string(view.format)
        key("metadata")
        value(view.metadata.value)
        key("parameters")
        byte(UInt8(ascii: "["))
        for (n, parameter) in view.parameters.enumerated() {
            if n > 0 { byte(UInt8(ascii: ",")) }
            key("index", opening: true)
            number(parameter.index)
            key("jsonPath")
            string(parameter.jsonPath)
            key("parameter")
            string(parameter.parameter)
            key("time")
            number(parameter.time)
            key("value")
            number(parameter.value)
            byte(UInt8(ascii: "}"))
        }
        byte(UInt8(ascii: "]"))
        key("path")
        string(view.path)
        if let text = view.text {
            key("text")
            string(text)
        }
        key("version")
        if let version = view.version { string(version) } else { raw("null") }
        key("waveform")
        key("max", opening: true)
        numbers(view.waveform.max)
        key("min")
        numbers(view.waveform.min)
        key("seconds")
        number(view.waveform.seconds)
        key("start")
        number(view.waveform.start)
        key("truncated")
        bool(view.waveform.truncated)
        byte(UInt8(ascii: "}"))
        byte(UInt8(ascii: "}"))
    }
}
