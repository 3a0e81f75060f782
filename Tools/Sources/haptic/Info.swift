import ArgumentParser
import Foundation
import HapticsCore
import HapticsEngine
import HapticsSynthesis

extension HapticCommand {
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "info",
            abstract: "Describe a pattern: duration, events, parameters, curves, rendered peak and loudness.")

        @Argument(help: "The AHAP file.")
        var pattern: String

        @Flag(help: "Print the description as JSON.")
        var json = false

        @OptionGroup var audio: AudioOptions

        @OptionGroup var waveforms: WaveformOptions

        func run() throws {
            let file = try Terminal.load(pattern, waveforms: waveforms)
            // The lint line counts the rest; a waveform left out changes what the figures mean.
            Terminal.report(
                file.diagnostics.filter { $0.code == .waveformNotFound || $0.code == .waveformNotDecoded },
                in: file.path)
            // The lint line counts what `haptic lint FILE` reports: its findings, its rules.
            var lint = LintReport()
            var rules = LintRules()
            do {
                var configs = LintConfigFinder()
                rules = try configs.rules(for: file.path)
            } catch {
                Terminal.printError("haptic: \(error.message)")
            }
            lint.add(file: file.path, LintReport.inspect(file.path, waveformFolders: waveforms.folders), rules: rules)
            let info = try Terminal.frames(in: file.path) { () throws(FrameRangeError) in
                try PatternInfo(file, options: audio.renderOptions, lint: lint)
            }
            print(json ? info.json() : info.text())
        }
    }
}

/// What `haptic info` reports about one pattern.
struct PatternInfo: Encodable {
    struct Range: Encodable {
        var count: Int
        var min: Float
        var max: Float
    }

    var file: String
    var version: Double?
    /// How long the pattern sounds: the render's length (`haptic render` writes this many
    /// seconds), an AudioCustom waveform and release tails included.
    var durationSeconds: Double
    /// Core Haptics' `CHHapticPattern.duration`: the last start, plus that event's EventDuration.
    var patternDurationSeconds: Double
    var events: [String: Int]
    var eventParameters: [String: Range]
    var dynamicParameters: [String: Range]
    var parameterCurves: [String: Int]
    var curveControlPoints: Int
    var metadata: [String: String]
    var renderedSeconds: Double
    var peakDBFS: Double
    /// Integrated loudness (ITU-R BS.1770); nil for a render under 400 ms, which it cannot measure.
    var loudnessLUFS: Double?
    /// For a render under 400 ms: its momentary loudness, the BS.1770 loudness of one 400 ms
    /// window holding the whole sound (silence after it).
    var momentaryLoudnessLUFS: Double?
    /// What `haptic lint FILE` counts.
    var errors: Int
    var warnings: Int
    var notes: Int
    /// The lint line of the text form.
    private var lintCounts: String

    init(_ file: PatternFile, options: RenderOptions, lint: LintReport) throws(FrameRangeError) {
        let pattern = file.pattern
        self.file = file.path
        version = pattern.version
        patternDurationSeconds = pattern.duration
        events = Dictionary(grouping: pattern.events, by: \.type.rawValue).mapValues(\.count)
        var parameters: [String: Range] = [:]
        for event in pattern.events {
            for parameter in event.parameters {
                parameters[parameter.id.rawValue, default: Range(count: 0, min: .infinity, max: -.infinity)]
                    .include(parameter.value)
            }
        }
        eventParameters = parameters
        var dynamic: [String: Range] = [:]
        for parameter in pattern.dynamicParameters {
            dynamic[parameter.id.rawValue, default: Range(count: 0, min: .infinity, max: -.infinity)]
                .include(parameter.value)
        }
        dynamicParameters = dynamic
        parameterCurves = Dictionary(grouping: pattern.parameterCurves, by: \.id.rawValue).mapValues(\.count)
        curveControlPoints = pattern.parameterCurves.reduce(0) { $0 + $1.controlPoints.count }
        metadata = pattern.metadata.reduce(into: [:]) { result, entry in
            if case .string(let text) = entry.value { result[entry.key] = text }
        }
        // Rendered and measured block by block: memory stays bounded whatever the duration.
        var renderer = try PatternRenderer(
            pattern: pattern, format: options.format, voicing: options.voicing, clips: file.clips)
        var meter = LoudnessMeter(format: options.format)
        var peak: Float = 0
        var frames: Int64 = 0
        var block = [Float](repeating: 0, count: WAVFileRender.blockFrames * options.format.channels)
        block.withUnsafeMutableBufferPointer { block in
            while case let count = renderer.render(into: block), count > 0 {
                let rendered = UnsafeBufferPointer(rebasing: block[..<(count * options.format.channels)])
                peak = max(peak, AudioAnalysis.peak(rendered))
                meter.add(rendered)
                frames += Int64(count)
            }
        }
        renderedSeconds = Double(frames) / Double(options.format.sampleRate)
        durationSeconds = Double(renderer.frameCount) / Double(options.format.sampleRate)
        peakDBFS = peak > 0 ? 20 * log10(Double(peak)) : -.infinity
        let loudness = meter.integratedLoudness
        loudnessLUFS = loudness.isFinite ? loudness : nil
        // Under 400 ms integrated loudness has no block to measure: fill one 400 ms window with
        // silence after the sound and measure that window, the pattern's momentary loudness.
        let windowFrames = Int64(options.format.sampleRate * 4 / 10)
        if frames < windowFrames {
            var window = meter
            window.add([Float](repeating: 0, count: Int(windowFrames - frames) * options.format.channels))
            let momentary = window.integratedLoudness
            momentaryLoudnessLUFS = momentary.isFinite ? momentary : nil
        }
        errors = lint.errors
        warnings = lint.warnings
        notes = lint.noteCount
        lintCounts = lint.counts
    }

