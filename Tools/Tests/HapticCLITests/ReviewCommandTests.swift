import Foundation
import Testing
import _ToolTestSupport

/// `haptic plot`, `haptic diff`, `haptic review`: exit codes, messages and the files written.
struct PlotDiffReviewTests {
    static let heartbeat = Haptic.fixtures.appending(path: "ahap/Heartbeat.ahap").path(percentEncoded: false)

    @Test func plotWritesAnSVGTimelineWithEffectiveLinesAndWaveform() async throws {
        let scratch = try ScratchFolder()
        let result = try await Haptic.run(["plot", Self.heartbeat, "-o", scratch.path("heartbeat.svg")])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let svg = try String(contentsOfFile: scratch.path("heartbeat.svg"), encoding: .utf8)
        #expect(svg.hasPrefix("<svg") || svg.hasPrefix("<?xml"))
        #expect(svg.contains("Heartbeat.ahap"))
        #expect(svg.contains("class=\"effective-intensity\""))
        #expect(svg.contains("class=\"effective-sharpness\""))
        #expect(svg.contains("rendered waveform"))
        #expect(svg.contains("time (s)"))
    }

    @Test func plotToPNGConvertsWithRsvgOrSaysWhatToInstall() async throws {
        let scratch = try ScratchFolder()
        let result = try await Haptic.run(["plot", Self.heartbeat, "-o", scratch.path("boing.png"), "--width", "800"])
        let installed = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .contains { FileManager.default.isExecutableFile(atPath: "\($0)/rsvg-convert") }
        if installed {
            #expect(result.status == 0)
            let png = [UInt8](try Data(contentsOf: scratch.url.appending(path: "boing.png")))
            #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
            let width = png[16..<20].reduce(0) { $0 << 8 | Int($1) }
            #expect(width == 800)
        } else {
            #expect(result.status == 1)
            #expect(
                result.stderr.contains(
                    "PNG output needs rsvg-convert, which is not installed (Debian/Ubuntu: apt install librsvg2-bin)"))
        }
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).allSatisfy { !$0.hasSuffix(".tmp") })
    }

    @Test func plotRefusesOtherImageFormats() async throws {
        let result = try await Haptic.run(["plot", Self.heartbeat, "-o", "/tmp/x.jpg"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("-o must name a .svg or .png file (got '/tmp/x.jpg')"))
    }

    @Test func diffOfIdenticalPatternsExitsZero() async throws {
        let result = try await Haptic.run(["diff", Self.heartbeat, Self.heartbeat])
        #expect(result.status == 0)
        #expect(result.output == "No differences.\n")
    }

    @Test func diffOfChangedPatternsPrintsChangesExitsOneAndDrawsTheOverlay() async throws {
        let scratch = try ScratchFolder()
        let original = try String(contentsOfFile: Self.heartbeat, encoding: .utf8)
        // Move the transient at 0 to 0.1 s.
        let moved = original.replacingOccurrences(of: "\"Time\": 0,", with: "\"Time\": 0.1,")
        try #require(moved != original)
        let b = try scratch.write("Heartbeat-moved.ahap", moved)
        let result = try await Haptic.run(["diff", Self.heartbeat, b, "-o", scratch.path("diff.svg")])
        #expect(result.status == 1)
        #expect(result.output.contains("Events: 1 moved"))
        #expect(result.output.contains("Unchanged elements: "))
        let svg = try String(contentsOfFile: scratch.path("diff.svg"), encoding: .utf8)
        #expect(svg.contains("Heartbeat.ahap → Heartbeat-moved.ahap"))
        #expect(svg.contains("class=\"change moved\""))
    }

    @Test func diffWithAnUnreadableSideExitsTwo() async throws {
        let result = try await Haptic.run(["diff", Self.heartbeat, "/nonexistent/b.ahap"])
        #expect(result.status == 2)
        #expect(result.output == "")
        #expect(result.stderr.contains("/nonexistent/b.ahap"))
        #expect(result.stderr.contains("does not exist"))
    }

    static let hostile = """
        {"Version": 1.0, "Metadata": {"Description": "<script>alert(1)</script><img src=x onerror=alert(2)>"},
         "Pattern": [{"Event": {"Time": 0.0, "EventType": "HapticTransient", "EventParameters": [
           {"ParameterID": "HapticIntensity", "ParameterValue": 0.9}]}}]}
        """

    @Test func reviewListsGoodAndBadFilesEscapesTextAndExitsOneOnErrors() async throws {
        let scratch = try ScratchFolder()
        try scratch.write("in/nested/hostile.ahap", Self.hostile)
        try scratch.write("in/broken.ahap", "{\"Version\": 1.0, \"Pattern\": [")
        try scratch.write("in/notes.txt", "not a pattern")
        try scratch.write("in/run.jsonl", "{}\n")
        let page = scratch.path("review.html")
        let result = try await Haptic.run(["review", scratch.path("in"), Self.heartbeat, "-o", page])
        #expect(result.status == 1, "broken.ahap has an error")
        #expect(result.stderr.contains("skipping \(scratch.path("in/run.jsonl")): not a `haptic order` event log"))
        #expect(result.stderr.contains("review: 3 entries: 1 error, "))
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.components(separatedBy: "<section class=\"entry\"").count - 1 == 3)
        #expect(html.components(separatedBy: "<audio controls=").count - 1 == 2, "no preview for the broken file")
        #expect(html.contains("Not plotted: the file could not be loaded"))
        #expect(html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(!html.contains("<script"))
        #expect(!html.contains("<img"))
        // Folder contents sorted, then the file given.
        let order = ["broken.ahap", "hostile.ahap", "Heartbeat.ahap"].map {
            html.range(of: "</span>\($0)</h2>")?.lowerBound
        }
        #expect(order.allSatisfy { $0 != nil })
        #expect(order.compactMap { $0 }.sorted() == order.compactMap { $0 })
    }

    /// `--presets` lists every built-in preset, from any folder, with its plot and preview.
    @Test func presetsAreListedFromAnyFolder() async throws {
        let scratch = try ScratchFolder()
        let result = try await Haptic.run(
            ["review", Self.heartbeat, "--presets", "-o", scratch.path("r.html")], in: scratch.url)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.contains("review: 18 entries: 0 errors, 0 warnings"), "\(result.stderr)")
        let html = try String(contentsOfFile: scratch.path("r.html"), encoding: .utf8)
        for name in ["success", "warning", "error", "selection", "impact-heavy", "impact-soft", "level-change"] {
            #expect(html.contains("</span>\(name)</h2>"), "no entry for \(name)")
        }
        // Each preset is badged twice: in the contents and on its own heading.
        #expect(html.components(separatedBy: "<span class=\"badge kind\">preset</span>").count - 1 == 2 * 17)
        #expect(html.components(separatedBy: "<audio controls=").count - 1 == 18)
    }

    @Test func reviewWithNothingToReviewFails() async throws {
        let scratch = try ScratchFolder()
        let result = try await Haptic.run(["review", scratch.url.path, "-o", scratch.path("r.html")])
        #expect(result.status == 1)
        #expect(result.stderr == "haptic: no AHAP files found; nothing to review\n")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("r.html")))
    }
}

