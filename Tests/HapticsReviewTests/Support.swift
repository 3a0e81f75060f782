import Foundation
import HapticsCore
import OrderedCollections
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Test helpers: fixture loading, a small AHAP reader, a click renderer, a WAV writer and an XML checker.
///
/// The project's real AHAP codec and synthesizer live on other branches; these helpers only need
/// to turn real fixture files into plausible plot inputs.
enum Support {
    static let packageRoot = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
    static let fixtures = packageRoot.appending(path: "../shared/fixtures").standardizedFileURL

    /// Reads the subset of AHAP the plots need (events, parameters, curves, metadata).
    static func loadAHAP(_ relativePath: String) throws -> HapticPattern {
        let data = try Data(contentsOf: fixtures.appending(path: relativePath))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        var pattern = HapticPattern(version: root["Version"] as? Double)
        if let metadata = root["Metadata"] as? [String: Any] {
            for key in metadata.keys.sorted() {
                if let s = metadata[key] as? String { pattern.metadata[key] = .string(s) }
            }
        }
        for element in root["Pattern"] as? [[String: Any]] ?? [] {
            if let e = element["Event"] as? [String: Any],
                let type = EventType(rawValue: e["EventType"] as? String ?? "")
            {
                let parameters = (e["EventParameters"] as? [[String: Any]] ?? []).compactMap { p -> EventParameter? in
                    guard let id = EventParameterID(rawValue: p["ParameterID"] as? String ?? ""),
                        let v = (p["ParameterValue"] as? NSNumber)?.floatValue
                    else { return nil }
                    return EventParameter(id, v)
                }
                pattern.elements.append(
                    .event(
                        HapticEvent(
                            time: (e["Time"] as? NSNumber)?.doubleValue ?? 0, type: type,
                            duration: (e["EventDuration"] as? NSNumber)?.doubleValue, parameters: parameters,
                            waveformPath: e["EventWaveformPath"] as? String)))
            } else if let p = element["Parameter"] as? [String: Any],
                let id = DynamicParameterID(rawValue: p["ParameterID"] as? String ?? "")
            {
                pattern.elements.append(
                    .parameter(
                        DynamicParameter(
                            id, value: (p["ParameterValue"] as? NSNumber)?.floatValue ?? 0,
                            time: (p["Time"] as? NSNumber)?.doubleValue ?? 0)))
            } else if let c = element["ParameterCurve"] as? [String: Any],
                let id = DynamicParameterID(rawValue: c["ParameterID"] as? String ?? "")
            {
                let points = (c["ParameterCurveControlPoints"] as? [[String: Any]] ?? []).map {
                    ParameterCurve.ControlPoint(
                        time: ($0["Time"] as? NSNumber)?.doubleValue ?? 0,
                        value: ($0["ParameterValue"] as? NSNumber)?.floatValue ?? 0)
                }
                pattern.elements.append(
                    .curve(ParameterCurve(id, time: (c["Time"] as? NSNumber)?.doubleValue ?? 0, controlPoints: points)))
            }
        }
        return pattern
    }

    /// A rough audible rendering: decaying sine clicks for transients, a steady tone for continuous events.
    static func renderClicks(_ pattern: HapticPattern, sampleRate: Int = 8_000) -> [Float] {
        let count = Int((pattern.duration + 0.15) * Double(sampleRate))
        var out = [Float](repeating: 0, count: count)
        for event in pattern.events where event.type.isHaptic {
            let start = Int(event.time * Double(sampleRate))
            let intensity = event.value(of: .hapticIntensity)
            let frequency = 80 + 220 * Double(event.value(of: .hapticSharpness))
            let length =
                event.type == .hapticTransient ? sampleRate / 25 : Int((event.duration ?? 0) * Double(sampleRate))
            for i in 0..<length where start + i < count {
                let t = Double(i) / Double(sampleRate)
                let envelope = event.type == .hapticTransient ? exp(-t * 90) : 0.6
                out[start + i] += Float(sin(2 * .pi * frequency * t) * envelope) * intensity * 0.8
            }
        }
        return out.map { max(-1, min(1, $0)) }
    }

    /// A 16-bit mono PCM WAV file.
    static func wav(_ samples: [Float], sampleRate: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        func u32(_ v: UInt32) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
        func u16(_ v: UInt16) { withUnsafeBytes(of: v.littleEndian) { bytes += $0 } }
        bytes += Array("RIFF".utf8)
        u32(UInt32(36 + samples.count * 2))
        bytes += Array("WAVEfmt ".utf8)
        u32(16)
        u16(1)
        u16(1)
        u32(UInt32(sampleRate))
        u32(UInt32(sampleRate * 2))
        u16(2)
        u16(16)
        bytes += Array("data".utf8)
        u32(UInt32(samples.count * 2))
        for s in samples { u16(UInt16(bitPattern: Int16((s * 32767).rounded()))) }
        return bytes
    }

    /// Parses `text` as XML; returns the parser's error (nil when well-formed) and the element names seen.
    static func parseXML(_ text: String) -> (error: String?, elements: [String]) {
        final class Collector: NSObject, XMLParserDelegate {
            var elements: [String] = []
            func parser(
                _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
            ) {
                elements.append(elementName)
            }
        }
        let parser = XMLParser(data: Data(text.utf8))
        let collector = Collector()
        parser.delegate = collector
        let ok = parser.parse()
        return (ok ? nil : (parser.parserError.map { "\($0)" } ?? "parse failed"), collector.elements)
    }

    /// Every match of `pattern` (a regular expression) in `text`, as its first capture group.
    static func captures(_ pattern: String, in text: String) throws -> [String] {
        let regex = try NSRegularExpression(pattern: pattern)
        let range = NSRange(text.startIndex..., in: text)
        return regex.matches(in: text, range: range).compactMap { match in
            Range(match.range(at: 1), in: text).map { String(text[$0]) }
        }
    }

    static func transient(_ time: Double, _ intensity: Float = 1, _ sharpness: Float = 0.5) -> PatternElement {
        .event(
            HapticEvent(
                time: time, type: .hapticTransient,
                parameters: [.init(.hapticIntensity, intensity), .init(.hapticSharpness, sharpness)]))
    }

    static func continuous(_ time: Double, _ duration: Double, _ intensity: Float = 1, _ sharpness: Float = 0.5)
        -> PatternElement
    {
        .event(
            HapticEvent(
                time: time, type: .hapticContinuous, duration: duration,
                parameters: [.init(.hapticIntensity, intensity), .init(.hapticSharpness, sharpness)]))
    }
}
