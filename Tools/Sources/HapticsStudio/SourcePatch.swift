package import HapticsCore
import OrderedCollections

/// A JSON text changed into another value by editing only what differs: a value that changed is
/// replaced at its exact bytes, an added member or element is inserted in the text's own style
/// (its separators, indentation and key order), a removed one is cut out with its separator, and
/// every other byte (formatting, comments, key order, numbers as written, values the decoder
/// would clamp, unknown keys) stays as it was. This is how the studio saves an edit, so that a
/// one-value nudge in a 1.3 MB file changes one number.
///
/// The text must be one the project's JSON parser accepted (the server only edits files that
/// decoded); the spans are found by a small scanner over it, so the parser itself records
/// nothing extra. Only the text is kept, with where each value outside the `Pattern` entries and
/// each entry is: an entry's inside is scanned and parsed when an edit reaches it (``entry(_:)``),
/// so a file is not kept as a tree of values and one of spans besides its bytes, each many times
/// the size of the text (BENCHMARKS.md, "Opening a large file", issue 28).
///
/// ```swift
/// let patch = try SourcePatch(bytes)                // the file as it is on disk
/// let text = try patch.applying(newValue)           // the whole new value
/// let text2 = try patch.applying(edits: edits)      // or the page's edits of `Pattern`
/// ```
package final class SourcePatch: Sendable {
    package let bytes: [UInt8]
    /// Where the values are; the `Pattern` entries' spans without their insides.
    let root: Span
    let unit: String

    /// - Parameter parsed: the caller has parsed `bytes` as JSON already (they decoded), so
    ///   they are not parsed again to check.
    package init(_ bytes: [UInt8], parsed: Bool = false) throws(StudioError) {
        self.bytes = bytes
        if !parsed {
            do {
                _ = try JSONValue(parsing: bytes)
            } catch {
                throw StudioError(422, "the file is not JSON: \(error.diagnostic.message)")
            }
        }
        var scanner = Scanner(bytes: bytes, entriesOnly: true)
        scanner.space()
        root = scanner.value()
        unit = Self.indentUnit(bytes)
    }

    /// The document's value (duplicate keys: the last value wins, as the decoder reads them),
    /// parsed at each use: only a save of a whole value needs it whole.
    package var value: JSONValue { (try? JSONValue(parsing: bytes)) ?? .null }

    /// The `Pattern` array (the last `Pattern` member, the one the decoder reads), when there is one.
    var pattern: Span? {
        guard root.isObject, let member = root.member("Pattern"), member.value.start < bytes.count,
            bytes[member.value.start] == UInt8(ascii: "[")
        else { return nil }
        return member.value
    }

    /// The number of `Pattern` entries (0 when there is no `Pattern` array).
    package var entryCount: Int { pattern?.elements.count ?? 0 }

    /// `Pattern[index]` as written: its spans, inside too, and its value.
    func entry(_ index: Int) -> (span: Span, value: JSONValue)? {
        guard let pattern, pattern.elements.indices.contains(index) else { return nil }
        let bounds = pattern.elements[index]
        var scanner = Scanner(bytes: bytes, i: bounds.start)
        return (scanner.value(), value(of: bounds))
    }

    /// The value of the text of `span`.
    func value(of span: Span) -> JSONValue {
        (try? JSONValue(parsing: Array(bytes[span.start..<span.end]))) ?? .null
    }
    /// One change to the `Pattern` array, as the page sends it. Indices are those of the text
    /// this patch was made from.
    package enum Edit: Sendable, Equatable {
        /// `Pattern[index]` becomes `element` (only what differs is rewritten).
        case set(index: Int, element: JSONValue)
        /// `Pattern[index]` is removed.
        case remove(index: Int)
        /// `element` is appended to `Pattern`.
        case add(element: JSONValue)
    }

    /// The value after `edits`, each addressing this text's `Pattern` entries.
    package func value(after edits: [Edit]) throws(StudioError) -> JSONValue {
        guard case .object(var top) = value, case .array(let entries)? = top["Pattern"] else {
            throw StudioError(422, "the file has no Pattern array to edit")
        }
        var next: [JSONValue?] = entries.map { $0 }
        var added: [JSONValue] = []
        for edit in edits {
            switch edit {
            case .set(let index, let element):
                guard entries.indices.contains(index), next[index] != nil else {
                    throw StudioError.badRequest("edit of Pattern[\(index)]: no such entry")
                }
                next[index] = element
            case .remove(let index):
                guard entries.indices.contains(index) else {
                    throw StudioError.badRequest("removal of Pattern[\(index)]: no such entry")
                }
                next[index] = nil
            case .add(let element):
                added.append(element)
            }
        }
        top["Pattern"] = .array(next.compactMap { $0 } + added)
        return .object(top)
    }

    /// The text after `edits`: each changed entry patched where it is, removed entries cut out
    /// with a separator, added ones appended after the last entry in the file's style.
    ///
    /// - Complexity: O(text) to copy it, plus the edited entries; the rest is not compared.
    package func applying(edits: [Edit]) throws(StudioError) -> [UInt8] {
        guard let made = try changes(for: edits) else { return try applying(value(after: edits)) }
        return try assemble(made.changes)
    }

    /// The changes `edits` make to the text (sorted, not overlapping), and where each added entry
    /// is in the text of the last change; nil when the edits rewrite the `Pattern` array as a
    /// whole (it has no entries, or every one is removed).
    func changes(for edits: [Edit]) throws(StudioError) -> (changes: [Change], added: [Range<Int>])? {
        guard let pattern, !pattern.elements.isEmpty else { return nil }
        let spans = pattern.elements
        let entries = spans.indices
        var set: [Int: JSONValue] = [:]
        var removed = Set<Int>()
        var added: [JSONValue] = []
        for edit in edits {
            switch edit {
            case .set(let index, let element):
                guard entries.indices.contains(index) else {
                    throw StudioError.badRequest("edit of Pattern[\(index)]: no such entry")
                }
                set[index] = element
            case .remove(let index):
                guard entries.indices.contains(index) else {
                    throw StudioError.badRequest("removal of Pattern[\(index)]: no such entry")
                }
                removed.insert(index)
            case .add(let element):
                added.append(element)
            }
        }
        if removed.count == entries.count { return nil }
        var changes: [Change] = []
        for (index, element) in set where !removed.contains(index) {
            guard let (span, old) = entry(index) else { continue }
            patch(span, old, element, into: &changes)
        }
        // Each run of removed entries goes with the separator after it, or, for a run at the end,
        // the one before it.
        for run in Self.runs(removed.sorted()) {
            if run.upperBound < spans.count {
                changes.append(Change(range: spans[run.lowerBound].start..<spans[run.upperBound].start, text: ""))
            } else {
                changes.append(Change(range: spans[run.lowerBound - 1].end..<spans[run.upperBound - 1].end, text: ""))
            }
        }
        var places: [Range<Int>] = []
        if !added.isEmpty {
            let separator = elementSeparator(pattern)
            let template = entry(spans.count - 1)?.span ?? spans[spans.count - 1]
            let indent = lineIndent(afterSeparator: separator) ?? indent(of: template.start)
            var text = ""
            for element in added {
                text += separator
                let start = text.utf8.count
                text += write(element, like: template, indent: indent)
                places.append(start..<text.utf8.count)
            }
            changes.append(Change(range: template.end..<template.end, text: text))
        }
        changes.sort { ($0.range.lowerBound, $0.range.upperBound) < ($1.range.lowerBound, $1.range.upperBound) }
        return (changes, places)
    }

    static func runs(_ sorted: [Int]) -> [Range<Int>] {
        var out: [Range<Int>] = []
        for i in sorted {
            if let last = out.last, last.upperBound == i {
                out[out.count - 1] = last.lowerBound..<i + 1
            } else {
                out.append(i..<i + 1)
            }
        }
        return out
    }

    /// The text of `new`: this text with only what differs from `value` changed.
    package func applying(_ new: JSONValue) throws(StudioError) -> [UInt8] {
        var changes: [Change] = []
        var scanner = Scanner(bytes: bytes)
        scanner.space()
        patch(scanner.value(), value, new, into: &changes)
        return try assemble(changes)
    }

    /// The text with `changes` (which must not overlap) made.
    func assemble(_ changes: [Change]) throws(StudioError) -> [UInt8] {
        var changes = changes
        changes.sort { ($0.range.lowerBound, $0.range.upperBound) < ($1.range.lowerBound, $1.range.upperBound) }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count + changes.reduce(0) { $0 + $1.text.utf8.count })
        var at = 0
        for change in changes {
            guard change.range.lowerBound >= at else {
                throw StudioError(500, "internal error: overlapping edits at byte \(change.range.lowerBound)")
            }
            out.append(contentsOf: bytes[at..<change.range.lowerBound])
            out.append(contentsOf: change.text.utf8)
            at = change.range.upperBound
        }
        out.append(contentsOf: bytes[at...])
        return out
    }

    // MARK: - Spans

    /// Where one value is: `start..<end` in the bytes; an object's members and an array's
    /// elements with theirs.
    final class Span: Sendable {
        let start: Int
        let end: Int
        let members: [Member]
        let elements: [Span]
        let isObject: Bool

        init(start: Int, end: Int, members: [Member] = [], elements: [Span] = [], isObject: Bool = false) {
            self.start = start
            self.end = end
            self.members = members
            self.elements = elements
            self.isObject = isObject
        }

        /// The last member named `key` (the one whose value the decoder reads).
        func member(_ key: String) -> Member? { members.last { $0.key == key } }
    }

    struct Member: Sendable {
        let key: String
        let keyStart: Int
        let keyEnd: Int
        let value: Span
    }

    /// Spans of a text the parser accepted (so it assumes the grammar holds).
    struct Scanner {
        let bytes: [UInt8]
        var i = 0
        /// The top-level `Pattern` array's elements are kept without their insides.
        var entriesOnly = false
        var depth = 0

        mutating func space() {
            while i < bytes.count {
                let b = bytes[i]
                if b == 0x20 || b == 0x09 || b == 0x0A || b == 0x0D {
                    i += 1
                } else if b == UInt8(ascii: "/"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "/") {
                    while i < bytes.count && bytes[i] != 0x0A { i += 1 }
                } else if b == UInt8(ascii: "/"), i + 1 < bytes.count, bytes[i + 1] == UInt8(ascii: "*") {
                    i += 2
                    while i + 1 < bytes.count && !(bytes[i] == UInt8(ascii: "*") && bytes[i + 1] == UInt8(ascii: "/")) {
                        i += 1
                    }
                    i = min(bytes.count, i + 2)
                } else if i == 0, bytes.count >= 3, b == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF {
                    i = 3
                } else {
                    return
                }
            }
        }

        /// Past a string (the cursor at its opening quote); whether it had an escape.
        mutating func string() -> Bool {
            i += 1
            var escaped = false
            while i < bytes.count && bytes[i] != UInt8(ascii: "\"") {
                if bytes[i] == UInt8(ascii: "\\") {
                    escaped = true
                    i += 1
                }
                i += 1
            }
            i += 1
            return escaped
        }

        mutating func value() -> Span {
            let start = i
            guard i < bytes.count else { return Span(start: i, end: i) }
            switch bytes[i] {
            case UInt8(ascii: "{"):
                i += 1
                var members: [Member] = []
                space()
                while i < bytes.count && bytes[i] != UInt8(ascii: "}") {
                    let keyStart = i
                    let escaped = string()
                    let keyEnd = i
                    let key =
                        escaped
                        ? ((try? JSONValue(parsing: Array(bytes[keyStart..<keyEnd])))?.string ?? "")
                        : String(decoding: bytes[keyStart + 1..<keyEnd - 1], as: UTF8.self)
                    space()
                    i += 1  // ':'
                    space()
                    let inside = entriesOnly && depth == 0 && key == "Pattern"
                    depth += 1
                    let member = inside ? entries() : value()
                    depth -= 1
                    members.append(Member(key: key, keyStart: keyStart, keyEnd: keyEnd, value: member))
                    space()
                    if i < bytes.count && bytes[i] == UInt8(ascii: ",") {
                        i += 1
                        space()
                    }
                }
                i += 1
                return Span(start: start, end: i, members: members, isObject: true)
            case UInt8(ascii: "["):
                i += 1
                var elements: [Span] = []
                space()
                depth += 1
                while i < bytes.count && bytes[i] != UInt8(ascii: "]") {
                    elements.append(value())
                    space()
                    if i < bytes.count && bytes[i] == UInt8(ascii: ",") {
                        i += 1
                        space()
                    }
                }
                depth -= 1
                i += 1
                return Span(start: start, end: i, elements: elements)
            case UInt8(ascii: "\""):
                _ = string()
                return Span(start: start, end: i)
            default:
                while i < bytes.count {
                    let b = bytes[i]
                    if b == UInt8(ascii: ",") || b == UInt8(ascii: "]") || b == UInt8(ascii: "}") || b == 0x20
                        || b == 0x09 || b == 0x0A || b == 0x0D || b == UInt8(ascii: "/")
                    {
                        break
                    }
                    i += 1
                }
                return Span(start: start, end: i)
            }
        }

        /// A value whose elements, if it is an array, are kept as their bounds only.
        mutating func entries() -> Span {
            guard i < bytes.count, bytes[i] == UInt8(ascii: "[") else { return value() }
            let start = i
            i += 1
            var elements: [Span] = []
            space()
            while i < bytes.count && bytes[i] != UInt8(ascii: "]") {
                let element = value()
                elements.append(Span(start: element.start, end: element.end))
                space()
                if i < bytes.count && bytes[i] == UInt8(ascii: ",") {
                    i += 1
                    space()
                }
            }
            i += 1
            return Span(start: start, end: i, elements: elements)
        }
    }

    // MARK: - Patching

    struct Change {
        var range: Range<Int>
        var text: String
    }

    func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }

    /// The changes that turn the text of `span` (whose value is `old`) into `new`.
    func patch(_ span: Span, _ old: JSONValue, _ new: JSONValue, into changes: inout [Change]) {
        if Self.same(old, new) { return }
        switch (old, new) {
        case (.object(let a), .object(let b)) where span.isObject && !span.members.isEmpty:
            patchObject(span, a, b, into: &changes)
        case (.array(let a), .array(let b))
        where !span.isObject && !span.elements.isEmpty && a.count == span.elements.count:
            patchArray(span, a, b, into: &changes)
        default:
            changes.append(
                Change(range: span.start..<span.end, text: write(new, like: span, indent: indent(of: span.start))))
        }
    }

    func patchObject(
        _ span: Span, _ a: OrderedDictionary<String, JSONValue>, _ b: OrderedDictionary<String, JSONValue>,
        into changes: inout [Change]
    ) {
        let removed = span.members.indices.filter { b[span.members[$0].key] == nil }
        // Removing more than one member, or the last one, is rare (the page never does): the
        // object is written again in the text's style.
        if removed.count > 1 || removed.last == span.members.count - 1 {
            changes.append(
                Change(
                    range: span.start..<span.end, text: write(.object(b), like: span, indent: indent(of: span.start))))
            return
        }
        for m in removed {
            changes.append(Change(range: span.members[m].keyStart..<span.members[m + 1].keyStart, text: ""))
        }
        var inserted: [(String, JSONValue)] = []
        for (key, value) in b {
            if let member = span.member(key), let old = a[key] {
                patch(member.value, old, value, into: &changes)
            } else {
                inserted.append((key, value))
            }
        }
        guard !inserted.isEmpty, let last = span.members.last else { return }
        let separator = memberSeparator(span)
        let indent = lineIndent(afterSeparator: separator) ?? indent(of: last.keyStart)
        let colon = text(last.keyEnd..<last.value.start)
        var out = ""
        for (key, value) in inserted {
            out += separator + JSONValue.string(key).jsonText + colon + write(value, like: nil, indent: indent)
        }
        changes.append(Change(range: last.value.end..<last.value.end, text: out))
    }

    /// Equal ends are kept; a middle of equal length is patched element by element; otherwise
    /// the middle's old elements are cut and the new ones inserted in the text's style.
    func patchArray(_ span: Span, _ a: [JSONValue], _ b: [JSONValue], into changes: inout [Change]) {
        var prefix = 0
        while prefix < a.count && prefix < b.count && Self.same(a[prefix], b[prefix]) { prefix += 1 }
        var suffix = 0
        while suffix < a.count - prefix && suffix < b.count - prefix
            && Self.same(a[a.count - 1 - suffix], b[b.count - 1 - suffix])
        {
            suffix += 1
        }
        let old = prefix..<a.count - suffix
        let new = prefix..<b.count - suffix
        if old.isEmpty && new.isEmpty { return }
        if old.count == new.count {
            for k in 0..<old.count {
                patch(span.elements[old.lowerBound + k], a[old.lowerBound + k], b[new.lowerBound + k], into: &changes)
            }
            return
        }
        let elements = span.elements
        let separator = elementSeparator(span)
        let template = elements[old.isEmpty ? min(prefix, elements.count - 1) : old.lowerBound]
        let indent = lineIndent(afterSeparator: separator) ?? indent(of: template.start)
        let written = b[new].map { write($0, like: template, indent: indent) }.joined(separator: separator)
        if old.isEmpty {
            // Insertion: before the element that follows, or after the last one.
            if old.lowerBound < elements.count {
                changes.append(
                    Change(
                        range: elements[old.lowerBound].start..<elements[old.lowerBound].start,
                        text: written + separator))
            } else {
                changes.append(
                    Change(
                        range: elements[elements.count - 1].end..<elements[elements.count - 1].end,
                        text: separator + written))
            }
        } else if new.isEmpty {
            // Removal, with the separator after it (or, at the end, the one before it).
            if old.upperBound < elements.count {
                changes.append(Change(range: elements[old.lowerBound].start..<elements[old.upperBound].start, text: ""))
            } else if old.lowerBound > 0 {
                changes.append(
                    Change(range: elements[old.lowerBound - 1].end..<elements[old.upperBound - 1].end, text: ""))
            } else {
                changes.append(Change(range: elements[0].start..<elements[elements.count - 1].end, text: ""))
            }
        } else {
            changes.append(
                Change(range: elements[old.lowerBound].start..<elements[old.upperBound - 1].end, text: written))
        }
    }

    /// Whether two values are equal, whatever the order of their objects' keys (the page and
    /// JSON decoders may order them differently from the file).
    static func same(_ a: JSONValue, _ b: JSONValue) -> Bool {
        switch (a, b) {
        case (.object(let x), .object(let y)):
            guard x.count == y.count else { return false }
            for (key, value) in x {
                guard let other = y[key], same(value, other) else { return false }
            }
            return true
        case (.array(let x), .array(let y)):
            return x.count == y.count && zip(x, y).allSatisfy { same($0, $1) }
        default:
            return a == b
        }
    }

    /// What separates members: the text between the last two, or after `{` before the only one.
    func memberSeparator(_ span: Span) -> String {
        let m = span.members
        let raw =
            m.count >= 2
            ? text(m[m.count - 2].value.end..<m[m.count - 1].keyStart) : "," + text(span.start + 1..<m[0].keyStart)
        return clean(raw)
    }

    func elementSeparator(_ span: Span) -> String {
        let e = span.elements
        let raw =
            e.count >= 2 ? text(e[e.count - 2].end..<e[e.count - 1].start) : "," + text(span.start + 1..<e[0].start)
        return clean(raw)
    }

    /// A separator without comments: the comma, then the last line break and indentation if any.
    func clean(_ separator: String) -> String {
        guard separator.contains("/") || separator.filter({ $0 == "," }).count != 1 else { return separator }
        if let newline = separator.lastIndex(of: "\n") { return "," + separator[newline...] }
        return ", "
    }

    func lineIndent(afterSeparator separator: String) -> String? {
        guard let newline = separator.lastIndex(of: "\n") else { return nil }
        return String(separator[separator.index(after: newline)...])
    }

    /// The whitespace that starts the line `offset` is on.
    func indent(of offset: Int) -> String {
        var start = offset
        while start > 0 && bytes[start - 1] != 0x0A { start -= 1 }
        var end = start
        while end < offset && (bytes[end] == 0x20 || bytes[end] == 0x09) { end += 1 }
        return text(start..<end)
    }

    func isMultiline(_ span: Span) -> Bool { bytes[span.start..<span.end].contains(0x0A) }

    /// `value` written as `template` (a value of the same shape in the text) is: on several lines
    /// or one, with its spacing and key order; `indent` is the line's indentation where it goes.
    func write(_ value: JSONValue, like template: Span?, indent: String) -> String {
        switch value {
        case .object(let members):
            if members.isEmpty { return "{}" }
            var ordered = Array(members)
            if let template, template.isObject {
                let order = Dictionary(
                    template.members.enumerated().map { ($1.key, $0) }, uniquingKeysWith: { first, _ in first })
                ordered = ordered.enumerated().sorted {
                    (order[$0.element.key] ?? Int.max, $0.offset) < (order[$1.element.key] ?? Int.max, $1.offset)
                }.map(\.element)
            }
            let colon = template.flatMap { t in t.members.first.map { text($0.keyEnd..<$0.value.start) } } ?? ": "
            let items = ordered.map { key, child -> (String, (String) -> String) in
                let childTemplate = template?.member(key)?.value
                return (JSONValue.string(key).jsonText + colon, { self.write(child, like: childTemplate, indent: $0) })
            }
            return container("{", "}", items, template: template, indent: indent)
        case .array(let elements):
            if elements.isEmpty { return "[]" }
            let childTemplate = template?.elements.last
            let items = elements.map { child in
                ("", { (inner: String) in self.write(child, like: childTemplate, indent: inner) })
            }
            return container("[", "]", items, template: template, indent: indent)
        default:
            return value.jsonText
        }
    }

    func container(
        _ open: String, _ close: String, _ items: [(String, (String) -> String)], template: Span?, indent: String
    )
        -> String
    {
        let multiline = template.map(isMultiline) ?? bytes.contains(0x0A)
        if multiline {
            let inner = indent + unit
            return open + items.map { "\n" + inner + $0.0 + $0.1(inner) }.joined(separator: ",") + "\n" + indent + close
        }
        let pad = template.map { $0.start + 1 < $0.end && bytes[$0.start + 1] == 0x20 } ?? false
        let comma =
            template.map { t in
                let seps =
                    t.isObject
                    ? (t.members.count >= 2 ? text(t.members[0].value.end..<t.members[1].keyStart) : ", ")
                    : (t.elements.count >= 2 ? text(t.elements[0].end..<t.elements[1].start) : ", ")
                return seps.contains("/") ? ", " : seps
            } ?? ", "
        let body = items.map { $0.0 + $0.1(indent) }.joined(separator: comma)
        return pad ? open + " " + body + " " + close : open + body + close
    }

    /// The text's indentation step: the shortest indentation of its first lines (4 spaces if none).
    static func indentUnit(_ bytes: [UInt8]) -> String {
        var best: [UInt8]? = nil
        var i = 0
        var lines = 0
        while i < bytes.count && lines < 200 {
            guard let newline = bytes[i...].firstIndex(of: 0x0A) else { break }
            var j = newline + 1
            while j < bytes.count && (bytes[j] == 0x20 || bytes[j] == 0x09) { j += 1 }
            let run = Array(bytes[(newline + 1)..<j])
            if !run.isEmpty && (best == nil || run.count < best!.count) { best = run }
            i = newline + 1
            lines += 1
        }
        return best.map { String(decoding: $0, as: UTF8.self) } ?? "    "
    }
}
