import Foundation
import HapticsStudio
import Testing
import _ToolTestSupport

/// A pattern of thousands of events in headless Chromium (issue 28, "fluid on big files"): the
/// drawing of a dense analysis stays what it was while a drag redraws.
@Suite(.serialized) struct StudioBigPatternTests {
    /// 3,000 transients 10 ms apart (several per pixel with the whole pattern on screen), and a
    /// 0.3 s continuous event every second.
    static let dense: String = {
        var entries: [String] = []
        for n in 0..<3_000 {
            let level = 0.3 + 0.7 * Double((n * 7) % 10) / 9
            entries.append(
                #"{"Event": {"Time": \#(Double(n) / 100), "EventType": "HapticTransient", "EventParameters": "#
                    + #"[{"ParameterID": "HapticIntensity", "ParameterValue": \#(level)}]}}"#)
        }
        for k in 0..<30 {
            entries.append(
                #"{"Event": {"Time": \#(Double(k) + 0.005), "EventType": "HapticContinuous", "EventDuration": 0.3, "#
                    + #""EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.6}]}}"#)
        }
        return #"{"Version": 1, "Pattern": ["# + entries.joined(separator: ",\n") + "]}"
    }()

    static func open(_ studio: StudioHarness, _ page: DevToolsPage) async throws {
        try await page.navigate(to: studio.studio.url + "#pats%2Fdense.ahap")
        try await page.waitFor(
            "document.body.dataset.ready === '1' && studio.state.path === 'pats/dense.ahap' && !studio.state.analysis.inflight",
            timeout: 30)
    }

    /// With far more samples of the effective intensity than pixels, the page draws it per
    /// column, once per analysis (not on each move of a drag), and it shows where it was.
    @Test(.timeLimit(.minutes(3))) func aDenseAnalysisIsDrawnOncePerAnswerAndStillShows() async throws {
        try await StudioHarness.with(files: ["dense.ahap": Self.dense]) { studio in
            try await DevTools.withPage { page in
                try await Self.open(studio, page)
                let samples = try await page.number("studio.state.view.effective.times.length") ?? 0
                let columns = try await page.number("document.getElementById('timeline').clientWidth - 52") ?? 0
                #expect(samples > columns, "\(samples) samples, \(columns) columns")
                // The effective intensity is drawn: the series' colour just under its highest
                // sample (the fill is 18% of it over the background), nothing above the lane.
                let peak =
                    "(() => { const e = studio.state.view.effective; let best = 0; e.intensity.forEach((v, i) => { if (v > e.intensity[best]) best = i; }); return best; })()"
                let px = "Math.floor(studio.x(studio.state.view.effective.times[\(peak)])) + 0.4"
                let top = try await StudioDesignerTests.pixel(
                    page, px, "studio.laneY('intensity', studio.state.view.effective.intensity[\(peak)]) + 0.2")
                #expect(top.count == 4 && top[2] > 200, "the series' bar at its peak: \(top)")

                let layers = try await page.number("studio.metrics.seriesLayers") ?? -1
                #expect(layers >= 1, "the series drawn per column")
                let draws = try await page.number("studio.metrics.draws") ?? 0
                let analyses = try await page.number("studio.metrics.analyses") ?? 0
                let (x, y) = try await StudioBrowserTests.handle(of: 1_500, page)
                try await page.drag(from: (x, y), to: (x + 30, y), steps: 12)
                try await page.waitFor("!studio.state.analysis.inflight && !studio.state.analysis.pending")
                let drawn = (try await page.number("studio.metrics.draws") ?? 0) - draws
                let answered = (try await page.number("studio.metrics.analyses") ?? 0) - analyses
                let made = (try await page.number("studio.metrics.seriesLayers") ?? 0) - layers
                #expect(
                    drawn >= 12 && made >= 1 && made <= answered,
                    "\(drawn) draws, \(answered) answers, \(made) series drawn")
            }
        }
    }
}
