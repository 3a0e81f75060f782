import OrderedCollections

/// A parsed JSON value together with where it starts in the source.
///
/// The AHAP decoder walks this tree so that every finding can name a line and
/// column. Object members keep their order; a duplicate key has already been
/// resolved (the last value wins, at the first key's position).
package struct JSONNode: Hashable, Sendable {
    /// Where the value's first character is.
    package var location: SourceLocation
    /// The value itself.
    package var kind: Kind

    /// What a node holds.
    package enum Kind: Hashable, Sendable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONNode])
        case object([Member])
    }

    /// One `"key": value` pair of an object.
    package struct Member: Hashable, Sendable {
        package var key: String
        /// Where the key's opening quote is.
        package var keyLocation: SourceLocation
        package var value: JSONNode
    }

    /// The plain value, without locations.
    ///
    /// - Complexity: O(n) in the size of the subtree.
    package var value: JSONValue {
        switch kind {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .number(let n): return .number(n)
        case .string(let s): return .string(s)
        case .array(let items): return .array(items.map(\.value))
        case .object(let members):
            var dict = OrderedDictionary<String, JSONValue>(minimumCapacity: members.count)
            for member in members { dict[member.key] = member.value.value }
            return .object(dict)
        }
    }

    /// The member named `key`, if this is an object that has it.
    package func member(_ key: String) -> Member? {
        guard case .object(let members) = kind else { return nil }
        return members.first { $0.key == key }
    }
}

