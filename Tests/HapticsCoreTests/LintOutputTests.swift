import Foundation
import HapticsCore
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `LintOutput`: the linter's findings as compiler lines, GitHub Actions annotations, SARIF 2.1.0
/// and JUnit XML, checked as exact text.
@Suite struct LintOutputTests {
    /// Two files: one with an error, a warning and a note, one clean; a file name and a message
    /// with every character the formats escape.
    static let files = [
        LintedFile(
            path: "ahap/50%: a,b.ahap",
            diagnostics: [
                Diagnostic(
                    .wrongType, "expected a number, found string \"x<y & z>\"\nnext line 100%",
                    at: JSONPath.root.key("Pattern").index(0).key("Event").key("Time"),
                    location: SourceLocation(line: 4, column: 21)),
                Diagnostic(
                    .unknownKey, "unknown key \"Foo\" in an Event; Core Haptics ignores it",
                    at: JSONPath.root.key("Pattern").index(1).key("Event").key("Foo"),
                    location: SourceLocation(line: 9, column: 13)),
                Diagnostic(.missingVersion, "no Version; read as version 1", at: .root),
            ]),
        LintedFile(path: "ahap/clean.ahap", diagnostics: []),
    ]

    @Test func compilerLinesNameTheFileLineAndColumn() {
        #expect(
            LintOutput.compiler(Self.files) == """
                ahap/50%: a,b.ahap:4:21: error: Pattern[0].Event.Time: expected a number, found string "x<y & z>"
                next line 100% [wrong-type]
                ahap/50%: a,b.ahap:9:13: warning: Pattern[1].Event.Foo: unknown key "Foo" in an Event; Core Haptics ignores it [unknown-key]

                """)
        #expect(
            LintOutput.compiler(Self.files, notes: true).hasSuffix(
                "ahap/50%: a,b.ahap: note: $: no Version; read as version 1 [missing-version]\n"))
        #expect(LintOutput.compiler([Self.files[1]]) == "")
    }

    /// GitHub's documented syntax, `::error file=F,line=L,col=C,title=T::message`, with the
    /// runner's escaping: `%`, CR and LF in the message; also `:` and `,` in properties.
    @Test func githubAnnotationsAreEscapedWorkflowCommands() {
        #expect(
            LintOutput.github(Self.files) == """
                ::error file=ahap/50%25%3A a%2Cb.ahap,line=4,col=21,title=wrong-type::Pattern[0].Event.Time: expected a number, found string "x<y & z>"%0Anext line 100%25
                ::warning file=ahap/50%25%3A a%2Cb.ahap,line=9,col=13,title=unknown-key::Pattern[1].Event.Foo: unknown key "Foo" in an Event; Core Haptics ignores it

                """)
        #expect(
            LintOutput.github(Self.files, notes: true).hasSuffix(
                "::notice file=ahap/50%25%3A a%2Cb.ahap,title=missing-version::$: no Version; read as version 1\n"))
        #expect(LintOutput.githubData("a%b\r\nc: d, e") == "a%25b%0D%0Ac: d, e")
        #expect(LintOutput.githubProperty("a%b\r\nc: d, e") == "a%25b%0D%0Ac%3A d%2C e")
    }

    /// The results exactly; the log's frame and rules through a JSON reader, with what the
    /// SARIF 2.1.0 schema requires of each object (`version`, `runs`, `tool.driver.name`,
    /// `message.text`, a rule's `id`).
    @Test func sarifHasEveryRuleAndAResultPerFinding() throws {
        let text = LintOutput.sarif(Self.files)
        let results = try #require(text.range(of: "            \"results\": ["))
        #expect(
            text[results.lowerBound...] == """
                            "results": [
                                {
                                    "ruleId": "wrong-type",
                                    "ruleIndex": 10,
                                    "level": "error",
                                    "message": {
                                        "text": "Pattern[0].Event.Time: expected a number, found string \\"x<y & z>\\"\\nnext line 100%"
                                    },
                                    "locations": [
                                        {
                                            "physicalLocation": {
                                                "artifactLocation": {
                                                    "uri": "ahap/50%25%3A%20a%2Cb.ahap"
                                                },
                                                "region": {
                                                    "startLine": 4,
                                                    "startColumn": 21
                                                }
                                            }
                                        }
                                    ]
                                },
                                {
                                    "ruleId": "unknown-key",
                                    "ruleIndex": 12,
                                    "level": "warning",
                                    "message": {
                                        "text": "Pattern[1].Event.Foo: unknown key \\"Foo\\" in an Event; Core Haptics ignores it"
                                    },
                                    "locations": [
                                        {
                                            "physicalLocation": {
                                                "artifactLocation": {
                                                    "uri": "ahap/50%25%3A%20a%2Cb.ahap"
                                                },
                                                "region": {
                                                    "startLine": 9,
                                                    "startColumn": 13
                                                }
                                            }
                                        }
                                    ]
                                }
                            ]
                        }
                    ]
                }

                """)
        let log = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(log["version"] as? String == "2.1.0")
        #expect(log["$schema"] as? String == LintOutput.sarifSchema)
        let runs = try #require(log["runs"] as? [[String: Any]])
        #expect(runs.count == 1)
        #expect(runs[0]["columnKind"] as? String == "unicodeCodePoints")
        let driver = try #require((runs[0]["tool"] as? [String: Any])?["driver"] as? [String: Any])
        #expect(driver["name"] as? String == "haptic lint")
        let rules = try #require(driver["rules"] as? [[String: Any]])
        #expect(rules.map { $0["id"] as? String } == Diagnostic.Code.all.map(\.rawValue))
        #expect(
            rules.map { ($0["shortDescription"] as? [String: Any])?["text"] as? String }
                == Diagnostic.Code.all.map(\.summary))
        #expect(
            rules.map { ($0["defaultConfiguration"] as? [String: Any])?["level"] as? String }
                == Diagnostic.Code.all.map(\.defaultSeverity.rawValue))
        let ruleIndex = try #require((runs[0]["results"] as? [[String: Any]])?.first?["ruleIndex"] as? Int)
        #expect(rules[ruleIndex]["id"] as? String == "wrong-type")
        // A clean run still has a results list (code scanning reads an empty one as "no alerts").
        #expect(LintOutput.sarif([Self.files[1]]).contains("\"results\": []"))
        // Absolute paths are file URIs.
        #expect(
            LintOutput.sarif([LintedFile(path: "/tmp/ü.ahap", diagnostics: [Self.files[0].diagnostics[1]])])
                .contains("\"uri\": \"file:///tmp/%C3%BC.ahap\""))
    }

    @Test func junitHasASuitePerFileAndAFailurePerErrorAndWarning() throws {
        let text = LintOutput.junit(Self.files)
        #expect(
            text == """
                <?xml version="1.0" encoding="UTF-8"?>
                <testsuites name="haptic lint" tests="2" failures="1" errors="0">
                  <testsuite name="ahap/50%: a,b.ahap" tests="1" failures="1" errors="0">
                    <testcase classname="haptic lint" name="ahap/50%: a,b.ahap">
                      <failure type="error" message="4:21: [wrong-type] Pattern[0].Event.Time: expected a number, found string &quot;x&lt;y &amp; z&gt;&quot;&#10;next line 100%">ahap/50%: a,b.ahap:Pattern[0].Event.Time: error[wrong-type]: expected a number, found string &quot;x&lt;y &amp; z&gt;&quot;&#10;next line 100% (line 4, column 21)</failure>
                      <failure type="warning" message="9:13: [unknown-key] Pattern[1].Event.Foo: unknown key &quot;Foo&quot; in an Event; Core Haptics ignores it">ahap/50%: a,b.ahap:Pattern[1].Event.Foo: warning[unknown-key]: unknown key &quot;Foo&quot; in an Event; Core Haptics ignores it (line 9, column 13)</failure>
                    </testcase>
                  </testsuite>
                  <testsuite name="ahap/clean.ahap" tests="1" failures="0" errors="0">
                    <testcase classname="haptic lint" name="ahap/clean.ahap"/>
                  </testsuite>
                </testsuites>

                """)

        // What a CI dashboard's XML reader sees: two suites, the first with two failures whose
        // messages come back unescaped.
        final class Reader: NSObject, XMLParserDelegate {
            var suites: [String] = []
            var failures: [(type: String, message: String)] = []
            func parser(
                _ parser: XMLParser, didStartElement element: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]
            ) {
                if element == "testsuite" { suites.append(attributes["name"] ?? "") }
                if element == "failure" { failures.append((attributes["type"] ?? "", attributes["message"] ?? "")) }
            }
        }
        let reader = Reader()
        let parser = XMLParser(data: Data(text.utf8))
        parser.delegate = reader
        #expect(parser.parse(), "\(String(describing: parser.parserError))")
        #expect(reader.suites == ["ahap/50%: a,b.ahap", "ahap/clean.ahap"])
        #expect(reader.failures.map(\.type) == ["error", "warning"])
        #expect(
            reader.failures.first?.message
                == "4:21: [wrong-type] Pattern[0].Event.Time: expected a number, found string \"x<y & z>\"\nnext line 100%"
        )
    }

    /// Control characters XML 1.0 cannot hold become U+FFFD, so the document still parses.
    @Test func junitStaysWellFormedWithControlCharacters() {
        let text = LintOutput.junit([
            LintedFile(path: "bad\u{1}name.ahap", diagnostics: [Diagnostic(.fileNotFound, "no such file", at: .root)])
        ])
        #expect(text.contains("name=\"bad\u{FFFD}name.ahap\""))
        #expect(XMLParser(data: Data(text.utf8)).parse())
    }
}
