import ArgumentParser
import Foundation
import HapticsCore
@_spi(Tooling) import HapticsEngine
import HapticsReview
import HapticsSynthesis
import Subprocess
import SystemPackage

extension HapticCommand {
    struct Plot: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "plot",
            abstract: "Draw a pattern's timeline as an SVG (or PNG) image.",
            discussion: """
                Shows transients and continuous events, the effective intensity and sharpness after \
                dynamic parameters and curves, curve control points and the rendered waveform. An \
                output ending in .png is converted from the SVG with rsvg-convert (Debian: \
                librsvg2-bin), which must be installed.
                """)

        @Argument(help: "The AHAP file.")
        var pattern: String

        @Option(name: [.short, .customLong("output")], help: "The image to write: .svg, or .png (needs rsvg-convert).")
        var output: String

        @Option(help: "Image width in pixels (400 to 8000).")
        var width: Int = 960

        @Option(help: "Image height in pixels (240 to 4000).")
        var height: Int = 420

        @OptionGroup var voice: VoiceOption

        @OptionGroup var waveforms: WaveformOptions

        func validate() throws {
            try Figure.validate(output)
            guard (400...8000).contains(width) else {
                throw ValidationError("--width must be 400 to 8000 (got \(width))")
            }
            guard (240...4000).contains(height) else {
                throw ValidationError("--height must be 240 to 4000 (got \(height))")
            }
        }

        func run() throws {
            let file = try Terminal.load(pattern, waveforms: waveforms)
            Terminal.report(file.diagnostics, in: file.path)
            let input = try Terminal.frames(in: file.path) { () throws(FrameRangeError) in
                try PlotInput.rendering(
                    title: URL(filePath: file.path).lastPathComponent, pattern: file.pattern, clips: file.clips,
                    voicing: voice.voicing, previewSeconds: 0)
            }
            try Figure.write(TimelinePlot.svg(input, width: width, height: height), to: output)
        }
    }
}

/// Writes a plot as SVG, or as PNG through `rsvg-convert` (librsvg), chosen by the file extension.
///
/// PNG output shells out rather than linking a rasteriser: librsvg is well kept, packaged by every
/// distribution, and renders the plots' text and dashes faithfully.
enum Figure {
    enum Kind { case svg, png }

    static func kind(of path: String) -> Kind? {
        switch URL(filePath: path).pathExtension.lowercased() {
        case "svg": .svg
        case "png": .png
        default: nil
        }
    }

    static func validate(_ output: String) throws {
        guard kind(of: output) != nil else {
            throw ValidationError("-o must name a .svg or .png file (got '\(output)')")
        }
    }

    /// Writes `svg` to `path` (atomically), converting to PNG when the path ends in `.png`.
    /// Throws the exit status `failureStatus`, after a clear message, on failure.
    static func write(_ svg: String, to path: String, failureStatus: Int32 = 1) throws {
        switch kind(of: path) {
        case .png: try writePNG(svg, to: path, failureStatus: failureStatus)
        default:
            do {
                try writeAtomically(Array(svg.utf8), to: path)
            } catch {
                throw Terminal.failure("cannot write '\(path)': \(error.errno)", status: failureStatus)
            }
        }
    }

    /// The `rsvg-convert` on PATH, if any.
    static var converter: String? {
        let paths = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":")
        return paths.map { "\($0)/rsvg-convert" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    private static func writePNG(_ svg: String, to path: String, failureStatus: Int32) throws {
        func failure(_ message: String) -> ExitCode { Terminal.failure(message, status: failureStatus) }
        guard let converter else {
            throw failure(
                "PNG output needs rsvg-convert, which is not installed (Debian/Ubuntu: apt install librsvg2-bin); "
                    + "or write an .svg file instead")
        }
        let destination = URL(filePath: path)
        let temporary = destination.deletingLastPathComponent()
            .appending(path: ".\(destination.lastPathComponent).\(ProcessInfo.processInfo.processIdentifier).tmp")
        // swift-subprocess feeds the SVG and collects rsvg-convert's messages at once, so a
        // converter that complains at length before reading all its input blocks neither side.
        let arguments: Arguments = [
            "--format", "png", "--background-color", "white", "--output", temporary.path(percentEncoded: false),
        ]
        let input = Array(svg.utf8)
        let ended: (status: TerminationStatus, message: String)
        do {
            ended = try waitOnThisThread {
                let result = try await Subprocess.run(
                    .path(FilePath(converter)), arguments: arguments, input: .array(input), output: .discarded,
                    error: .string(limit: 1 << 20))
                return (result.terminationStatus, result.standardError)
            }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw failure("cannot run rsvg-convert: \(error)")
        }
        guard ended.status.isSuccess else {
            try? FileManager.default.removeItem(at: temporary)
            let how =
                switch ended.status {
                case .exited(let code): "status \(code)"
                case .signaled(let signal): "signal \(signal)"
                }
            throw failure(
                "rsvg-convert failed (\(how)): " + ended.message.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        do {
            try systemCall("rename", path: path) { rename(temporary.path(percentEncoded: false), path) }
        } catch {
            try? FileManager.default.removeItem(at: temporary)
            throw failure("cannot write '\(path)': \(error)")
        }
    }
}