/// The page `haptic review` writes for every fixture and the bundled patterns, opened in headless
/// Chromium (Debian package `chromium`; CI installs it). Fails, never skips, without Chromium.
@Suite(.serialized) struct ReviewInChromiumTests {
    @Test(.timeLimit(.minutes(2))) func reviewOfAllFixturesLoadsWithAnEntryAndAudioPerPattern() async throws {
        let scratch = try ScratchFolder()
        let page = scratch.url.appending(path: "review.html")
        let fixtures = Haptic.fixtures.appending(path: "ahap").path(percentEncoded: false)
        let result = try await Haptic.run([
            "review", fixtures, Haptic.patterns.path(percentEncoded: false), "-o", page.path,
        ])
        #expect(result.status == 0, "the fixtures have warnings, no errors")
        let expected = try [Haptic.fixtures.appending(path: "ahap"), Haptic.patterns].map { base in
            try FileManager.default.subpathsOfDirectory(atPath: base.path).count { $0.hasSuffix(".ahap") }
        }.reduce(0, +)
        #expect(expected >= 5)

        let chromium = try HeadlessChromium()
        let dom = try await chromium.dumpDOM(url: page)
        #expect(dom.contains("data-review-page=\"swift-haptics\""))
        #expect(dom.components(separatedBy: "<section class=\"entry\"").count - 1 == expected)
        #expect(dom.components(separatedBy: "<audio controls=").count - 1 == expected)
        #expect(dom.components(separatedBy: "src=\"data:audio/wav;base64,UklGR").count - 1 == expected, "RIFF WAV data")
        #expect(dom.contains(">Heartbeat.ahap</h2>"))

        let shot = scratch.url.appending(path: "review.png")
        try await chromium.screenshot(url: page, to: shot, size: (1280, 2400))
        let png = try Data(contentsOf: shot)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(png.count > 50_000, "a rendered page, not a blank image")
        if let keep = ProcessInfo.processInfo.environment["REVIEW_SCREENSHOT"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(at: shot, to: URL(filePath: keep))
        }
    }

    /// A `haptic order` session's log joins the page: its feedback at the logged times, playable.
    @Test func anOrderSessionsLogIsReviewedWithItsFeedback() async throws {
        let scratch = try ScratchFolder()
        let script = try scratch.write(
            "order.txt",
            "quantity +1\nwait 0.2\ntype Chocolate\nname Ada\nstreet 1 Loop\ncity Cupertino\nzip 95014\nsubmit\n")
        let run = try await Haptic.run([
            "order", "--store", scratch.path("store"), "--log", scratch.path("logs/session.jsonl"), "--device", "null",
            "--script", script,
        ])
        #expect(run.status == 0, "\(run.stderr)")
        try FileManager.default.copyItem(
            atPath: scratch.path("logs/session.jsonl"), toPath: scratch.path("logs/copy.txt"))
        let corrupted =
            try String(contentsOfFile: scratch.path("logs/session.jsonl"), encoding: .utf8) + "{\"t\": \"soon\"}\n"
        try scratch.write("logs/session.jsonl", corrupted)
        let page = scratch.path("review.html")
        let result = try await Haptic.run(["review", scratch.path("logs"), "-o", page])
        #expect(result.status == 1, "the corrupted line is an error finding: \(result.stderr)")
        let html = try String(contentsOfFile: page, encoding: .utf8)
        #expect(html.components(separatedBy: "<section class=\"entry\"").count - 1 == 1)
        #expect(html.contains("session.jsonl"))
        #expect(html.contains("order log"))
        #expect(html.contains("quantity → increase"))
        #expect(html.contains("checkout → success"))
        #expect(html.components(separatedBy: "<audio controls=").count - 1 == 1)
        #expect(html.contains("not an event"))
    }
}
