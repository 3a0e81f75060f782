import Foundation
public import HapticsCore

/// The nearest `.haptic-lint.json` above a linted file (its own folder first), as eslint and
/// swiftlint find theirs; each folder is looked at once. `haptic lint`, `haptic info` and
/// `haptic-lint` (the plugins' and the pre-commit hook's tool) all read it, so a project's rule
/// settings hold wherever its patterns are linted.
///
/// ```swift
/// var configs = LintConfigFinder()
/// let rules = try configs.rules(for: "Haptics/Tap.ahap")
/// let shown = PatternFile.inspect("Haptics/Tap.ahap").findings.compactMap(rules.apply)
/// ```
public struct LintConfigFinder {
    public static let fileName = ".haptic-lint.json"
    private var cache: [String: LintRules] = [:]

    public init() {}

    /// The rules for `file`: its folder's `.haptic-lint.json`, else the nearest one above, else
    /// the defaults.
    ///
    /// - Throws: `LintRulesError` naming the configuration file and the place in it.
    public mutating func rules(for file: String) throws(LintRulesError) -> LintRules {
        var folder = URL(filePath: file).deletingLastPathComponent().standardizedFileURL
        var visited: [String] = []
        while true {
            let key = folder.path(percentEncoded: false)
            if let known = cache[key] {
                for v in visited { cache[v] = known }
                return known
            }
            visited.append(key)
            let candidate = folder.appending(path: Self.fileName).path(percentEncoded: false)
            if FileManager.default.fileExists(atPath: candidate) {
                let bytes = (try? Data(contentsOf: URL(filePath: candidate))).map { [UInt8]($0) } ?? []
                let rules = try LintRules.parse(bytes, file: candidate)
                for v in visited { cache[v] = rules }
                return rules
            }
            let parent = folder.deletingLastPathComponent()
            if parent.path(percentEncoded: false) == key || key == "/" { break }
            folder = parent
        }
        for v in visited { cache[v] = LintRules() }
        return LintRules()
    }
}
