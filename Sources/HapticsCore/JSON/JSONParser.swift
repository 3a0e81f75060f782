/// The result of parsing: the tree and what the parser tolerated (a byte order
/// mark, duplicate keys).
package struct JSONDocument: Hashable, Sendable {
    package var root: JSONNode
    /// The flat tree `root` is a view of.
    package var tree: JSONTree { root.tree }
    /// What the parser tolerated (`bom`, `duplicate-key`, `trailing-comma`, `comment`), in document order.
    package var warnings: [Diagnostic]
}

/// A JSON text the parser refused, with where and why.
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    /// `json-syntax`, `invalid-utf8`, `number-out-of-range` or `limit-exceeded`.
    public var diagnostic: Diagnostic

    public var description: String { diagnostic.formatted(file: nil) }
}

/// An RFC 8259 JSON parser working on UTF-8 bytes, as lenient as Core Haptics'
/// AHAP reader and no more.
///
/// It validates UTF-8, rejects what RFC 8259 rejects (`NaN`, leading zeros,
/// unescaped control characters, lone surrogates, single quotes), refuses
/// numbers that do not fit a `Double`, and never recurses deeper than
/// `maxDepth`, so hostile input fails fast with a located error instead of
/// crashing. What Core Haptics reads is read, with a warning naming the place:
/// a trailing comma before `]` or `}` (`trailing-comma`), a `//` or `/* */`
/// comment (`comment`), a UTF-8 byte order mark (`bom`), a duplicate key (the
/// last value wins, `duplicate-key`). docs/ahap-support.md has the evidence.
///
/// ```swift
/// let doc = try JSONParser.parse(Array(#"{"Time": 0.5}"#.utf8))
/// print(doc.root.member("Time")!.value.location)  // 1:10
/// ```
///
/// - Complexity: O(n) in the input size.
package enum JSONParser {
    /// Parses `bytes` as one JSON value.
    ///
    /// - Parameters:
    ///   - maxDepth: how many arrays/objects may nest; deeper input is an error.
    ///   - maxStringBytes: the longest string or key, in UTF-8 bytes.
    ///   - start: where the first byte is in a larger text (a value cut out of a file): every
    ///     location, and every message that names one, is then that text's.
    package static func parse(
        _ bytes: [UInt8], maxDepth: Int = 64, maxStringBytes: Int = 1 << 20,
        start: SourceLocation = SourceLocation(line: 1, column: 1)
    ) throws(JSONSyntaxError) -> JSONDocument {
        let result: Result<JSONDocument, JSONSyntaxError> = bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(buffer, maxDepth: maxDepth, maxStringBytes: maxStringBytes)
            parser.line = start.line
            parser.lineStart = 1 - start.column
            defer { parser.deallocate() }
            do throws(JSONSyntaxError) {
                let root = try parser.parseDocument()
                let tree = JSONTree(
                    source: bytes, text: parser.text, slots: parser.slots.handOver(),
                    members: parser.members.handOver(),
                    root: root)
                return .success(JSONDocument(root: JSONNode(tree: tree, index: root), warnings: parser.warnings))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }
}

/// The parser's cursor over the bytes. Newlines can only occur in whitespace
/// (strings may not contain raw control characters), so line tracking happens
/// in `skipWhitespace` alone; `continuation` counts UTF-8 continuation bytes on
/// the current line so that columns count characters, not bytes.
///
/// The tree is built flat (see `JSONTree`): a container's elements (or member values) are
/// parsed onto the `pending` stack and, at its closing bracket, moved to `slots` as one run,
/// so that they are consecutive there; members likewise through `pendingMembers`. These
/// stacks, the path and the tree's arrays are `Buffer`s (no reference counting, no
/// uniqueness checks); the tree takes over `slots` and `members`, `deallocate()` frees the rest.
private struct Parser {
    typealias Slot = JSONTree.Slot
    typealias StringRef = JSONTree.StringRef

    /// One step of the path to the value being parsed; turned into a `JSONPath` only for a finding.
    enum Step: BitwiseCopyable {
        case index(Int)
        case key(StringRef)
    }

    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    let maxStringBytes: Int
    var index = 0
    var line = 1
    var lineStart = 0
    var continuation = 0
    var path: Buffer<Step>
    var warnings: [Diagnostic] = []
    /// The unescaped bytes of strings that had escapes.
    var text: [UInt8] = []
    var slots: Buffer<Slot>
    var members: Buffer<JSONTree.Member>
    var pending: Buffer<Slot>
    var pendingMembers: Buffer<JSONTree.Member>

    init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, maxStringBytes: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.maxStringBytes = maxStringBytes
        // About one value per 18 bytes and one member per 23 on the benchmark pattern.
        slots = Buffer(capacity: bytes.count / 16)
        members = Buffer(capacity: bytes.count / 20)
        pending = Buffer(capacity: 64)
        pendingMembers = Buffer(capacity: 64)
        path = Buffer(capacity: 16)
    }

    func deallocate() {
        path.deallocate()
        slots.deallocate()
        members.deallocate()
        pending.deallocate()
        pendingMembers.deallocate()
    }

    var location: SourceLocation { location(at: index) }

    func location(at offset: Int) -> SourceLocation {
        SourceLocation(line: line, column: offset - lineStart - continuation + 1)
    }

    /// The error to throw. The message is an autoclosure and this is never inlined, so that
    /// building messages stays out of the parsing loops.
    @inline(never) func fail(
        _ message: @autoclosure () -> String, code: Diagnostic.Code = .jsonSyntax, at loc: SourceLocation? = nil
    ) -> JSONSyntaxError {
        JSONSyntaxError(
            diagnostic: Diagnostic(.error, code: code, message(), at: jsonPath(), location: loc ?? location)
        )
    }

    /// The path to the value being parsed, then `last`.
    func jsonPath(_ last: Step? = nil) -> JSONPath {
        var components: [JSONPath.Component] = []
        components.reserveCapacity(path.count + 1)
        for i in 0..<path.count { components.append(component(path[i])) }
        if let last { components.append(component(last)) }
        return JSONPath(components)
    }

    func component(_ step: Step) -> JSONPath.Component {
        switch step {
        case .index(let i): .index(i)
        case .key(let key): .key(string(key))
        }
    }

    func string(_ ref: StringRef) -> String {
        let start = Int(ref.offset)
        let end = start + Int(ref.length)
        if ref.flags & JSONTree.escaped == 0 {
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
        return String(decoding: text[start..<end], as: UTF8.self)
    }

    /// Whether two keys are the same `String` (Swift's comparison: canonical equivalence),
    /// comparing bytes when both are ASCII.
    @inline(__always) func sameKey(_ a: StringRef, _ b: StringRef) -> Bool {
        let flags = a.flags | b.flags
        if flags & JSONTree.nonASCII != 0 { return string(a) == string(b) }
        guard a.length == b.length else { return false }
        if flags & JSONTree.escaped != 0 { return string(a) == string(b) }
        let x = Int(a.offset)
        let y = Int(b.offset)
        for k in 0..<Int(a.length) where bytes[x + k] != bytes[y + k] { return false }
        return true
    }

    func slot(_ tag: JSONTree.Tag, at start: SourceLocation, payload: UInt64 = 0, count: Int32 = 0, flags: UInt8 = 0)
        -> Slot
    {
        Slot(
            payload: payload, line: Int32(truncatingIfNeeded: start.line),
            column: Int32(truncatingIfNeeded: start.column), count: count, tag: tag, flags: flags)
    }

    /// Describes the byte at the cursor for "found ..." in messages.
    func found() -> String {
        guard index < bytes.count else { return "end of file" }
        let b = bytes[index]
        if b >= 0x21 && b < 0x7F { return "'\(Character(Unicode.Scalar(b)))'" }
        switch b {
        case 0x20: return "a space"
        default: return "byte 0x\(hex(b, width: 2))"
        }
    }

    /// Parses the document; returns the root's index in `slots`.
    mutating func parseDocument() throws(JSONSyntaxError) -> Int {
        if bytes.count > Int(Int32.max) {
            throw JSONSyntaxError(
                diagnostic: Diagnostic(
                    .error, code: .limitExceeded, "JSON text is \(bytes.count) bytes; the parser reads at most 2 GiB",
                    at: .root, location: SourceLocation(line: 1, column: 1)))
        }
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF {
            warnings.append(
                Diagnostic(
                    .warning, code: .bom,
                    "file starts with a UTF-8 byte order mark; RFC 8259 says not to add one",
                    at: .root, location: SourceLocation(line: 1, column: 1)))
            index = 3
            lineStart = 3
        }
        skipWhitespace()
        if index == bytes.count {
            throw fail(
                bytes.isEmpty
                    ? "file is empty; expected a JSON object" : "expected a JSON value, found end of file")
        }
        let root = try parseValue(depth: 1)
        skipWhitespace()
        if index != bytes.count {
            throw fail("expected end of file after the top-level value, found \(found())")
        }
        slots.append(root)
        return slots.count - 1
    }

    /// A key given twice in one object: the last value wins, at the first key's position.
    @inline(never) mutating func duplicateKey(_ key: StringRef, at keyLocation: SourceLocation, first: JSONTree.Member)
    {
        warnings.append(
            Diagnostic(
                .warning, code: .duplicateKey,
                "duplicate key \"\(string(key))\" (first at line \(first.line), column \(first.column)); the last value wins",
                at: jsonPath(.key(key)), location: keyLocation))
    }

    /// A comma before `]` or `}`: Core Haptics reads it (Apple's own sample files have them).
    @inline(never) mutating func trailingComma(at comma: SourceLocation, in container: String) {
        warnings.append(
            Diagnostic(
                .trailingComma,
                "trailing comma after the last \(container == "array" ? "element" : "member") of an \(container); Core Haptics reads it, strict JSON readers refuse the file",
                at: jsonPath(), location: comma))
    }

    /// Skips whitespace and comments; at once when the cursor is at a token already.
    @inline(__always) mutating func skipWhitespace() {
        if index < bytes.count {
            let b = bytes[index]
            if b > 0x20 && b != UInt8(ascii: "/") { return }
            // One space before a token, as after a colon.
            if b == 0x20 && index + 1 < bytes.count {
                let next = bytes[index + 1]
                if next > 0x20 && next != UInt8(ascii: "/") {
                    index += 1
                    return
                }
            }
        }
        skipWhitespaceAndComments()
    }

    mutating func skipWhitespaceAndComments() {
        var i = index
        let end = bytes.count
        while i < end {
            let b = bytes[i]
            if b == 0x20 || b == 0x09 || b == 0x0D {
                i += 1
            } else if b == 0x0A {
                i += 1
                line += 1
                lineStart = i
                continuation = 0
                // The next line's indentation, eight spaces at a time.
                while i + 8 <= end {
                    let spaces = word(at: i) ^ 0x2020_2020_2020_2020
                    if spaces != 0 {
                        i += spaces.trailingZeroBitCount >> 3
                        break
                    }
                    i += 8
                }
            } else if b == UInt8(ascii: "/") && i + 1 < end {
                index = i
                guard skipComment() else { return }
                i = index
            } else {
                break
            }
        }
        index = i
    }

    mutating func newline() {
        index += 1
        line += 1
        lineStart = index
        continuation = 0
    }

    /// Skips a `//` or `/* */` comment with a `comment` warning; false when `/` starts none.
    /// An unterminated block comment runs to the end of the file, where parsing then fails.
    mutating func skipComment() -> Bool {
        let start = location
        switch bytes[index + 1] {
        case UInt8(ascii: "/"):
            index += 2
            while index < bytes.count && bytes[index] != 0x0A { index += 1 }
        case UInt8(ascii: "*"):
            index += 2
            while index < bytes.count {
                if bytes[index] == UInt8(ascii: "*") && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/")
                {
                    index += 2
                    break
                }
                if bytes[index] == 0x0A { newline() } else { index += 1 }
            }
        default:
            return false
        }
        warnings.append(
            Diagnostic(
                .comment, "comment; skipped, but strict JSON readers (and perhaps Core Haptics) refuse the file",
                at: jsonPath(), location: start))
        return true
    }

    mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> Slot {
        let start = location
        guard index < bytes.count else { throw fail("expected a value, found end of file") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            return try parseObject(depth: depth, at: start)
        case UInt8(ascii: "["):
            return try parseArray(depth: depth, at: start)
        case UInt8(ascii: "\""):
            let s = try parseString()
            return slot(.string, at: start, payload: UInt64(s.offset), count: s.length, flags: s.flags)
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return slot(.true, at: start)
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return slot(.false, at: start)
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return slot(.null, at: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return slot(.number, at: start, payload: try parseNumber().bitPattern)
        case UInt8(ascii: "N"), UInt8(ascii: "I"):
            throw fail("expected a value, found \(found()) (NaN and Infinity are not JSON numbers)")
        default:
            throw fail("expected a value, found \(found())")
        }
    }

    /// `parseValue`, with strings and numbers (most values) parsed in line.
    @inline(__always) mutating func parseElement(depth: Int) throws(JSONSyntaxError) -> Slot {
        if index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                let start = location
                let s = try parseString()
                return slot(.string, at: start, payload: UInt64(s.offset), count: s.length, flags: s.flags)
            }
            if b &- 0x30 < 10 || b == UInt8(ascii: "-") {
                let start = location
                return slot(.number, at: start, payload: try parseNumber().bitPattern)
            }
        }
        return try parseValue(depth: depth)
    }

    mutating func expectLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let start = index
        let count = literal.utf8CodeUnitCount
        var ok = start + count <= bytes.count
        if ok {
            let lit = literal.utf8Start
            for k in 0..<count where bytes[start + k] != lit[k] {
                ok = false
                break
            }
        }
        guard ok else { throw fail("invalid literal; expected '\(literal)'") }
        index += count
    }

    @inline(__always) mutating func enter(depth: Int) throws(JSONSyntaxError) {
        if depth > maxDepth {
            throw fail(
                "nesting deeper than \(maxDepth) levels (AHAPLimits.maxNestingDepth)", code: .limitExceeded)
        }
    }

    /// Moves the elements parsed since `base` from `pending` to `slots`; returns the first one's index.
    mutating func settle(from base: Int) -> Int {
        let first = slots.count
        slots.append(contentsOf: pending, from: base)
        pending.count = base
        return first
    }

    mutating func parseArray(depth: Int, at start: SourceLocation) throws(JSONSyntaxError) -> Slot {
        try enter(depth: depth)
        index += 1  // [
        skipWhitespace()
        let base = pending.count
        var count = 0
        var commaLocation = location
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            return slot(.array, at: start, payload: UInt64(slots.count))
        }
        while true {
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "]") && count > 0 {
                trailingComma(at: commaLocation, in: "array")
                index += 1
                break
            }
            path.append(.index(count))
            pending.append(try parseElement(depth: depth + 1))
            count += 1
            path.count -= 1
            skipWhitespace()
            guard index < bytes.count else {
                throw fail("expected ',' or ']' after array element, found end of file")
            }
            if bytes[index] == UInt8(ascii: ",") {
                commaLocation = location
                index += 1
            } else if bytes[index] == UInt8(ascii: "]") {
                index += 1
                break
            } else {
                throw fail("expected ',' or ']' after array element, found \(found())")
            }
        }
        let first = settle(from: base)
        return slot(.array, at: start, payload: UInt64(first), count: Int32(count))
    }

    mutating func parseObject(depth: Int, at start: SourceLocation) throws(JSONSyntaxError) -> Slot {
        try enter(depth: depth)
        index += 1  // {
        skipWhitespace()
        // Values go to `pending` from `base`, members to `pendingMembers` from `memberBase`,
        // with `value` relative to `base` until the object is settled.
        let base = pending.count
        let memberBase = pendingMembers.count
        var positions: [String: Int]? = nil  // only used past `linearLimit` members
        let linearLimit = 12
        var commaLocation = location
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            return slot(.object, at: start, payload: UInt64(members.count))
        }
        while true {
            skipWhitespace()
            let count = pendingMembers.count - memberBase
            if index < bytes.count && bytes[index] == UInt8(ascii: "}") && count > 0 {
                trailingComma(at: commaLocation, in: "object")
                index += 1
                break
            }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw fail("expected '\"' to start an object key, found \(found())")
            }
            let keyLocation = location
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw fail("expected ':' after object key \"\(string(key))\", found \(found())")
            }
            index += 1
            skipWhitespace()
            path.append(.key(key))
            let value = try parseElement(depth: depth + 1)
            path.count -= 1

            var existing: Int? = nil
            if count < linearLimit {
                for m in memberBase..<pendingMembers.count where sameKey(pendingMembers[m].key, key) {
                    existing = m - memberBase
                    break
                }
            } else {
                if positions == nil {
                    var table: [String: Int] = [:]
                    for m in memberBase..<pendingMembers.count {
                        let k = string(pendingMembers[m].key)
                        if table[k] == nil { table[k] = m - memberBase }
                    }
                    positions = table
                }
                existing = positions?[string(key)]
            }
            if let existing {
                let firstKey = pendingMembers[memberBase + existing]
                duplicateKey(key, at: keyLocation, first: firstKey)
                pending[base + Int(firstKey.value)] = value
                pendingMembers[memberBase + existing].valueTag = value.tag
            } else {
                if positions != nil { positions?[string(key)] = count }
                pendingMembers.append(
                    JSONTree.Member(
                        key: key, valueTag: value.tag, line: Int32(truncatingIfNeeded: keyLocation.line),
                        column: Int32(truncatingIfNeeded: keyLocation.column), value: Int32(count)))
                pending.append(value)
            }

            skipWhitespace()
            guard index < bytes.count else {
                throw fail("expected ',' or '}' after object member, found end of file")
            }
            if bytes[index] == UInt8(ascii: ",") {
                commaLocation = location
                index += 1
            } else if bytes[index] == UInt8(ascii: "}") {
                index += 1
                break
            } else {
                throw fail("expected ',' or '}' after object member, found \(found())")
            }
        }
        let first = Int32(settle(from: base))
        let firstMember = members.count
        for m in memberBase..<pendingMembers.count {
            var member = pendingMembers[m]
            member.value += first
            members.append(member)
        }
        let count = pendingMembers.count - memberBase
        pendingMembers.count = memberBase
        return slot(.object, at: start, payload: UInt64(firstMember), count: Int32(count))
    }

    // MARK: Numbers

    static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    mutating func parseNumber() throws(JSONSyntaxError) -> Double {
        let start = index
        let end = bytes.count
        // The cursor stays in `i` and goes back to `index` before anything that reads it.
        var i = index
        var negative = false
        if bytes[i] == UInt8(ascii: "-") {
            negative = true
            i += 1
        }
        @inline(__always) func isDigit(_ i: Int) -> Bool { i < end && bytes[i] &- 0x30 < 10 }

        guard isDigit(i) else {
            index = i
            let hint =
                index < bytes.count && bytes[index] == UInt8(ascii: "I")
                ? " (NaN and Infinity are not JSON numbers)" : ""
            throw fail("invalid number: expected a digit after '-', found \(found())\(hint)")
        }
        // Mantissa digits, accumulated while they fit exactly.
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        if bytes[i] == UInt8(ascii: "0") {
            i += 1
            if isDigit(i) {
                throw fail("invalid number: leading zeros are not allowed", at: location(at: start))
            }
        } else {
            while isDigit(i) {
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(bytes[i] &- 0x30)
                    if mantissa != 0 { digits += 1 }
                } else {
                    exponent += 1
                    digits += 1
                }
                i += 1
            }
        }
        if i < end && bytes[i] == UInt8(ascii: ".") {
            i += 1
            guard isDigit(i) else {
                index = i
                throw fail("invalid number: expected a digit after '.', found \(found())")
            }
            while isDigit(i) {
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(bytes[i] &- 0x30)
                    exponent -= 1
                    if mantissa != 0 { digits += 1 }
                } else {
                    digits += 1
                }
                i += 1
            }
        }
        var explicitExponent = 0
        if i < end && (bytes[i] | 0x20) == UInt8(ascii: "e") {
            i += 1
            var expNegative = false
            if i < end && (bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-")) {
                expNegative = bytes[i] == UInt8(ascii: "-")
                i += 1
            }
            guard isDigit(i) else {
                index = i
                throw fail("invalid number: expected a digit in the exponent, found \(found())")
            }
            while isDigit(i) {
                if explicitExponent < 100_000 {
                    explicitExponent = explicitExponent * 10 + Int(bytes[i] &- 0x30)
                }
                i += 1
            }
            if expNegative { explicitExponent = -explicitExponent }
        }
        index = i
        exponent += explicitExponent

        // Clinger's fast path: exact mantissa and power of ten give a correctly rounded result.
        if digits <= 15 && mantissa < (1 << 53) && abs(exponent) <= 22 {
            var value = Double(mantissa)
            if exponent < 0 {
                value /= Self.exactPowersOfTen[-exponent]
            } else {
                value *= Self.exactPowersOfTen[exponent]
            }
            return negative ? -value : value
        }
        if mantissa == 0 { return negative ? -0.0 : 0 }
        let text = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            let shown = text.count > 40 ? String(text.prefix(40)) + "..." : text
            throw fail(
                "number out of range: \(shown) does not fit a 64-bit floating-point number",
                code: .numberOutOfRange, at: location(at: start))
        }
        return value
    }

    // MARK: Strings

    /// Parses a string at the cursor; its bytes stay in the source unless it has escapes, when
    /// the unescaped bytes go to `text`.
    mutating func parseString() throws(JSONSyntaxError) -> StringRef {
        // The opening quote's location is worked out only when needed: until the first
        // non-ASCII byte nothing it depends on changes.
        let open = index
        index += 1  // opening quote
        let start = index
        // Fast path: plain ASCII without escapes, eight bytes at a time to the first byte
        // that may end it (a quote, a backslash, a control character or a non-ASCII byte).
        var i = index
        let end = bytes.count
        while i + 8 <= end {
            let x = word(at: i)
            let quote = x ^ 0x2222_2222_2222_2222
            let backslash = x ^ 0x5C5C_5C5C_5C5C_5C5C
            let ones: UInt64 = 0x0101_0101_0101_0101
            // Each term's lowest flagged byte is a real match (borrows only run upwards).
            let special =
                ((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash)
                | ((x &- 0x2020_2020_2020_2020) & ~x) | x
            let flags = special & 0x8080_8080_8080_8080
            if flags != 0 {
                i += flags.trailingZeroBitCount >> 3
                break
            }
            i += 8
        }
        while i < end {
            let b = bytes[i]
            if b == UInt8(ascii: "\"") {
                index = i + 1
                if i - start > maxStringBytes { try checkLength(i - start, location(at: open)) }
                return StringRef(
                    offset: Int32(truncatingIfNeeded: start), length: Int32(truncatingIfNeeded: i - start), flags: 0)
            }
            if b == UInt8(ascii: "\\") || b < 0x20 || b >= 0x80 { break }
            i += 1
        }
        index = i
        let openLocation = location(at: open)
        // Then: validate UTF-8, still in place while there are no escapes.
        var flags: UInt8 = 0
        inPlace: while true {
            guard index < bytes.count else { throw unterminated(openLocation) }
            let b = bytes[index]
            let length = index - start
            if length > maxStringBytes { try checkLength(length, openLocation) }
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                try checkLength(length, openLocation)
                return StringRef(offset: Int32(start), length: Int32(length), flags: flags)
            case UInt8(ascii: "\\"):
                break inPlace
            case 0..<0x20:
                throw fail("unescaped control character U+00\(hex(b, width: 2)) in string")
            case 0x80...:
                let length = try validateUTF8Sequence()
                continuation += length - 1
                index += length
                flags = JSONTree.nonASCII
            default:
                index += 1
            }
        }
        // Slow path: unescape into `text`.
        let textStart = text.count
        text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while true {
            guard index < bytes.count else { throw unterminated(openLocation) }
            let b = bytes[index]
            let length = text.count - textStart
            if length > maxStringBytes { try checkLength(length, openLocation) }
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                try checkLength(length, openLocation)
                if text[textStart...].contains(where: { $0 >= 0x80 }) { flags = JSONTree.nonASCII }
                return StringRef(offset: Int32(textStart), length: Int32(length), flags: flags | JSONTree.escaped)
            case UInt8(ascii: "\\"):
                try parseEscape()
            case 0..<0x20:
                throw fail("unescaped control character U+00\(hex(b, width: 2)) in string")
            case 0x80...:
                let length = try validateUTF8Sequence()
                text.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<index + length]))
                continuation += length - 1
                index += length
            default:
                text.append(b)
                index += 1
            }
        }
    }

    /// Eight bytes from `offset` (which must have eight), the first in the lowest bits.
    @inline(__always) func word(at offset: Int) -> UInt64 {
        UInt64(littleEndian: UnsafeRawPointer(bytes.baseAddress! + offset).loadUnaligned(as: UInt64.self))
    }

    func unterminated(_ openLocation: SourceLocation) -> JSONSyntaxError {
        fail("unterminated string (opened at line \(openLocation.line), column \(openLocation.column))")
    }

    func checkLength(_ length: Int, _ openLocation: SourceLocation) throws(JSONSyntaxError) {
        if length > maxStringBytes {
            throw fail(
                "string longer than \(maxStringBytes) bytes (AHAPLimits.maxStringBytes)",
                code: .limitExceeded,
                at: openLocation)
        }
    }

    /// Checks the UTF-8 sequence at the cursor (RFC 3629: no overlongs, no
    /// surrogates, nothing past U+10FFFF) and returns its length.
    func validateUTF8Sequence() throws(JSONSyntaxError) -> Int {
        let b0 = bytes[index]
        let length: Int
        var lower: UInt8 = 0x80
        var upper: UInt8 = 0xBF
        switch b0 {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upper = 0x9F
        case 0xF0: length = 4; lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upper = 0x8F
        default:
            throw fail(
                "invalid UTF-8: byte 0x\(hex(b0, width: 2)) cannot start a character", code: .invalidUTF8)
        }
        for k in 1..<length {
            guard index + k < bytes.count else {
                throw fail("invalid UTF-8: file ends inside a character", code: .invalidUTF8)
            }
            let b = bytes[index + k]
            let (lo, hi) = k == 1 ? (lower, upper) : (UInt8(0x80), UInt8(0xBF))
            guard b >= lo && b <= hi else {
                throw fail(
                    "invalid UTF-8: byte 0x\(hex(b, width: 2)) after 0x\(hex(b0, width: 2)) is not a valid continuation",
                    code: .invalidUTF8)
            }
        }
        return length
    }

    mutating func parseEscape() throws(JSONSyntaxError) {
        let escapeLocation = location
        index += 1
        guard index < bytes.count else { throw fail("unterminated string: file ends after '\\'") }
        let c = bytes[index]
        index += 1
        switch c {
        case UInt8(ascii: "\""): text.append(0x22)
        case UInt8(ascii: "\\"): text.append(0x5C)
        case UInt8(ascii: "/"): text.append(0x2F)
        case UInt8(ascii: "b"): text.append(0x08)
        case UInt8(ascii: "f"): text.append(0x0C)
        case UInt8(ascii: "n"): text.append(0x0A)
        case UInt8(ascii: "r"): text.append(0x0D)
        case UInt8(ascii: "t"): text.append(0x09)
        case UInt8(ascii: "u"):
            let first = try parseHex4(escapeLocation)
            var scalar = UInt32(first)
            if first >= 0xD800 && first <= 0xDBFF {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"),
                    bytes[index + 1] == UInt8(ascii: "u")
                else {
                    throw fail(
                        "lone surrogate \\u\(hex(first, width: 4)) in string (a high surrogate must be followed by a low one)",
                        at: escapeLocation)
                }
                index += 2
                let second = try parseHex4(escapeLocation)
                guard second >= 0xDC00 && second <= 0xDFFF else {
                    throw fail(
                        "lone surrogate \\u\(hex(first, width: 4)) in string (followed by \\u\(hex(second, width: 4)), not a low surrogate)",
                        at: escapeLocation)
                }
                scalar = 0x10000 + ((UInt32(first) - 0xD800) << 10) + (UInt32(second) - 0xDC00)
            } else if first >= 0xDC00 && first <= 0xDFFF {
                throw fail(
                    "lone surrogate \\u\(hex(first, width: 4)) in string (a low surrogate without a high one)",
                    at: escapeLocation)
            }
            // Always valid here: surrogates were handled above.
            for unit in UTF8.encode(Unicode.Scalar(scalar)!)! { text.append(unit) }
        default:
            if c >= 0x21 && c < 0x7F {
                throw fail("invalid escape '\\\(Character(Unicode.Scalar(c)))' in string", at: escapeLocation)
            }
            throw fail("invalid escape: '\\' followed by byte 0x\(hex(c, width: 2)) in string", at: escapeLocation)
        }
    }

    mutating func parseHex4(_ escapeLocation: SourceLocation) throws(JSONSyntaxError) -> UInt16 {
        var value: UInt16 = 0
        for _ in 0..<4 {
            guard index < bytes.count else {
                throw fail("invalid \\u escape: expected 4 hex digits", at: escapeLocation)
            }
            let b = bytes[index]
            let digit: UInt8
            switch b {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = b - 0x30
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = b - 0x61 + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = b - 0x41 + 10
            default: throw fail("invalid \\u escape: expected 4 hex digits", at: escapeLocation)
            }
            value = value << 4 | UInt16(digit)
            index += 1
        }
        return value
    }
}

