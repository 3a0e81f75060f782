import HapticsCore
import OrderedCollections
import Testing

@Suite struct JSONParserTests {
    /// The single error for a JSON text, as the linter prints it.
    func failure(_ text: String) -> String? {
        failure(Array(text.utf8))
    }

    func failure(_ bytes: [UInt8]) -> String? {
        do {
            _ = try JSONParser.parse(bytes)
            return nil
        } catch {
            return error.diagnostic.formatted(file: "t.json")
        }
    }

    @Test func recordsLineAndColumnOfEveryValueAndKey() throws {
        let doc = try JSONParser.parse(Array("{\n  \"a\": [1, true],\n\t\"é\": {\"b\": null}\n}".utf8))
        let a = try #require(doc.root.member("a"))
        #expect(a.keyLocation == SourceLocation(line: 2, column: 3))
        #expect(a.value.location == SourceLocation(line: 2, column: 8))
        guard case .array(let items) = a.value.kind else {
            Issue.record("not an array")
            return
        }
        #expect(
            items.map(\.location) == [
                SourceLocation(line: 2, column: 9), SourceLocation(line: 2, column: 12),
            ])
        let e = try #require(doc.root.member("é"))
        // Columns count characters: "é" is two bytes but one column.
        #expect(e.value.location == SourceLocation(line: 3, column: 7))
        #expect(e.value.member("b")?.value.location == SourceLocation(line: 3, column: 13))
        guard case .object(let dict) = doc.root.value else {
            Issue.record("not an object")
            return
        }
        #expect(Array(dict.keys) == ["a", "é"])
        #expect(dict["a"] == .array([.number(1), .bool(true)]))
        guard case .object(let inner) = dict["é"] else { return }
        #expect(Array(inner.keys) == ["b"] && inner["b"] == .null)
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        let doc = try JSONParser.parse(Array(#"["a\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00z"]"#.utf8))
        #expect(doc.root.value == .array([.string("a\"\\/\u{8}\u{C}\n\r\té😀z")]))
    }

    @Test func readsNumbersExactly() throws {
        let doc = try JSONParser.parse(
            Array(
                "[0, -0, 1.5, 9.804943310657597, 1e-7, 123456789012345678901234, 2.5E+3, -0.0018140589569160999, 5e-324]"
                    .utf8))
        let expected: [Double] = [
            0, -0.0, 1.5, 9.804943310657597, 1e-7, 1.2345678901234568e+23, 2500, -0.0018140589569160999,
            .leastNonzeroMagnitude,
        ]
        #expect(doc.root.value == .array(expected.map(JSONValue.number)))
    }

    @Test(arguments: [
        (
            #"{"a": 1,,}"#,
            #"t.json:$: error[json-syntax]: expected '"' to start an object key, found ',' (line 1, column 9)"#
        ),
        ("[1,,]", "t.json:[1]: error[json-syntax]: expected a value, found ',' (line 1, column 4)"),
        ("[,]", "t.json:[0]: error[json-syntax]: expected a value, found ',' (line 1, column 2)"),
        ("{,}", #"t.json:$: error[json-syntax]: expected '"' to start an object key, found ',' (line 1, column 2)"#),
        ("/* open\n{}", "t.json:$: error[json-syntax]: expected a JSON value, found end of file (line 2, column 3)"),
        (
            "[1 2]",
            "t.json:$: error[json-syntax]: expected ',' or ']' after array element, found '2' (line 1, column 4)"
        ),
        (
            #"{"a" 1}"#,
            #"t.json:$: error[json-syntax]: expected ':' after object key "a", found '1' (line 1, column 6)"#
        ),
        (
            #"{"a": 1 "b": 2}"#,
            #"t.json:$: error[json-syntax]: expected ',' or '}' after object member, found '"' (line 1, column 9)"#
        ),
        (
            #"{"Version": 01}"#,
            "t.json:Version: error[json-syntax]: invalid number: leading zeros are not allowed (line 1, column 13)"
        ),
        (
            #"{"Version": 1.}"#,
            "t.json:Version: error[json-syntax]: invalid number: expected a digit after '.', found '}' (line 1, column 15)"
        ),
        (
            #"{"Version": 1e}"#,
            "t.json:Version: error[json-syntax]: invalid number: expected a digit in the exponent, found '}' (line 1, column 15)"
        ),
        (
            #"{"Version": 1e999}"#,
            "t.json:Version: error[number-out-of-range]: number out of range: 1e999 does not fit a 64-bit floating-point number (line 1, column 13)"
        ),
        (
            #"{"Time": -1e400}"#,
            "t.json:Time: error[number-out-of-range]: number out of range: -1e400 does not fit a 64-bit floating-point number (line 1, column 10)"
        ),
        (
            #"{"Time": NaN}"#,
            "t.json:Time: error[json-syntax]: expected a value, found 'N' (NaN and Infinity are not JSON numbers) (line 1, column 10)"
        ),
        (
            #"{"Time": -Infinity}"#,
            "t.json:Time: error[json-syntax]: invalid number: expected a digit after '-', found 'I' (NaN and Infinity are not JSON numbers) (line 1, column 11)"
        ),
        (#"{"Time": tru}"#, "t.json:Time: error[json-syntax]: invalid literal; expected 'true' (line 1, column 10)"),
        (#"{"a": "\x"}"#, #"t.json:a: error[json-syntax]: invalid escape '\x' in string (line 1, column 8)"#),
        (
            #"{"a": "\u12G4"}"#,
            #"t.json:a: error[json-syntax]: invalid \u escape: expected 4 hex digits (line 1, column 8)"#
        ),
        (
            #"{"a": "\uD800"}"#,
            #"t.json:a: error[json-syntax]: lone surrogate \uD800 in string (a high surrogate must be followed by a low one) (line 1, column 8)"#
        ),
        (
            #"{"a": "\uD800\u0041"}"#,
            #"t.json:a: error[json-syntax]: lone surrogate \uD800 in string (followed by \u0041, not a low surrogate) (line 1, column 8)"#
        ),
        (
            #"{"a": "x\uDC00"}"#,
            #"t.json:a: error[json-syntax]: lone surrogate \uDC00 in string (a low surrogate without a high one) (line 1, column 9)"#
        ),
        (
            "{\"a\": \"x\ty\"}",
            "t.json:a: error[json-syntax]: unescaped control character U+0009 in string (line 1, column 9)"
        ),
        (#"{"a"#, "t.json:$: error[json-syntax]: unterminated string (opened at line 1, column 2) (line 1, column 4)"),
        (
            #"{"Version": 1, "Pattern": ["#,
            "t.json:Pattern[0]: error[json-syntax]: expected a value, found end of file (line 1, column 28)"
        ),
        ("", "t.json:$: error[json-syntax]: file is empty; expected a JSON object (line 1, column 1)"),
        ("  \n ", "t.json:$: error[json-syntax]: expected a JSON value, found end of file (line 2, column 2)"),
        (
            "{} x",
            "t.json:$: error[json-syntax]: expected end of file after the top-level value, found 'x' (line 1, column 4)"
        ),
        ("/ {}", "t.json:$: error[json-syntax]: expected a value, found '/' (line 1, column 1)"),
    ])
    func refusesWhatRFC8259Refuses(text: String, expected: String) {
        #expect(failure(text) == expected)
    }

    @Test func validatesUTF8InsideStrings() {
        var bytes = Array(#"{"Metadata": {"x": "a"#.utf8)
        bytes += [0xFF]
        bytes += Array(#"b"}}"#.utf8)
        #expect(
            failure(bytes)
                == "t.json:Metadata.x: error[invalid-utf8]: invalid UTF-8: byte 0xFF cannot start a character (line 1, column 22)"
        )
        // An overlong encoding of "/" and an encoded surrogate are refused too.
        #expect(
            failure([0x22, 0xC0, 0xAF, 0x22])
                == "t.json:$: error[invalid-utf8]: invalid UTF-8: byte 0xC0 cannot start a character (line 1, column 2)"
        )
        #expect(
            failure([0x22, 0xED, 0xA0, 0x80, 0x22])
                == "t.json:$: error[invalid-utf8]: invalid UTF-8: byte 0xA0 after 0xED is not a valid continuation (line 1, column 2)"
        )
        #expect(
            failure([0x22, 0xE2, 0x82])
                == "t.json:$: error[invalid-utf8]: invalid UTF-8: file ends inside a character (line 1, column 2)")
        #expect(
            failure([0x00, 0xFF, 0x13])
                == "t.json:$: error[json-syntax]: expected a value, found byte 0x00 (line 1, column 1)")
    }

    @Test func nestingIsLimitedWithoutRecursingFurther() {
        let deep = [UInt8](repeating: UInt8(ascii: "["), count: 200_000)
        let message = failure(deep)
        #expect(
            message?.hasSuffix(
                "error[limit-exceeded]: nesting deeper than 64 levels (AHAPLimits.maxNestingDepth) (line 1, column 65)")
                == true)
        #expect(message?.hasPrefix("t.json:[0][0][0]") == true)
        // 64 levels are fine.
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(failure(ok) == nil)
        #expect(failure("[" + ok + "]")?.contains("nesting deeper than 64 levels") == true)
    }

    @Test func longStringsHitTheLimit() {
        let text = "[\"" + String(repeating: "é", count: 40) + "\"]"
        do {
            _ = try JSONParser.parse(Array(text.utf8), maxStringBytes: 64)
            Issue.record("expected a limit error")
        } catch {
            #expect(error.diagnostic.code == .limitExceeded)
            #expect(error.diagnostic.message == "string longer than 64 bytes (AHAPLimits.maxStringBytes)")
            #expect(error.diagnostic.location == SourceLocation(line: 1, column: 2))
        }
    }

    @Test func trailingCommasAreReadWithAWarningAtTheComma() throws {
        let text = "{\"Pattern\": [\n  {\"a\": 1,},\n  [2, 3,],\n],\n}"
        let doc = try JSONParser.parse(Array(text.utf8))
        #expect(
            doc.root.value
                == .object(["Pattern": .array([.object(["a": .number(1)]), .array([.number(2), .number(3)])])]))
        #expect(
            doc.warnings.map { $0.formatted(file: "t.ahap") } == [
                "t.ahap:Pattern[0]: warning[trailing-comma]: trailing comma after the last member of an object; Core Haptics reads it, strict JSON readers refuse the file (line 2, column 10)",
                "t.ahap:Pattern[1]: warning[trailing-comma]: trailing comma after the last element of an array; Core Haptics reads it, strict JSON readers refuse the file (line 3, column 8)",
                "t.ahap:Pattern: warning[trailing-comma]: trailing comma after the last element of an array; Core Haptics reads it, strict JSON readers refuse the file (line 3, column 10)",
                "t.ahap:$: warning[trailing-comma]: trailing comma after the last member of an object; Core Haptics reads it, strict JSON readers refuse the file (line 4, column 2)",
            ])
    }

    @Test func commentsAreSkippedWithAWarningAndLinesStayRight() throws {
        let text = "// head\n{\"a\": /* x\n y */ 1, \"b\": 2}"
        let doc = try JSONParser.parse(Array(text.utf8))
        #expect(doc.root.value == .object(["a": .number(1), "b": .number(2)]))
        #expect(doc.warnings.map(\.code) == [.comment, .comment])
        #expect(
            doc.warnings.map(\.location) == [SourceLocation(line: 1, column: 1), SourceLocation(line: 2, column: 7)])
        #expect(doc.root.member("b")?.value.location == SourceLocation(line: 3, column: 15))
    }

    @Test func byteOrderMarkIsSkippedWithAWarning() throws {
        let doc = try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("{\"a\": 1}".utf8))
        #expect(
            doc.warnings.map { $0.formatted(file: nil) } == [
                "$: warning[bom]: file starts with a UTF-8 byte order mark; RFC 8259 says not to add one (line 1, column 1)"
            ])
        #expect(doc.root.member("a")?.value.location == SourceLocation(line: 1, column: 7))
    }

    @Test func duplicateKeysKeepTheLastValueAtTheFirstPosition() throws {
        let doc = try JSONParser.parse(Array(#"{"a": 1, "b": 2, "a": 3}"#.utf8))
        guard case .object(let dict) = doc.root.value else { return }
        #expect(Array(dict.keys) == ["a", "b"])
        #expect(Array(dict.values) == [.number(3), .number(2)])
        #expect(
            doc.warnings.map { $0.formatted(file: nil) } == [
                #"a: warning[duplicate-key]: duplicate key "a" (first at line 1, column 2); the last value wins (line 1, column 18)"#
            ])
        // Past the linear-scan size the hashed lookup finds duplicates too.
        let many = (0..<40).map { "\"k\($0)\": \($0)" }.joined(separator: ", ")
        let big = try JSONParser.parse(Array("{\(many), \"k3\": -1, \"k39\": -2}".utf8))
        #expect(big.warnings.map(\.path.description) == ["k3", "k39"])
        guard case .object(let members) = big.root.kind else { return }
        #expect(members.count == 40)
        #expect(members[3].value.kind == .number(-1))
        #expect(members[39].value.kind == .number(-2))
    }
}
