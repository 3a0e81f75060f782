import ArgumentParser
import Foundation
import HapticsCore
import HapticsEngine

extension HapticCommand {
    struct Render: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "render",
            abstract: "Render a pattern to a WAV file (or to standard output with -o -).",
            discussion: """
                Several patterns, or a folder of them, render into the folder -o names (made if \
                missing), each as NAME.wav, on every core; so does one pattern when -o names a \
                folder that exists. A device or named pipe given to -o (/dev/null) is written \
                into, not replaced. Exit status 1 if any pattern failed; the \
                others are still written.
                """)

        @Argument(help: "The AHAP file (or .haptic, .vij); several files or folders render into a folder.")
        var patterns: [String]

        @Option(
            name: [.short, .customLong("output")],
            help: "The WAV file to write; - for standard output; a folder for several patterns.")
        var output: String

        @OptionGroup var audio: AudioOptions

        @OptionGroup var waveforms: WaveformOptions

        func run() throws {
            // One pattern and -o an existing folder: into the folder as NAME.wav, as `cp` would.
            if patterns.count == 1, !ReviewSource.isFolder(patterns[0]), !ReviewSource.isFolder(output) {
                try renderOne(patterns[0])
            } else {
                try renderMany()
            }
        }

        func renderOne(_ pattern: String) throws {
            let file = try Terminal.load(pattern, waveforms: waveforms)
            Terminal.report(file.diagnostics, in: file.path)
            let bar = ProgressBar(label: "rendering", unit: audio.sampleRate)
            do {
                try WAVFileRender.render(file, to: output, options: audio.renderOptions, progress: bar?.update)
            } catch {
                bar?.finish()
                throw Terminal.failure(error.description)
            }
            bar?.finish()
        }

        /// Every pattern into `output/NAME.wav`, one pattern per core; what each printed comes out
        /// in the patterns' order once all are done.
        func renderMany() throws {
            let inputs = patterns.flatMap(LintReport.expand)
            guard !inputs.isEmpty else {
                throw Terminal.failure("no patterns found in \(patterns.joined(separator: ", "))")
            }
            guard output != "-" else { throw Terminal.failure("several patterns render into a folder: give -o FOLDER") }
            var byName: [String: String] = [:]
            for input in inputs {
                let name = URL(filePath: input).deletingPathExtension().lastPathComponent + ".wav"
                if let other = byName.updateValue(input, forKey: name) {
                    throw Terminal.failure("'\(other)' and '\(input)' would both render to '\(output)/\(name)'")
                }
            }
            do {
                try FileManager.default.createDirectory(atPath: output, withIntermediateDirectories: true)
            } catch {
                throw Terminal.failure("cannot make the folder '\(output)': \(error.localizedDescription)")
            }
            let folder = output
            let options = audio.renderOptions
            let folders = waveforms.folders
            let bar = ProgressBar(label: "rendering", counting: "files")
            let results = parallelMap(inputs, finished: { bar?.update(done: Int64($0), total: Int64(inputs.count)) }) {
                input -> (diagnostics: [Diagnostic], failure: String?) in
                let destination = folder + "/" + URL(filePath: input).deletingPathExtension().lastPathComponent + ".wav"
                do {
                    let file = try PatternFile.load(input, waveformFolders: folders, missingWaveforms: .skip)
                    do {
                        try WAVFileRender.render(file, to: destination, options: options)
                    } catch {
                        return (file.diagnostics, String(describing: error))
                    }
                    return (file.diagnostics, nil)
                } catch {
                    return ([], String(describing: error))
                }
            }
            bar?.finish()
            var failed = 0
            for (input, result) in zip(inputs, results) {
                Terminal.report(result.diagnostics, in: input)
                if let failure = result.failure {
                    Terminal.printError(failure)
                    failed += 1
                }
            }
            let written = inputs.count - failed
            Terminal.printError(
                "render: \(written) of \(inputs.count) pattern\(inputs.count == 1 ? "" : "s") written to \(output)"
                    + (failed > 0 ? "; \(failed) failed" : ""))
            if failed > 0 { throw ExitCode.failure }
        }
    }
}