/// The result of parsing: the tree and what the parser tolerated (a byte order
/// mark, duplicate keys).
package struct JSONDocument: Hashable, Sendable {
    package var root: JSONNode
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
    package static func parse(
        _ bytes: [UInt8], maxDepth: Int = 64, maxStringBytes: Int = 1 << 20
    ) throws(JSONSyntaxError) -> JSONDocument {
        let result: Result<JSONDocument, JSONSyntaxError> = bytes.withUnsafeBufferPointer { buffer in
            var parser = Parser(buffer, maxDepth: maxDepth, maxStringBytes: maxStringBytes)
            do throws(JSONSyntaxError) {
                return .success(try parser.parseDocument())
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
private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    let maxDepth: Int
    let maxStringBytes: Int
    var index = 0
    var line = 1
    var lineStart = 0
    var continuation = 0
    var path: [JSONPath.Component] = []
    var warnings: [Diagnostic] = []
    /// Reused between strings that need unescaping.
    var scratch: [UInt8] = []

    init(_ bytes: UnsafeBufferPointer<UInt8>, maxDepth: Int, maxStringBytes: Int) {
        self.bytes = bytes
        self.maxDepth = maxDepth
        self.maxStringBytes = maxStringBytes
    }

    var location: SourceLocation { location(at: index) }

    func location(at offset: Int) -> SourceLocation {
        SourceLocation(line: line, column: offset - lineStart - continuation + 1)
    }

    func fail(
        _ message: String, code: Diagnostic.Code = .jsonSyntax, at loc: SourceLocation? = nil
    ) -> JSONSyntaxError {
        JSONSyntaxError(
            diagnostic: Diagnostic(.error, code: code, message, at: JSONPath(path), location: loc ?? location)
        )
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

    mutating func parseDocument() throws(JSONSyntaxError) -> JSONDocument {
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
        return JSONDocument(root: root, warnings: warnings)
    }

    /// A comma before `]` or `}`: Core Haptics reads it (Apple's own sample files have them).
    mutating func trailingComma(at comma: SourceLocation, in container: String) {
        warnings.append(
            Diagnostic(
                .trailingComma,
                "trailing comma after the last \(container == "array" ? "element" : "member") of an \(container); Core Haptics reads it, strict JSON readers refuse the file",
                at: JSONPath(path), location: comma))
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0D:
                index += 1
            case 0x0A:
                newline()
            case UInt8(ascii: "/") where index + 1 < bytes.count:
                guard skipComment() else { return }
            default:
                return
            }
        }
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
                at: JSONPath(path), location: start))
        return true
    }

    mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONNode {
        let start = location
        guard index < bytes.count else { throw fail("expected a value, found end of file") }
        switch bytes[index] {
        case UInt8(ascii: "{"):
            return JSONNode(location: start, kind: try parseObject(depth: depth))
        case UInt8(ascii: "["):
            return JSONNode(location: start, kind: try parseArray(depth: depth))
        case UInt8(ascii: "\""):
            return JSONNode(location: start, kind: .string(try parseString()))
        case UInt8(ascii: "t"):
            try expectLiteral("true")
            return JSONNode(location: start, kind: .bool(true))
        case UInt8(ascii: "f"):
            try expectLiteral("false")
            return JSONNode(location: start, kind: .bool(false))
        case UInt8(ascii: "n"):
            try expectLiteral("null")
            return JSONNode(location: start, kind: .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONNode(location: start, kind: .number(try parseNumber()))
        case UInt8(ascii: "N"), UInt8(ascii: "I"):
            throw fail("expected a value, found \(found()) (NaN and Infinity are not JSON numbers)")
        default:
            throw fail("expected a value, found \(found())")
        }
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

    mutating func enter(depth: Int) throws(JSONSyntaxError) {
        if depth > maxDepth {
            throw fail(
                "nesting deeper than \(maxDepth) levels (AHAPLimits.maxNestingDepth)", code: .limitExceeded)
        }
    }

    mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> JSONNode.Kind {
        try enter(depth: depth)
        index += 1  // [
        skipWhitespace()
        var items: [JSONNode] = []
        var commaLocation = location
        if index < bytes.count && bytes[index] == UInt8(ascii: "]") {
            index += 1
            return .array(items)
        }
        while true {
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "]") && !items.isEmpty {
                trailingComma(at: commaLocation, in: "array")
                index += 1
                return .array(items)
            }
            path.append(.index(items.count))
            items.append(try parseValue(depth: depth + 1))
            path.removeLast()
            skipWhitespace()
            guard index < bytes.count else {
                throw fail("expected ',' or ']' after array element, found end of file")
            }
            switch bytes[index] {
            case UInt8(ascii: ","):
                commaLocation = location
                index += 1
            case UInt8(ascii: "]"):
                index += 1
                return .array(items)
            default:
                throw fail("expected ',' or ']' after array element, found \(found())")
            }
        }
    }

    mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> JSONNode.Kind {
        try enter(depth: depth)
        index += 1  // {
        skipWhitespace()
        var members: [JSONNode.Member] = []
        var positions: [String: Int] = [:]  // only used past `linearLimit` members
        let linearLimit = 12
        var commaLocation = location
        if index < bytes.count && bytes[index] == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            if index < bytes.count && bytes[index] == UInt8(ascii: "}") && !members.isEmpty {
                trailingComma(at: commaLocation, in: "object")
                index += 1
                return .object(members)
            }
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                throw fail("expected '\"' to start an object key, found \(found())")
            }
            let keyLocation = location
            let key = try parseString()
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else {
                throw fail("expected ':' after object key \"\(key)\", found \(found())")
            }
            index += 1
            skipWhitespace()
            path.append(.key(key))
            let value = try parseValue(depth: depth + 1)
            path.removeLast()

            var existing: Int? = nil
            if members.count < linearLimit {
                existing = members.firstIndex { $0.key == key }
            } else {
                if positions.isEmpty {
                    for (i, m) in members.enumerated() where positions[m.key] == nil { positions[m.key] = i }
                }
                existing = positions[key]
            }
            if let existing {
                var keyPath = path
                keyPath.append(.key(key))
                let first = members[existing].keyLocation
                warnings.append(
                    Diagnostic(
                        .warning, code: .duplicateKey,
                        "duplicate key \"\(key)\" (first at line \(first.line), column \(first.column)); the last value wins",
                        at: JSONPath(keyPath), location: keyLocation))
                members[existing].value = value
            } else {
                if !positions.isEmpty { positions[key] = members.count }
                members.append(JSONNode.Member(key: key, keyLocation: keyLocation, value: value))
            }

            skipWhitespace()
            guard index < bytes.count else {
                throw fail("expected ',' or '}' after object member, found end of file")
            }
            switch bytes[index] {
            case UInt8(ascii: ","):
                commaLocation = location
                index += 1
            case UInt8(ascii: "}"):
                index += 1
                return .object(members)
            default:
                throw fail("expected ',' or '}' after object member, found \(found())")
            }
        }
    }

    // MARK: Numbers

    static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    mutating func parseNumber() throws(JSONSyntaxError) -> Double {
        let start = index
        let startLocation = location
        var negative = false
        if bytes[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        func isDigit(_ i: Int) -> Bool { i < bytes.count && bytes[i] &- 0x30 < 10 }

        guard isDigit(index) else {
            let hint =
                index < bytes.count && bytes[index] == UInt8(ascii: "I")
                ? " (NaN and Infinity are not JSON numbers)" : ""
            throw fail("invalid number: expected a digit after '-', found \(found())\(hint)")
        }
        // Mantissa digits, accumulated while they fit exactly.
        var mantissa: UInt64 = 0
        var digits = 0
        var exponent = 0
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if isDigit(index) {
                throw fail("invalid number: leading zeros are not allowed", at: startLocation)
            }
        } else {
            while isDigit(index) {
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(bytes[index] &- 0x30)
                    if mantissa != 0 { digits += 1 }
                } else {
                    exponent += 1
                    digits += 1
                }
                index += 1
            }
        }
        if index < bytes.count && bytes[index] == UInt8(ascii: ".") {
            index += 1
            guard isDigit(index) else {
                throw fail("invalid number: expected a digit after '.', found \(found())")
            }
            while isDigit(index) {
                if digits < 19 {
                    mantissa = mantissa &* 10 &+ UInt64(bytes[index] &- 0x30)
                    exponent -= 1
                    if mantissa != 0 { digits += 1 }
                } else {
                    digits += 1
                }
                index += 1
            }
        }
        var explicitExponent = 0
        if index < bytes.count && (bytes[index] | 0x20) == UInt8(ascii: "e") {
            index += 1
            var expNegative = false
            if index < bytes.count && (bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-")) {
                expNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard isDigit(index) else {
                throw fail("invalid number: expected a digit in the exponent, found \(found())")
            }
            while isDigit(index) {
                if explicitExponent < 100_000 {
                    explicitExponent = explicitExponent * 10 + Int(bytes[index] &- 0x30)
                }
                index += 1
            }
            if expNegative { explicitExponent = -explicitExponent }
        }
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
                code: .numberOutOfRange, at: startLocation)
        }
        return value
    }

    // MARK: Strings

    mutating func parseString() throws(JSONSyntaxError) -> String {
        let openLocation = location
        index += 1  // opening quote
        let start = index
        // Fast path: plain ASCII without escapes.
        while index < bytes.count {
            let b = bytes[index]
            if b == UInt8(ascii: "\"") {
                try checkLength(index - start, openLocation)
                let s = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                index += 1
                return s
            }
            if b == UInt8(ascii: "\\") || b < 0x20 || b >= 0x80 { break }
            index += 1
        }
        // Slow path: validate UTF-8 and unescape into `scratch`.
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<index]))
        while true {
            guard index < bytes.count else {
                throw fail(
                    "unterminated string (opened at line \(openLocation.line), column \(openLocation.column))"
                )
            }
            let b = bytes[index]
            if scratch.count > maxStringBytes { try checkLength(scratch.count, openLocation) }
            switch b {
            case UInt8(ascii: "\""):
                index += 1
                try checkLength(scratch.count, openLocation)
                return String(decoding: scratch, as: UTF8.self)
            case UInt8(ascii: "\\"):
                try parseEscape()
            case 0..<0x20:
                throw fail("unescaped control character U+00\(hex(b, width: 2)) in string")
            case 0x80...:
                let length = try validateUTF8Sequence()
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[index..<index + length]))
                continuation += length - 1
                index += length
            default:
                scratch.append(b)
                index += 1
            }
        }
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
        case UInt8(ascii: "\""): scratch.append(0x22)
        case UInt8(ascii: "\\"): scratch.append(0x5C)
        case UInt8(ascii: "/"): scratch.append(0x2F)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
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
            for unit in UTF8.encode(Unicode.Scalar(scalar)!)! { scratch.append(unit) }
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
