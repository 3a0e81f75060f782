import Foundation
import HapticsCore
import HapticsStudio
import HapticsSynthesis
import Testing
import _ToolTestSupport

/// What a designer sees and expects (issue 28), in headless Chromium: a save from the page
/// changes only the edited bytes, each edit moves little data, stale state goes when another file
/// opens, failures and other tabs' saves are told, lanes keep their drawing and colours, a
/// transient is grabbed before its neighbour, AudioCustom events are linted and heard.
@Suite(.serialized) struct StudioDesignerTests {
    /// A continuous event from 0.1 s to 0.2 s with a transient exactly at its end, under an
    /// intensity and a sharpness curve.
    static let neighbours = """
        {"Version": 1, "Pattern": [
          {"Event": {"Time": 0.1, "EventType": "HapticContinuous", "EventDuration": 0.1,
            "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}]}},
          {"Event": {"Time": 0.2, "EventType": "HapticTransient",
            "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8},
                                {"ParameterID": "HapticSharpness", "ParameterValue": 0.9}]}},
          {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0.0, "ParameterCurveControlPoints": [
            {"Time": 0, "ParameterValue": 1}, {"Time": 0.3, "ParameterValue": 0.5}]}},
          {"ParameterCurve": {"ParameterID": "HapticSharpnessControl", "Time": 0.0, "ParameterCurveControlPoints": [
            {"Time": 0, "ParameterValue": 0}, {"Time": 0.3, "ParameterValue": 0.5}]}}
        ]}
        """

