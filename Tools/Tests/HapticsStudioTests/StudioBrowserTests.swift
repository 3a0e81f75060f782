import Foundation
import HapticsCore
import HapticsStudio
import HapticsSynthesis
import Testing
import _ToolTestSupport

/// The studio in headless Chromium, driven through the DevTools protocol as a person uses it:
/// load, drag, press keys, save, play; then the file on disk, the drawing and the engine's
/// recording are checked. Fails, never skips, without Chromium: CI installs it.
@Suite(.serialized) struct StudioBrowserTests {
    /// Opens the studio's address (with the token) and waits for the first file to be drawn.
    static func open(_ studio: StudioHarness, _ page: DevToolsPage) async throws {
        try await page.navigate(to: studio.studio.url)
        try await page.waitFor("document.body.dataset.ready === '1' && document.body.dataset.socket === 'open'")
    }

    /// The viewport point of event `index`'s intensity handle.
    static func handle(of index: Int, _ page: DevToolsPage) async throws -> (Double, Double) {
        let json =
            try await page.string(
                """
                (() => { const e = studio.state.ahap.Pattern[\(index)].Event;
                  const i = (e.EventParameters.find(p => p.ParameterID === 'HapticIntensity') || {ParameterValue: 1}).ParameterValue;
                  const r = document.getElementById('timeline').getBoundingClientRect();
                  return JSON.stringify([r.left + studio.x(e.Time), r.top + studio.laneY('intensity', i)]); })()
                """) ?? "[0,0]"
        let point = try #require(try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Double])
        return (point[0], point[1])
    }

