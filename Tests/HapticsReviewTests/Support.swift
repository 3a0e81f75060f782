import Foundation
import HapticsCore
import OrderedCollections
import Testing
import _HapticsTestSupport

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Test helpers: fixture loading, an XML checker, a regex capture and pattern builders.
enum Support {
    static let fixtures = TestFiles.fixtures

    /// The fixture at `relativePath` (under Tests/Fixtures), decoded by the product's AHAP decoder.
    static func loadAHAP(_ relativePath: String) throws -> HapticPattern {
        let bytes = try Data(contentsOf: fixtures.appending(path: relativePath))
        return try AHAP.decode(Array(bytes), file: relativePath).pattern
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
