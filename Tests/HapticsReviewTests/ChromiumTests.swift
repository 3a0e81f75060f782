import Foundation
import Testing
import _HapticsTestSupport

/// Opens the review page in headless Chromium (Debian package `chromium`). Fails, never skips,
/// when Chromium is missing: CI installs it.
@Suite(.serialized) struct ChromiumTests {
    @Test(.timeLimit(.minutes(2))) func pageLoadsWithEntriesAudioAndNoInjectedElements() async throws {
        let directory = FileManager.default.temporaryDirectory.appending(path: "review-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (html, entries) = try ReviewPageTests.page()
        let page = directory.appending(path: "review.html")
        try Data(html.utf8).write(to: page)

        let chromium = try HeadlessChromium()
        let dom = try await chromium.dumpDOM(url: page)
        #expect(dom.contains("data-review-page=\"swift-haptics\""), "the page's own marker")
        #expect(dom.components(separatedBy: "<section class=\"entry\"").count - 1 == entries.count)
        #expect(dom.components(separatedBy: "<audio controls=").count - 1 == entries.count)
        #expect(dom.components(separatedBy: "<svg ").count - 1 == entries.count)
        #expect(!dom.contains("<script"), "no script element exists in the DOM")
        #expect(!dom.contains("<img"), "no injected image element exists in the DOM")
        #expect(dom.contains("&lt;script&gt;alert(1)&lt;/script&gt;&lt;img src=x onerror=alert(2)&gt;"))

        let screenshot = directory.appending(path: "out.png")
        try await chromium.screenshot(url: page, to: screenshot, size: (1280, 2000))
        let png = try Data(contentsOf: screenshot)
        #expect(Array(png.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        #expect(png.count > 20_000, "a rendered page, not a blank image")
        if let keep = ProcessInfo.processInfo.environment["REVIEW_SCREENSHOT"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(at: screenshot, to: URL(filePath: keep))
            try Data(html.utf8).write(to: URL(filePath: keep + ".html"))
        }
    }
}

@Suite struct HeadlessChromiumErrorTests {
    @Test func aFailingRunIsAnErrorNamingStatusAndArguments() async throws {
        let chromium = HeadlessChromium(executable: URL(filePath: "/bin/false"))
        let error = await #expect(throws: HeadlessChromium.Failure.self) {
            try await chromium.dumpDOM(url: URL(filePath: "/tmp/page.html"))
        }
        guard case .exited(let status, let arguments, let log) = try #require(error) else {
            Issue.record("expected .exited, got \(String(describing: error))")
            return
        }
        #expect(status == 1)
        #expect(arguments.first == "--headless")
        #expect(arguments.suffix(2) == ["--dump-dom", "file:///tmp/page.html"])
        #expect(log == "")
        #expect(error?.description.hasPrefix("chromium exited with status 1 for --headless --no-sandbox ") == true)
    }

    @Test func missingChromiumSaysHowToInstallIt() {
        let failure = HeadlessChromium.Failure.notInstalled(searched: ["/usr/bin/chromium", "/opt/bin/chromium"])
        #expect(
            failure.description
                == "chromium is not installed (Debian/Ubuntu: apt-get install -y chromium); looked for "
                + "/usr/bin/chromium, /opt/bin/chromium")
    }
}
