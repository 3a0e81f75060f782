import OrderedCollections

/// One linted file and its findings (already at their configured severities), for `LintOutput`.
public struct LintedFile: Hashable, Sendable {
    /// The file as the user named it; every format names it this way.
    public var path: String
    public var diagnostics: [Diagnostic]

    public init(path: String, diagnostics: [Diagnostic]) {
        self.path = path
        self.diagnostics = diagnostics
    }
}

/// The linter's findings in the forms other tools read: compiler lines (SwiftPM, Xcode), GitHub
/// Actions annotations, SARIF 2.1.0 (code scanning) and JUnit XML (CI dashboards). Pure text, no
/// I/O: `haptic lint --format` and the `haptic-lint` tool behind the SwiftPM plugins share it.
///
/// Each format returns whole lines, each ending in a new line (nothing when there is nothing to
/// say), so a caller writes the text as it is. Notes (normal exporter output) are left out unless
/// `notes` is true, as in `haptic lint`'s text.
///
/// ```swift
/// let files = [LintedFile(path: "Tap.ahap", diagnostics: findings)]
/// print(LintOutput.github(files), terminator: "")
/// // ::warning file=Tap.ahap,line=4,col=9,title=unknown-key::Pattern[0].Event.Foo: unknown key "Foo" ...
/// ```
public enum LintOutput {
    /// `FILE:LINE:COL: severity: PATH: message [rule]`, one line a finding: the form compilers
    /// print, which SwiftPM, Xcode and editors show at the file and line. A finding with no
    /// position is `FILE: severity: ...`.
    public static func compiler(_ files: [LintedFile], notes: Bool = false) -> String {
        var out = ""
        for file in files {
            for d in shown(file, notes: notes) {
                out += file.path
                if let at = d.location { out += ":\(at.line):\(at.column)" }
                out += ": \(d.severity.rawValue): \(d.path): \(d.message) [\(d.code)]\n"
            }
        }
        return out
    }

    // MARK: GitHub Actions

    /// GitHub Actions workflow commands, one a finding:
    /// `::error file=F,line=L,col=C,title=RULE::PATH: message` (`::warning`, `::notice` for
    /// notes). Printed by a workflow step, each becomes an annotation at the file and line.
    /// Data is escaped as the runner reads it (`%`, CR, LF), properties also `:` and `,`.
    public static func github(_ files: [LintedFile], notes: Bool = false) -> String {
        var out = ""
        for file in files {
            for d in shown(file, notes: notes) {
                let command =
                    switch d.severity {
                    case .error: "error"
                    case .warning: "warning"
                    case .note: "notice"
                    }
                var properties = ["file=" + githubProperty(file.path)]
                if let at = d.location { properties += ["line=\(at.line)", "col=\(at.column)"] }
                properties.append("title=" + githubProperty(d.code.rawValue))
                out += "::\(command) \(properties.joined(separator: ","))::\(githubData("\(d.path): \(d.message)"))\n"
            }
        }
        return out
    }