    enum CodingKeys: String, CodingKey {
        case file, version, durationSeconds, patternDurationSeconds, events, eventParameters, dynamicParameters
        case parameterCurves, curveControlPoints, metadata, renderedSeconds, peakDBFS, loudnessLUFS
        case momentaryLoudnessLUFS, errors, warnings, notes
    }

    func text() -> String {
        func seconds(_ s: Double) -> String { String(format: "%.3f s", s) }
        func ranges(_ values: [String: Range]) -> String {
            guard !values.isEmpty else { return "none" }
            return values.sorted { $0.key < $1.key }.map { key, r in
                r.min == r.max
                    ? "\(key) \(format(r.min)) (\(r.count)x)"
                    : "\(key) \(format(r.min))…\(format(r.max)) (\(r.count)x)"
            }.joined(separator: "\n" + String(repeating: " ", count: 14))
        }
        let eventSummary =
            events.isEmpty
            ? "none"
            : "\(events.values.reduce(0, +)): "
                + events.sorted { $0.key < $1.key }.map { "\($1) \($0)" }.joined(separator: ", ")
        let curves =
            parameterCurves.isEmpty
            ? "none"
            : parameterCurves.sorted { $0.key < $1.key }.map { "\($1) \($0)" }.joined(separator: ", ")
                + " (\(curveControlPoints) control points)"
        let peak = peakDBFS.isFinite ? String(format: "%.1f dBFS", peakDBFS) : "silent"
        let loudness: String
        if let integrated = loudnessLUFS {
            loudness = String(format: "loudness %.1f LUFS", integrated)
        } else if let momentary = momentaryLoudnessLUFS {
            loudness = String(format: "momentary loudness %.1f LUFS (one 400 ms window)", momentary)
        } else {
            loudness = peakDBFS.isFinite ? "loudness below -70 LUFS" : "silent"
        }
        var lines = [file]
        if let description = metadata["Description"] { lines.append("  \(description)") }
        lines += [
            "  duration    \(seconds(durationSeconds))"
                + (abs(durationSeconds - patternDurationSeconds) >= 0.0005
                    ? " as rendered (CHHapticPattern.duration \(seconds(patternDurationSeconds)))" : ""),
            "  events      \(eventSummary)",
            "  parameters  \(ranges(eventParameters))",
            "  dynamic     \(ranges(dynamicParameters))",
            "  curves      \(curves)",
            "  rendered    \(seconds(renderedSeconds)), peak \(peak), \(loudness)",
        ]
        if errors + warnings + notes > 0 {
            lines.append("  lint        \(lintCounts) (haptic lint\(notes > 0 ? " --notes" : "") \(file))")
        }
        return lines.joined(separator: "\n")
    }

    func json() -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        encoder.nonConformingFloatEncodingStrategy = .convertToString(
            positiveInfinity: "inf", negativeInfinity: "-inf", nan: "nan")
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }
}

extension PatternInfo.Range {
    mutating func include(_ value: Float) {
        count += 1
        min = Swift.min(min, value)
        max = Swift.max(max, value)
    }
}

private func format(_ value: Float) -> String {
    value == value.rounded() ? String(Int(value)) : String(format: "%.2f", Double(value))
}
