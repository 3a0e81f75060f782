import ArgumentParser
import Foundation
import HapticsCore
import HapticsEngine
import HapticsReview
import HapticsSynthesis

extension HapticCommand {
    struct Diff: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "diff",
            abstract: "Compare two patterns: what was added, removed, moved or re-parameterised.",
            discussion: """
                Prints the differences, one per line. Events are matched by type and nearest time \
                (within --tolerance seconds). Exit status, like diff(1): 0 when the patterns are \
                the same, 1 when they differ, 2 when a file cannot be read or is not valid AHAP.
                """)

        @Argument(help: "The old AHAP file (A).")
        var a: String

        @Argument(help: "The new AHAP file (B).")
        var b: String

        @Option(
            name: [.short, .customLong("output")],
            help: "Also draw both timelines overlaid: .svg, or .png (needs rsvg-convert).")
        var output: String?

        @Option(
            help: ArgumentHelp(
                "How far in seconds an event may move and still be the same event.", valueName: "seconds"))
        var tolerance: Double = 0.25

        func validate() throws {
            if let output { try Figure.validate(output) }
            guard tolerance >= 0, tolerance.isFinite else {
                throw ValidationError("--tolerance must be 0 or more seconds (got \(tolerance))")
            }
        }

        @OptionGroup var waveforms: WaveformOptions

        func run() throws {
            let old = try Self.load(a, waveforms: waveforms), new = try Self.load(b, waveforms: waveforms)
            let diff = PatternDiff.compare(old.pattern, new.pattern, tolerance: tolerance)
            print(diff.text, terminator: "")
            if let output {
                func input(_ file: PatternFile) throws -> PlotInput {
                    try Terminal.frames(in: file.path, status: 2) { () throws(FrameRangeError) in
                        try PlotInput.rendering(
                            title: URL(filePath: file.path).lastPathComponent, pattern: file.pattern,
                            clips: file.clips, previewSeconds: 0)
                    }
                }
                try Figure.write(
                    DiffPlot.svg(a: try input(old), b: try input(new), diff: diff), to: output, failureStatus: 2)
            }
            if !diff.isEmpty { throw ExitCode.failure }
        }

        /// Loads a side, or prints why not and exits with status 2.
        static func load(_ path: String, waveforms: WaveformOptions) throws -> PatternFile {
            do {
                let file = try PatternFile.load(
                    path, waveformFolders: waveforms.folders, missingWaveforms: .skip)
                Terminal.report(file.diagnostics, in: file.path)
                return file
            } catch {
                throw Terminal.failure(located: error.description, status: 2)
            }
        }
    }
}