    /// A workflow command's message: `%`, CR and LF as `%25`, `%0D`, `%0A`.
    public static func githubData(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "%": out += "%25"
            case "\r": out += "%0D"
            case "\n": out += "%0A"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    /// A workflow command's property value: as data, and `:` and `,` as `%3A` and `%2C`.
    public static func githubProperty(_ text: String) -> String {
        var out = ""
        for c in githubData(text).unicodeScalars {
            switch c {
            case ":": out += "%3A"
            case ",": out += "%2C"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    // MARK: SARIF

    /// The SARIF 2.1.0 schema's address, written as the log's `$schema`.
    public static let sarifSchema =
        "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"

    /// A SARIF 2.1.0 log with one run: the driver `toolName` with every rule of
    /// `Diagnostic.Code.all` (its summary and default level), then a result per finding with its
    /// rule, level, message (`PATH: message`) and, when known, the line and column (counted in
    /// Unicode code points, as the run's `columnKind` says). File paths become relative URI
    /// references (absolute ones `file://` URIs), percent-encoded.
    public static func sarif(_ files: [LintedFile], notes: Bool = false, toolName: String = "haptic lint") -> String {
        let index = Dictionary(uniqueKeysWithValues: Diagnostic.Code.all.enumerated().map { ($1, $0) })
        let rules: [JSONValue] = Diagnostic.Code.all.map { code in
            object([
                ("id", .string(code.rawValue)),
                ("shortDescription", object([("text", .string(code.summary))])),
                ("defaultConfiguration", object([("level", .string(sarifLevel(code.defaultSeverity)))])),
            ])
        }
        var results: [JSONValue] = []
        for file in files {
            for d in shown(file, notes: notes) {
                var physical: [(String, JSONValue)] = [("artifactLocation", object([("uri", .string(uri(file.path)))]))]
                if let at = d.location {
                    physical.append(
                        (
                            "region",
                            object([
                                ("startLine", .number(Double(at.line))), ("startColumn", .number(Double(at.column))),
                            ])
                        ))
                }
                var result: [(String, JSONValue)] = [("ruleId", .string(d.code.rawValue))]
                if let i = index[d.code] { result.append(("ruleIndex", .number(Double(i)))) }
                result += [
                    ("level", .string(sarifLevel(d.severity))),
                    ("message", object([("text", .string("\(d.path): \(d.message)"))])),
                    ("locations", .array([object([("physicalLocation", object(physical))])])),
                ]
                results.append(object(result))
            }
        }
        let log = object([
            ("$schema", .string(sarifSchema)),
            ("version", .string("2.1.0")),
            (
                "runs",
                .array([
                    object([
                        (
                            "tool",
                            object([("driver", object([("name", .string(toolName)), ("rules", .array(rules))]))])
                        ),
                        ("columnKind", .string("unicodeCodePoints")),
                        ("results", .array(results)),
                    ])
                ])
            ),
        ])
        var writer = AHAPWriter()
        writer.json(log)
        writer.out.append(0x0A)
        return String(decoding: writer.out, as: UTF8.self)
    }

    static func sarifLevel(_ severity: Severity) -> String {
        switch severity {
        case .error: "error"
        case .warning: "warning"
        case .note: "note"
        }
    }

    /// A file path as a URI reference: relative paths stay relative, absolute ones get `file://`;
    /// everything but unreserved characters and `/` is percent-encoded (UTF-8).
    static func uri(_ path: String) -> String {
        var out = path.hasPrefix("/") ? "file://" : ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"), UInt8(ascii: "/"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out += "%" + hex(byte, width: 2)
            }
        }
        return out
    }

    // MARK: JUnit

    /// JUnit XML: a `testsuites` element with one `testsuite` per file, each with one `testcase`
    /// (the file) that holds a `failure` per error and warning (`type` the severity, `message`
    /// `LINE:COL: [rule] PATH: message`). A clean file is a passing test case; notes are left out.
    public static func junit(_ files: [LintedFile], suiteName: String = "haptic lint") -> String {
        var suites = ""
        var failing = 0
        for file in files {
            let failures = file.diagnostics.filter { $0.severity != .note }
            if !failures.isEmpty { failing += 1 }
            let name = xml(file.path)
            suites +=
                "  <testsuite name=\"\(name)\" tests=\"1\" failures=\"\(failures.isEmpty ? 0 : 1)\" errors=\"0\">\n"
            if failures.isEmpty {
                suites += "    <testcase classname=\"\(xml(suiteName))\" name=\"\(name)\"/>\n"
            } else {
                suites += "    <testcase classname=\"\(xml(suiteName))\" name=\"\(name)\">\n"
                for d in failures {
                    let place = d.location.map { "\($0.line):\($0.column): " } ?? ""
                    let message = "\(place)[\(d.code)] \(d.path): \(d.message)"
                    suites +=
                        "      <failure type=\"\(d.severity.rawValue)\" message=\"\(xml(message))\">"
                        + "\(xml(d.formatted(file: file.path)))</failure>\n"
                }
                suites += "    </testcase>\n"
            }
            suites += "  </testsuite>\n"
        }
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <testsuites name="\(xml(suiteName))" tests="\(files.count)" failures="\(failing)" errors="0">

            """ + suites + "</testsuites>\n"
    }

    /// Text for an XML attribute or element: the five special characters as entities, line
    /// breaks and tabs as character references (so attributes keep them), and what XML 1.0 cannot
    /// hold at all (other control characters, U+FFFE, U+FFFF) as U+FFFD.
    static func xml(_ text: String) -> String {
        var out = ""
        for c in text.unicodeScalars {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\n": out += "&#10;"
            case "\r": out += "&#13;"
            case "\t": out += "&#9;"
            case "\u{0}"..."\u{1F}", "\u{FFFE}", "\u{FFFF}": out += "\u{FFFD}"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }

    // MARK: Helpers

    static func shown(_ file: LintedFile, notes: Bool) -> [Diagnostic] {
        notes ? file.diagnostics : file.diagnostics.filter { $0.severity != .note }
    }

    static func object(_ members: [(String, JSONValue)]) -> JSONValue {
        .object(OrderedDictionary(members, uniquingKeysWith: { a, _ in a }))
    }
}