    static func point(_ page: DevToolsPage, _ expression: String) async throws -> (Double, Double) {
        let json =
            try await page.string(
                "(() => { const r = document.getElementById('timeline').getBoundingClientRect(); const p = \(expression); return JSON.stringify([r.left + p[0], r.top + p[1]]); })()"
            ) ?? "[0,0]"
        let values = (try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Double]) ?? [0, 0]
        return (values[0], values[1])
    }

    /// The colour drawn at canvas point (x, y) in CSS pixels, as [r, g, b, a].
    static func pixel(_ page: DevToolsPage, _ x: String, _ y: String) async throws -> [Double] {
        let json =
            try await page.string(
                "(() => { const c = document.getElementById('timeline'); const d = window.devicePixelRatio || 1; return JSON.stringify(Array.from(c.getContext('2d').getImageData(Math.round((\(x)) * d), Math.round((\(y)) * d), 1, 1).data)); })()"
            ) ?? "[]"
        return (try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Double]) ?? []
    }

    @Test(.timeLimit(.minutes(2))) func aNudgeSavedFromThePageChangesOneNumberOfAOneLineFile() async throws {
        let text = StudioSaveTextTests.oneLine(count: 400)
        try await StudioHarness.with(files: ["wild/line.ahap": text]) { studio in
            let sent = try await DevTools.withPage { page in
                try await page.navigate(to: studio.studio.url + "#pats%2Fwild%2Fline.ahap")
                try await page.waitFor(
                    "document.body.dataset.ready === '1' && studio.state.path === 'pats/wild/line.ahap'")
                // Event 3 is out of range (1.5): the page keeps it as written.
                #expect(
                    try await page.number("studio.state.ahap.Pattern[3].Event.EventParameters[0].ParameterValue") == 1.5
                )
                _ = try await page.evaluate(
                    "studio.state.selection = {kind: 'event', index: 200}; studio.metrics.bytesSent = 0;")
                try await page.press("ArrowRight")
                try await page.waitFor("(studio.metrics.analyses || 0) >= 1 && !studio.state.analysis.inflight")
                let sent = try await page.number("studio.metrics.bytesSent") ?? -1
                try await page.press("s", modifiers: DevToolsPage.control)
                try await page.waitFor("document.body.dataset.saved !== undefined")
                #expect(try await page.evaluate("studio.state.dirty") as? Bool == false)
                return sent
            }
            #expect(sent < 2_000, "an edit sends the edit, not the 130 kB pattern: \(sent) bytes")
            let saved = try [UInt8](Data(contentsOf: studio.url("wild/line.ahap")))
            let (before, after) = StudioSaveTextTests.difference(Array(text.utf8), saved)
            // Event 200 is at 8.4 s (8.4 -> 8.401): one number changed, every other byte equal.
            #expect(saved.count == text.utf8.count + 2)
            #expect(before == "" && after == "01", "\(before) -> \(after)")
        }
    }

    @Test(.timeLimit(.minutes(2))) func openingAnotherFileClearsTheSelectionAndThePlayhead() async throws {
        try await StudioHarness.with { studio in
            let seen = try await DevTools.withPage { page in
                try await StudioBrowserTests.open(studio, page)
                let (x, y) = try await StudioBrowserTests.handle(of: 5, page)
                try await page.click(x, y)
                try await page.press("b")
                try await page.waitFor("studio.state.playhead && studio.state.playhead.mode === 'browser'")
                try await page.evaluate(
                    "document.querySelector('#file-list li[data-path=\"pats/sharp-tap.ahap\"]').click()")
                try await page.waitFor("studio.state.path === 'pats/sharp-tap.ahap'")
                try await Task.sleep(for: .milliseconds(200))
                return [
                    try await page.evaluate("document.getElementById('inspector-fields').hidden") as? Bool == true,
                    try await page.evaluate("studio.state.playhead === null") as? Bool == true,
                    try await page.evaluate("document.getElementById('timeline').dataset.playhead === undefined")
                        as? Bool == true,
                    try await page.evaluate("studio.state.audio === null") as? Bool == true,
                ]
            }
            #expect(seen == [true, true, true, true], "inspector hidden, no playhead, none drawn, no audio: \(seen)")
        }
    }

    @Test(.timeLimit(.minutes(2))) func aFailedRequestShowsABanner() async throws {
        try await StudioHarness.with { studio in
            let banner = try await DevTools.withPage { page in
                try await StudioBrowserTests.open(studio, page)
                // The file goes away after the list was made: opening it fails, visibly.
                try FileManager.default.removeItem(at: studio.url("sharp-tap.ahap"))
                try await page.evaluate(
                    "document.querySelector('#file-list li[data-path=\"pats/sharp-tap.ahap\"]').click()")
                try await page.waitFor("!document.getElementById('banner').hidden")
                return try await page.string("document.getElementById('banner-text').textContent") ?? ""
            }
            #expect(banner.contains("Cannot open pats/sharp-tap.ahap"), "\(banner)")
        }
    }

    /// The orders in which a tab hears of another tab's save: its analysis sent before the save
    /// is refused (the file moved) after the reload, or before the save's message, which the
    /// file watcher's generic word for the same write precedes; or the message is lost (a page
    /// too slow for the socket drops its oldest), and the refusal is all the page hears.
    enum News: String, CaseIterable, Sendable {
        case refusalAfterTheReload, refusalFirstThenTheWatchersWord, onlyTheRefusal
    }

    /// Makes the page's socket hold its messages while `socketHeld` is an array, and deliver one
    /// with `studioSocket.deliver(text)`.
    static let socketGate = """
        (() => { const Real = WebSocket; window.socketHeld = null;
          window.WebSocket = class extends Real {
            get onmessage() { return super.onmessage; }
            set onmessage(f) { window.studioSocket = this; this.deliver = (data) => f({ data });
              super.onmessage = (m) => window.socketHeld ? window.socketHeld.push(m.data) : f(m); } }; })();
        """

    /// Makes the page's analyses wait (sent, with the version they were made against) until
    /// `releaseAnalyses()`.
    static let analysisGate = """
        (() => { const real = studio.analyzer.worker; window.heldAnalyses = [];
          studio.analyzer.worker = { postMessage: (m) => heldAnalyses.push(m) };
          window.releaseAnalyses = () => { studio.analyzer.worker = real; heldAnalyses.splice(0).forEach((m) => real.postMessage(m)); };
          return real !== null; })()
        """

    @Test(.timeLimit(.minutes(2)), arguments: News.allCases)
    func anotherTabsSaveIsToldWhicheverNewsComesFirst(_ news: News) async throws {
        try await StudioHarness.with { studio in
            let (told, asked) = try await DevTools.withPage { page in
                _ = try await page.send("Page.addScriptToEvaluateOnNewDocument", ["source": Self.socketGate])
                try await StudioBrowserTests.open(studio, page)
                try await page.waitFor(
                    "studio.metrics.analyses >= 1 && !studio.state.analysis.inflight && !studio.state.analysis.pending")
                #expect(try await page.evaluate(Self.analysisGate) as? Bool == true, "the page analyses in its worker")
                _ = try await page.evaluate("studio.analyze(); window.analysesBefore = studio.metrics.analyses;")
                if news != .refusalAfterTheReload { _ = try await page.evaluate("window.socketHeld = []") }
                // Another tab saves the open file through the studio.
                let version = try await page.string("studio.state.base") ?? ""
                let save = """
                    {"baseVersion": "\(version)", "tab": "other", "edits": [{"index": 0, "element":
                      {"Event": {"Time": 0.05, "EventType": "HapticTransient", "EventParameters": [
                        {"ParameterID": "HapticIntensity", "ParameterValue": 0.0},
                        {"ParameterID": "HapticSharpness", "ParameterValue": 0.0}]}}}]}
                    """
                let response = try await studio.call("PUT", "/api/pattern?path=pats/rising-falling.ahap", json: save)
                #expect(response.status == 200, "\(response.text)")
                let reloaded = "studio.state.ahap.Pattern[0].Event.Time === 0.05"
                switch news {
                case .refusalAfterTheReload:
                    try await page.waitFor(reloaded)
                    _ = try await page.evaluate("releaseAnalyses()")
                case .refusalFirstThenTheWatchersWord:
                    try await page.waitFor("socketHeld.some((m) => JSON.parse(m).type === 'changed')")
                    _ = try await page.evaluate("releaseAnalyses()")
                    try await page.waitFor("!studio.state.analysis.inflight")
                    // The watcher's message for the same write (no word of a tab), then the save's.
                    _ = try await page.evaluate(
                        """
                        window.saved = socketHeld.splice(0).filter((m) => JSON.parse(m).type === 'changed');
                        window.socketHeld = null;
                        studioSocket.deliver(JSON.stringify({ ...JSON.parse(saved[0]), by: undefined, tab: undefined }));
                        """)
                    try await page.waitFor(reloaded)
                    _ = try await page.evaluate("saved.forEach((m) => studioSocket.deliver(m))")
                case .onlyTheRefusal:
                    try await page.waitFor("socketHeld.some((m) => JSON.parse(m).type === 'changed')")
                    _ = try await page.evaluate("releaseAnalyses()")
                    try await page.waitFor(reloaded)
                }
                try await page.waitFor("!studio.state.analysis.inflight && !studio.state.analysis.pending")
                try await Task.sleep(for: .milliseconds(100))
                return (
                    try await page.string("document.getElementById('status').textContent") ?? "",
                    try await page.number("studio.metrics.analyses - window.analysesBefore") ?? -1
                )
            }
            // Without the message the page cannot know who wrote the file.
            let how = news == .onlyTheRefusal ? "changed on disk" : "was saved in another tab"
            #expect(told.contains("reloaded: pats/rising-falling.ahap \(how)"), "\(news): \(told)")
            #expect(asked == 1, "the refused analysis is asked again once, of the new version: \(asked)")
        }
    }

    @Test(.timeLimit(.minutes(2))) func lanesKeepTheirDrawingColoursAndLabels() async throws {
        try await StudioHarness.with(files: ["n.ahap": Self.neighbours]) { studio in
            let seen = try await DevTools.withPage { page in
                try await page.navigate(to: studio.studio.url + "#pats%2Fn.ahap")
                try await page.waitFor("document.body.dataset.ready === '1' && studio.state.path === 'pats/n.ahap'")
                // One label per parameter, never one per curve drawn over another.
                let labels = try await page.string("document.getElementById('timeline').dataset.curveLabels")
                // The transient's sharpness mark is drawn in the sharpness colour (orange), its
                // intensity mark in the intensity colour (blue).
                let sharp = try await Self.pixel(
                    page, "studio.x(0.2)", "studio.laneY('sharpness', 0.9)")
                let intense = try await Self.pixel(page, "studio.x(0.2)", "studio.laneY('intensity', 0.8)")
                // Pan so that the events lie left of the lanes: nothing is drawn in the label gutter.
                _ = try await page.evaluate(
                    "studio.state.viewport.start = 0.2 + 20 * studio.state.viewport.spp; window.dispatchEvent(new Event('resize'));"
                )
                let gutter = try await Self.pixel(page, "studio.LEFT - 20", "studio.laneY('intensity', 0.8)")
                return (labels, sharp, intense, gutter)
            }
            #expect(seen.0 == "HapticIntensity,HapticSharpness", "\(seen.0 ?? "nil")")
            #expect(seen.1.count == 4 && seen.1[0] > 200 && seen.1[2] < 120, "orange: \(seen.1)")
            #expect(seen.2.count == 4 && seen.2[2] > 200 && seen.2[0] < 120, "blue: \(seen.2)")
            #expect(seen.3.count == 4 && seen.3[0] < 60 && seen.3[2] < 60, "the gutter stays empty: \(seen.3)")
        }
    }

    @Test(.timeLimit(.minutes(2))) func aWaveformCutAt300SecondsSaysSoWhereItStops() async throws {
        let clicks = (0..<400).map {
            #"{"Event":{"Time":\#($0),"EventType":"HapticTransient","EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1}]}}"#
        }
        let long = #"{"Version":1,"Pattern":[\#(clicks.joined(separator: ","))]}"#
        try await StudioHarness.with(files: ["long.ahap": long]) { studio in
            let notes = try await DevTools.withPage { page in
                try await page.navigate(to: studio.studio.url + "#pats%2Flong.ahap")
                try await page.waitFor("document.body.dataset.ready === '1' && studio.state.path === 'pats/long.ahap'")
                try await page.waitFor("!studio.state.analysis.inflight && !studio.state.analysis.pending")
                let whole = try await page.string(
                    "document.getElementById('timeline').dataset.waveformNote + ' x(300)=' + Math.round(studio.x(300))")
                // Panned to 50 s, the same zoom: 300 s drawn from there, of the 350 s to the end.
                _ = try await page.evaluate("studio.state.viewport.start = 50; studio.analyze(); 1")
                try await page.waitFor("studio.state.view.waveform.start === 50", timeout: 30)
                try await page.waitFor("!studio.state.analysis.inflight && !studio.state.analysis.pending")
                let panned = try await page.string(
                    "document.getElementById('timeline').dataset.waveformNote + ' x(350)=' + Math.round(studio.x(350))")
                // 10 s on screen: all of it drawn, no note.
                _ = try await page.evaluate(
                    "studio.state.viewport.spp = 10 / (document.getElementById('timeline').clientWidth - 52); studio.state.viewport.start = 350; studio.analyze(); 1"
                )
                try await page.waitFor("studio.state.view.waveform.start === 350", timeout: 30)
                let zoomed = try await page.string("document.getElementById('timeline').dataset.waveformNote")
                return (whole ?? "", panned ?? "", zoomed ?? "nil")
            }
            // "waveform: first 300 s @X x(300)=Y" with X six pixels right of Y, where the drawing stops.
            func placed(_ text: String) -> (String, Int, Int)? {
                guard let match = text.firstMatch(of: /^(.*) @(\d+) x\(\d+\)=(\d+)$/) else { return nil }
                return (String(match.output.1), Int(match.output.2) ?? 0, Int(match.output.3) ?? 0)
            }
            let whole = try #require(placed(notes.0), "\(notes.0)")
            #expect(whole.0 == "waveform: first 300 s" && whole.1 == whole.2 + 6, "\(notes.0)")
            let panned = try #require(placed(notes.1), "\(notes.1)")
            #expect(panned.0 == "waveform: 300 s from 50 s" && panned.1 == panned.2 + 6, "\(notes.1)")
            #expect(notes.2 == "", "nothing cut with 10 s on screen: \(notes.2)")
        }
    }

    @Test(.timeLimit(.minutes(2))) func draggingATransientNeverChangesItsNeighbour() async throws {
        try await StudioHarness.with(files: ["n.ahap": Self.neighbours]) { studio in
            let (duration, time) = try await DevTools.withPage { page in
                try await page.navigate(to: studio.studio.url + "#pats%2Fn.ahap")
                try await page.waitFor("document.body.dataset.ready === '1' && studio.state.path === 'pats/n.ahap'")
                let from = try await Self.point(page, "[studio.x(0.2), studio.laneY('intensity', 0.8)]")
                try await page.drag(from: from, to: (from.0 + 30, from.1))
                try await page.waitFor("!studio.state.analysis.inflight && !studio.state.analysis.pending")
                return (
                    try await page.number("studio.state.ahap.Pattern[0].Event.EventDuration") ?? -1,
                    try await page.number("studio.state.ahap.Pattern[1].Event.Time") ?? -1
                )
            }
            #expect(duration == 0.1, "the continuous event keeps its duration")
            #expect(time > 0.2, "the transient moved: \(time)")
        }
    }

    @Test(.timeLimit(.minutes(1))) func audioCustomEventsAreLintedAndHeardAsRenderDoes() async throws {
        let tone = (0..<4_800).map { Float(sin(Double($0) * 2 * .pi * 200 / 48_000) * 0.8) }
        let wav = WAV.encode(AudioClip(sampleRate: 48_000, channels: 1, samples: tone), sampleFormat: .s16)
        let custom = { (name: String) in
            """
            {"Version": 1, "Pattern": [{"Event": {"Time": 0.5, "EventType": "AudioCustom",
              "EventWaveformPath": "\(name)"}}]}
            """
        }
        try await StudioHarness.with(files: ["here.ahap": custom("tone.wav"), "gone.ahap": custom("missing.wav")]) {
            studio in
            try Data(wav).write(to: studio.url("tone.wav"))
            let gone = try await studio.object("GET", "/api/pattern?path=pats/gone.ahap")
            let codes = (gone["diagnostics"] as? [[String: Any]] ?? []).map {
                "\($0["severity"] ?? "")[\($0["code"] ?? "")]"
            }
            #expect(codes.contains("error[waveform-not-found]"), "as haptic lint reports it: \(codes)")
            let here = try await studio.object("GET", "/api/pattern?path=pats/here.ahap")
            let waveform = try #require(here["waveform"] as? [String: Any])
            let high = try #require(waveform["max"] as? [Double])
            let seconds = try #require(waveform["seconds"] as? Double)
            let loud = high.indices.filter { high[$0] > 0.5 }.map { Double($0) * seconds / Double(high.count) }
            #expect(loud.first.map { abs($0 - 0.5) < 0.01 } == true, "the clip sounds at 0.5 s: \(loud.prefix(3))")
        }
    }

    @Test(.timeLimit(.minutes(1))) func aWaveformNotDecodedHereIsOneLocatedFindingAsLintGivesIt() async throws {
        let ahap = """
            {"Version": 1, "Pattern": [
              {"Event": {"Time": 0, "EventType": "HapticTransient"}},
              {"Event": {"Time": 0.05, "EventType": "AudioCustom", "EventWaveformPath": "sound.m4a"}}
            ]}
            """
        try await StudioHarness.with(files: ["aac.ahap": ahap]) { studio in
            let m4a: [UInt8] = [0, 0, 0, 0x1C] + Array("ftypM4A ".utf8) + [UInt8](repeating: 0x5A, count: 64)
            try Data(m4a).write(to: studio.url("sound.m4a"))
            let view = try await studio.object("GET", "/api/pattern?path=pats/aac.ahap")
            let found = (view["diagnostics"] as? [[String: Any]] ?? []).filter {
                $0["code"] as? String == "waveform-not-decoded"
            }
            #expect(found.count == 1, "\(view["diagnostics"] ?? "")")
            #expect(found.first?["severity"] as? String == "error")
            #expect(
                found.first?["message"] as? String
                    == "waveform 'sound.m4a' is an MPEG-4 audio file (AAC or ALAC, .m4a), which this build does not "
                    + "decode (WAV only; Core Haptics plays it); the rest of the pattern plays without it")
            #expect(found.first?["line"] as? Double == 3 && found.first?["column"] as? Double == 77)
            #expect(view["events"] as? [Any] != nil, "the pattern is drawn")
        }
    }

    /// Apple's trailer pattern (thomasdye12/HapticPlayer, sweep round 5) ends its intensity curve
    /// at 3.4028235e+38 s: the timeline ends with the pattern, not there.
    @Test(.timeLimit(.minutes(2))) func aControlPointHeldForGoodDoesNotStretchTheTimeline() async throws {
        let held = """
            {"Version": 1, "Pattern": [
              {"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 1.5}},
              {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0,
                "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 1.2, "ParameterValue": 0.3},
                  {"Time": 3.4028235e+38, "ParameterValue": 1}]}}
            ]}
            """
        try await StudioHarness.with(files: ["held.ahap": held]) { studio in
            let seen = try await DevTools.withPage { page in
                try await page.navigate(to: studio.studio.url + "#pats%2Fheld.ahap")
                try await page.waitFor("document.body.dataset.ready === '1' && studio.state.path === 'pats/held.ahap'")
                try await page.waitFor("!!studio.state.view")
                return (try await page.number("studio.duration()"), try await page.number("studio.state.view.duration"))
            }
            #expect(seen.0 == 1.5, "the timeline's end: \(seen.0 ?? -1)")
            #expect(seen.1 == 1.5, "the analysis's duration: \(seen.1 ?? -1)")
        }
    }

    @Test(.timeLimit(.minutes(1))) func aNarrowListKeepsTheFoldersLastComponentAndTheName() async throws {
        let deep = "a-long-outer-folder/and-another-one/examples-of-taps/heartbeat-slow.ahap"
        try await StudioHarness.with(files: [deep: StudioDesignerTests.neighbours]) { studio in
            let seen = try await DevTools.withPage { page in
                try await StudioBrowserTests.open(studio, page)
                // One measure per width: the outer folders, the file's own folder, the name.
                let measure = """
                    (() => { const li = document.querySelector('#file-list li[data-path="pats/\(deep)"]');
                      const w = (c) => Math.round(li.querySelector(c).getBoundingClientRect().width);
                      const cut = (c) => { const e = li.querySelector(c); return e.scrollWidth > e.clientWidth; };
                      return JSON.stringify({outer: w('.folder'), last: w('.folder-last'), name: w('.name'),
                        lastCut: cut('.folder-last'), nameCut: cut('.name'),
                        inside: li.querySelector('.name').getBoundingClientRect().right <= li.getBoundingClientRect().right - 9,
                        text: li.querySelector('.folder-last').textContent}); })()
                    """
                var out: [String] = []
                for width in [250, 200, 150, 100] {
                    _ = try await page.evaluate("document.getElementById('files').style.width = '\(width)px'")
                    out.append(try await page.string(measure) ?? "")
                }
                return out
            }
            let rows = seen.compactMap {
                try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
            }
            #expect(rows.count == 4, "\(seen)")
            for (row, width) in zip(rows, [250, 200, 150, 100]) {
                #expect(row["outer"] as? Int == 0, "\(width) px: the outer folders go first: \(row)")
                #expect(
                    (row["last"] as? Int ?? 0) >= 25, "\(width) px: the file's folder keeps its first letters: \(row)")
                #expect(row["lastCut"] as? Bool == true, "\(width) px: ellipsized: \(row)")
                #expect(row["inside"] as? Bool == true, "\(width) px: nothing spills out of the row: \(row)")
                #expect(row["text"] as? String == "examples-of-taps/")
            }
            // The name keeps its whole width while the folder can give way, then is ellipsized.
            #expect(rows.first?["nameCut"] as? Bool == false, "\(rows.first ?? [:])")
            #expect(rows.last?["nameCut"] as? Bool == true, "\(rows.last ?? [:])")
        }
    }

    @Test(.timeLimit(.minutes(1))) func anEmptyFolderSaysSoAndDisablesWhatCannotWork() async throws {
        try await StudioHarness.with { studio in
            for name in ["rising-falling.ahap", "sharp-tap.ahap"] {
                try FileManager.default.removeItem(at: studio.url(name))
            }
            let seen = try await DevTools.withPage { page in
                try await StudioBrowserTests.open(studio, page)
                let disabled = try await page.string(
                    """
                    ["play-engine", "play-browser", "stop", "undo", "redo", "add-transient", "add-continuous", "delete",
                     "save", "compare", "zoom-in", "zoom-out", "zoom-fit", "filter"]
                      .filter(id => !document.getElementById(id).disabled).join(",")
                    """)
                return [
                    try await page.string("document.getElementById('file-list').textContent") ?? "",
                    try await page.string("document.getElementById('inspector-empty').textContent") ?? "",
                    try await page.string("document.getElementById('status').textContent") ?? "",
                    try await page.string("document.getElementById('file-base').textContent") ?? "",
                    disabled ?? "?",
                    try await page.string("String(studio.state.path)") ?? "",
                    try await page.string("String(document.getElementById('audio-bar').hidden)") ?? "",
                ]
            }
            #expect(seen[0] == "No pattern or audio files under pats.")
            #expect(seen[1] == "Nothing to edit: the served folders have no pattern or audio files.")
            #expect(seen[2] == "no .ahap, .haptic, .vij or audio files under pats")
            #expect(seen[3] == "no file open")
            #expect(seen[4] == "", "enabled with nothing to act on: \(seen[4])")
            #expect(seen[5] == "null")
            #expect(seen[6] == "true", "no audio bar")
        }
    }
}
