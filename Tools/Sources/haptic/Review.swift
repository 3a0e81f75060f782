import ArgumentParser
import CupcakeCorner
import Foundation
import HapticsCore
@_spi(Tooling) import HapticsEngine
import HapticsReview
import HapticsSynthesis
import OrderedCollections
import SensoryFeedback

extension HapticCommand {
    struct Review: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "review",
            abstract: "Build one self-contained HTML page to review many patterns.",
            discussion: """
                Lists every AHAP file found (folders are searched recursively) with its timeline, a \
                playable preview (16-bit mono 48 kHz WAV, embedded; the first --preview-seconds of a \
                longer pattern, which the page says), duration, event statistics and \
                lint findings. The page has no scripts and loads nothing. A file that cannot be read \
                is listed with its error. Exit status: 0 when the page was written and no file had \
                errors, 1 when some file had errors (the page is still written) or nothing could be \
                written.
                """)

        @Argument(help: "AHAP files or folders.")
        var paths: [String] = []

        @Option(name: [.short, .customLong("output")], help: "The HTML file to write.")
        var output: String

        @Flag(help: "Also list every built-in feedback preset (SwiftUI/UIKit feedback; Patterns/feedback/*.ahap).")
        var presets = false

        @Option(help: "The page's title.")
        var title = "Haptics review"

        @Option(help: ArgumentHelp("Longest audio preview embedded per entry.", valueName: "seconds"))
        var previewSeconds = 60.0

        @OptionGroup var waveforms: WaveformOptions

        func validate() throws {
            guard !paths.isEmpty || presets else { throw ValidationError("give AHAP files or folders, or --presets") }
            guard previewSeconds >= 0, previewSeconds.isFinite else {
                throw ValidationError("--preview-seconds must be 0 or more (got \(previewSeconds))")
            }
        }

        func run() throws {
            let sources = ReviewSource.collect(paths, presets: presets)
            guard !sources.isEmpty else { throw Terminal.failure("no AHAP files found; nothing to review") }
            let entries = ReviewSource.entries(
                for: sources, previewSeconds: previewSeconds, waveforms: waveforms.folders)
            let stamp = ISO8601DateFormatter.string(
                from: Date(), timeZone: .current, formatOptions: [.withInternetDateTime])
            let html = ReviewPage.html(title: title, entries: entries, generated: stamp + " by haptic review")
            do {
                try writeAtomically(Array(html.utf8), to: output)
            } catch {
                throw Terminal.failure("cannot write '\(output)': \(error.errno)")
            }
            let findings = entries.flatMap(\.findings)
            let errors = findings.count { $0.diagnostic.severity == .error }
            let warnings = findings.count { $0.diagnostic.severity == .warning }
            Terminal.printError(
                "review: \(entries.count) entr\(entries.count == 1 ? "y" : "ies"): \(errors) error\(errors == 1 ? "" : "s"), "
                    + "\(warnings) warning\(warnings == 1 ? "" : "s"); wrote \(output)")
            if errors > 0 { throw ExitCode.failure }
        }
    }
}

/// One thing to put on the review page, found on the command line or in a folder.
struct ReviewSource: Hashable {
    enum Kind: Hashable {
        /// An `.ahap` file (or any file named on the command line that is not recognised otherwise).
        case pattern
        /// A feedback preset, as built into `haptic` (the same text as `Patterns/feedback/NAME.ahap`).
        case preset
        /// A `.jsonl` event log written by `haptic order`.
        case orderLog
    }

    /// Where the presets' AHAP files live in the source tree: the path a preset entry shows.
    static let presetsFolder = "Patterns/feedback"

    var path: String
    var kind: Kind

    /// Files named on the command line stay in the order given; folders become the `.ahap` and
    /// `.jsonl` files below them, sorted by path. Duplicates are listed once.
    static func collect(_ arguments: [String], presets: Bool) -> [ReviewSource] {
        var found: [ReviewSource] = []
        for argument in arguments {
            if isFolder(argument) {
                found += files(under: argument, extensions: ["ahap", "haptic", "vij", "jsonl"]).map {
                    ReviewSource(path: $0, kind: kind(of: $0))
                }
            } else {
                found.append(ReviewSource(path: argument, kind: kind(of: argument)))
            }
        }
        if presets {
            // The presets built into `haptic`, so `--presets` works from any folder.
            found += FeedbackPreset.all.map { ReviewSource(path: "\(presetsFolder)/\($0.name).ahap", kind: .preset) }
        }
        var seen = Set<String>()
        return found.filter { seen.insert(URL(filePath: $0.path).standardizedFileURL.path).inserted }
    }

    static func kind(of path: String) -> Kind {
        URL(filePath: path).pathExtension.lowercased() == "jsonl" ? .orderLog : .pattern
    }

