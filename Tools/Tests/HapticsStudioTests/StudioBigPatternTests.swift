import Foundation
import HapticsStudio
import Testing
import _ToolTestSupport

/// A pattern of thousands of events in headless Chromium (issue 28, "fluid on big files"): the
/// pointer finds the event a designer points at among thousands, and the drawing of a dense
/// analysis stays what it was while a drag redraws.
@Suite(.serialized) struct StudioBigPatternTests {
    /// 3,000 transients 10 ms apart (several per pixel with the whole pattern on screen), and a
    /// 0.3 s continuous event every second.
    static let dense = #"{"Version": 1, "Pattern": ["# + denseEntries.joined(separator: ",\n") + "]}"
    static let denseEntries: [String] = {
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
        return entries
    }()

    static func open(_ studio: StudioHarness, _ page: DevToolsPage) async throws {
        try await page.navigate(to: studio.studio.url + "#pats%2Fdense.ahap")
        try await page.waitFor(
            "document.body.dataset.ready === '1' && studio.state.path === 'pats/dense.ahap' && !studio.state.analysis.inflight",
            timeout: 30)
    }

    /// The page's hit test against a plain look at every event (the rule as docs/studio.md gives
    /// it: a transient within 4 pixels, else the nearest end edge within 5.5, else the nearest
    /// transient within 7, else a body; of events as near, the first in the pattern), at 500
    /// points across both lanes: the number of points where they differ, and where they hit.
    static func disagreements(_ page: DevToolsPage) async throws -> (Int, Int) {
        let json =
            try await page.string(
                """
                (() => {
                  const events = studio.model(studio.state.ahap).events;
                  const reference = (px, lane) => {
                    let transient = null, td = 7, edge = null, ed = 5.5, body = null;
                    for (const e of events) {
                      if (e.continuous) {
                        const a = studio.x(e.time), b = Math.max(studio.x(e.time + e.duration), a + 2);
                        const d = Math.abs(px - b);
                        if (d < ed) { edge = { kind: 'event', index: e.index, edge: 'end', lane }; ed = d; }
                        if (px >= a - 3 && px <= b && body === null) body = { kind: 'event', index: e.index, lane };
                      } else {
                        const d = Math.abs(studio.x(e.time) - px);
                        if (d < td) { transient = { kind: 'event', index: e.index, lane }; td = d; }
                      }
                    }
                    if (transient && td <= 4) return transient;
                    return edge || transient || body;
                  };
                  const width = document.getElementById('timeline').clientWidth;
                  let differ = 0, hits = 0;
                  for (let n = 0; n < 500; n += 1) {
                    const px = studio.LEFT + (width - studio.LEFT) * n / 500 + 0.37;
                    const lane = n % 2 ? 'intensity' : 'sharpness';
                    const py = (studio.LANES[lane][0] + studio.LANES[lane][1]) / 2;
                    const got = JSON.stringify(studio.hitTest(px, py)), want = JSON.stringify(reference(px, lane));
                    if (got !== want) differ += 1;
                    if (want !== 'null') hits += 1;
                  }
                  return JSON.stringify([differ, hits]);
                })()
                """) ?? "[]"
        let values = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Int])
        return (values[0], values[1])
    }

    @Test(.timeLimit(.minutes(3))) func thePointerFindsTheEventAmongThousandsAndADragMovesOnlyIt() async throws {
        try await StudioHarness.with(files: ["dense.ahap": Self.dense]) { studio in
            try await DevTools.withPage { page in
                try await Self.open(studio, page)
                // The whole pattern on screen, then 2 s (events 4 pixels apart and more).
                var (differ, hits) = try await Self.disagreements(page)
                #expect(differ == 0 && hits > 250, "whole pattern: \(differ) of 500 differ, \(hits) hits")
                _ = try await page.evaluate(
                    "studio.state.viewport.spp = 2 / (document.getElementById('timeline').clientWidth - 52); studio.state.viewport.start = 9.9; 1"
                )
                (differ, hits) = try await Self.disagreements(page)
                #expect(differ == 0 && hits > 250, "2 s on screen: \(differ) of 500 differ, \(hits) hits")

                // Drag transient 1,042 (10.42 s) by its dot, 25 pixels right and up.
                let (x, y) = try await StudioBrowserTests.handle(of: 1_042, page)
                let spp = try #require(try await page.number("studio.state.viewport.spp"))
                // After each move the pointer finds the event where it now is (to grab it again).
                let found =
                    "JSON.stringify(studio.hitTest(studio.x(studio.state.ahap.Pattern[1042].Event.Time), studio.laneY('intensity', 0.5)))"
                var lost: [String] = []
                try await page.mouse("mouseMoved", x, y)
                try await page.mouse("mousePressed", x, y, clickCount: 1)
                for step in 1...10 {
                    try await page.mouse("mouseMoved", x + 2.5 * Double(step), y - 2 * Double(step), buttons: 1)
                    let hit = try await page.string(found) ?? ""
                    if hit != #"{"kind":"event","index":1042,"lane":"intensity"}"# {
                        lost.append("move \(step): \(hit)")
                    }
                }
                try await page.mouse("mouseReleased", x + 25, y - 20, clickCount: 1)
                #expect(lost.isEmpty, "\(lost)")
                try await page.waitFor("!studio.state.analysis.inflight && !studio.state.analysis.pending")
                let expected = ((10.42 + 25 * spp) * 1000).rounded() / 1000
                #expect(try await page.number("studio.state.ahap.Pattern[1042].Event.Time") == expected)
                #expect(try await page.number("studio.edits().length") == 1, "only the dragged event changed")
                // The event moved past its neighbours in time: the pointer still finds every event.
                (differ, hits) = try await Self.disagreements(page)
                #expect(differ == 0 && hits > 250, "after the drag: \(differ) of 500 differ, \(hits) hits")
                #expect(page.consoleMessages.filter { $0.hasPrefix("exception") }.isEmpty, "\(page.consoleMessages)")
            }
        }
    }

    /// With the whole pattern on screen (3,030 events), a click that selects another event paints
    /// again only the strips of the events' layer where the old and the new selection are, and the
    /// timeline is then what a whole repaint of the layer draws: the old selection back among the
    /// others, no ghost of the new one under its highlight.
    @Test(.timeLimit(.minutes(3))) func aNewSelectionRepaintsOnlyItsStripsOfTheEvents() async throws {
        try await StudioHarness.with(files: ["dense.ahap": Self.dense]) { studio in
            try await DevTools.withPage { page in
                try await Self.open(studio, page)
                let (x1, y1) = try await StudioBrowserTests.handle(of: 500, page)
                try await page.click(x1, y1)
                try await page.waitFor("studio.state.selection?.kind === 'event'")
                let first = try await page.number("studio.state.selection.index") ?? -1
                let layers = try await page.number("studio.metrics.eventLayers") ?? -1
                let strips = try await page.number("studio.metrics.eventStrips") ?? -1
                let (x2, y2) = try await StudioBrowserTests.handle(of: 2_500, page)
                try await page.click(x2, y2)
                // The selection, the layer's counts and the timeline read in the turn the
                // selection changed in; then the layer painted whole and read again.
                let json =
                    try await page.string(
                        """
                        new Promise((resolve) => { const poll = () => {
                          const s = studio.state.selection;
                          if (!s || s.index === \(Int(first))) { setTimeout(poll, 10); return; }
                          const c = document.getElementById('timeline');
                          const read = () => c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                          const partial = read(), layers = studio.metrics.eventLayers, strips = studio.metrics.eventStrips;
                          studio.eventLayer.key = ''; studio.draw();
                          const whole = read();
                          let differ = 0;
                          for (let i = 0; i < whole.length; i += 1) if (whole[i] !== partial[i]) differ += 1;
                          resolve(JSON.stringify([s.index, layers, strips, differ, studio.metrics.eventLayers]));
                        }; poll(); })
                        """) ?? "[]"
                let seen = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Double])
                #expect(seen.count == 5)
                guard seen.count == 5 else { return }
                #expect(first >= 0 && abs(seen[0] - first) > 1_000, "selected \(first), then \(seen[0])")
                #expect(seen[1] == layers, "the layer was not painted whole: \(layers) -> \(seen[1])")
                // Each selection is a dot a few pixels wide: a strip or two each.
                #expect(seen[2] - strips >= 2 && seen[2] - strips <= 4, "strips painted: \(seen[2] - strips)")
                #expect(seen[3] == 0, "\(seen[3]) bytes differ from a whole repaint")
                #expect(seen[4] == layers + 1, "the whole repaint asked for")
                #expect(page.consoleMessages.filter { $0.hasPrefix("exception") }.isEmpty, "\(page.consoleMessages)")
            }
        }
    }

    /// The findings' marks with the whole pattern on screen: an answer to a drag's edit makes the
    /// marks' paths again only when the columns with a mark change, and the timeline after a drag
    /// is what marks made from scratch draw. (Transients 10 ms apart over 0-15 s and 20-25 s, and
    /// one at 28 s; an intensity control holds at 0 from 19.5 s: those after it are inaudible, a
    /// note each.)
    @Test(.timeLimit(.minutes(3))) func aDragsAnswersMakeTheFindingsMarksAgainOnlyWhereTheyMoved() async throws {
        let transient = { (time: Double) in
            #"{"Event": {"Time": \#(time), "EventType": "HapticTransient", "EventParameters": "#
                + #"[{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}]}}"#
        }
        var entries = (0..<1_500).map { transient(Double($0) / 100) }
        entries += (2_000..<2_500).map { transient(Double($0) / 100) }
        entries.append(transient(28))
        entries.append(
            #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": ["#
                + #"{"Time": 0, "ParameterValue": 1}, {"Time": 19, "ParameterValue": 1}, {"Time": 19.5, "ParameterValue": 0}]}}"#
        )
        let pattern = #"{"Version": 1, "Pattern": ["# + entries.joined(separator: ",\n") + "]}"
        try await StudioHarness.with(files: ["dense.ahap": pattern]) { studio in
            try await DevTools.withPage { page in
                try await Self.open(studio, page)
                let findings = try await page.number("studio.state.view.diagnostics.length") ?? 0
                #expect(findings >= 500, "\(findings) findings")
                // The counts and the timeline read in the turn the drag's last answer was applied
                // in; then the marks and the events' layer made from scratch and read again.
                let settled =
                    """
                    new Promise((resolve) => { const poll = () => {
                      if (studio.state.drag || studio.state.analysis.inflight || studio.state.analysis.pending) { setTimeout(poll, 10); return; }
                      const c = document.getElementById('timeline');
                      const read = () => c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                      const kept = read(), paths = studio.metrics.findingPaths, analyses = studio.metrics.analyses;
                      studio.findingMarks.key = ''; studio.findingMarks.marked = null; studio.eventLayer.key = ''; studio.draw();
                      const fresh = read();
                      let differ = 0;
                      for (let i = 0; i < fresh.length; i += 1) if (fresh[i] !== kept[i]) differ += 1;
                      resolve(JSON.stringify([paths, analyses, differ, studio.metrics.findingPaths]));
                    }; poll(); })
                    """
                var paths = try await page.number("studio.metrics.findingPaths") ?? -1
                var analyses = try await page.number("studio.metrics.analyses") ?? 0
                // The transient at 22 s moves its note among the others' (the findings change, the
                // columns with a mark do not); the one at 28 s takes its note where none was.
                for (index, moves) in [(1_700, false), (2_000, true)] {
                    let (x, y) = try await StudioBrowserTests.handle(of: index, page)
                    try await page.drag(from: (x, y), to: (x + 30, y), steps: 12)
                    let json = try await page.string(settled) ?? "[]"
                    let seen = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Double])
                    #expect(seen.count == 4)
                    guard seen.count == 4 else { return }
                    let answered = seen[1] - analyses, made = seen[0] - paths
                    if moves {
                        #expect(
                            answered >= 3 && made >= 1,
                            "transient \(index): \(answered) answers, marks made \(made) times")
                    } else {
                        #expect(
                            answered >= 3 && made == 0,
                            "transient \(index): \(answered) answers, marks made \(made) times")
                    }
                    #expect(seen[2] == 0, "transient \(index): \(seen[2]) bytes differ from marks made from scratch")
                    (paths, analyses) = (seen[3], seen[1])
                }
                #expect(page.consoleMessages.filter { $0.hasPrefix("exception") }.isEmpty, "\(page.consoleMessages)")
            }
        }
    }

    /// What the timeline keeps from one draw to the next besides the events' layer: the curves
    /// lane in a layer of its own (painted again only when a curve, a parameter, the selected point
    /// or the view changed), and the list of the events on screen (patched for the entry an edit
    /// changed, not filtered again). After a drag of an event, a drag of a curve's point and an
    /// undo, the timeline is what a draw with nothing kept draws, and the page's model of the
    /// pattern is the one made from the pattern whole. (The dense pattern, and an intensity control
    /// of three points every second and a dynamic parameter every 10 s.)
    @Test(.timeLimit(.minutes(3))) func theTimelinesCachesDrawWhatADrawFromScratchDraws() async throws {
        var entries = Self.denseEntries
        for k in 0..<30 {
            entries.append(
                #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": \#(Double(k) + 0.5), "#
                    + #""ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0.2}, "#
                    + #"{"Time": 0.4, "ParameterValue": 0.8}, {"Time": 0.8, "ParameterValue": 0.4}]}}"#)
        }
        for k in 0..<3 {
            entries.append(
                #"{"Parameter": {"ParameterID": "HapticSharpnessControl", "Time": \#(Double(k) * 10 + 0.25), "ParameterValue": 0.3}}"#
            )
        }
        let pattern = #"{"Version": 1, "Pattern": ["# + entries.joined(separator: ",\n") + "]}"
        try await StudioHarness.with(files: ["dense.ahap": pattern]) { studio in
            try await DevTools.withPage { page in
                try await Self.open(studio, page)
                #expect(try await page.number("studio.model(studio.state.ahap).curves.length") == 30)
                // Read in the turn the last answer was applied in: the counts, the timeline, then
                // the timeline drawn with nothing kept, and the counts again.
                let settled =
                    """
                    new Promise((resolve) => { const poll = () => {
                      if (studio.state.drag || studio.state.analysis.inflight || studio.state.analysis.pending) { setTimeout(poll, 10); return; }
                      const c = document.getElementById('timeline');
                      const read = () => c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
                      const kept = read(), curveLayers = studio.metrics.curveLayers, filters = studio.metrics.eventFilters;
                      const parts = (m) => JSON.stringify([m.events, m.curves, m.parameters]);
                      const sameModel = parts(studio.model(studio.state.ahap)) === parts(studio.model({ ...studio.state.ahap }));
                      studio.eventLayer.key = ''; studio.curvesLayer.key = ''; studio.seriesLayer.key = '';
                      studio.findingMarks.key = ''; studio.findingMarks.marked = null; studio.onScreen.model = null;
                      studio.draw();
                      const fresh = read();
                      let differ = 0;
                      for (let i = 0; i < fresh.length; i += 1) if (fresh[i] !== kept[i]) differ += 1;
                      resolve(JSON.stringify([curveLayers, filters, differ, sameModel ? 1 : 0, studio.metrics.curveLayers, studio.metrics.eventFilters]));
                    }; poll(); })
                    """
                func check(_ what: String) async throws -> (curveLayers: Double, filters: Double) {
                    let json = try await page.string(settled) ?? "[]"
                    let seen = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Double])
                    try #require(seen.count == 6)
                    #expect(seen[2] == 0, "\(what): \(seen[2]) bytes differ from a draw with nothing kept")
                    #expect(seen[3] == 1, "\(what): the patched model differs from the pattern's whole model")
                    return (seen[0], seen[1])
                }
                var curveLayers = try await page.number("studio.metrics.curveLayers") ?? -1
                var filters = try await page.number("studio.metrics.eventFilters") ?? -1

                // An event's drag paints no curve and filters no event list.
                let (x, y) = try await StudioBrowserTests.handle(of: 1_500, page)
                try await page.drag(from: (x, y), to: (x + 30, y - 10), steps: 12)
                var seen = try await check("after an event's drag")
                #expect(
                    seen.curveLayers == curveLayers,
                    "curves painted during an event's drag: \(curveLayers) -> \(seen.curveLayers)")
                #expect(
                    seen.filters == filters, "events filtered during an event's drag: \(filters) -> \(seen.filters)")
                // (Transients 0.4 pixels apart: the one under the pointer is edited, whichever it is.)
                #expect(try await page.number("studio.edits().length") == 1, "the drag edited one event")
                curveLayers = try await page.number("studio.metrics.curveLayers") ?? -1
                filters = try await page.number("studio.metrics.eventFilters") ?? -1

                // A curve point's drag paints the curves again (the point selected, then moved) and
                // filters no event list.
                let handle =
                    try await page.string(
                        """
                        (() => { const p = studio.model(studio.state.ahap).curves[10].points[1];
                          const r = document.getElementById('timeline').getBoundingClientRect();
                          return JSON.stringify([r.left + studio.x(p.time), r.top + studio.laneY('curves', p.value, 0, 1)]); })()
                        """) ?? "[0,0]"
                let point = try #require(try JSONSerialization.jsonObject(with: Data(handle.utf8)) as? [Double])
                try await page.drag(from: (point[0], point[1]), to: (point[0] + 20, point[1] + 6), steps: 8)
                seen = try await check("after a curve point's drag")
                #expect(
                    seen.curveLayers > curveLayers,
                    "the curves were not painted again: \(curveLayers) -> \(seen.curveLayers)")
                #expect(seen.filters == filters, "events filtered during a curve's drag: \(filters) -> \(seen.filters)")
                let moved = try await page.number(
                    "studio.state.ahap.Pattern[3040].ParameterCurve.ParameterCurveControlPoints[1].Time")
                #expect(moved != nil && moved != 0.4, "the point's time: \(String(describing: moved))")
                #expect(try await page.number("studio.edits().length") == 2)

                // Undo takes back the curve's drag: an older version of the pattern, drawn as it was.
                try await page.press("z", modifiers: DevToolsPage.control)
                #expect(
                    try await page.number(
                        "studio.state.ahap.Pattern[3040].ParameterCurve.ParameterCurveControlPoints[1].Time")
                        == 0.4)
                _ = try await check("after an undo")
                #expect(page.consoleMessages.filter { $0.hasPrefix("exception") }.isEmpty, "\(page.consoleMessages)")
            }
        }
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
                let columnsPainted = try await page.number("studio.metrics.seriesColumns") ?? 0
                let (x, y) = try await StudioBrowserTests.handle(of: 1_500, page)
                try await page.drag(from: (x, y), to: (x + 30, y), steps: 12)
                try await page.waitFor("!studio.state.analysis.inflight && !studio.state.analysis.pending")
                let drawn = (try await page.number("studio.metrics.draws") ?? 0) - draws
                let answered = (try await page.number("studio.metrics.analyses") ?? 0) - analyses
                // An answer repaints the layer, or only the columns its samples changed.
                let made = (try await page.number("studio.metrics.seriesLayers") ?? 0) - layers
                let painted = (try await page.number("studio.metrics.seriesColumns") ?? 0) - columnsPainted
                #expect(
                    drawn >= 12 && painted >= 1 && made <= answered,
                    "\(drawn) draws, \(answered) answers, \(made) series drawn, \(painted) columns painted")
            }
        }
    }
}
