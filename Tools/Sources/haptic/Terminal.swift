import ArgumentParser
import Foundation
import HapticsCore
import HapticsEngine
import HapticsSynthesis

/// How the CLI talks to the person at the terminal: errors and warnings on standard error,
/// in the linter's `FILE:PATH: severity: message` form.
enum Terminal {
    static var standardErrorIsTerminal: Bool { isatty(STDERR_FILENO) == 1 }

    static func printError(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }

    /// Loads a pattern file to play or draw it, or prints why not and exits with status 1. A
    /// waveform that cannot be found becomes a warning; the rest of the pattern still plays.
    static func load(_ path: String, waveforms: WaveformOptions) throws -> PatternFile {
        do {
            return try PatternFile.load(path, waveformFolders: waveforms.folders, missingWaveforms: .skip)
        } catch {
            throw failure(located: error.description)
        }
    }

    /// Prints the warnings a command tolerated, so they are never silently swallowed: each
    /// rule's first three in a file, then how many more (`haptic lint --all` lists them). Notes
    /// are left to `haptic lint --notes`.
    static func report(_ diagnostics: [Diagnostic], in file: String) {
        for line in LintFolding.fold(diagnostics.filter { $0.severity != .note }) {
            switch line {
            case .finding(let d): printError(d.formatted(file: file))
            case .more(let code, let count):
                printError("\(file): ... and \(count) more [\(code)] in this file (haptic lint --all shows every one)")
            }
        }
    }

    /// Prints `haptic: message` and returns the error that ends the command with status 1:
    /// `throw Terminal.failure("...")`. Commands leave only through ArgumentParser, so every `defer`
    /// (engine stop, device close, temporary-file removal) runs.
    static func failure(_ message: String, status: Int32 = 1) -> ExitCode {
        failure(located: "haptic: \(message)", status: status)
    }

    /// Prints `line` as it is, for errors that already begin with their file and place
    /// (`FILE:PATH: error[code]: ...`), and returns the error that ends the command with `status`.
    static func failure(located line: String, status: Int32 = 1) -> ExitCode {
        printError(line)
        return ExitCode(status)
    }

    /// `body`'s result; a time in `path` that cannot be a frame position is one line and `status`.
    static func frames<T>(in path: String, status: Int32 = 1, _ body: () throws(FrameRangeError) -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw failure("\(path): \(error)", status: status)
        }
    }
}

/// A one-line progress bar on standard error, drawn only when standard error is a terminal.
final class ProgressBar {
    private let label: String
    private let framesPerSecond: Double
    /// Counting items (files) instead of audio frames: the noun shown after the count.
    private var items: String?
    private var lastDraw = ContinuousClock.now
    private var drawn = false
    /// Renders shorter than this many seconds of audio finish too fast to need a bar.
    static let minimumSeconds = 120.0

    /// Nil when standard error is not a terminal: piped output stays quiet.
    init?(label: String, unit framesPerSecond: Int) {
        guard Terminal.standardErrorIsTerminal else { return nil }
        self.label = label
        self.framesPerSecond = Double(framesPerSecond)
    }

    /// A bar counting items, e.g. `reviewing ████···· 40%  4 of 10 files`; nil when standard
    /// error is not a terminal. Drawn from the first update whenever there are at least two items.
    convenience init?(label: String, counting noun: String) {
        self.init(label: label, unit: 1)
        items = noun
    }

    func update(done: Int64, total: Int64) {
        guard total > 0, items == nil ? Double(total) / framesPerSecond >= Self.minimumSeconds : total >= 2 else {
            return
        }
        let now = ContinuousClock.now
        guard !drawn || now - lastDraw >= .milliseconds(50) || done == total else { return }
        lastDraw = now
        drawn = true
        let fraction = Double(done) / Double(total)
        let width = 30
        let filled = Int((fraction * Double(width)).rounded(.down))
        let bar = String(repeating: "█", count: filled) + String(repeating: "·", count: width - filled)
        let seconds =
            items.map { "\(done) of \(total) \($0)" }
            ?? String(format: "%.1f of %.1f s", Double(done) / framesPerSecond, Double(total) / framesPerSecond)
        Terminal.printErrorRaw("\r\(label) \(bar) \(Int(fraction * 100))%  \(seconds)\u{1B}[K")
    }

    /// Clears the bar's line.
    func finish() {
        if drawn { Terminal.printErrorRaw("\r\u{1B}[K") }
        drawn = false
    }
}

extension Terminal {
    static func printErrorRaw(_ text: String) {
        FileHandle.standardError.write(Data(text.utf8))
    }
}
