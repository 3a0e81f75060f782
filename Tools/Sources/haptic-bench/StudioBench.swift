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
    /// The studio's three figures, measured in headless Chromium through the DevTools protocol:
    /// page ready for a 1,000-event pattern, an edit's round trip (re-lint, effective curves,
    /// redraw) on a 5-second pattern, and the page's playhead against the engine's clock.
    struct StudioFigures: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "studio",
            abstract: "haptic studio in headless Chromium: page ready, edit round trip, playhead error.")

        @Option(help: "Page loads to time.") var loads = 10
        @Option(help: "Edits to time.") var edits = 60
        @Option(help: "Playhead samples to take while playing.") var samples = 150

        func run() throws {
            let folder = FileManager.default.temporaryDirectory.appending(path: "studio-bench-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try Data(AHAP.encode(Self.pattern(events: 1_000, seconds: 10))).write(
                to: folder.appending(path: "big.ahap"))
            try Data(AHAP.encode(Self.pattern(events: 200, seconds: 5))).write(to: folder.appending(path: "five.ahap"))
            let playback = StudioPlayback {
                let format = AudioFormat()
                return PacedOutput(NullOutput(format: format), bufferFrames: format.sampleRate / 50)
            }
            let studio = try Studio(folders: [folder.path(percentEncoded: false)], playback: playback)
            let label = studio.files.roots[0].label
            let (loads, edits, samples) = (loads, edits, samples)
            let failure = Mutex<String?>(nil)
            let done = DispatchSemaphore(value: 0)
            Task {
                let ready = AsyncStream<String>.makeStream()
                let server = Task { try await studio.run { ready.continuation.yield($0) } }
                var iterator = ready.stream.makeAsyncIterator()
                guard let url = await iterator.next() else { return }
                do {
                    try await DevTools.withPage { page in
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
                try await page.navigate(to: "about:blank")
                try await page.navigate(to: url + "#\(label)%2Fbig.ahap")
                try await page.waitFor("document.body.dataset.ready === '1'")
                let events = try await page.number("studio.state.view.events.length") ?? 0
                guard events == 1_000 else { throw ValidationError("the big pattern has \(events) events, not 1000") }
                ready.append(try await page.number("studio.metrics.ready") ?? .nan)
            }
            print("page ready, 1,000-event pattern (navigation start to drawn): \(percentiles(ready))")

            // Edit round trip on the 5-second pattern: a key nudges the selected event; timed from
            // the key to the server's analysis drawn.
            try await page.navigate(to: "about:blank")
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
