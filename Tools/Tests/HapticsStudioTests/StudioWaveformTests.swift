import Foundation
import HapticsCore
import HapticsEngine
import HapticsStudio
import HapticsSynthesis
import Testing

/// The waveform lane (docs/studio.md): what is on screen, rendered as the whole pattern sounds
/// there, anywhere in a long pattern, and after an edit as the edited pattern sounds.
@Suite struct StudioWaveformTests {
    static let rate = 48_000.0

    /// Clicks every `step` seconds from 0 until `seconds`, at `level`.
    static func clicks(every step: Double, until seconds: Double, level: Float = 1) -> [PatternElement] {
        (0..<Int(seconds / step)).map { n in
            .event(
                HapticEvent(
                    time: Double(n) * step, type: .hapticTransient,
                    parameters: [EventParameter(.hapticIntensity, level)]))
        }
    }

    /// The min and max columns of the whole render between `from` and `to`, made here the plain
    /// way (one frame at a time, from the render of the whole pattern).
    static func wholeColumns(_ pattern: HapticPattern, from: Double, to: Double, columns: Int) throws -> (
        low: [Float], high: [Float]
    ) {
        let samples = try PatternRenderer.render(pattern, format: AudioFormat(sampleRate: 48_000, channels: 1))
        let first = Int((from * rate).rounded())
        let frames = Int(((to - from) * rate).rounded(.up))
        var low = [Float](repeating: 0, count: columns)
        var high = [Float](repeating: 0, count: columns)
        for f in 0..<frames where first + f < samples.count {
            let column = f * columns / frames
            low[column] = min(low[column], samples[first + f])
            high[column] = max(high[column], samples[first + f])
        }
        return (low, high)
    }

    @Test func aWindowPastFiveMinutesIsDrawn() throws {
        var elements = Self.clicks(every: 1, until: 600, level: 0.4)
        elements[450] = .event(
            HapticEvent(time: 450, type: .hapticTransient, parameters: [EventParameter(.hapticIntensity, 1)]))
        let pattern = HapticPattern(elements: elements)
        let zoomed = PatternView.columns(pattern, window: Studio.Window(start: 440, end: 460, columns: 200))
        #expect(zoomed.start == 440 && zoomed.seconds == 20 && !zoomed.truncated)
        try #require(zoomed.high.count == 200)
        let loudest = zoomed.high.indices.max { zoomed.high[$0] < zoomed.high[$1] } ?? -1
        #expect(loudest == 100, "the intensity-1 click at 450 s is in column 100, not \(loudest)")
        #expect(zoomed.high[50] > 0.05, "the click at 445 s is drawn too (\(zoomed.high[50]))")
        // A window longer than 300 s is drawn for its first 300 s, and says so.
        let whole = PatternView.columns(pattern, window: Studio.Window(start: 0, end: 600, columns: 1_000))
        #expect(whole.start == 0 && whole.seconds == 300 && whole.truncated)
        let late = PatternView.columns(pattern, window: Studio.Window(start: 250, end: 600, columns: 1_000))
        #expect(late.start == 250 && late.seconds == 300 && late.truncated)
        let end = PatternView.columns(pattern, window: Studio.Window(start: 500, end: 600, columns: 1_000))
        #expect(end.start == 500 && !end.truncated && end.seconds > 99 && end.seconds < 101)
    }

    @Test func aStretchIsDrawnUnderTheCurvesAndParametersInForceThere() throws {
        // The intensity curve ends at 1 s and holds 0 until the step to 0.5 at 15 s: the clicks
        // between are silent, those after it at half their level.
        let pattern = HapticPattern(
            elements: [
                .curve(
                    ParameterCurve(
                        .hapticIntensityControl, time: 0,
                        controlPoints: [.init(time: 0, value: 1), .init(time: 1, value: 0)]
                    )),
                .parameter(DynamicParameter(.hapticIntensityControl, value: 0.5, time: 15)),
            ] + Self.clicks(every: 0.5, until: 20))
        for (from, to) in [(10.0, 12.0), (16.0, 18.0), (0.0, 20.0)] {
            let drawn = PatternView.columns(pattern, window: Studio.Window(start: from, end: to, columns: 100))
            // The render's length ends the last window (the last click's end, before 20 s).
            let whole = try Self.wholeColumns(pattern, from: from, to: from + drawn.seconds, columns: 100)
            let worst = zip(drawn.high + drawn.low, whole.high + whole.low).map { abs($0 - $1) }.max() ?? 1
            #expect(worst < 0.01, "\(from)-\(to) s: a column \(worst) away from the whole render's")
            #expect((whole.high.max() ?? 0) > 0 || from == 10, "\(from)-\(to) s: the clicks sound")
        }
    }

