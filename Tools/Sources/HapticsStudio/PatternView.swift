import Foundation
package import HapticsCore
import HapticsEngine
import HapticsReview
import HapticsSynthesis
import OrderedCollections

/// What the page draws for one pattern: the pattern as the project's AHAP writer writes it, its
/// events and curves with their places in the JSON, the effective intensity and sharpness, and
/// every lint finding. docs/studio.md ("API") is the contract; change both together.
package enum PatternView {
    /// A pattern that decoded, or the findings that say why it did not.
    package struct Analysis: Sendable {
        package var pattern: HapticPattern?
        package var findings: [Diagnostic]
    }

    /// Decodes and lints `bytes` as the file at `path` would be (AHAP, or a `.haptic` clip by its
    /// name), collecting every finding instead of stopping at the first error.
    package static func analyze(_ bytes: [UInt8], path: String) -> Analysis {
        do {
            let document = try PatternFile.decode(bytes, path: path)
            return Analysis(pattern: document.pattern, findings: document.diagnostics)
        } catch {
            return Analysis(pattern: nil, findings: error.diagnostics.isEmpty ? [error.diagnostic] : error.diagnostics)
        }
    }

    /// The view of `analysis`. `ahap` is what the page edits: the writer's output of the decoded
    /// pattern, or (when it did not decode) `fallback`, the JSON the page sent, so an edit that
    /// broke the pattern is shown with its findings rather than lost.
    package static func make(
        path: String, file: (version: String, text: String?)?, analysis: Analysis, fallback: JSONValue? = nil,
        locatesLines: Bool, milliseconds: Double
    ) -> JSONValue {
        var view: OrderedDictionary<String, JSONValue> = [
            "path": .string(path), "format": .string(StudioFiles.format(of: path)),
            "version": file.map { .string($0.version) } ?? .null,
        ]
        // The file's text is asked for (`text=1`): for a 1,000-event file it is half a megabyte the
        // page does not need to draw or edit.
        if let text = file?.text { view["text"] = .string(text) }
        if let pattern = analysis.pattern {
            let written = AHAP.encode(pattern)
            view["ahap"] = (try? JSONValue(parsing: written)) ?? .null
            view["duration"] = .number(pattern.duration)
            view["metadata"] = .object(pattern.metadata)
            let (events, parameters, curves) = elements(of: pattern)
            view["events"] = .array(events)
            view["parameters"] = .array(parameters)
            view["curves"] = .array(curves)
            view["effective"] = effective(pattern)
            view["waveform"] = waveform(pattern)
        } else {
            view["ahap"] = fallback ?? .null
            view["duration"] = .number(0)
            view["metadata"] = .object([:])
            view["events"] = .array([])
            view["parameters"] = .array([])
            view["curves"] = .array([])
            view["effective"] = .object(["times": .array([]), "intensity": .array([]), "sharpness": .array([])])
            view["waveform"] = .object(["seconds": .number(0), "min": .array([]), "max": .array([])])
        }
        view["diagnostics"] = .array(
            analysis.findings.map { finding(for: $0, in: analysis.pattern, locatesLines: locatesLines) })
        view["analyzeMilliseconds"] = .number((milliseconds * 1000).rounded() / 1000)
        return .object(view)
    }

    /// Events, dynamic parameters and curves, each with its index in `Pattern` and its JSON path.
    static func elements(of pattern: HapticPattern) -> (
        events: [JSONValue], parameters: [JSONValue], curves: [JSONValue]
    ) {
        var events: [JSONValue] = []
        var parameters: [JSONValue] = []
        var curves: [JSONValue] = []
        for (index, element) in pattern.elements.enumerated() {
            switch element {
            case .event(let event):
                events.append(
                    .object([
                        "index": .number(Double(index)), "type": .string(kind(of: event.type)),
                        "time": .number(event.time),
                        "duration": .number(event.type.requiresDuration ? event.duration ?? 0 : 0),
                        "intensity": .number(decimal(event.value(of: intensity(for: event.type)))),
                        "sharpness": .number(decimal(event.value(of: .hapticSharpness))),
                        "jsonPath": .string("Pattern[\(index)].Event"),
                    ]))
            case .parameter(let parameter):
                parameters.append(
                    .object([
                        "index": .number(Double(index)), "parameter": .string(parameter.id.rawValue),
                        "time": .number(parameter.time), "value": .number(decimal(parameter.value)),
                        "jsonPath": .string("Pattern[\(index)].Parameter"),
                    ]))
            case .curve(let curve):
                curves.append(
                    .object([
                        "index": .number(Double(index)), "parameter": .string(curve.id.rawValue),
                        "time": .number(curve.time),
                        "points": .array(
                            curve.controlPoints.map {
                                .object(["time": .number(curve.time + $0.time), "value": .number(decimal($0.value))])
                            }),
                        "jsonPath": .string("Pattern[\(index)].ParameterCurve"),
                    ]))
            }
        }
        return (events, parameters, curves)
    }

    /// A `Float` as the decimal it was written as (0.9, not 0.8999999761581421).
    static func decimal(_ value: Float) -> Double { Double(value.description) ?? Double(value) }

    static func kind(of type: EventType) -> String {
        switch type {
        case .hapticTransient: "transient"
        case .hapticContinuous: "continuous"
        case .audioContinuous: "audioContinuous"
        case .audioCustom: "audioCustom"
        }
    }

    static func intensity(for type: EventType) -> EventParameterID {
        type.isHaptic ? .hapticIntensity : .audioVolume
    }

    /// The effective intensity and sharpness (after curves and dynamic parameters), as three
    /// parallel arrays rounded to what a screen can show.
    static func effective(_ pattern: HapticPattern) -> JSONValue {
        let samples = EffectiveTimeline.samples(for: pattern)
        func rounded(_ value: Double, _ scale: Double) -> JSONValue { .number((value * scale).rounded() / scale) }
        return .object([
            "times": .array(samples.map { rounded($0.time, 1e6) }),
            "intensity": .array(samples.map { rounded(Double($0.intensity), 1e4) }),
            "sharpness": .array(samples.map { rounded(Double($0.sharpness), 1e4) }),
        ])
    }

    /// Columns of the rendered waveform the page draws (as `haptic plot` draws it).
    static let waveformColumns = 2_000
    /// Longest stretch rendered for the drawing; the page says when a pattern is longer.
    static let waveformSeconds = 300.0

    /// The pattern rendered (default voice, 48 kHz) as the minimum and maximum of each of up to
    /// ``waveformColumns`` equal stretches: what every edit's re-render gives the page to draw.
    static func waveform(_ pattern: HapticPattern) -> JSONValue {
        let format = AudioFormat(sampleRate: 48_000, channels: 1)
        let empty: JSONValue = .object(["seconds": .number(0), "min": .array([]), "max": .array([])])
        var renderer: PatternRenderer
        do {
            renderer = try PatternRenderer(pattern: pattern, format: format)
        } catch {
            return empty
        }
        let frames = Int(min(renderer.frameCount, Int64(waveformSeconds * 48_000)))
        guard frames > 0 else { return empty }
        let columns = min(waveformColumns, frames)
        var low = [Float](repeating: .infinity, count: columns)
        var high = [Float](repeating: -.infinity, count: columns)
        var block = [Float](repeating: 0, count: 8_192)
        var done = 0
        block.withUnsafeMutableBufferPointer { block in
            while done < frames {
                let count = renderer.render(
                    into: UnsafeMutableBufferPointer(rebasing: block[..<min(block.count, frames - done)]))
                guard count > 0 else { break }
                for i in 0..<count {
                    let column = (done + i) * columns / frames
                    low[column] = min(low[column], block[i])
                    high[column] = max(high[column], block[i])
                }
                done += count
            }
        }
        func rounded(_ values: [Float]) -> JSONValue {
            .array(values.map { .number($0.isFinite ? (Double($0) * 1000).rounded() / 1000 : 0) })
        }
        return .object([
            "seconds": .number(Double(frames) / 48_000), "min": rounded(low), "max": rounded(high),
            "truncated": .bool(Int64(frames) < renderer.frameCount),
        ])
    }

    /// A finding as the page lists it; `time` is where on the timeline its element starts.
    static func finding(for diagnostic: Diagnostic, in pattern: HapticPattern?, locatesLines: Bool) -> JSONValue {
        var out: OrderedDictionary<String, JSONValue> = [
            "severity": .string(diagnostic.severity.rawValue), "code": .string(diagnostic.code.rawValue),
            "message": .string(diagnostic.message), "jsonPath": .string(diagnostic.path.description),
        ]
        if locatesLines, let location = diagnostic.location {
            out["line"] = .number(Double(location.line))
            out["column"] = .number(Double(location.column))
        }
        if let index = elementIndex(diagnostic.path) {
            out["element"] = .number(Double(index))
            if let pattern, index < pattern.elements.count { out["time"] = .number(pattern.elements[index].time) }
        }
        return .object(out)
    }

    /// `i` in a path `Pattern[i]...`.
    static func elementIndex(_ path: JSONPath) -> Int? {
        guard path.components.count >= 2, path.components[0] == .key("Pattern"),
            case .index(let i) = path.components[1]
        else { return nil }
        return i
    }
}

extension JSONValue {
    /// The member `key` of an object.
    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    var string: String? { if case .string(let s) = self { s } else { nil } }
    var number: Double? { if case .number(let n) = self { n } else { nil } }
    var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
}