    static func isFolder(_ path: String) -> Bool {
        var isDirectory: ObjCBool = false
        return FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) && isDirectory.boolValue
    }

    static func files(under folder: String, extensions: Set<String>) -> [String] {
        let base = folder.hasSuffix("/") ? String(folder.dropLast()) : folder
        let enumerator = FileManager.default.enumerator(atPath: base)
        var out: [String] = []
        while let relative = enumerator?.nextObject() as? String {
            if extensions.contains(URL(filePath: relative).pathExtension.lowercased()) {
                out.append(base + "/" + relative)
            }
        }
        return out.sorted()
    }

    /// Builds every entry, with a progress bar on a terminal. Order logs are skipped with a note.
    static func entries(
        for sources: [ReviewSource], previewSeconds: Double = 60, waveforms: [String] = []
    ) -> [ReviewEntry] {
        let bar = ProgressBar(label: "reviewing", counting: "files")
        // Each entry (its analysis, plot and preview) is made on its own core, in the sources' order.
        let entries = parallelMap(sources, finished: { bar?.update(done: Int64($0), total: Int64(sources.count)) }) {
            $0.entry(previewSeconds: previewSeconds, waveforms: waveforms)
        }
        bar?.finish()
        return entries.compactMap { $0 }
    }

    /// The page entry for this source; nil for what the review does not show.
    /// Audio previews hold at most `previewSeconds`.
    func entry(previewSeconds: Double = 60, waveforms: [String] = []) -> ReviewEntry? {
        switch kind {
        case .pattern:
            patternEntry(
                kind: .pattern, title: URL(filePath: path).lastPathComponent, previewSeconds: previewSeconds,
                waveforms: waveforms)
        case .preset:
            presetEntry(
                named: URL(filePath: path).deletingPathExtension().lastPathComponent, previewSeconds: previewSeconds)
        case .orderLog: orderLogEntry(previewSeconds: previewSeconds)
        }
    }

    /// A built-in feedback preset's entry: plot, preview and lint findings of its embedded AHAP text.
    func presetEntry(named name: String, previewSeconds: Double) -> ReviewEntry? {
        guard let preset = FeedbackPreset.named(name) else { return nil }
        let findings = AHAP.lint(Array(preset.ahap.utf8), file: path)
        guard let plot = plot(title: name, pattern: preset.pattern, clips: [:], previewSeconds: previewSeconds) else {
            return nil
        }
        var entry = ReviewEntry(path: path, kind: .preset, plot: plot, wavBytes: plot.wavBytes, findings: findings)
        entry.title = name
        return entry
    }

    /// A `haptic order` event log as an entry: the session's feedback placed at its logged times
    /// (the presets `haptic order replay` plays), with unreadable lines as findings. A `.jsonl`
    /// file with no event in it (the order store itself, say) is skipped with a note.
    func orderLogEntry(previewSeconds: Double) -> ReviewEntry? {
        let log: EventLogReader.Result
        do {
            log = try EventLogReader.read(path: path)
        } catch {
            Terminal.printError("haptic: skipping \(path): \(error)")
            return nil
        }
        guard !log.events.isEmpty else {
            Terminal.printError("haptic: skipping \(path): not a `haptic order` event log")
            return nil
        }
        let findings = log.problems.map { problem -> Diagnostic in
            // Problems read "FILE:LINE: error: message".
            let parts = problem.split(separator: ":", maxSplits: 3, omittingEmptySubsequences: false)
            let line = parts.count > 1 ? Int(parts[parts.count - 3]) : nil
            let message = problem.components(separatedBy: ": error: ").last ?? problem
            return Diagnostic(
                .error, code: .orderLogLine, message, at: .root,
                location: line.map { SourceLocation(line: $0, column: 1) })
        }
        let timeline = FeedbackTimeline(events: log.events)
        var pattern = timeline.pattern(preset: { $0.pattern })
        pattern.metadata["Description"] = .string(
            "\(timeline.cues.count) feedback\(timeline.cues.count == 1 ? "" : "s") over \(log.events.count) logged changes: "
                + timeline.cues.map { "\($0.event.change) → \($0.feedback.description)" }.joined(
                    separator: ", "))
        let title = URL(filePath: path).lastPathComponent
        guard let plot = plot(title: title, pattern: pattern, clips: [:], previewSeconds: previewSeconds) else {
            return nil
        }
        var entry = ReviewEntry(path: path, kind: .orderLog, plot: plot, wavBytes: plot.wavBytes, findings: findings)
        entry.title = title
        return entry
    }

    /// The plot of `pattern`; nil, said on standard error, when a time in it is no frame position.
    func plot(title: String, pattern: HapticPattern, clips: [String: AudioClip], previewSeconds: Double) -> PlotInput? {
        do {
            return try PlotInput.rendering(title: title, pattern: pattern, clips: clips, previewSeconds: previewSeconds)
        } catch {
            Terminal.printError("haptic: not plotting \(path): \(error)")
            return nil
        }
    }

    /// A pattern file's entry: plot, preview and lint findings; a file that cannot be loaded gets
    /// an entry holding its error instead.
    func patternEntry(
        kind: ReviewEntry.Kind, title: String, previewSeconds: Double, waveforms: [String] = []
    ) -> ReviewEntry {
        let (findings, loaded) = PatternFile.inspect(path, waveformFolders: waveforms, missingWaveforms: .skip)
        if let file = loaded,
            let plot = plot(title: title, pattern: file.pattern, clips: file.clips, previewSeconds: previewSeconds)
        {
            var entry = ReviewEntry(path: path, kind: kind, plot: plot, wavBytes: plot.wavBytes, findings: findings)
            entry.title = title
            return entry
        } else {
            return ReviewEntry(
                title: title, path: path, kind: kind,
                plotSVG: "<p class=\"muted\">Not plotted: the file could not be loaded (see the findings below).</p>\n",
                wavBytes: [], durationSeconds: 0, statistics: EventStatistics(HapticPattern()),
                findings: findings.map { ReviewFinding(file: path, $0) }, metadata: HapticPattern().metadata)
        }
    }
}