    @Test func aLongBuzzUnderWayIsDrawnAtItsLevelThere() throws {
        // Rendered from 10 s before the window, not from its start at 0 s: it joins in progress.
        let pattern = HapticPattern(elements: [
            .event(
                HapticEvent(
                    time: 0, type: .hapticContinuous, duration: 60,
                    parameters: [EventParameter(.hapticIntensity, 0.7), EventParameter(.hapticSharpness, 0.3)])),
            .curve(
                ParameterCurve(
                    .hapticIntensityControl, time: 0,
                    controlPoints: [.init(time: 0, value: 1), .init(time: 60, value: 0.2)])
            ),
        ])
        let drawn = PatternView.columns(pattern, window: Studio.Window(start: 45, end: 46, columns: 10))
        let whole = try Self.wholeColumns(pattern, from: 45, to: 46, columns: 10)
        for (mine, theirs) in zip(drawn.high, whole.high) {
            #expect(theirs > 0.05 && abs(mine - theirs) < 0.1 * theirs, "\(mine) against \(theirs)")
        }
    }

    @Test func anEditOfACurvesHeldValueRedrawsWhatFollows() throws {
        // Clicks every 0.25 s under a curve that falls to 0.2 by 1.5 s and holds it; the edit
        // raises the held value to 1, which the clicks up to 10 s hear.
        let (before, after, expected) = try Self.editHeldValue(then: "")
        let column = Int(8 / (after.seconds / Double(after.max.count)))
        let (old, new) = (before.max[column...].prefix(2).max() ?? 0, after.max[column...].prefix(2).max() ?? 0)
        #expect(old > 0.02 && new > 2 * old, "the click at 8 s: \(old) -> \(new)")
        #expect(after.max == expected.max && after.min == expected.min)
    }

    @Test func anEditOfAHeldValueRedrawsUntilTheNextCurveTakesOver() throws {
        // A second curve at 5 s ramps from the held value to 0.5 at 6 s and holds that: the
        // click at 5.5 s hears the edit, the one at 8 s does not.
        let next =
            #",{"ParameterCurve":{"ParameterID":"HapticIntensityControl","Time":5,"ParameterCurveControlPoints":[{"Time":1,"ParameterValue":0.5}]}}"#
        let (before, after, expected) = try Self.editHeldValue(then: next)
        func click(_ seconds: Double, _ wave: Studio.AnalyzeResponse.Waveform) -> Double {
            let column = Int(seconds / (wave.seconds / Double(wave.max.count)))
            return wave.max[column...].prefix(2).max() ?? 0
        }
        #expect(click(5.5, after) > 1.5 * click(5.5, before), "\(click(5.5, before)) -> \(click(5.5, after))")
        #expect(click(8, after) == click(8, before) && click(8, after) > 0.02)
        #expect(after.max == expected.max && after.min == expected.min)
    }

    /// The waveform of 0-10 s of a file of clicks under a curve that holds 0.2 from 1.5 s (and
    /// `then`, more entries), before and after an edit that makes it hold 1, and the edited
    /// pattern's waveform drawn whole.
    static func editHeldValue(then: String) throws -> (
        before: Studio.AnalyzeResponse.Waveform, after: Studio.AnalyzeResponse.Waveform,
        expected: Studio.AnalyzeResponse.Waveform
    ) {
        func curve(_ held: Double) -> String {
            #"{"ParameterCurve":{"ParameterID":"HapticIntensityControl","Time":1,"ParameterCurveControlPoints":[{"Time":0,"ParameterValue":1},{"Time":0.5,"ParameterValue":\#(held)}]}}"#
        }
        let events = (0..<40).map {
            #"{"Event":{"Time":\#(Double($0) * 0.25),"EventType":"HapticTransient","EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1}]}}"#
        }
        let text = #"{"Version":1,"Pattern":[\#(curve(0.2)),\#(events.joined(separator: ","))\#(then)]}"#
        let folder = FileManager.default.temporaryDirectory.appending(path: "studio-waveform-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try Data(text.utf8).write(to: folder.appending(path: "held.ahap"))
        let studio = try Studio(
            folders: [folder.path(percentEncoded: false)],
            playback: StudioPlayback { NullOutput(format: AudioFormat()) })
        let path = studio.files.roots[0].label + "/held.ahap"
        let version = StudioFiles.version(of: Array(text.utf8))
        let window = #""window":{"start":0,"end":10,"columns":400}"#
        func waveform(_ edits: String) throws -> Studio.AnalyzeResponse.Waveform {
            let body = #"{"path":"\#(path)","baseVersion":"\#(version)","edits":[\#(edits)],\#(window)}"#
            let answer = try #require(try studio.analyzeAnswer(Array(body.utf8), mark: { _ in }))
            return try JSONDecoder().decode(Studio.AnalyzeResponse.self, from: Data(answer.utf8)).waveform
        }
        let before = try waveform("")
        let after = try waveform(#"{"index":0,"element":\#(curve(1))}"#)
        let edited = try #require(
            PatternView.analyze(Array(text.replacing(curve(0.2), with: curve(1)).utf8), path: "held.ahap").pattern)
        let expected = PatternView.columns(edited, window: Studio.Window(start: 0, end: 10, columns: 400)).waveform
        return (before, after, expected)
    }
}