    @Test(.timeLimit(.minutes(2))) func thePageLoadsDrawsAndListsWithoutErrors() async throws {
        try await StudioHarness.with { studio in
            try await DevTools.withPage { page in
                try await Self.open(studio, page)
                // Each id names one element (`$` and the tests find the first only).
                #expect(
                    try await page.string(
                        "[...document.querySelectorAll('[id]')].map(e => e.id).filter((id, n, all) => all.indexOf(id) !== n).join(',')"
                    ) == "")
                #expect(try await page.number("document.querySelectorAll('#file-list li').length") == 2)
                #expect(
                    try await page.string("document.querySelector('#file-list li.current').textContent")
                        == "pats/rising-falling.ahap")
                // A list too narrow for the folder and the name keeps the folder's first letters
                // and ellipsizes the name inside the row (StudioAudioPageTests has deeper paths).
                #expect(
                    try await page.string(
                        """
                        (() => { const li = document.querySelector('#file-list li.current');
                          const name = li.querySelector('.name'), last = li.querySelector('.folder-last');
                          document.getElementById('files').style.width = (name.scrollWidth + 28) + 'px';
                          return [last.getBoundingClientRect().width > 20,
                            name.getBoundingClientRect().right <= li.getBoundingClientRect().right - 9,
                            name.textContent].join(); })()
                        """) == "true,true,rising-falling.ahap")
                #expect(try await page.string("document.getElementById('timeline').dataset.eventsDrawn") == "20")
                #expect(
                    try await page.string("document.getElementById('finding-count').textContent") == "(1)",
                    "the note on the tutorial's silent first tap")
                #expect(
                    try await page.string("document.getElementById('metadata').textContent")?.contains("Cupcake Corner")
                        == true)
                #expect(page.consoleMessages.filter { $0.hasPrefix("exception") }.isEmpty, "\(page.consoleMessages)")
                // No cookie: the token lives in this origin's sessionStorage, sent as a header.
                #expect(try await page.string("document.cookie") == "")
            }
        }
    }

    @Test(.timeLimit(.minutes(2))) func draggingAnEventMovesItAndSavingWritesTheFile() async throws {
        try await StudioHarness.with { studio in
            let (expected, drawsBefore, drawsAfter, peak) = try await DevTools.withPage { page in
                try await Self.open(studio, page)
                let (x, y) = try await Self.handle(of: 10, page)
                let spp = try #require(try await page.number("studio.state.viewport.spp"))
                let draws = try await page.number("studio.metrics.draws") ?? 0
                try await page.drag(from: (x, y), to: (x + 40, y))
                try await page.waitFor("(studio.metrics.analyses || 0) >= 1 && !studio.state.analysis.inflight")
                let expected = ((1.0 + 40 * spp) * 1000).rounded() / 1000
                #expect(try await page.number("studio.state.ahap.Pattern[10].Event.Time") == expected)
                #expect(try await page.evaluate("studio.state.dirty") as? Bool == true)
                // The analysis was fetched by the page's worker, not on its main thread (whose
                // resource timeline lists every fetch it makes).
                let fetchedHere = try await page.number(
                    "performance.getEntriesByType('resource').filter(e => e.name.endsWith('/api/analyze')).length")
                #expect(fetchedHere == 0, "analyses fetched on the page's main thread")
                // The server's analysis of the edit is drawn: the effective intensity peaks where the tap now is.
                let peak = try await page.number(
                    "(() => { const e = studio.state.view.effective; let best = 0, at = 0; e.intensity.forEach((v, i) => { if (v > best) { best = v; at = e.times[i]; } }); return at; })()"
                )
                try await page.press("s", modifiers: DevToolsPage.control)
                try await page.waitFor("document.body.dataset.saved !== undefined")
                let after = try await page.number("studio.metrics.draws") ?? 0
                return (expected, draws, after, peak)
            }
            #expect(drawsAfter > drawsBefore, "the timeline redrew")
            #expect(peak.map { abs($0 - expected) < 1e-6 } == true, "peak at \(peak ?? -1), expected \(expected)")
            let saved = try AHAP.decode([UInt8](Data(contentsOf: studio.url("rising-falling.ahap")))).pattern
            #expect(saved.events.count == 20)
            #expect(saved.events[10].time == expected)
            #expect(saved.events[9].time == 0.9, "only the dragged event moved")
        }
    }

    /// An edit made while the previous edit's analysis is on its way is sent at once (two out),
    /// and the older answer, arriving after the newer one was drawn, is dropped: the page never
    /// draws an older analysis over a newer one.
    @Test(.timeLimit(.minutes(2))) func aLateOlderAnalysisIsNeverDrawnOverANewerOne() async throws {
        try await StudioHarness.with { studio in
            let seen = try await DevTools.withPage { page in
                try await Self.open(studio, page)
                // The view's own analysis (after the fit) first, so that it is not taken for the edit's.
                try await page.waitFor(
                    "studio.metrics.analyses >= 1 && !studio.state.analysis.inflight && !studio.state.analysis.pending")
                // The first edit's answer is held back in the page until released.
                _ = try await page.evaluate(
                    """
                    studio.state.selection = {kind: 'event', index: 10};
                    window.firstHeld = studio.analyzer.next + 1; window.held = null;
                    const w = studio.analyzer.worker, deliver = w.onmessage;
                    window.release = () => deliver(window.held);
                    w.onmessage = (m) => { if (m.data.id === window.firstHeld) window.held = m; else deliver(m); }; 1
                    """)
                let analyses = try await page.number("studio.metrics.analyses") ?? 0
                try await page.press("ArrowRight", modifiers: DevToolsPage.shift)
                try await page.press("ArrowRight", modifiers: DevToolsPage.shift)
                try await page.waitFor("studio.metrics.analyses >= \(analyses + 1) && window.held !== null")
                let peak =
                    "(() => { const e = studio.state.view.effective; let best = 0, at = 0; e.intensity.forEach((v, i) => { if (v > best) { best = v; at = e.times[i]; } }); return at; })()"
                let time = try await page.number("studio.state.ahap.Pattern[10].Event.Time")
                let newer = try await page.number(peak)
                _ = try await page.evaluate("window.release(); 1")
                try await page.waitFor("studio.metrics.dropped >= 1 && !studio.state.analysis.inflight")
                let after = try await page.number(peak)
                let dropped = try await page.number("studio.metrics.dropped") ?? 0
                return (time, newer, after, dropped)
            }
            #expect(seen.0 == 1.02, "two nudges of 10 ms from 1.0 s: \(seen.0 ?? -1)")
            #expect(seen.1 == seen.0, "the newer analysis drawn: its peak at \(seen.1 ?? -1)")
            #expect(seen.2 == seen.0, "still the newer analysis after the older arrived: peak at \(seen.2 ?? -1)")
            #expect(seen.3 == 1, "the older analysis dropped: \(seen.3)")
        }
    }

    /// Two edits' analyses out at once, both answers delivered in order: the second names the
    /// findings list shown when it was sent, which the first answer has since replaced; the page
    /// patches the list the second named and shows the result without asking again.
    @Test(.timeLimit(.minutes(2))) func twoAnswersOutAtOnceShowTheNewerFindings() async throws {
        try await StudioHarness.with(files: ["quiet.ahap": Self.quiet]) { studio in
            let seen = try await DevTools.withPage { page in
                try await page.navigate(to: studio.studio.url + "#pats%2Fquiet.ahap")
                try await page.waitFor(
                    "document.body.dataset.ready === '1' && studio.state.path === 'pats/quiet.ahap' && !studio.state.analysis.inflight"
                )
                // The opening's own analyses (the waveform after the view settles) done first.
                try await Task.sleep(for: .milliseconds(400))
                try await page.waitFor("!studio.state.analysis.inflight && !studio.state.analysis.pending")
                // Both edits' answers are held back in the page until released, the first first.
                _ = try await page.evaluate(
                    """
                    window.firstHeld = studio.analyzer.next + 1; window.held = [];
                    const w = studio.analyzer.worker, deliver = w.onmessage;
                    window.release = () => deliver(window.held.shift());
                    w.onmessage = (m) => { if ([window.firstHeld, window.firstHeld + 1].includes(m.data.id)) window.held.push(m); else deliver(m); };
                    studio.state.selection = {kind: 'event', index: 0}; 1
                    """)
                let analyses = try await page.number("studio.metrics.analyses") ?? 0
                let requests = try await page.number("studio.analyzer.next") ?? 0
                let count = "document.querySelectorAll('#findings li').length"
                let before = try await page.number(count)
                try await page.press("ArrowUp")
                _ = try await page.evaluate("studio.state.selection = {kind: 'event', index: 1}; 1")
                try await page.press("ArrowUp")
                try await page.waitFor("window.held.length === 2")
                _ = try await page.evaluate("window.held.sort((a, b) => a.data.id - b.data.id); 1")
                _ = try await page.evaluate("window.release(); 1")
                try await page.waitFor("studio.metrics.analyses >= \(analyses + 1)")
                let between = try await page.number(count)
                _ = try await page.evaluate("window.release(); 1")
                try await page.waitFor("studio.metrics.analyses >= \(analyses + 2) && !studio.state.analysis.inflight")
                // Asking again would go out at once (a timer of 0); give it time to.
                try await Task.sleep(for: .milliseconds(300))
                let places = try await page.string(
                    "[...document.querySelectorAll('#findings li .place')].map(e => e.textContent).join(' ')")
                let sent = (try await page.number("studio.analyzer.next") ?? 0) - requests
                return (before, between, try await page.number(count), places ?? "", sent)
            }
            #expect(
                seen.0 == 6 && seen.1 == 5, "six notes, five after the first answer: \(seen.0 ?? -1), \(seen.1 ?? -1)")
            #expect(seen.2 == 4, "four notes after the second answer: \(seen.2 ?? -1)")
            #expect(!seen.3.contains("Pattern[0]") && !seen.3.contains("Pattern[1]"), "\(seen.3)")
            #expect(seen.4 == 2, "two requests, none asking again: \(seen.4)")
        }
    }

    /// Six silent taps, each with its note ("cannot be heard").
    static let quiet =
        #"{"Version": 1, "Pattern": ["#
        + (0..<6).map {
            #"{"Event": {"Time": \#(Double($0) / 5), "EventType": "HapticTransient", "EventParameters": "#
                + #"[{"ParameterID": "HapticIntensity", "ParameterValue": 0}]}}"#
        }.joined(separator: ",\n") + "]}"

    /// Sets event `index`'s intensity through the inspector, as a person types it, and waits for
    /// the analysis of that edit (the page's second) to be drawn.
    static func setIntensity(of index: Int, to value: String, _ page: DevToolsPage) async throws {
        _ = try await page.evaluate(
            """
            studio.state.selection = {kind: 'event', index: \(index)};
            const field = document.getElementById('f-intensity'); field.value = '\(value)';
            field.dispatchEvent(new Event('change')); 1
            """)
        try await page.waitFor(
            "studio.metrics.analyses >= 2 && !studio.state.analysis.inflight && !studio.state.analysis.pending")
    }

    /// What the page shows of a pattern: its findings' list and count, the events it draws.
    static func shown(_ page: DevToolsPage) async throws -> [String] {
        [
            try await page.string(
                "[...document.querySelectorAll('#findings li')].map(li => li.textContent).join('\\n')")
                ?? "",
            try await page.string("document.getElementById('finding-count').textContent") ?? "",
            try await page.string("JSON.stringify(studio.model(studio.state.ahap).events)") ?? "",
            try await page.string("document.getElementById('timeline').dataset.eventsDrawn") ?? "",
        ]
    }

    /// A drag's analysis changes only some findings and the page patches its list with them:
    /// what it then shows (findings, their places, the events drawn) is what a fresh load of the
    /// saved file shows.
    @Test(.timeLimit(.minutes(2))) func afterADragThePageShowsWhatAFreshLoadShows() async throws {
        try await StudioHarness.with(files: ["quiet.ahap": Self.quiet]) { studio in
            let (dragged, fresh) = try await DevTools.withPage { page in
                let address = studio.studio.url + "#pats%2Fquiet.ahap"
                try await page.navigate(to: address)
                try await page.waitFor("document.body.dataset.ready === '1' && studio.state.path === 'pats/quiet.ahap'")
                #expect(try await page.string("document.getElementById('finding-count').textContent") == "(6)")
                // Up and right: the tap at 0.4 s moves and is no longer silent; the one at 0.6 s
                // is then dragged along in time only, still silent (its note says where).
                let (x, y) = try await Self.handle(of: 2, page)
                try await page.drag(from: (x, y), to: (x + 20, y - 60))
                try await page.waitFor("!studio.state.analysis.inflight && !studio.state.analysis.pending")
                let (x2, y2) = try await Self.handle(of: 3, page)
                try await page.drag(from: (x2, y2), to: (x2 + 30, y2))
                try await page.waitFor(
                    "studio.metrics.analyses >= 2 && !studio.state.analysis.inflight && !studio.state.analysis.pending")
                // Each drag (8 moves) is one step to undo.
                #expect(try await page.number("studio.state.undo.length") == 2)
                let dragged = try await Self.shown(page)
                try await page.press("s", modifiers: DevToolsPage.control)
                try await page.waitFor("document.body.dataset.saved !== undefined")
                try await page.navigate(to: "about:blank")
                try await page.navigate(to: address)
                try await page.waitFor("document.body.dataset.ready === '1' && studio.state.path === 'pats/quiet.ahap'")
                return (dragged, try await Self.shown(page))
            }
            #expect(dragged[1] == "(5)", "one tap made audible: \(dragged[1])")
            #expect(
                dragged[0].contains("Pattern[3].Event") && !dragged[0].contains("Pattern[2].Event"), "\(dragged[0])")
            #expect(!dragged[0].contains("at 0.600 s"), "the note moved with its tap: \(dragged[0])")
            #expect(dragged == fresh)
        }
    }

    /// A long findings list (250 silent taps, a note each) is laid out only near its view: the
    /// items far below it are skipped by Chromium (their group's `content-visibility: auto`), not
    /// each item walked on every frame and mouse move. An edit in the list's second group patches
    /// it to what a fresh load of the saved file shows.
    @Test(.timeLimit(.minutes(2))) func aLongFindingsListIsLaidOutNearItsViewAndPatched() async throws {
        let taps =
            #"{"Version": 1, "Pattern": ["#
            + (0..<250).map {
                #"{"Event": {"Time": \#(Double($0) / 50), "EventType": "HapticTransient", "EventParameters": "#
                    + #"[{"ParameterID": "HapticIntensity", "ParameterValue": 0}]}}"#
            }.joined(separator: ",\n") + "]}"
        try await StudioHarness.with(files: ["taps.ahap": taps]) { studio in
            let (skipped, edited, fresh) = try await DevTools.withPage { page in
                let address = studio.studio.url + "#pats%2Ftaps.ahap"
                try await page.navigate(to: address)
                // The view's own analysis (after the fit) first.
                try await page.waitFor(
                    "document.body.dataset.ready === '1' && studio.metrics.analyses >= 1 && !studio.state.analysis.inflight"
                )
                let skipped = try await page.string(
                    """
                    (() => { const items = document.querySelectorAll('#findings li');
                      return [0, 1, 200, 249].map(n => items[n].checkVisibility({contentVisibilityAuto: true})).join(','); })()
                    """)
                // Tap 150 made audible through the inspector: one note fewer, in the second group.
                try await Self.setIntensity(of: 150, to: "0.8", page)
                let edited = try await Self.shown(page)
                try await page.press("s", modifiers: DevToolsPage.control)
                try await page.waitFor("document.body.dataset.saved !== undefined")
                try await page.navigate(to: "about:blank")
                try await page.navigate(to: address)
                try await page.waitFor("document.body.dataset.ready === '1' && studio.state.path === 'pats/taps.ahap'")
                return (skipped, edited, try await Self.shown(page))
            }
            #expect(skipped == "true,true,false,false", "items 0, 1, 200, 249 shown: \(skipped ?? "?")")
            #expect(edited[1] == "(249)", "one tap made audible: \(edited[1])")
            #expect(!edited[0].contains("Pattern[150].Event"), "the note of tap 150 is gone")
            #expect(edited == fresh)
        }
    }

    /// With more effective samples on screen than pixel columns (a 30 s continuous event under a
    /// curve of 3,000 points), an answer to an edit of a short event paints again only the columns
    /// around that event, and the timeline is then what a whole repaint draws.
    @Test(.timeLimit(.minutes(2))) func anAnswerRepaintsOnlyTheColumnsItsCurvesChanged() async throws {
        let points = (0..<3_000).map {
            #"{"Time": \#(Double($0) / 100), "ParameterValue": \#($0 % 2 == 0 ? 0.3 : 0.9)}"#
        }
        let dense =
            #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 30, "#
            + #""EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}]}}, "#
            + #"{"Event": {"Time": 15, "EventType": "HapticContinuous", "EventDuration": 0.2, "#
            + #""EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.4}]}}, "#
            + #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": ["#
            + points.joined(separator: ", ") + "]}}]}"
        try await StudioHarness.with(files: ["dense.ahap": dense]) { studio in
            let seen = try await DevTools.withPage { page in
                try await page.navigate(to: studio.studio.url + "#pats%2Fdense.ahap")
                try await page.waitFor(
                    "document.body.dataset.ready === '1' && studio.metrics.analyses >= 1 && !studio.state.analysis.inflight"
                )
                let pixels =
                    "(() => { const c = document.getElementById('timeline'); return Array.from(c.getContext('2d').getImageData(0, 0, c.width, c.height).data).join(); })()"
                let layers = try await page.number("studio.metrics.seriesLayers") ?? 0
                let columns = try await page.number("studio.metrics.seriesColumns") ?? -1
                try await Self.setIntensity(of: 1, to: "1", page)
                let painted = (try await page.number("studio.metrics.seriesColumns") ?? -1) - columns
                let partial = try await page.string(pixels)
                // The same answer painted whole: the layer made again.
                _ = try await page.evaluate("studio.seriesLayer.key = ''; 1")
                _ = try await page.evaluate("document.getElementById('zoom-fit').click(); 1")
                let whole = try await page.string(pixels)
                return (
                    layers, painted, try await page.number("studio.metrics.seriesLayers") ?? 0,
                    partial == whole, try await page.number("studio.x(15.2) - studio.x(15)") ?? 0
                )
            }
            #expect(seen.0 >= 1, "the curves were drawn per column: \(seen.0)")
            // The short event is about 7 columns wide; a few more either side.
            #expect(seen.1 > 0 && seen.1 < 4 * seen.4 + 20, "columns painted again: \(seen.1), event \(seen.4) wide")
            #expect(seen.2 == seen.0 + 1, "one whole repaint, the one asked for")
            #expect(seen.3, "the partial repaint drew what a whole one draws")
        }
    }

    @Test(.timeLimit(.minutes(2))) func keysDeleteUndoRedoAndAddEvents() async throws {
        try await StudioHarness.with { studio in
            let counts = try await DevTools.withPage { page in
                try await Self.open(studio, page)
                let count = "studio.state.ahap.Pattern.length"
                let (x, y) = try await Self.handle(of: 5, page)
                try await page.click(x, y)
                #expect(
                    try await page.string("document.getElementById('inspector-kind').textContent")
                        == "HapticTransient #5")
                var seen: [Double] = []
                try await page.press("Delete")
                seen.append(try await page.number(count) ?? -1)
                try await page.press("z", modifiers: DevToolsPage.control)
                seen.append(try await page.number(count) ?? -1)
                try await page.press("z", modifiers: DevToolsPage.control | DevToolsPage.shift)
                seen.append(try await page.number(count) ?? -1)
                // A double-click in the intensity lane adds a transient there.
                try await page.click(x + 25, y + 20, count: 2)
                seen.append(try await page.number(count) ?? -1)
                try await page.waitFor("!studio.state.analysis.inflight && !studio.state.analysis.pending")
                seen.append(try await page.number("studio.state.view.eventsCount") ?? -1)
                // A double-click in the curves lane starts an intensity curve there; one more adds a point.
                let lane =
                    try await page.string(
                        "(() => { const r = document.getElementById('timeline').getBoundingClientRect(); return JSON.stringify([r.left + studio.x(0.5), r.top + (studio.LANES.curves[0] + studio.LANES.curves[1]) / 2]); })()"
                    ) ?? "[0,0]"
                let point = try #require(try JSONSerialization.jsonObject(with: Data(lane.utf8)) as? [Double])
                try await page.click(point[0], point[1], count: 2)
                try await page.click(point[0] + 30, point[1] - 10, count: 2)
                try await page.waitFor("!studio.state.analysis.inflight && !studio.state.analysis.pending")
                seen.append(try await page.number("studio.state.view.curvesCount") ?? -1)
                seen.append(
                    try await page.number(
                        "studio.state.ahap.Pattern[studio.state.ahap.Pattern.length - 1].ParameterCurve.ParameterCurveControlPoints.length"
                    ) ?? -1)
                return seen
            }
            #expect(counts == [19, 20, 19, 20, 20, 1, 3])
        }
    }

    @Test(.timeLimit(.minutes(2))) func theEnginePlaysWithAMovingPlayhead() async throws {
        try await StudioHarness.with { studio in
            let heads = try await DevTools.withPage { page in
                try await Self.open(studio, page)
                try await page.click("#play-engine")
                // Until the device has taken its first blocks the head is at 0 (on a loaded machine
                // that outlasted the first 10 messages once, in CI): wait until it has moved.
                try await page.waitFor(
                    "studio.state.playhead && studio.state.playhead.messages >= 10 && studio.playheadTime() > 0",
                    timeout: 10)
                let early = try await page.number("studio.playheadTime()") ?? -1
                try await page.waitFor("studio.state.playhead.playing === false", timeout: 10)
                let last = try await page.number("studio.playheadTime()") ?? -1
                // The head is drawn at the end once the last message has come.
                try await page.waitFor("document.getElementById('timeline').dataset.playhead === '1.9000'", timeout: 5)
                let drawn = try await page.string("document.getElementById('timeline').dataset.playhead")
                return (early, last, drawn)
            }
            #expect(heads.0 > 0 && heads.0 < 1.9, "moving: \(heads.0)")
            #expect(heads.1 == 1.9, "at the end: \(heads.1)")
            #expect(heads.2 == "1.9000")
            studio.studio.playback.shutdown()
            let capture = try WAV.decode([UInt8](Data(contentsOf: studio.capture)))
            let onsets = StudioAPITests.onsets(capture.samples, rate: capture.sampleRate, threshold: 0.01)
            #expect(onsets.count >= 17, "the engine played the pattern: \(onsets)")
        }
    }

    @Test(.timeLimit(.minutes(2))) func aFileChangedOnDiskReloadsAndAStaleSaveShowsTheConflict() async throws {
        try await StudioHarness.with { studio in
            let file = studio.url("rising-falling.ahap")
            let original = try String(contentsOf: file, encoding: .utf8)
            let outcome = try await DevTools.withPage { page in
                try await Self.open(studio, page)
                // An editor saves while the page has no edits: the page reloads it.
                try Data(original.replacingOccurrences(of: "\"Time\": 1.9,", with: "\"Time\": 2.5,").utf8).write(
                    to: file)
                try await page.waitFor("studio.state.view && studio.state.view.duration === 2.5")
                // The page edits; the editor saves again; the page's save is refused and says so.
                let (x, y) = try await Self.handle(of: 3, page)
                try await page.click(x, y)
                try await page.press("ArrowRight", modifiers: DevToolsPage.shift)
                try Data(original.utf8).write(to: file)
                let version = StudioAPITests.version(Data(original.utf8))
                try await page.waitFor("document.body.dataset.changed === '\(version)'")
                try await page.press("s", modifiers: DevToolsPage.control)
                try await page.waitFor("document.body.dataset.conflict === '1'")
                let banner = try await page.string(
                    "document.getElementById('banner').hidden ? '' : document.getElementById('banner-text').textContent"
                )
                let onDiskDuringConflict = try String(contentsOf: file, encoding: .utf8)
                // The user chooses their own version.
                try await page.click("#banner-a")
                try await page.waitFor("document.body.dataset.saved !== undefined")
                return (banner ?? "", onDiskDuringConflict)
            }
            #expect(outcome.0.contains("changed on disk"), "\(outcome.0)")
            #expect(outcome.1 == original, "the refused save wrote nothing")
            let saved = try AHAP.decode([UInt8](Data(contentsOf: file))).pattern
            #expect(saved.events[3].time == 0.31, "the page's edit won after the user chose it")
        }
    }

    @Test(.timeLimit(.minutes(2))) func hoverReadsValuesZoomKeepsThePointAndCompareShowsTheCommit() async throws {
        try await StudioHarness.with { studio in
            try await studio.commit(["rising-falling.ahap"])
            let result = try await DevTools.withPage { page in
                try await Self.open(studio, page)
                // Hover the loudest tap: the readout gives its time and the effective values there.
                let (x, y) = try await Self.handle(of: 10, page)
                try await page.send("Input.dispatchMouseEvent", ["type": "mouseMoved", "x": x, "y": y + 40])
                let readout = try await page.string("document.getElementById('readout').textContent") ?? ""
                // Zoom in around the pointer: the time under it stays put.
                let before =
                    try await page.number(
                        "studio.timeAt(\(x) - document.getElementById('timeline').getBoundingClientRect().left)") ?? -1
                let sppBefore = try await page.number("studio.state.viewport.spp") ?? 0
                try await page.send(
                    "Input.dispatchMouseEvent",
                    ["type": "mouseWheel", "x": x, "y": y + 40, "deltaX": 0, "deltaY": -100])
                let spp = try await page.number("studio.state.viewport.spp") ?? 0
                let after =
                    try await page.number(
                        "studio.timeAt(\(x) - document.getElementById('timeline').getBoundingClientRect().left)") ?? -1
                // Move a tap, then compare with the last commit: one difference, listed and shaded.
                try await page.click(x, y)
                try await page.press("ArrowRight", modifiers: DevToolsPage.shift)
                try await page.waitFor("!studio.state.analysis.inflight && !studio.state.analysis.pending")
                try await page.evaluate(
                    "(() => { const s = document.getElementById('compare'); s.value = 'git'; s.dispatchEvent(new Event('change')); })()"
                )
                try await page.waitFor("!document.getElementById('diff-panel').hidden")
                let diff = try await page.string("document.getElementById('diff').textContent") ?? ""
                let summary = try await page.string("document.getElementById('diff-summary').textContent") ?? ""
                return (readout, before, after, spp / sppBefore, diff, summary)
            }
            // The readout: the time under the pointer (one pixel is about 2 ms here), the effective
            // values there, and the element under it.
            let time = Double(result.0.prefix { $0 != " " }) ?? -1
            #expect(abs(time - 1.0) < 0.004, "\(result.0)")
            #expect(result.0.contains(" · intensity ") && result.0.contains(" · sharpness "), "\(result.0)")
            #expect(result.0.hasSuffix("HapticTransient #10"), "\(result.0)")
            #expect(
                abs(result.1 - result.2) < 0.002, "zoom keeps the time under the pointer: \(result.1) -> \(result.2)")
            #expect(abs(result.3 - 0.8) < 1e-9, "one wheel step zooms in by 0.8: \(result.3)")
            #expect(
                result.5 == "— 1 against last commit (B); a save writes +1 −1 lines against it", "\(result.5)")
            #expect(
                result.4.contains("-                \"Time\": 1.0,\n+                \"Time\": 1.01,"),
                "the line the save changes: \(result.4)")
            #expect(result.4.contains("1"), "\(result.4)")
        }
    }

    /// ▶ plays what the Play menu shows: B chosen, the comparison turned off and on again (the
    /// menu still shows B), then ▶ Engine plays the compared pattern, not this file.
    @Test(.timeLimit(.minutes(2))) func playPlaysWhatThePlayMenuShowsAfterTheComparisonReturns() async throws {
        try await StudioHarness.with { studio in
            let (shown, played) = try await DevTools.withPage { page in
                try await Self.open(studio, page)
                let choose: (String, String) async throws -> Void = { id, value in
                    _ = try await page.evaluate(
                        "(() => { const s = document.getElementById('\(id)'); s.value = '\(value)'; s.dispatchEvent(new Event('change')); })()"
                    )
                }
                try await choose("compare", "file:pats/sharp-tap.ahap")
                try await page.waitFor("!document.getElementById('diff-panel').hidden")
                try await choose("play-which", "b")
                try await choose("compare", "")
                try await page.waitFor("document.getElementById('diff-panel').hidden")
                try await choose("compare", "file:pats/sharp-tap.ahap")
                try await page.waitFor("!document.getElementById('diff-panel').hidden")
                // What ▶ sends: the compared pattern's JSON (B) or this file's path and edits (A).
                _ = try await page.evaluate(
                    """
                    window.played = []; const plain = window.fetch;
                    window.fetch = (url, init) => { if (String(url).includes('/api/play')) played.push(JSON.parse(init.body)); return plain(url, init); }; 1
                    """)
                try await page.click("#play-engine")
                try await page.waitFor("window.played.length === 1")
                _ = try await page.evaluate("document.getElementById('stop').click(); 1")
                return (
                    try await page.string("document.getElementById('play-which').value"),
                    try await page.string("window.played[0].ahap ? 'B' : 'A ' + window.played[0].path")
                )
            }
            #expect(shown == "b")
            #expect(played == "B", "the menu shows B: \(played ?? "?")")
        }
    }

    @Test(.timeLimit(.minutes(2))) func theBrowserPlaysTheRenderWithItsOwnPlayhead() async throws {
        try await StudioHarness.with { studio in
            let heads = try await DevTools.withPage { page in
                try await Self.open(studio, page)
                try await page.press("b")
                try await page.waitFor("studio.state.playhead && studio.state.playhead.mode === 'browser'")
                let first = try await page.number("studio.playheadTime()") ?? -1
                try await Task.sleep(for: .milliseconds(400))
                let later = try await page.number("studio.playheadTime()") ?? -1
                return (first, later)
            }
            #expect(heads.1 > heads.0 + 0.2, "the head moves with the browser's audio clock: \(heads)")
        }
    }
}
