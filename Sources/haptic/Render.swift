import ArgumentParser
import HapticsEngine

extension HapticCommand {
    struct Render: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Render a pattern to a WAV file (or to standard output with -o -).")

        @Argument(help: "The AHAP file.")
        var pattern: String

        @Option(name: [.short, .customLong("output")], help: "The WAV file to write; - for standard output.")
        var output: String

        @OptionGroup var audio: AudioOptions

        @OptionGroup var waveforms: WaveformOptions

        func run() throws {
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
    }
}
