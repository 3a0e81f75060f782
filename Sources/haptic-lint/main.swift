// haptic-lint: the linter alone, for the SwiftPM plugins (HapticsLintPlugin, lint-haptics) and the
// pre-commit hook. It links HapticsCore and HapticsEngine only (no argument parser, no tool stack),
// so depending on the plugins costs what the libraries cost. `haptic lint` is the full command.
import Foundation
import HapticsCore
import HapticsEngine

let usage = """
    usage: haptic-lint [--strict] [--notes] [--format compiler|github] [--stamp FILE] FILE...
      Checks AHAP files and .haptic clips; prints FILE:LINE:COL: error|warning: PATH: message [rule].
      Rule severities come from the nearest .haptic-lint.json above each file, as in `haptic lint`.
      --strict   warnings fail too
      --notes    also print notes
      --format   compiler (the default: SwiftPM and Xcode show these at the file and line) or
                 github (GitHub Actions annotations)
      --stamp    when nothing fails, write FILE (a Swift source holding one comment; the build
                 plugin's output)
    Exit status: 0 without errors, 1 with errors (or, with --strict, warnings), 64 for a usage error.

    """

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data(message.utf8))
    exit(status)
}

var strict = false
var notes = false
var github = false
var stamp: String?
var paths: [String] = []
var arguments = CommandLine.arguments.dropFirst()[...]
while let argument = arguments.popFirst() {
    switch argument {
    case "--strict": strict = true
    case "--notes": notes = true
    case "--format":
        switch arguments.popFirst() {
        case "compiler": github = false
        case "github": github = true
        case let other:
            fail("haptic-lint: --format takes compiler or github, not \(other ?? "nothing")\n" + usage, status: 64)
        }
    case "--stamp":
        guard let file = arguments.popFirst() else { fail("haptic-lint: --stamp needs a file\n" + usage, status: 64) }
        stamp = file
    case "-h", "--help":
        print(usage, terminator: "")
        exit(0)
    case "--":
        paths += arguments
        arguments = []
    case let option where option.hasPrefix("-") && option.count > 1:
        fail("haptic-lint: unknown option \(option)\n" + usage, status: 64)
    default: paths.append(argument)
    }
}
if paths.isEmpty && stamp == nil { fail("haptic-lint: give AHAP or .haptic files\n" + usage, status: 64) }

// Each file's rules from the nearest .haptic-lint.json, as `haptic lint` reads them.
var configs = LintConfigFinder()
var files: [LintedFile] = []
for path in paths {
    let rules: LintRules
    do {
        rules = try configs.rules(for: path)
    } catch {
        fail("haptic-lint: \(error.message)\n", status: 1)
    }
    files.append(LintedFile(path: path, diagnostics: PatternFile.inspect(path).findings.compactMap(rules.apply)))
}
print(github ? LintOutput.github(files, notes: notes) : LintOutput.compiler(files, notes: notes), terminator: "")
let findings = files.flatMap(\.diagnostics)
if findings.contains(where: { $0.severity == .error || (strict && $0.severity == .warning) }) { exit(1) }
if let stamp {
    let text = "// haptic-lint checked \(files.count) pattern file\(files.count == 1 ? "" : "s"): no errors.\n"
    do {
        try Data(text.utf8).write(to: URL(filePath: stamp))
    } catch {
        fail("haptic-lint: cannot write \(stamp): \(error.localizedDescription)\n", status: 1)
    }
}
