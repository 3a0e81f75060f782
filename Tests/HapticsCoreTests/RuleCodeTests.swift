import Foundation
import HapticsCore
import Testing

@Suite struct RuleCodeTests {
    static let docs = URL(filePath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appending(path: "docs/ahap-support.md")

    @Test func docsListEveryRuleWithItsDefaultSeverityInOrder() throws {
        let text = try String(contentsOf: Self.docs, encoding: .utf8)
        let section = try #require(text.components(separatedBy: "## Rule codes").last)
        let rows = section.split(separator: "\n").filter { $0.hasPrefix("| `") }.map { row in
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            return "\(cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))) \(cells[1])"
        }
        #expect(rows == Diagnostic.Code.all.map { "\($0.rawValue) \($0.defaultSeverity.rawValue)" })
    }

    @Test func everyRuleHasAUniqueKebabCaseNameAndIsFoundByName() {
        let names = Diagnostic.Code.all.map(\.rawValue)
        #expect(Set(names).count == names.count)
        for code in Diagnostic.Code.all {
            #expect(code.rawValue.allSatisfy { $0.isLowercase || $0.isNumber || $0 == "-" })
            #expect(Diagnostic.Code(rawValue: code.rawValue) == code)
        }
        #expect(Diagnostic.Code(rawValue: "no-such-rule") == nil)
    }

    @Test func foldingKeepsThreeOfEachRuleThenCounts() {
        let clamp = Diagnostic(.valueClamped, "c", at: .root)
        let key = Diagnostic(.unknownKey, "k", at: .root)
        let lines = LintFolding.fold([clamp, key, clamp, clamp, clamp, key, clamp])
        #expect(
            lines == [
                .finding(clamp), .finding(key), .finding(clamp), .finding(clamp), .more(.valueClamped, count: 2),
                .finding(key),
            ])
    }

    @Test func rulesFromAConfigFileAndTheirErrors() throws {
        var rules = try LintRules.parse(
            Array(#"{"disable": ["value-clamped"], "enable": ["curve-start-not-zero"]}"#.utf8), file: "c.json")
        #expect(rules.apply(Diagnostic(.valueClamped, "x", at: .root)) == nil)
        #expect(rules.apply(Diagnostic(.curveStartNotZero, "x", at: .root))?.severity == .warning)
        try rules.set(.error, for: "value-clamped")
        #expect(rules.apply(Diagnostic(.valueClamped, "x", at: .root))?.severity == .error)
        #expect(throws: LintRulesError.self) { try LintRules.parse(Array(#"{"disable": [1]}"#.utf8), file: "c.json") }
        #expect(throws: LintRulesError.self) { try LintRules.parse(Array(#"{"ignore": []}"#.utf8), file: "c.json") }
        #expect(throws: LintRulesError.self) { try rules.set(.disable, for: "wrong-type") }
    }
}
