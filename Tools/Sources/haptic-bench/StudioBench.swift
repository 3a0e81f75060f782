import ArgumentParser
import Dispatch
import Foundation
import HapticsCore
import HapticsEngine
import HapticsStudio
import HapticsSynthesis
import Synchronization
import _ToolTestSupport

// MARK: - haptic studio (issue 15)

extension Bench {
    /// The studio's figures, measured in headless Chromium through the DevTools protocol: page
    /// ready for a 1,000-event pattern, an edit's round trip (re-lint, effective curves, redraw)
    /// on a 5-second pattern, drags on the 10-minute benchmark pattern (edit to redraw, and the
    /// bytes each edit moves), and the page's playhead against the engine's clock.
    struct StudioFigures: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "studio",
            abstract: "haptic studio in headless Chromium: page ready, edit round trip, playhead error.")

        @Option(help: "Page loads to time.") var loads = 10
        @Option(help: "Edits to time.") var edits = 60
        @Option(help: "Playhead samples to take while playing.") var samples = 150
        @Option(help: "Drags to make on the 10-minute pattern (each 40 mouse moves, 16 ms apart).") var drags = 6
        @Option(help: "A folder to write a DevTools trace of each view's drags to (whole.json, zoomed.json).")
        var traceFolder: String?

        func run() throws {
            let folder = FileManager.default.temporaryDirectory.appending(path: "studio-bench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try Data(AHAP.encode(Self.pattern(events: 1_000, seconds: 10))).write(
                to: folder.appending(path: "big.ahap"))
            try Data(AHAP.encode(Self.pattern(events: 200, seconds: 5))).write(to: folder.appending(path: "five.ahap"))
            try Data(AHAP.encode(Self.longPattern(minutes: 10))).write(to: folder.appending(path: "long10.ahap"))
            let playback = StudioPlayback {
                let format = AudioFormat()
                return PacedOutput(NullOutput(format: format), bufferFrames: format.sampleRate / 50)
            }
            let studio = try Studio(folders: [folder.path(percentEncoded: false)], playback: playback)
            let label = studio.files.roots[0].label
            let (loads, edits, samples, drags, traceFolder) = (loads, edits, samples, drags, traceFolder)
            let failure = Mutex<String?>(nil)
            let done = DispatchSemaphore(value: 0)
            Task {
                let ready = AsyncStream<String>.makeStream()
                let server = Task { try await studio.run { ready.continuation.yield($0) } }
                var iterator = ready.stream.makeAsyncIterator()
                guard let url = await iterator.next() else { return }
                do {
                    try await DevTools.withPage { page in
                        try await Self.measureDrags(
                            page: page, url: url, label: label, drags: drags, traceFolder: traceFolder)
                        try await Self.measure(
                            page: page, url: url, label: label, studio: studio, loads: loads, edits: edits,
                            samples: samples)
                    }
                } catch {
                    failure.withLock { $0 = "\(error)" }
                }
                server.cancel()
                _ = try? await server.value
                done.signal()
            }
            done.wait()
            if let message = failure.withLock({ $0 }) { throw ValidationError(message) }
        }

        static func measure(
            page: DevToolsPage, url: String, label: String, studio: Studio, loads: Int, edits: Int, samples: Int
        ) async throws {
            // Page ready: from the navigation's start to the 1,000-event pattern drawn, fresh loads.
            var ready: [Double] = []
            for _ in 0..<loads {
                try await leave(page)
                try await page.navigate(to: url + "#\(label)%2Fbig.ahap")
                try await page.waitFor("document.body.dataset.ready === '1'")
                let events = try await page.number("studio.state.view.events.length") ?? 0
                guard events == 1_000 else { throw ValidationError("the big pattern has \(events) events, not 1000") }
                ready.append(try await page.number("studio.metrics.ready") ?? .nan)
            }
            print("page ready, 1,000-event pattern (navigation start to drawn): \(percentiles(ready))")

            // Edit round trip on the 5-second pattern: a key nudges the selected event; timed from
            // the key to the server's analysis drawn.
            try await leave(page)
            try await page.navigate(to: url + "#\(label)%2Ffive.ahap")
            try await page.waitFor("document.body.dataset.ready === '1' && studio.state.view.duration > 4.9")
            _ = try await page.evaluate(
                "studio.state.selection = {kind: 'event', index: 40}; studio.metrics.edits = [];")
            for n in 0..<edits {
                try await page.press(n % 2 == 0 ? "ArrowRight" : "ArrowUp")
                try await page.waitFor(
                    "studio.metrics.edits.length >= \(n + 1) && !studio.state.analysis.inflight", timeout: 5)
            }
            let json = try await page.string("JSON.stringify(studio.metrics.edits)") ?? "[]"
            let times = (try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Double]) ?? []
            print("edit to re-linted, re-analysed and redrawn, 5 s pattern: \(percentiles(times))")

            // Playhead: the page's head (extrapolated between the engine's messages) against the
            // engine clock read just before and just after asking the page.
            try await page.click("#play-engine")
            try await page.waitFor("studio.state.playhead && studio.state.playhead.messages >= 5")
            var errors: [Double] = []
            for _ in 0..<samples {
                guard let before = studio.playback.position(), before.playing else { break }
                let head = try await page.number("studio.playheadTime()") ?? .nan
                guard let after = studio.playback.position(), after.playing else { break }
                let error = head < before.time ? before.time - head : head > after.time ? head - after.time : 0
                errors.append(error * 1000)
                if error > 0.002 {
                    print(
                        String(
                            format: "  sample %d: head %.4f, engine %.4f..%.4f", errors.count, head, before.time,
                            after.time))
                }
                try await Task.sleep(for: .milliseconds(20))
            }
            print("playhead against the engine clock (outside [before, after] of the read): \(percentiles(errors))")
        }

        /// Drags an event of the 10-minute benchmark pattern, as a hand does (a mouse move every
        /// 16 ms), with the whole pattern on screen and zoomed to 10 seconds; each analysis drawn
        /// is timed from the first edit it answers (`studio.metrics.edits`), once the page's
        /// analysis of the view (without edits) has answered.
        /// Leaves the page for `about:blank`. The page asks before leaving unsaved edits
        /// (`beforeunload`), which would hold a headless navigation for good, so the bench's edits
        /// are marked as kept first.
        static func leave(_ page: DevToolsPage) async throws {
            _ = try await page.evaluate("if (window.studio) studio.state.dirty = false; 1")
            try await page.navigate(to: "about:blank")
        }

        static func measureDrags(
            page: DevToolsPage, url: String, label: String, drags: Int, traceFolder: String? = nil
        ) async throws {
            for (name, zoom) in [("whole pattern on screen", nil), ("10 s on screen", 10.0)] as [(String, Double?)] {
                // A fresh copy of the pattern for each phase: the first phase's drags moved the events
                // the second looks for.
                try await leave(page)
                try await page.navigate(to: url + "#\(label)%2Flong10.ahap")
                try await page.waitFor(
                    "document.body.dataset.ready === '1' && studio.state.view.duration > 599", timeout: 30)
                if let zoom {
                    _ = try await page.evaluate(
                        "studio.state.viewport.spp = \(zoom) / (document.getElementById('timeline').clientWidth - 52); studio.state.viewport.start = 295; studio.analyze();"
                    )
                    try await page.waitFor("!studio.state.analysis.inflight && !studio.state.analysis.pending")
                } else {
                    // The page asks for the view's analysis (its effective curves and waveform)
                    // 120 ms after the opening: an analysis without edits, not one of the drags'.
                    try await page.waitFor(
                        "studio.metrics.analyses >= 1 && !studio.state.analysis.inflight && !studio.state.analysis.pending",
                        timeout: 30)
                }
                _ = try await page.evaluate(
                    "studio.metrics.edits = []; studio.metrics.parts = []; studio.metrics.bytesSent = 0; studio.metrics.bytesReceived = 0; studio.metrics.analyses = 0; studio.metrics.drawMilliseconds = []; studio.metrics.eventLayers = 0; studio.metrics.eventStrips = 0;"
                )
                // Chromium's long animation frames (over 50 ms) during the drags: how long, how
                // much of each was script (and whose), how much style, layout and paint.
                _ = try await page.evaluate(
                    """
                    window.benchFrames = []; new PerformanceObserver((list) => { for (const f of list.getEntries()) {
                      const scripts = f.scripts.map(s => [s.invoker || s.invokerType, s.duration, s.forcedStyleAndLayoutDuration || 0]).sort((a, b) => b[1] - a[1]);
                      benchFrames.push({ duration: f.duration, blocking: f.blockingDuration, render: f.renderStart ? f.startTime + f.duration - f.renderStart : 0,
                        style: f.styleAndLayoutStart ? f.startTime + f.duration - f.styleAndLayoutStart : 0,
                        script: scripts.reduce((t, s) => t + s[1], 0), forced: scripts.reduce((t, s) => t + s[2], 0),
                        top: scripts.slice(0, 3).map(s => `${s[0]} ${s[1].toFixed(0)}` + (s[2] >= 1 ? ` (forced style and layout ${s[2].toFixed(0)})` : "")).join("; ") });
                    } }).observe({ type: "long-animation-frame" }); 1
                    """)
                let dragAll = {
                    for n in 0..<drags {
                        // The transient at 300.0 s (entry 3,000 plus the earlier continuous events and curves).
                        let json =
                            try await page.string(
                                """
                                (() => { const i = studio.state.ahap.Pattern.findIndex(e => e.Event && e.Event.Time === \(300 + n) && e.Event.EventType === 'HapticTransient');
                                  const e = studio.state.ahap.Pattern[i].Event;
                                  const v = e.EventParameters.find(p => p.ParameterID === 'HapticIntensity').ParameterValue;
                                  const r = document.getElementById('timeline').getBoundingClientRect();
                                  return JSON.stringify([r.left + studio.x(e.Time), r.top + studio.laneY('intensity', v)]); })()
                                """) ?? "[0,0]"
                        let point = (try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [Double]) ?? [0, 0]
                        try await page.mouse("mouseMoved", point[0], point[1])
                        try await page.mouse("mousePressed", point[0], point[1], clickCount: 1)
                        for step in 1...40 {
                            try await page.mouse(
                                "mouseMoved", point[0] + Double(step), point[1] + Double(step % 10), buttons: 1)
                            try await Task.sleep(for: .milliseconds(16))
                        }
                        try await page.mouse("mouseReleased", point[0] + 40, point[1], clickCount: 1)
                        try await page.waitFor(
                            "!studio.state.analysis.inflight && !studio.state.analysis.pending", timeout: 30)
                    }
                }
                if let traceFolder {
                    let trace = try await page.trace(
                        categories: [
                            "devtools.timeline", "disabled-by-default-devtools.timeline", "blink", "cc", "gpu",
                            "viz", "v8.execute", "toplevel", "loading", "disabled-by-default-v8.cpu_profiler",
                        ], dragAll)
                    try trace.write(
                        to: URL(filePath: traceFolder).appending(path: zoom == nil ? "whole.json" : "zoomed.json"))
                } else {
                    try await dragAll()
                }
                let json = try await page.string("JSON.stringify(studio.metrics)") ?? "{}"
                let metrics = (try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]) ?? [:]
                let times = metrics["edits"] as? [Double] ?? []
                let analyses = max(1, metrics["analyses"] as? Double ?? 1)
                let sent = (metrics["bytesSent"] as? Double ?? 0) / analyses
                let received = (metrics["bytesReceived"] as? Double ?? 0) / analyses
                print(
                    "drag on the 10-minute pattern, \(name): edit to redrawn \(percentiles(times)); "
                        + String(
                            format: "%.0f analyses, %.1f kB sent and %.1f kB received each", analyses, sent / 1000,
                            received / 1000))
                // Where each analysis's time went (the page's `metrics.parts`).
                let parts = metrics["parts"] as? [[String: Double]] ?? []
                for (part, label) in [
                    ("wait", "waiting behind the analysis in flight"), ("answer", "request to answer"),
                    ("server", "the server's analysis (inside the answer)"),
                    ("headers", "request to the answer's headers (inside the answer)"),
                    ("page", "applying and drawing it"),
                ] where parts.contains(where: { $0[part] != nil }) {
                    print("  \(label): \(percentiles(parts.compactMap { $0[part] }))")
                }
                // The p99's own analyses: the slowest 2 %, each part of each.
                let slowest = zip(times, parts).sorted { $0.0 > $1.0 }.prefix(max(1, times.count / 50))
                for (time, part) in slowest {
                    let pieces = part.sorted { $0.key < $1.key }.map { String(format: "%@ %.1f", $0.key, $0.value) }
                    print(String(format: "  slow: %.1f ms = ", time) + pieces.joined(separator: ", "))
                }
                let framesJSON = try await page.string("JSON.stringify(window.benchFrames || [])") ?? "[]"
                let frames = (try JSONSerialization.jsonObject(with: Data(framesJSON.utf8)) as? [[String: Any]]) ?? []
                print(
                    "  long animation frames (over 50 ms): \(percentiles(frames.compactMap { $0["duration"] as? Double }))"
                )
                for frame in frames.sorted(by: { ($0["duration"] as? Double ?? 0) > ($1["duration"] as? Double ?? 0) })
                    .prefix(3)
                {
                    let number = { (key: String) in frame[key] as? Double ?? 0 }
                    print(
                        String(
                            format:
                                "    %.0f ms: script %.0f (forced style and layout %.0f), rendering %.0f (style and layout %.0f); ",
                            number("duration"), number("script"), number("forced"), number("render"), number("style"))
                            + "\(frame["top"] as? String ?? "")")
                }
                let draws = metrics["drawMilliseconds"] as? [Double] ?? []
                let layers = Int(metrics["eventLayers"] as? Double ?? 0)
                let strips = Int(metrics["eventStrips"] as? Double ?? 0)
                print(
                    "  each draw of the timeline (\(draws.count), \(layers) of the events' layer whole, \(strips) of its strips): \(percentiles(draws))"
                )
            }
        }

        /// The render benchmark's pattern (tools/bench/make-long-pattern.py): a transient every
        /// 100 ms, and every 5 s a 2-second continuous event under an intensity and a sharpness curve.
        static func longPattern(minutes: Double) -> HapticPattern {
            let length = minutes * 60
            var elements: [PatternElement] = []
            for n in 0..<Int((length * 10).rounded()) {
                let level = ((0.3 + 0.7 * Double((n * 7) % 10) / 9) * 1000).rounded() / 1000
                let sharpness = level > 0.3 ? ((1 - level + 0.3) * 1000).rounded() / 1000 : 1
                elements.append(
                    .event(
                        HapticEvent(
                            time: (Double(n) * 0.1 * 1000).rounded() / 1000, type: .hapticTransient,
                            parameters: [
                                EventParameter(.hapticIntensity, Float(level)),
                                EventParameter(.hapticSharpness, Float(sharpness)),
                            ])))
            }
            for k in 0..<Int(length / 5) {
                let t = Double(k) * 5 + 0.05
                elements.append(
                    .event(
                        HapticEvent(
                            time: t, type: .hapticContinuous, duration: 2,
                            parameters: [
                                EventParameter(.hapticIntensity, 0.8), EventParameter(.hapticSharpness, 0.4),
                                EventParameter(.attackTime, 0.1), EventParameter(.releaseTime, 0.2),
                            ])))
                elements.append(
                    .curve(
                        ParameterCurve(
                            .hapticIntensityControl, time: t,
                            controlPoints: [
                                .init(time: 0, value: 0.2), .init(time: 0.5, value: 1), .init(time: 1.5, value: 0.6),
                                .init(time: 2, value: 0),
                            ])))
                elements.append(
                    .curve(
                        ParameterCurve(
                            .hapticSharpnessControl, time: t,
                            controlPoints: [
                                .init(time: 0, value: -0.3), .init(time: 1, value: 0.4), .init(time: 2, value: -0.2),
                            ]
                        )))
            }
            elements.sort { $0.time < $1.time }
            return HapticPattern(elements: elements)
        }

        /// `events` events over `seconds`: three transients to every continuous event, a curve
        /// every 50 events, intensities and sharpness varying.
        static func pattern(events: Int, seconds: Double) -> HapticPattern {
            var elements: [PatternElement] = []
            let step = seconds / Double(events)
            for i in 0..<events {
                let time = (Double(i) * step * 1e4).rounded() / 1e4
                let intensity = Float(0.2 + 0.8 * Double((i * 37) % 100) / 100)
                let sharpness = Float(Double((i * 53) % 100) / 100)
                let parameters = [
                    EventParameter(.hapticIntensity, intensity), EventParameter(.hapticSharpness, sharpness),
                ]
                if i % 4 == 3 {
                    elements.append(
                        .event(
                            HapticEvent(
                                time: time, type: .hapticContinuous, duration: step * 0.8, parameters: parameters)))
                } else {
                    elements.append(.event(HapticEvent(time: time, type: .hapticTransient, parameters: parameters)))
                }
                if i % 50 == 0 {
                    elements.append(
                        .curve(
                            ParameterCurve(
                                .hapticIntensityControl, time: time,
                                controlPoints: [
                                    .init(time: 0, value: 1), .init(time: step * 25, value: 0.5),
                                    .init(time: step * 49, value: 1),
                                ])))
                }
            }
            return HapticPattern(elements: elements)
        }
    }
}
