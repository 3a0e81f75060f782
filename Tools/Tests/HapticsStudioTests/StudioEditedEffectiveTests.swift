import Foundation
import HapticsCore
import HapticsEngine
import HapticsReview
import HapticsStudio
import HapticsSynthesis
import OrderedCollections
import Testing
import _ToolTestSupport

/// An edit's effective curves made from the file's own (``PatternView/windowSamples(_:window:base:changed:)``,
/// only the stretch the edits changed sampled again) are those of the edited pattern sampled
/// whole: the same samples, then the same numbers in the answer.
@Suite struct StudioEditedEffectiveTests {
    typealias Generator = StudioEntryAnalysisTests.Generator

    /// Random edit sequences (moves, new entries, removals; some of dynamic parameters and
    /// curves, which change the curves everywhere) on generated patterns, seen through windows
    /// that sample every 5 ms, decimate to a few columns, or show part of the pattern.
    @Test func theChangedStretchSampledAgainIsTheWholeSampling() throws {
        let windows = [
            Studio.Window(start: 0, end: 12, columns: 1_000), Studio.Window(start: 0, end: 12, columns: 30),
            Studio.Window(start: 2.5, end: 6.25, columns: 7), Studio.Window(start: 4, end: 4.5),
        ]
        var within = 0
        for seed in UInt64(1)...25 {
            var (bytes, generator) = StudioEntryAnalysisTests.file(seed: seed, count: 40, pretty: false)
            let patch = try SourcePatch(bytes)
            guard let original = PatternView.analyze(bytes, path: "gen.ahap").pattern,
                case .object(let top) = patch.value, case .array(let entries)? = top["Pattern"]
            else { continue }
            var edits: [SourcePatch.Edit] = []
            for step in 0..<10 {
                let index = generator.below(entries.count)
                switch generator.below(10) {
                case 0..<7:
                    let shift = Double(generator.below(400)) / 1000 - 0.2
                    let element =
                        StudioEntryAnalysisTests.nudged(entries[index], by: shift) ?? generator.entry(duration: 10)
                    edits.removeAll { if case .set(index, _) = $0 { true } else { false } }
                    edits.append(.set(index: index, element: element))
                case 7:
                    edits.append(.add(element: generator.entry(duration: 10)))
                default:
                    guard !edits.contains(where: { if case .remove(index) = $0 { true } else { false } }) else {
                        continue
                    }
                    edits.removeAll { if case .set(index, _) = $0 { true } else { false } }
                    edits.append(.remove(index: index))
                }
                guard let edited = PatternView.analyze(try patch.applying(edits: edits), path: "gen.ahap").pattern
                else { continue }
                let change = PatternView.effectiveChange(from: original, to: edited)
                for window in windows {
                    let whole = PatternView.effectiveSamples(edited, window: window)
                    let base = PatternView.windowSamples(original, window: window)
                    let made: Studio.AnalyzeResponse.Effective
                    switch change {
                    case .unchanged: made = PatternView.effective(base, window: window)
                    case .within(let stretch):
                        made = PatternView.effective(
                            PatternView.windowSamples(edited, window: window, base: base, changed: stretch),
                            window: window)
                        within += 1
                    case .everywhere: continue
                    }
                    #expect(made == whole, "seed \(seed), step \(step), window \(window.start)...\(window.end)")
                }
            }
        }
        // Many of the generated edits change a curve or the length, or make an error; a few
        // dozen edit states, each in four windows, move events only.
        #expect(within >= 40)
    }

    /// Through the studio, a drag's answers: the effective curves of each (the whole
    /// 10-minute-like pattern on screen, then a stretch of it) are the edited pattern's sampled
    /// whole, and an edit of a curve is sampled whole too.
    @Test(.timeLimit(.minutes(2))) func aDragsAnswersCarryTheWholeSampling() async throws {
        var entries: [String] = []
        for n in 0..<600 {
            entries.append(
                #"{"Event":{"Time":\#(Double(n) / 10),"EventType":"HapticTransient","EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":\#(0.3 + Double(n % 7) / 10)},{"ParameterID":"HapticSharpness","ParameterValue":0.5}]}}"#
            )
        }
        for k in 0..<12 {
            entries.append(
                #"{"Event":{"Time":\#(Double(k) * 5 + 0.05),"EventType":"HapticContinuous","EventDuration":2,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":0.8}]}}"#
            )
            entries.append(
                #"{"ParameterCurve":{"ParameterID":"HapticIntensityControl","Time":\#(Double(k) * 5 + 0.05),"ParameterCurveControlPoints":[{"Time":0,"ParameterValue":0.2},{"Time":1,"ParameterValue":1},{"Time":2,"ParameterValue":0}]}}"#
            )
        }
        let text = #"{"Version":1,"Pattern":[\#n"# + entries.joined(separator: ",\n") + "\n]}\n"
        let folder = FileManager.default.temporaryDirectory.appending(path: "edited-effective-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(text.utf8).write(to: folder.appending(path: "drag.ahap"))
        let studio = try Studio(
            folders: [folder.path(percentEncoded: false)],
            playback: StudioPlayback { NullOutput(format: AudioFormat()) })
        let path = studio.files.roots[0].label + "/drag.ahap"
        let bytes = Array(text.utf8)
        let version = StudioFiles.version(of: bytes)
        let patch = try SourcePatch(bytes)
        for (start, end, columns) in [(0.0, 60.0, 700), (29.0, 31.0, 500)] {
            var kept: [String] = []
            var edits: [SourcePatch.Edit] = []
            for (index, time) in [(300, 30.0), (301, 30.1), (605, 25.05)] {
                for move in 1...6 {
                    let moved = time + Double(move) * 0.043
                    let element =
                        index == 605
                        ? #"{"ParameterCurve":{"ParameterID":"HapticIntensityControl","Time":\#(moved),"ParameterCurveControlPoints":[{"Time":0,"ParameterValue":0.2},{"Time":1,"ParameterValue":1},{"Time":2,"ParameterValue":0}]}}"#
                        : #"{"Event":{"Time":\#(moved),"EventType":"HapticTransient","EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":\#(0.1 * Double(move))}]}}"#
                    let edit = #"{"index":\#(index),"element":\#(element)}"#
                    let body =
                        #"{"path":"\#(path)","baseVersion":"\#(version)","edits":[\#((kept + [edit]).joined(separator: ","))],"#
                        + #""window":{"start":\#(start),"end":\#(end),"columns":\#(columns)}}"#
                    let made = try studio.analyzeAnswer(Array(body.utf8), mark: { _ in })
                    let answer = try #require(made)
                    let sets = edits + [.set(index: index, element: try JSONValue(parsing: Array(element.utf8)))]
                    let edited = try #require(
                        PatternView.analyze(try patch.applying(edits: sets), path: "drag.ahap").pattern)
                    let effective = PatternView.effectiveSamples(
                        edited, window: Studio.Window(start: start, end: end, columns: columns))
                    let decoded = try JSONDecoder().decode(Studio.AnalyzeResponse.self, from: Data(answer.utf8))
                    #expect(decoded.effective == effective, "window \(start)...\(end), entry \(index), move \(move)")
                    if move == 6 {
                        kept.append(edit)
                        edits = sets
                    }
                }
            }
        }
    }
}
