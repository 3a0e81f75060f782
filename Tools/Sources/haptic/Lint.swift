import ArgumentParser
import Foundation
import HapticsCore
import HapticsEngine

extension HapticCommand {
    struct Lint: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "lint",
            abstract: "Check AHAP files and explain every problem.",
            discussion: """
                Prints one line per finding, FILE:PATH: severity[rule]: message. A folder is searched \
                for .ahap files. Repeats of one rule in one file are folded after the first three \
                (--all shows every one; the other formats always have every one). Notes (normal \
                exporter output a strict reader would mention) show with --notes; json always has \
                them. --format github prints GitHub Actions annotations, sarif a SARIF 2.1.0 log for \
                code scanning, junit JUnit XML for CI dashboards (errors and warnings as failures). Rule severities come from the \
                rules' defaults (--rules lists them), the nearest .haptic-lint.json above each file \
                ({"disable": [...], "enable": [...], "error": [...]}), then --disable/--enable/--error. \
                Exit status: 0 without errors, 1 with errors (or, under --strict, with warnings).
                """)

        @Argument(help: "AHAP or .haptic files, or folders.")
        var files: [String] = []

        @Option(help: "Output format: text, json, github (Actions annotations), sarif (2.1.0) or junit (XML).")
        var format: Format = .text

        @Flag(help: "Print the findings as JSON (every finding, notes included): --format json.")
        var json = false

        @Flag(help: "Fail on the warnings that remain enabled, too.")
        var strict = false

        @Flag(help: "Show notes: normal exporter output a strict reader would mention.")
        var notes = false

        @Flag(help: "Show every repeat of a rule instead of folding after three.")
        var all = false

        @Flag(help: "List every rule with its default severity, and exit.")
        var rules = false

        @Option(name: .customLong("disable"), help: ArgumentHelp("Do not report RULE.", valueName: "rule"))
        var disabled: [String] = []

        @Option(
            name: .customLong("enable"),
            help: ArgumentHelp("Report RULE (a note becomes a warning).", valueName: "rule"))
        var enabled: [String] = []

        @Option(name: .customLong("error"), help: ArgumentHelp("Report RULE as an error.", valueName: "rule"))
        var errors: [String] = []

        @OptionGroup var waveforms: WaveformOptions

        enum Format: String, ExpressibleByArgument, CaseIterable {
            case text, json, github, sarif, junit
        }

        /// `--format`, with `--json` as `--format json`.
        var output: Format { json ? .json : format }

        func validate() throws {
            guard rules || !files.isEmpty else { throw ValidationError("give AHAP files or folders, or --rules") }
            guard !json || format == .text || format == .json else {
                throw ValidationError("--json is --format json; give one format")
            }
            do {
                _ = try flagRules(over: LintRules())
            } catch {
                throw ValidationError(error.message)
            }
        }

        /// `base` changed by the command-line flags, in the order disable, enable, error.
        func flagRules(over base: LintRules) throws(LintRulesError) -> LintRules {
            var result = base
            for name in disabled { try result.set(.disable, for: name) }
            for name in enabled { try result.set(.enable, for: name) }
            for name in errors { try result.set(.error, for: name) }
            return result
        }

        func run() throws {
            if rules {
                print(LintReport.rulesTable())
                return
            }
            var configs = LintConfigFinder()
            var report = LintReport()
            let paths = files.flatMap(LintReport.expand)
            var rulesPerFile: [LintRules] = []
            for path in paths {
                do {
                    rulesPerFile.append(try flagRules(over: configs.rules(for: path)))
                } catch {
                    throw Terminal.failure(error.message)
                }
            }
            // Every file is read and checked on its own core; the report keeps the files' order.
            let folders = waveforms.folders
            let findings = parallelMap(paths) { LintReport.inspect($0, waveformFolders: folders) }
            for (index, path) in paths.enumerated() {
                report.add(file: path, findings[index], rules: rulesPerFile[index])
            }
            switch output {
            case .text: for line in report.lines(notes: notes, all: all) { print(line) }
            case .json: print(report.json())
            case .github: print(LintOutput.github(report.linted, notes: notes), terminator: "")
            case .sarif: print(LintOutput.sarif(report.linted, notes: notes), terminator: "")
            case .junit: print(LintOutput.junit(report.linted), terminator: "")
            }
            Terminal.printError(report.summary(notes: notes))
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
            try c.encode(diagnostic.code.rawValue, forKey: .code)
            try c.encode(diagnostic.message, forKey: .message)
        }
    }

    var fileCount = 0
    /// Every enabled finding of every file, in file order, at its configured severity.
    var findings: [Finding] = []
    /// Where each file's findings start in `findings`, for folding per file.
    private var files: [(name: String, range: Range<Int>)] = []

    var errors: Int { findings.count { $0.diagnostic.severity == .error } }
    var warnings: Int { findings.count { $0.diagnostic.severity == .warning } }
    var noteCount: Int { findings.count { $0.diagnostic.severity == .note } }

    func fails(strict: Bool) -> Bool { errors > 0 || (strict && warnings > 0) }

    /// Each file with its findings, for `LintOutput`'s formats.
    var linted: [LintedFile] {
        files.map { LintedFile(path: $0.name, diagnostics: findings[$0.range].map(\.diagnostic)) }
    }

    mutating func add(file: String, _ diagnostics: [Diagnostic], rules: LintRules) {
        fileCount += 1
        let start = findings.count
        findings += diagnostics.compactMap(rules.apply).map { Finding(file: file, diagnostic: $0) }
        files.append((file, start..<findings.count))
    }

    /// The text lines: notes only when asked, each rule's repeats in a file folded unless `all`.
    func lines(notes: Bool, all: Bool) -> [String] {
        var out: [String] = []
        for file in files {
            let shown = findings[file.range].map(\.diagnostic).filter { notes || $0.severity != .note }
            if all {
                out += shown.map { $0.formatted(file: file.name) }
                continue
            }
            for line in LintFolding.fold(shown) {
                switch line {
                case .finding(let d): out.append(d.formatted(file: file.name))
                case .more(let code, let count):
                    out.append("\(file.name): ... and \(count) more [\(code)] in this file (--all shows every one)")
                }
            }
        }
        return out
    }

    /// Every finding about the file at `path`, before rules apply: the one way a file becomes lint
    /// findings, for `haptic lint` and for `haptic info`'s lint line alike (a missing waveform
    /// is an error in both).
    static func inspect(_ path: String, waveformFolders: [String]) -> [Diagnostic] {
        PatternFile.inspect(path, waveformFolders: waveformFolders).findings
    }

    /// `E errors, W warnings`, then `, N notes` when there are notes.
    var counts: String {
        func plural(_ n: Int, _ word: String) -> String { "\(n) \(word)\(n == 1 ? "" : "s")" }
        let out = "\(plural(errors, "error")), \(plural(warnings, "warning"))"
        return noteCount > 0 ? out + ", \(plural(noteCount, "note"))" : out
    }

    func summary(notes: Bool) -> String {
        let files = "\(fileCount) file\(fileCount == 1 ? "" : "s")"
        return "lint: \(files): \(counts)" + (noteCount > 0 && !notes ? " (--notes shows them)" : "")
    }

    /// `haptic lint --rules`: one rule a line, its default severity, what it catches.
    static func rulesTable() -> String {
        let width = Diagnostic.Code.all.map(\.rawValue.count).max() ?? 0
        return Diagnostic.Code.all.map { code in
            let name = code.rawValue.padding(toLength: width, withPad: " ", startingAt: 0)
            let severity = code.defaultSeverity.rawValue.padding(toLength: 7, withPad: " ", startingAt: 0)
            return "\(name)  \(severity)  \(code.summary)"
        }.joined(separator: "\n")
    }

    /// A folder becomes the `.ahap` and `.haptic` files below it, named as the user typed the folder
    /// (`lint ahap` gives `ahap/Kit.ahap`); anything else stays as given.
    static func expand(_ path: String) -> [String] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            return [path]
        }
        let prefix = path.hasSuffix("/") ? path : path + "/"
        let found =
            (FileManager.default.subpaths(atPath: path) ?? [])
            .filter { ["ahap", "haptic", "vij"].contains(URL(filePath: $0).pathExtension.lowercased()) }
            .sorted()
            .map { prefix + $0 }
        return found
    }

    func json() -> String {
        struct Document: Encodable {
            var files: Int
            var errors: Int
            var warnings: Int
            var notes: Int
            var findings: [Finding]
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data =
            (try? encoder.encode(
                Document(files: fileCount, errors: errors, warnings: warnings, notes: noteCount, findings: findings)))
            ?? Data()
        return String(decoding: data, as: UTF8.self)
    }
}
