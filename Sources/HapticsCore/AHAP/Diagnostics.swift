/// A place in an AHAP document: a JSON path such as `Pattern[3].Event.EventDuration`.
///
/// ```swift
/// let path = JSONPath.root.key("Pattern").index(3).key("Event").key("EventDuration")
/// print(path)  // Pattern[3].Event.EventDuration
/// ```
public struct JSONPath: Hashable, Sendable, CustomStringConvertible {
    public enum Component: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    public var components: [Component]

    public init(_ components: [Component] = []) { self.components = components }

    /// The document itself (prints as `$`).
    public static let root = JSONPath()

    public func key(_ name: String) -> JSONPath { JSONPath(components + [.key(name)]) }
    public func index(_ i: Int) -> JSONPath { JSONPath(components + [.index(i)]) }

    public var description: String {
        if components.isEmpty { return "$" }
        var out = ""
        for component in components {
            switch component {
            case .key(let k):
                if !out.isEmpty { out += "." }
                out += k
            case .index(let i):
                out += "[\(i)]"
            }
        }
        return out
    }
}

/// A line and column in a source file, both counted from 1.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }
}

/// How serious a finding is.
public enum Severity: String, Hashable, Sendable, Comparable, CaseIterable {
    /// Normal exporter output that a strict reader would still mention (shown with `--notes`).
    case note
    /// Core Haptics would tolerate it (ignore, clamp, default), but the author should know.
    case warning
    /// Core Haptics would refuse the file, or it cannot be rendered.
    case error

    private var rank: Int {
        switch self {
        case .note: 0
        case .warning: 1
        case .error: 2
        }
    }

    public static func < (a: Severity, b: Severity) -> Bool { a.rank < b.rank }
}

/// One finding about an AHAP file: what is wrong, where, and what was done about it.
public struct Diagnostic: Hashable, Sendable, CustomStringConvertible {
    public var severity: Severity
    /// The rule that fired, e.g. `.unknownKey` (`unknown-key`), `.valueClamped`.
    public var code: Code
    /// What is wrong and, where it helps, how to fix it.
    public var message: String
    /// Where in the JSON document.
    public var path: JSONPath
    /// Where in the file, when known.
    public var location: SourceLocation?

    public init(
        _ severity: Severity, code: Code, _ message: String, at path: JSONPath,
        location: SourceLocation? = nil
    ) {
        self.severity = severity
        self.code = code
        self.message = message
        self.path = path
        self.location = location
    }

    /// A finding at its rule's default severity.
    public init(_ code: Code, _ message: String, at path: JSONPath, location: SourceLocation? = nil) {
        self.init(code.defaultSeverity, code: code, message, at: path, location: location)
    }

    /// `PATH: severity[code]: message`; the linter prefixes the file name.
    public var description: String { "\(path): \(severity.rawValue)[\(code)]: \(message)" }
}
