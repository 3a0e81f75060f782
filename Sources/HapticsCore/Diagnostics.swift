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
public enum Severity: String, Hashable, Sendable, Comparable {
    /// Core Haptics would tolerate it (ignore, clamp, default), but the author should know.
    case warning
    /// Core Haptics would refuse the file, or it cannot be rendered.
    case error

    public static func < (a: Severity, b: Severity) -> Bool { a == .warning && b == .error }
}

/// One finding about an AHAP file: what is wrong, where, and what was done about it.
public struct Diagnostic: Hashable, Sendable, CustomStringConvertible {
    public var severity: Severity
    /// A stable machine-readable rule name, e.g. `unknown-key`, `value-clamped`.
    public var code: String
    /// What is wrong and, where it helps, how to fix it.
    public var message: String
    /// Where in the JSON document.
    public var path: JSONPath
    /// Where in the file, when known.
    public var location: SourceLocation?

    public init(
        _ severity: Severity, code: String, _ message: String, at path: JSONPath,
        location: SourceLocation? = nil
    ) {
        self.severity = severity
        self.code = code
        self.message = message
        self.path = path
        self.location = location
    }

    /// `PATH: severity: message`; the linter prefixes the file name.
    public var description: String { "\(path): \(severity.rawValue): \(message)" }
}
