import HapticsCore
import Testing

/// Classes of defect the sweep of public AHAP files found (docs/ahap-support.md, "The sweep"),
/// each on a file built here in the shape the real ones have.
@Suite struct SweepFindingsTests {
    /// `PATH: severity[code]: message` for every finding of `json`.
    func findings(_ json: String) -> [String] {
        AHAP.lint(Array(json.utf8)).map(\.description)
    }

    func pattern(_ elements: String...) -> String {
        #"{"Version": 1.0, "Pattern": ["# + elements.joined(separator: ", ") + "]}"
    }

    func continuous(at time: Double, for duration: Double, intensity: String, sharpness: String = "0.5") -> String {
        #"{"Event": {"Time": \#(time), "EventType": "HapticContinuous", "EventDuration": \#(duration), "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": \#(intensity)}, {"ParameterID": "HapticSharpness", "ParameterValue": \#(sharpness)}]}}"#
    }

    // MARK: Levels a little over 1

    /// An audio-to-AHAP generator normalises its levels and writes 1.0434 and 1.0010: Core
    /// Haptics plays them as 1. A note, not one warning per value (a 200 s song drew 564).
    @Test func generatorOvershootIsANoteAndPlaysAsOne() throws {
        let json = pattern(
            continuous(at: 0, for: 0.06, intensity: "1.0434327278163573", sharpness: "1.0010253860965275"))
        #expect(
            findings(json) == [
                "Pattern[0].Event.EventParameters[0].ParameterValue: note[value-overshoot]: HapticIntensity 1.0434327278163573 is just outside 0...1; plays as 1 (Core Haptics clamps it too)",
                "Pattern[0].Event.EventParameters[1].ParameterValue: note[value-overshoot]: HapticSharpness 1.0010253860965275 is just outside 0...1; plays as 1 (Core Haptics clamps it too)",
            ])
        let event = try #require(AHAP.decode(Array(json.utf8)).pattern.events.first)
        #expect(event.value(of: .hapticIntensity) == 1)
        #expect(event.value(of: .hapticSharpness) == 1)
    }

    /// sound2ahap normalises a song's levels to peaks of 1.1995 (282 events over 1.1 in one
    /// file): a device plays its maximum there and nothing in the file can ask for more, so a
    /// note, not a warning per value (324 of them in that file before).
    @Test func aGeneratorsLevelsUpToAFifthOverOneAreNotes() {
        let json = pattern(
            continuous(at: 0, for: 0.06, intensity: "1.1994765866", sharpness: "1.1736625814"),
            continuous(at: 0.06, for: 0.06, intensity: "1.25", sharpness: "0.5"))
        #expect(
            AHAP.lint(Array(json.utf8)).map { "\($0.severity.rawValue)[\($0.code)]" } == [
                "note[value-overshoot]", "note[value-overshoot]", "note[value-overshoot]",
            ])
    }

    /// Further out is a mistake (a hand-written sharpness of 10, a generator's levels of 1.6 to
    /// 4.6): still a warning. The boundary is a quarter of the range: -1...1 ranges allow 0.5.
    @Test func farOutOfRangeStaysAWarning() {
        let json = pattern(
            continuous(at: 0, for: 1, intensity: "1.3", sharpness: "10"),
            #"{"Parameter": {"ParameterID": "HapticSharpnessControl", "Time": 0, "ParameterValue": -1.5}}"#,
            #"{"Parameter": {"ParameterID": "HapticSharpnessControl", "Time": 0.5, "ParameterValue": -1.6}}"#)
        #expect(
            AHAP.lint(Array(json.utf8)).map { "\($0.severity.rawValue)[\($0.code)]" } == [
                "warning[value-clamped]", "warning[value-clamped]", "note[value-overshoot]", "warning[value-clamped]",
            ])
    }

    // MARK: Events that cannot be heard

    /// A generator's quiet frames (intensity 0.00004) render at -176 dBFS: each draws a note
    /// saying why, so a file that renders silent is never silent without a word.
    @Test func aNearZeroIntensityIsNamed() {
        let json = pattern(
            continuous(at: 0, for: 0.064, intensity: "3.9805e-05"), continuous(at: 0.064, for: 0.064, intensity: "0.04")
        )
        #expect(
            findings(json) == [
                "Pattern[0].Event: note[inaudible-event]: HapticContinuous at 0 s cannot be heard: its HapticIntensity is 3.9805e-05, under 0.04 (56 dB below full strength)"
            ])
    }

    /// Intensity 1 under a control held at 0, and intensity 0 itself: both named, the control
    /// as the cause of the first.
    @Test func aControlHeldAtZeroIsNamedAsTheCause() {
        let json = pattern(
            #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterValue": 0}}"#,
            #"{"Event": {"Time": 0.5, "EventType": "HapticTransient"}}"#,
            continuous(at: 1, for: 1, intensity: "0"))
        #expect(
            findings(json) == [
                "Pattern[1].Event: note[inaudible-event]: HapticTransient at 0.5 s cannot be heard: its HapticIntensity 1 is held at 0 or less by HapticIntensityControl, under 0.04 (56 dB below full strength)",
                "Pattern[2].Event: note[inaudible-event]: HapticContinuous at 1 s cannot be heard: its HapticIntensity is 0, under 0.04 (56 dB below full strength)",
            ])
    }

    /// A fade-in from 0, a curve that reaches full strength only inside the event, and a step up
    /// during it: all heard, so no note.
    @Test func anEventHeardAtAnyPointOfItsSpanDrawsNothing() {
        let json = pattern(
            continuous(at: 0, for: 1, intensity: "1"),
            #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 0}, {"Time": 0.5, "ParameterValue": 1}, {"Time": 0.6, "ParameterValue": 0}]}}"#,
            continuous(at: 2, for: 1, intensity: "1"),
            #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 2, "ParameterValue": 0}}"#,
            #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 2.9, "ParameterValue": 1}}"#)
        #expect(findings(json) == [])
    }
}
