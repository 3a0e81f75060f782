/// Which rules a lint run reports and at what severity: the rules' defaults, changed by a
/// `.haptic-lint.json` file and by `--disable`, `--enable` and `--error` flags.
///
/// Only rules below `error` can be changed: an error means the file cannot be read or played,
/// and no setting makes it readable. `enable` turns a note-level rule into a warning (so
/// `--strict` counts it) or brings back a rule a config file disabled.
///
/// ```swift
/// var rules = try LintRules.parse(Array(#"{"disable": ["curve-start-not-zero"]}"#.utf8), file: ".haptic-lint.json")
/// try rules.set(.error, for: "value-clamped")
/// let shown = findings.compactMap(rules.apply)
/// ```
public struct LintRules: Hashable, Sendable {
    /// A rule's severity when it differs from its default; nil means disabled.
    public private(set) var overrides: [Diagnostic.Code: Severity?] = [:]

    public init() {}

    /// What a setting does to a rule.
    public enum Setting: String, Sendable, CaseIterable {
        case disable, enable, error
    }

    /// The finding as this configuration reports it, or nil when its rule is disabled.
    public func apply(_ diagnostic: Diagnostic) -> Diagnostic? {
        guard let override = overrides[diagnostic.code] else { return diagnostic }
        guard let severity = override else { return nil }
        var changed = diagnostic
        changed.severity = severity
        return changed
    }

    /// Applies `setting` to the rule named `name`.
    /// - Throws: `LintRulesError` for an unknown rule (with a suggestion) or an error-level rule.
    public mutating func set(_ setting: Setting, for name: String) throws(LintRulesError) {
        guard let code = Diagnostic.Code(rawValue: name) else {
            var message = "unknown rule '\(name)'"
            if let s = Suggestion.closest(to: name, in: Diagnostic.Code.all.map(\.rawValue)) {
                message += " (did you mean '\(s)'?)"
            }
            throw LintRulesError(message: message + "; `haptic lint --rules` lists them")
        }
        guard code.defaultSeverity != .error else {
            throw LintRulesError(
                message: "rule '\(name)' is an error (the file cannot be read or played); it cannot be changed")
        }
        switch setting {
        case .disable: overrides[code] = .some(nil)
        case .enable: overrides[code] = code.defaultSeverity == .note ? .some(.warning) : nil
        case .error: overrides[code] = .some(.error)
        }
    }

    /// Reads a `.haptic-lint.json` file: `{"disable": [RULE...], "enable": [...], "error": [...]}`.
    /// - Throws: `LintRulesError` naming the file and the place.
    public static func parse(_ bytes: [UInt8], file: String) throws(LintRulesError) -> LintRules {
        let document: JSONDocument
        do {
            document = try JSONParser.parse(bytes, maxDepth: 8, maxStringBytes: 1 << 10)
        } catch {
            throw LintRulesError(message: error.diagnostic.formatted(file: file))
        }
        guard case .object(let members) = document.root.kind else {
            throw LintRulesError(message: "\(file): expected an object with disable, enable or error lists")
        }
        var rules = LintRules()
        for member in members {
            guard let setting = Setting(rawValue: member.key) else {
                throw LintRulesError(
                    message:
                        "\(file):\(member.key): unknown setting \"\(member.key)\"; expected disable, enable or error (line \(member.keyLocation.line), column \(member.keyLocation.column))"
                )
            }
            guard case .array(let names) = member.value.kind else {
                throw LintRulesError(message: "\(file):\(member.key): expected a list of rule names")
            }
            for (i, name) in names.enumerated() {
                guard case .string(let rule) = name.kind else {
                    throw LintRulesError(message: "\(file):\(member.key)[\(i)]: expected a rule name (a string)")
                }
                do {
                    try rules.set(setting, for: rule)
                } catch {
                    throw LintRulesError(
                        message:
                            "\(file):\(member.key)[\(i)]: \(error.message) (line \(name.location.line), column \(name.location.column))"
                    )
                }
            }
        }
        return rules
    }
}

/// A lint setting that cannot be applied: an unknown rule, an error rule, a malformed config file.
public struct LintRulesError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}

/// Folds repeats of one rule in one file: the first `keep` findings of each rule in full, then
/// one line saying how many more there were.
///
/// ```swift
/// for line in LintFolding.fold(findings, keep: 3) { ... }   // .finding(d) or .more(code, count)
/// ```
public enum LintFolding {
    public enum Line: Hashable, Sendable {
        case finding(Diagnostic)
        /// `count` further findings of `code`, left out; placed after the last one shown.
        case more(Diagnostic.Code, count: Int)
    }

    /// One entry of a folded list: an item shown, or how many of a rule's items were left out.
    public enum Entry<Item> {
        case item(Item)
        /// `count` further items of `code`, left out; placed after the last one shown.
        case more(Diagnostic.Code, count: Int)
    }

    /// `items` in their order, each rule's repeats past `keep` folded into one `.more` entry that
    /// follows that rule's last shown item. `code` says which rule an item belongs to.
    ///
    /// - Complexity: O(n).
    public static func fold<Item>(_ items: [Item], keep: Int = 3, code: (Item) -> Diagnostic.Code) -> [Entry<Item>] {
        var total: [Diagnostic.Code: Int] = [:]
        for item in items { total[code(item), default: 0] += 1 }
        var seen: [Diagnostic.Code: Int] = [:]
        var entries: [Entry<Item>] = []
        entries.reserveCapacity(min(items.count, total.count * (keep + 1)))
        for item in items {
            let rule = code(item)
            let n = seen[rule, default: 0] + 1
            seen[rule] = n
            if n <= keep {
                entries.append(.item(item))
                if n == keep, let all = total[rule], all > keep { entries.append(.more(rule, count: all - keep)) }
            }
        }
        return entries
    }

    /// The findings of one file in their order, each rule's repeats past `keep` folded into one
    /// `.more` line that follows that rule's last shown finding.
    ///
    /// - Complexity: O(n).
    public static func fold(_ findings: [Diagnostic], keep: Int = 3) -> [Line] {
        fold(findings, keep: keep, code: \.code).map { entry in
            switch entry {
            case .item(let finding): .finding(finding)
            case .more(let code, let count): .more(code, count: count)
            }
        }
    }
}