/// Upper-case hexadecimal, zero-padded to `width`.
func hex(_ value: some BinaryInteger, width: Int) -> String {
    let digits = String(value, radix: 16, uppercase: true)
    return String(repeating: "0", count: max(0, width - digits.count)) + digits
}

/// A growable run of trivial values in memory the parser owns: appends without reference
/// counting or uniqueness checks. `deallocate()` frees it; `handOver()` gives it away.
private struct Buffer<Element: BitwiseCopyable> {
    private(set) var base: UnsafeMutablePointer<Element>
    /// Shrinking it drops the last elements.
    var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    func deallocate() { base.deallocate() }

    subscript(i: Int) -> Element {
        get { base[i] }
        nonmutating set { base[i] = newValue }
    }

    @inline(__always) mutating func append(_ element: Element) {
        if count == capacity { grow(to: count + 1) }
        base[count] = element
        count += 1
    }

    /// Appends `other`'s elements from `start` on.
    mutating func append(contentsOf other: Buffer, from start: Int) {
        let n = other.count - start
        if count + n > capacity { grow(to: count + n) }
        (base + count).initialize(from: other.base + start, count: n)
        count += n
    }

    mutating func grow(to minimum: Int) {
        let newCapacity = max(minimum, capacity * 2)
        let newBase = UnsafeMutablePointer<Element>.allocate(capacity: newCapacity)
        newBase.initialize(from: base, count: count)
        base.deallocate()
        base = newBase
        capacity = newCapacity
    }

    /// Gives the elements to the caller (who frees them) and starts over empty.
    mutating func handOver() -> OwnedBuffer<Element> {
        let owned = OwnedBuffer(base: base, count: count)
        self = Buffer(capacity: 0)
        return owned
    }
}
