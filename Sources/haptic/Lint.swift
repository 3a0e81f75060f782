import ArgumentParser
import Foundation
import HapticsCore
import HapticsEngine

extension HapticCommand {
    struct Lint: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Check AHAP files and explain every problem.",
            discussion: """
                Prints one line per finding, FILE:PATH: error|warning: message. A folder is searched \
                for .ahap files. Exit status: 0 without errors, 1 with errors (or, under --strict, \
                with warnings).
                """)

        @Argument(help: "AHAP files or folders.")
        var files: [String]

        @Flag(help: "Print the findings as JSON.")
        var json = false

        @Flag(help: "Treat warnings as errors.")
        var strict = false

        func run() throws {
            let report = LintReport.run(on: files)
            if json {
                print(report.json())
            } else {
                for finding in report.findings { print(finding.line) }
            }
            Terminal.printError(report.summary)
            if report.fails(strict: strict) { throw ExitCode.failure }
        }
    }
}

/// The linter's findings over many files.
struct LintReport {
    struct Finding: Encodable {
        var file: String
        var diagnostic: Diagnostic

        var line: String { diagnostic.formatted(file: file) }

        enum CodingKeys: String, CodingKey { case file, path, line, column, severity, code, message }

        func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(file, forKey: .file)
            try c.encode(diagnostic.path.description, forKey: .path)
            try c.encodeIfPresent(diagnostic.location?.line, forKey: .line)
            try c.encodeIfPresent(diagnostic.location?.column, forKey: .column)
            try c.encode(diagnostic.severity.rawValue, forKey: .severity)
            try c.encode(diagnostic.code, forKey: .code)
            try c.encode(diagnostic.message, forKey: .message)
        }
    }

    var fileCount = 0
    var findings: [Finding] = []

    var errors: Int { findings.count { $0.diagnostic.severity == .error } }
    var warnings: Int { findings.count { $0.diagnostic.severity == .warning } }

    func fails(strict: Bool) -> Bool { errors > 0 || (strict && warnings > 0) }

    var summary: String {
        func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        return "lint: \(plural(fileCount, "file")): \(plural(errors, "error")), \(plural(warnings, "warning"))"
    }

    /// Lints every file (folders are searched for `.ahap` files, in name order).
    static func run(on arguments: [String]) -> LintReport {
        var report = LintReport()
        for path in arguments.flatMap(expand) {
            report.fileCount += 1
            let diagnostics = PatternFile.inspect(path).findings
            report.findings += diagnostics.map { Finding(file: path, diagnostic: $0) }
        }
        return report
    }

    /// A folder becomes the `.ahap` files below it; anything else stays as given.
    static func expand(_ path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return [path]
        }
        let base = URL(filePath: path)
        let found =
            FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil)?
            .compactMap { ($0 as? URL) }
            .filter { $0.pathExtension.lowercased() == "ahap" }
            .map { $0.path(percentEncoded: false) }
            .sorted() ?? []
        return found
    }

    func json() -> String {
        struct Document: Encodable {
            var files: Int
            var errors: Int
            var warnings: Int
            var findings: [Finding]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data =
            (try? encoder.encode(
                Document(files: fileCount, errors: errors, warnings: warnings, findings: findings))) ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
