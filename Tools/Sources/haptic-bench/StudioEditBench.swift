import ArgumentParser
import Foundation
import HapticsCore
import HapticsEngine
import HapticsStudio
import HapticsSynthesis

extension Bench {
    /// The server's side of a drag on the 10-minute benchmark pattern: the edits the page sends
    /// while an event is dragged with the whole pattern (or `--zoom` seconds) on screen, each answered by the code
    /// `POST /api/analyze` runs (``Studio/analyzeAnswer(_:mark:stage:)``), without HTTP or a
    /// browser, timed stage by stage.
    struct StudioEdit: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "studio-edit",
            abstract: "The studio's answer to a drag's edits on the 10-minute pattern, stage by stage (no browser).")

        @Option(help: "Drags of the transients at 300, 301, ... s (each drag's earlier edits stay, as on the page).")
        var drags = 4
        @Option(help: "Mouse moves per drag (one edit each).") var moves = 40
        @Option(help: "Times to run the drags (the studio and its caches kept).") var rounds = 3
        @Option(help: "Pixel columns of the window (the page's timeline in a 1400-pixel window).")
        var columns = 1_348
        @Option(
            help: "Seconds on screen from 295 s, as in the Chromium bench's second phase (default: the whole pattern).")
        var zoom: Double?
        @Option(help: "A file to write every answer to, one a line, analyzeMilliseconds set to 0 (to compare builds).")
        var answers: String?

        func run() throws {
            let folder = FileManager.default.temporaryDirectory.appending(path: "studio-edit-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let pattern = StudioFigures.longPattern(minutes: 10)
            let file = AHAP.encode(pattern)
            try Data(file).write(to: folder.appending(path: "long10.ahap"))
            let playback = StudioPlayback { NullOutput(format: AudioFormat()) }
            let studio = try Studio(folders: [folder.path(percentEncoded: false)], playback: playback)
            let path = studio.files.roots[0].label + "/long10.ahap"
            // The page has the file's version; its first analysis (no edits, no findings yet)
            // makes the per-entry analysis the edits use and names the findings' list.
            let version = StudioFiles.version(of: file)
            let duration = pattern.duration
            var key = ""
            let (start, end): (Double, Double) = zoom.map { (295, 295 + $0) } ?? (0, duration)
            let window = #""window":{"start":\#(start),"end":\#(end),"columns":\#(columns)}"#

            func body(_ edits: [String]) -> [UInt8] {
                Array(
                    (#"{"path":"\#(path)","baseVersion":"\#(version)","edits":[\#(edits.joined(separator: ","))],"#
                        + #""tab":"bench",\#(window)\#(key.isEmpty ? "" : #","findingsKey":"\#(key)""#)}"#).utf8)
            }
            var out = answers.map { _ in [UInt8]() }
            func answer(_ edits: [String], stages: inout [String: [Double]], order: inout [String]) throws {
                var last = ContinuousClock.now
                func mark(_ name: String) {
                    let now = ContinuousClock.now
                    let elapsed = now - last
                    last = now
                    if stages[name] == nil { order.append(name) }
                    stages[name, default: []].append(
                        Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15)
                }
                let started = ContinuousClock.now
                last = started
                guard let json = try studio.analyzeAnswer(body(edits), mark: mark, stage: mark) else {
                    throw ValidationError("the edits were not analysed")
                }
                let whole = ContinuousClock.now - started
                if stages["whole"] == nil { order.append("whole") }
                stages["whole", default: []].append(
                    Double(whole.components.seconds) * 1000 + Double(whole.components.attoseconds) / 1e15)
                if let match = json.firstMatch(of: /"findingsKey":"([^"]+)"/) { key = String(match.output.1) }
                if out != nil {
                    // The folder's name is new each run.
                    out! +=
                        json.replacing(/"analyzeMilliseconds":[0-9.e-]+/, with: #""analyzeMilliseconds":0"#)
                        .replacing(studio.files.roots[0].label, with: "bench").utf8
                    out!.append(0x0A)
                }
                stages["bytes", default: []].append(Double(json.utf8.count))
            }
            var ignored: [String: [Double]] = [:]
            var ignoredOrder: [String] = []
            try answer([], stages: &ignored, order: &ignoredOrder)

            var stages: [String: [Double]] = [:]
            var order: [String] = []
            for _ in 0..<rounds {
                var kept: [String] = []
                for drag in 0..<drags {
                    // The transient at 300 + drag s (intensity 0.3, sharpness 1), the one the Chromium
                    // bench drags; a pixel's step to the right each move.
                    guard
                        let index = pattern.elements.firstIndex(where: {
                            if case .event(let event) = $0 {
                                event.type == .hapticTransient && event.time == Double(300 + drag)
                            } else {
                                false
                            }
                        })
                    else { throw ValidationError("no transient at \(300 + drag) s to drag") }
                    let step = (end - start) / Double(columns)
                    var element = ""
                    for move in 1...moves {
                        let time = ((Double(300 + drag) + Double(move) * step) * 1000).rounded() / 1000
                        let intensity = Double(30 - move % 10) / 100
                        element =
                            #"{"index":\#(index),"element":{"Event":{"Time":\#(time),"EventType":"HapticTransient","#
                            + #""EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":\#(intensity)},"#
                            + #"{"ParameterID":"HapticSharpness","ParameterValue":1}]}}}"#
                        try answer(kept + [element], stages: &stages, order: &order)
                    }
                    kept.append(element)
                }
            }
            if let answers, let out { try Data(out).write(to: URL(filePath: answers)) }
            let bytes = stages.removeValue(forKey: "bytes") ?? []
            print(
                "studio-edit: \(rounds) x \(drags) drags of \(moves) edits on the 10-minute pattern, "
                    + (zoom.map { "\($0) s from 295 s on screen " } ?? "whole pattern on screen ")
                    + "(\(columns) columns); answers \(Int(bytes.sorted()[bytes.count / 2])) bytes (median)")
            for name in order where name != "bytes" { print("  \(name): \(percentiles(stages[name] ?? []))") }
        }
    }
}
