import Foundation
import HapticsCore
import HapticsReview
import HapticsSynthesis
import OrderedCollections
import Testing

@Suite struct ReviewPageTests {
    typealias S = Support

    static let hostile = "<script>alert(1)</script><img src=x onerror=alert(2)>"

    /// What `haptic review` renders previews at: 48 kHz mono.
    static let format = AudioFormat(sampleRate: 48_000, channels: 1)

    /// A page with three entries from real fixtures; the second carries hostile text everywhere.
    static func page() throws -> (html: String, entries: [ReviewEntry]) {
        var entries: [ReviewEntry] = []
        for (file, kind) in [
            ("ahap/Heartbeat.ahap", ReviewEntry.Kind.pattern), ("ahap/Kit.ahap", .preset),
            ("ahap/Curve17.ahap", .orderLog),
        ] {
            var pattern = try S.loadAHAP(file)
            var findings: [Diagnostic] = []
            var title = URL(filePath: file).lastPathComponent
            if kind == .preset {
                pattern.metadata["Description"] = .string(hostile)
                pattern.metadata["Tags"] = .array([.string("a\"b"), .number(2), .bool(true)])
                title = "Boing " + hostile
                findings = [
                    Diagnostic(
                        .warning, code: .unknownKey, "Unknown key \"ParameterCurves\" \(hostile) is ignored.",
                        at: JSONPath.root.key("Pattern").index(3), location: SourceLocation(line: 41, column: 9)),
                    Diagnostic(
                        .error, code: .missingDuration, "HapticContinuous needs an EventDuration.",
                        at: JSONPath.root.key("Pattern").index(0).key("Event")),
                ]
            }
            let samples = try PatternRenderer.render(pattern, format: Self.format)
            let input = PlotInput(title: title, pattern: pattern, samples: samples, sampleRate: Self.format.sampleRate)
            let wav = WAV.encode(
                AudioClip(sampleRate: Self.format.sampleRate, channels: 1, samples: samples), sampleFormat: .s16)
            entries.append(
                ReviewEntry(
                    path: kind == .preset ? "Patterns/\(hostile).ahap" : file, kind: kind, plot: input, wavBytes: wav,
                    findings: findings))
        }
        let html = ReviewPage.html(title: "Design review <b>", entries: entries, generated: "2025-06-05 10:00 by test")
        return (html, entries)
    }

    @Test func hostileTextAppearsOnlyEscaped() throws {
        let html = try Self.page().html
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img"))
        // The only "onerror" is inside the escaped text, never an attribute.
        #expect(
            html.components(separatedBy: "onerror").count
                == html.components(separatedBy: "&lt;img src=x onerror=alert(2)&gt;").count)
        #expect(!html.contains("<b>"))
        let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;"
        // Title in the contents and the heading, path, metadata, lint message, SVG title/aria-label.
        #expect(html.components(separatedBy: escaped).count - 1 >= 6)
        #expect(html.contains("<td>[&quot;a\\&quot;b&quot;, 2, true]</td>"))
    }

    @Test func pageIsWellFormedAndSelfContained() throws {
        let (html, entries) = try Self.page()
        let parsed = S.parseXML(html)
        #expect(parsed.error == nil)
        #expect(parsed.elements.first == "html")
        #expect(parsed.elements.count { $0 == "section" } == entries.count)
        #expect(parsed.elements.count { $0 == "audio" } == entries.count)
        #expect(parsed.elements.count { $0 == "svg" } == entries.count)
        #expect(!parsed.elements.contains("script"))
        #expect(!parsed.elements.contains("link"))
        #expect(
            html.contains(
                "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src &#39;none&#39;; img-src data:; "
                    + "media-src data:; style-src &#39;unsafe-inline&#39;\"/>"))
        // Nothing fetchable: every src/href is a data: URI or an in-page anchor.
        let references = try S.captures(#"(?:src|href)\s*=\s*"([^"]*)""#, in: html)
        #expect(references.count == entries.count * 2)
        for reference in references {
            #expect(reference.hasPrefix("data:audio/wav;base64,") || reference.hasPrefix("#entry-"))
        }
        #expect(!html.contains("url("))
        #expect(!html.contains("@import"))
        // The only http URL is the SVG namespace name, which is never fetched.
        let urls = try S.captures(#"(https?://[^\s"<]*)"#, in: html)
        #expect(Set(urls) == ["http://www.w3.org/2000/svg"])
    }

    @Test func audioIsTheEntrysWavFile() throws {
        let (html, entries) = try Self.page()
        let sources = try S.captures(
            #"<audio controls="controls" preload="metadata" src="data:audio/wav;base64,([^"]*)""#, in: html)
        #expect(sources.count == entries.count)
        for (source, entry) in zip(sources, entries) {
            #expect(Data(base64Encoded: source).map(Array.init) == entry.wavBytes)
        }
    }

    @Test func tableOfContentsStatisticsAndFindings() throws {
        let (html, entries) = try Self.page()
        #expect(try S.captures(#"<li><a href="(#entry-\d+)">"#, in: html) == ["#entry-1", "#entry-2", "#entry-3"])
        #expect(
            try S.captures(#"<section class="entry" id="(entry-\d+)">"#, in: html) == ["entry-1", "entry-2", "entry-3"])
        #expect(html.contains("<span class=\"badge kind\">order log</span>"))
        let heartbeats = entries[0].statistics
        #expect(html.contains("<dt>Transients</dt><dd>\(heartbeats.transientCount)</dd>"))
        #expect(html.contains("<dt>Closest transients</dt><dd>13 ms apart</dd>"))
        #expect(html.contains("<li class=\"finding warning\"><span class=\"severity\">warning</span>"))
        #expect(html.contains("<li class=\"finding error\"><span class=\"severity\">error</span>"))
        #expect(
            html.contains(
                "<code>Patterns/&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;.ahap:41:9</code> <code>Pattern[3]</code>"
            ))
        #expect(html.contains("<span class=\"count error\">1 error</span>"))
        #expect(html.contains("<p class=\"clean\">No findings.</p>"))
        #expect(html.contains("<tr><th scope=\"row\">Project</th><td>swift-haptics fixtures</td></tr>"))
    }

    @Test func findingPrintsFileLineAndPath() {
        let finding = ReviewFinding(
            file: "Boing.ahap",
            Diagnostic(
                .warning, code: .valueClamped, "HapticIntensity 1.5 was clamped to 1.",
                at: JSONPath.root.key("Pattern").index(2),
                location: SourceLocation(line: 12, column: 5)))
        #expect(
            finding.description
                == "Boing.ahap:12:5: warning: HapticIntensity 1.5 was clamped to 1. [value-clamped] (at Pattern[2])")
    }

    @Test func diffOverlayMarksEachChange() throws {
        let a = try S.loadAHAP("ahap/Heartbeat.ahap")
        var b = a
        b.elements.remove(at: 2)
        b.elements[0] = S.transient(0.03, 1, 0.2)
        b.elements.append(S.transient(2.9, 1, 1))
        let diff = PatternDiff.compare(a, b)
        #expect(diff.changes.map(\.kind).sorted { $0.rawValue < $1.rawValue } == [.added, .moved, .removed])
        let svg = DiffPlot.svg(
            a: PlotInput(title: "before", pattern: a, samples: try PatternRenderer.render(a, format: Self.format)),
            b: PlotInput(title: "after", pattern: b, samples: try PatternRenderer.render(b, format: Self.format)),
            diff: diff)
        #expect(S.parseXML(svg).error == nil)
        if let keep = ProcessInfo.processInfo.environment["REVIEW_DIFF_SVG"] {
            try Data(svg.utf8).write(to: URL(filePath: keep))
        }
        #expect(try S.captures(#"<g class="change (\w+)">"#, in: svg).sorted() == ["added", "moved", "removed"])
        let legend = try S.captures(#"class="legend-label"[^>]*>([^<]*)<"#, in: svg)
        #expect(legend.prefix(2) == ["A: before", "B: after"])
        #expect(legend.contains("added") && legend.contains("removed") && legend.contains("moved"))
        #expect(!legend.contains("changed"))
        // Both sides are drawn: A in blue, B in orange.
        #expect(svg.contains("stroke=\"#1971c2\"") && svg.contains("stroke=\"#e8590c\""))
        let same = DiffPlot.svg(
            a: PlotInput(title: "a", pattern: a), b: PlotInput(title: "b", pattern: a), diff: PatternDiff.compare(a, a))
        #expect(same.contains("No differences"))
        #expect(!same.contains("class=\"change "))
    }
}
