import Foundation
import HapticsCore
import OrderedCollections
import Testing

/// `(line 2, column N)` for the first occurrence of `needle` in an element wrapped by `doc(_:)`.
func at(_ needle: String, in element: String) -> String {
    let prefix = element.range(of: needle).map { element[..<$0.lowerBound] } ?? ""
    return "(line 2, column \(13 + prefix.count))"
}

/// The default severity of the rule named `code` (`warning`, `note`).
func severity(_ code: String) -> String { Diagnostic.Code(rawValue: code)?.defaultSeverity.rawValue ?? "unknown" }

/// One lint rule: an element, and the exact line the linter prints for it.
struct Rule: CustomTestStringConvertible, Sendable {
    var code: String
    var element: String
    var expected: String
    var testDescription: String { code }
}

let transient = #""Time": 0, "EventType": "HapticTransient""#
let continuous = #""Time": 0, "EventType": "HapticContinuous", "EventDuration": 1"#

func event(_ body: String) -> String { "{\"Event\": {\(body)}}" }
func params(_ kind: String, _ list: String) -> String { event("\(kind), \"EventParameters\": [\(list)]") }

let warningRules: [Rule] = {
    var rules: [Rule] = []
    func add(_ code: String, _ element: String, _ path: String, _ message: String, _ needle: String) {
        rules.append(
            Rule(
                code: code, element: element,
                expected: "t.ahap:\(path): \(severity(code))[\(code)]: \(message) \(at(needle, in: element))"))
    }
    var e = event(transient + #", "EventDuraton": 1"#)
    add(
        "unknown-key", e, "Pattern[0].Event.EventDuraton",
        #"unknown key "EventDuraton" in an Event (did you mean "EventDuration"?); Core Haptics ignores it"#,
        #""EventDuraton""#)
    e = #"{"Paramter": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterValue": 1}}"#
    add(
        "unknown-key", e, "Pattern[0].Paramter",
        #"unknown key "Paramter" in a Pattern entry (did you mean "Parameter"?); Core Haptics ignores it"#,
        #""Paramter""#)
    e = event(transient + #", "colour": 1"#)
    add(
        "unknown-key", e, "Pattern[0].Event.colour",
        #"unknown key "colour" in an Event; Core Haptics ignores it"#, #""colour""#)
    e = params(transient, #"{"ParameterID": "HapticIntensity", "ParameterValue": 1.5}"#)
    add(
        "value-clamped", e, "Pattern[0].Event.EventParameters[0].ParameterValue",
        "HapticIntensity 1.5 is outside 0...1; clamped to 1", "1.5")
    e = params(
        #""Time": 0, "EventType": "AudioContinuous", "EventDuration": 1"#,
        #"{"ParameterID": "AudioPan", "ParameterValue": -3}"#)
    add(
        "value-clamped", e, "Pattern[0].Event.EventParameters[0].ParameterValue",
        "AudioPan -3 is outside -1...1; clamped to -1", "-3")
    e = #"{"Parameter": {"ParameterID": "HapticSharpnessControl", "Time": 0, "ParameterValue": 2}}"#
    add(
        "value-clamped", e, "Pattern[0].Parameter.ParameterValue",
        "HapticSharpnessControl value 2 is outside -1...1; clamped to 1", "2}")
    e = params(transient, #"{"ParameterID": "HapticSharpness"}"#)
    add(
        "missing-value", e, "Pattern[0].Event.EventParameters[0]",
        "HapticSharpness has no ParameterValue; Core Haptics uses the default 0.5", #"{"ParameterID""#)
    e = #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 0}}"#
    add(
        "missing-value", e, "Pattern[0].Parameter",
        "Parameter has no ParameterValue; using the neutral value 1",
        #"{"ParameterID""#)
    e = params(
        transient,
        #"{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticIntensity", "ParameterValue": 0.5}"#
    )
    add(
        "duplicate-parameter", e, "Pattern[0].Event.EventParameters[1]",
        "HapticIntensity is given twice in this event (first at line 2, column \(13 + e.distance(to: #"{"ParameterID""#))); the last value wins",
        #"{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}"#)
    e = event(transient + #", "EventDuration": 0.5"#)
    add(
        "transient-duration", e, "Pattern[0].Event.EventDuration",
        "EventDuration 0.5 on a HapticTransient does not lengthen the tap; it only pads the pattern", "0.5")
    e = event(#""Time": 0, "EventType": "HapticContinuous", "EventDuration": 31"#)
    add(
        "duration-too-long", e, "Pattern[0].Event.EventDuration",
        "EventDuration 31 s is longer than Core Haptics' 30 s maximum for a continuous event; it plays for 30 s, as on a device",
        "31")
    e = event(#""Time": 0, "EventType": "HapticContinuous", "EventDuration": 0"#)
    add(
        "zero-duration", e, "Pattern[0].Event.EventDuration",
        "HapticContinuous event lasts 0 s and plays nothing", "0}")
    e = params(continuous, #"{"ParameterID": "Sustained", "ParameterValue": 0.5}"#)
    add(
        "sustained-not-boolean", e, "Pattern[0].Event.EventParameters[0].ParameterValue",
        "Sustained 0.5 is neither 0 nor 1; it is a flag, read as 1 (sustained) because it is not 0", "0.5")
    e = params(continuous, #"{"ParameterID": "Sustained", "ParameterValue": false}"#)
    add(
        "boolean-value", e, "Pattern[0].Event.EventParameters[0].ParameterValue",
        "Sustained is written as a number in AHAP; false is read as 0", "false")
    e = params(transient, #"{"ParameterID": "AudioVolume", "ParameterValue": 0.5}"#)
    add(
        "parameter-not-applicable", e, "Pattern[0].Event.EventParameters[0].ParameterID",
        "AudioVolume has no effect on a HapticTransient event", #""AudioVolume""#)
    e = params(transient, #"{"ParameterID": "DecayTime", "ParameterValue": 0.5}"#)
    add(
        "parameter-not-applicable", e, "Pattern[0].Event.EventParameters[0].ParameterID",
        "DecayTime has no effect on a HapticTransient event", #""DecayTime""#)
    e = event(transient + #", "EventWaveformPath": "a.wav""#)
    add(
        "waveform-ignored", e, "Pattern[0].Event.EventWaveformPath",
        "EventWaveformPath only applies to AudioCustom events; this HapticTransient ignores it", #""a.wav""#)
    e =
        #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0.25, "ParameterValue": 1}, {"Time": 1, "ParameterValue": 0}]}}"#
    add(
        "curve-start-not-zero", e, "Pattern[0].ParameterCurve.ParameterCurveControlPoints[0]",
        "first control point is at 0.25 s, not 0; from the curve's start the control moves in a line from the value it has then to this point's value",
        #"{"Time": 0.25"#)
    e =
        #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 1, "ParameterValue": 0}, {"Time": 0.5, "ParameterValue": 0.5}]}}"#
    add(
        "curve-unsorted", e, "Pattern[0].ParameterCurve.ParameterCurveControlPoints[2]",
        "control point Time 0.5 comes after 1; points must ascend, so they were sorted by Time",
        #"{"Time": 0.5"#)
    e = "{}"
    add(
        "empty-element", e, "Pattern[0]",
        "Pattern entry has none of Event, Parameter, ParameterCurve; it is ignored", "{}")
    return rules
}()

let errorRules: [Rule] = {
    var rules: [Rule] = []
    func add(_ code: String, _ element: String, _ path: String, _ message: String, _ needle: String) {
        rules.append(
            Rule(
                code: code, element: element,
                expected: "t.ahap:\(path): error[\(code)]: \(message) \(at(needle, in: element))"))
    }
    var e = event(#""Time": "soon", "EventType": "HapticTransient""#)
    add("wrong-type", e, "Pattern[0].Event.Time", #"Time must be a number, found string "soon""#, #""soon""#)
    e = event(#""Time": 0, "EventType": 3"#)
    add("wrong-type", e, "Pattern[0].Event.EventType", "EventType must be a string, found number 3", "3")
    e = event(transient + #", "EventParameters": {}"#)
    add(
        "wrong-type", e, "Pattern[0].Event.EventParameters",
        "EventParameters must be an array, found an object", "{}")
    e = #"[1]"#
    add("wrong-type", e, "Pattern[0]", "a Pattern entry must be an object, found an array", "[1]")
    e = event(
        #""Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "a.wav", "EventWaveformLoopEnabled": 1"#
    )
    add(
        "wrong-type", e, "Pattern[0].Event.EventWaveformLoopEnabled",
        "EventWaveformLoopEnabled must be true or false, found number 1", "1}")
    e = event(#""EventType": "HapticTransient""#)
    add(
        "missing-key", e, "Pattern[0].Event", "Event has no Time (seconds from the start of the pattern)",
        #"{"EventType""#)
    e = event(#""Time": 0"#)
    add("missing-key", e, "Pattern[0].Event", "Event has no EventType", #"{"Time""#)
    e = params(transient, #"{"ParameterValue": 1}"#)
    add(
        "missing-key", e, "Pattern[0].Event.EventParameters[0]", "event parameter has no ParameterID",
        #"{"ParameterValue""#)
    e = #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0}}"#
    add(
        "missing-key", e, "Pattern[0].ParameterCurve",
        "ParameterCurve has no ParameterCurveControlPoints (an array of {Time, ParameterValue})",
        #"{"ParameterID""#)
    e = event(#""Time": 0, "EventType": "HapticTransiant""#)
    add(
        "unknown-event-type", e, "Pattern[0].Event.EventType",
        #"unknown EventType "HapticTransiant" (did you mean "HapticTransient"?); expected HapticTransient, HapticContinuous, AudioContinuous or AudioCustom"#,
        #""HapticTransiant""#)
    e = event(#""Time": -1e308, "EventType": "HapticTransient""#)
    add(
        "negative-time", e, "Pattern[0].Event.Time",
        "Time -1e+308 is negative; times are seconds from the start",
        "-1e308")
    e = event(#""Time": 0, "EventType": "HapticContinuous", "EventDuration": -2"#)
    add(
        "negative-duration", e, "Pattern[0].Event.EventDuration",
        "EventDuration -2 is negative; times are seconds from the start", "-2")
    e = event(#""Time": 0, "EventType": "HapticContinuous""#)
    add(
        "missing-duration", e, "Pattern[0].Event",
        "HapticContinuous event has no EventDuration; continuous events need one", #"{"Time""#)
    e = params(transient, #"{"ParameterID": "HapticIntensty", "ParameterValue": 1}"#)
    add(
        "unknown-parameter-id", e, "Pattern[0].Event.EventParameters[0].ParameterID",
        #"unknown event ParameterID "HapticIntensty" (did you mean "HapticIntensity"?)"#, #""HapticIntensty""#
    )
    e = params(transient, #"{"ParameterID": "HapticIntensityControl", "ParameterValue": 1}"#)
    add(
        "unknown-parameter-id", e, "Pattern[0].Event.EventParameters[0].ParameterID",
        #"unknown event ParameterID "HapticIntensityControl" (HapticIntensityControl is a dynamic parameter: use it in a Parameter or ParameterCurve entry; here did you mean "HapticIntensity"?)"#,
        #""HapticIntensityControl""#)
    e = #"{"Parameter": {"ParameterID": "HapticSharpness", "Time": 0, "ParameterValue": 0.2}}"#
    add(
        "unknown-parameter-id", e, "Pattern[0].Parameter.ParameterID",
        #"unknown dynamic ParameterID "HapticSharpness" (HapticSharpness is an event parameter; did you mean "HapticSharpnessControl"?)"#,
        #""HapticSharpness""#)
    e =
        "{\"Event\": {\(transient)}, \"Parameter\": {\"ParameterID\": \"HapticIntensityControl\", \"Time\": 0}}"
    add(
        "ambiguous-element", e, "Pattern[0].Parameter",
        "Pattern entry must hold exactly one of Event, Parameter, ParameterCurve; found Event and Parameter",
        #""Parameter""#)
    e = event(#""Time": 0, "EventType": "AudioCustom""#)
    add(
        "missing-waveform", e, "Pattern[0].Event",
        "AudioCustom event has no EventWaveformPath (the audio file to play)",
        #"{"Time""#)
    e = event(#""Time": 0, "EventType": "AudioCustom", "EventWaveformPath": """#)
    add(
        "missing-waveform", e, "Pattern[0].Event.EventWaveformPath",
        "EventWaveformPath is empty; name an audio file", #""""#)
    e =
        #"{"ParameterCurve": {"ParameterID": "AudioPanControl", "Time": 0, "ParameterCurveControlPoints": []}}"#
    add(
        "empty-curve", e, "Pattern[0].ParameterCurve.ParameterCurveControlPoints",
        "ParameterCurve has no control points", "[]")
    return rules
}()

extension String {
    /// Characters before the first occurrence of `needle`.
    func distance(to needle: String) -> Int {
        range(of: needle).map { self[..<$0.lowerBound].count } ?? 0
    }
}

@Suite struct AHAPLintTests {
    @Test(arguments: warningRules)
    func warningRulesSayWhatWasTolerated(rule: Rule) throws {
        let text = doc(rule.element)
        #expect(lintLines(text) == [rule.expected])
        // A warning does not stop decoding.
        let decoded = try AHAP.decode(Array(text.utf8), file: "t.ahap")
        #expect(decoded.diagnostics.map { $0.formatted(file: "t.ahap") } == [rule.expected])
        #expect(decoded.diagnostics.first?.code.rawValue == rule.code)
    }

    @Test(arguments: errorRules)
    func errorRulesNameFilePathLocationAndValue(rule: Rule) {
        let text = doc(rule.element)
        #expect(lintLines(text) == [rule.expected])
        #expect(throws: AHAPError.self) { try AHAP.decode(Array(text.utf8), file: "t.ahap") }
        do {
            _ = try AHAP.decode(Array(text.utf8), file: "t.ahap")
        } catch {
            #expect(error.description == rule.expected)
            #expect(error.code.rawValue == rule.code)
            #expect(error.file == "t.ahap")
        }
    }

    @Test(arguments: [
        ("version", "Version"), ("PATTERN", "Pattern"), ("Metdata", "Metadata"), ("Patterns", "Pattern"),
        ("Title", nil), ("V", nil),
    ])
    func didYouMeanSuggestsOnlyCloseKeys(key: String, suggestion: String?) {
        let line = lintLines(#"{"Version": 1, "Pattern": [], "\#(key)": 0}"#).last ?? ""
        let hint = suggestion.map { #" (did you mean "\#($0)"?)"# } ?? ""
        #expect(
            line
                == #"t.ahap:\#(key): warning[unknown-key]: unknown key "\#(key)" in the top level\#(hint); Core Haptics ignores it (line 1, column 31)"#
        )
    }

    @Test func formatsFindingsWithAndWithoutFileAndPosition() {
        let d = Diagnostic(.warning, code: .unknownKey, "m", at: JSONPath.root.key("Pattern").index(0))
        #expect(d.formatted(file: nil) == "Pattern[0]: warning[unknown-key]: m")
        #expect(d.formatted(file: "a.ahap") == "a.ahap:Pattern[0]: warning[unknown-key]: m")
        var located = d
        located.location = SourceLocation(line: 3, column: 9)
        #expect(located.formatted(file: "a.ahap") == "a.ahap:Pattern[0]: warning[unknown-key]: m (line 3, column 9)")
        let error = AHAPError(
            file: nil, path: .root, location: nil, code: .jsonSyntax, message: "bad", diagnostics: [])
        #expect(error.description == "$: error[json-syntax]: bad")
    }

    @Test func clampedValuesLandInThePattern() throws {
        let text = doc(
            params(
                transient,
                #"{"ParameterID": "HapticIntensity", "ParameterValue": 1.5}, {"ParameterID": "HapticSharpness", "ParameterValue": -0.5}"#
            ))
        let event = try #require(AHAP.decode(Array(text.utf8)).pattern.events.first)
        #expect(event.parameters == [.init(.hapticIntensity, 1), .init(.hapticSharpness, 0)])
    }

    @Test func unsortedCurvePointsAreSortedStably() throws {
        let text = doc(
            #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0.5, "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1}, {"Time": 1, "ParameterValue": 0}, {"Time": 0.5, "ParameterValue": 0.5}, {"Time": 0.5, "ParameterValue": 0.25}]}}"#
        )
        let curve = try #require(AHAP.decode(Array(text.utf8)).pattern.parameterCurves.first)
        #expect(curve.controlPoints.map(\.time) == [0, 0.5, 0.5, 1])
        #expect(curve.controlPoints.map(\.value) == [1, 0.5, 0.25, 0])
        #expect(curve.time == 0.5)
    }

    @Test func topLevelFindings() {
        #expect(
            lintLines(#"{"Pattern": []}"#) == [
                "t.ahap:$: note[missing-version]: no Version; reading the file as AHAP version 1 (line 1, column 1)",
                "t.ahap:Pattern: warning[empty-pattern]: Pattern is empty; the file plays nothing (line 1, column 13)",
            ])
        #expect(
            lintLines(#"{"Version": 2, "Pattern": [], "Patern": 1}"#) == [
                "t.ahap:Version: warning[unknown-version]: Version 2 is not 1, the only AHAP version this reader knows; unknown keys will be ignored (line 1, column 13)",
                "t.ahap:Pattern: warning[empty-pattern]: Pattern is empty; the file plays nothing (line 1, column 27)",
                #"t.ahap:Patern: warning[unknown-key]: unknown key "Patern" in the top level (did you mean "Pattern"?); Core Haptics ignores it (line 1, column 31)"#,
            ])
        #expect(
            lintLines(#"{"Version": 1}"#) == [
                #"t.ahap:$: error[missing-key]: missing key "Pattern": an AHAP file needs a Pattern array of events and parameters (line 1, column 1)"#
            ])
        #expect(
            lintLines(#"[{"Event": {}}]"#) == [
                "t.ahap:$: error[wrong-type]: the top level must be an object with a Pattern array, found an array (line 1, column 1)"
            ])
        #expect(
            lintLines(#"{"Version": "1", "Metadata": [], "Pattern": 0}"#) == [
                #"t.ahap:Version: warning[number-as-string]: Version is the string "1"; read as the number 1 (line 1, column 13)"#,
                "t.ahap:Metadata: error[wrong-type]: Metadata must be an object, found an array (line 1, column 30)",
                "t.ahap:Pattern: error[wrong-type]: Pattern must be an array, found number 0 (line 1, column 45)",
            ])
    }

    @Test func lintReportsEveryFindingInDocumentOrder() throws {
        let text = """
            {"Version": 1, "Version": 1, "Pattern": [
                {"Event": {"Time": "x", "EventType": "HapticTransient"}},
                {"Event": {"Time": 0, "EventType": "HapticTransient", "EventDuraton": 1}},
                {"Event": {"Time": 0, "EventType": "Buzz"}}
            ]}
            """
        let lines = lintLines(text)
        #expect(
            lines == [
                #"t.ahap:Version: warning[duplicate-key]: duplicate key "Version" (first at line 1, column 2); the last value wins (line 1, column 16)"#,
                #"t.ahap:Pattern[0].Event.Time: error[wrong-type]: Time must be a number, found string "x" (line 2, column 24)"#,
                #"t.ahap:Pattern[1].Event.EventDuraton: warning[unknown-key]: unknown key "EventDuraton" in an Event (did you mean "EventDuration"?); Core Haptics ignores it (line 3, column 59)"#,
                #"t.ahap:Pattern[2].Event.EventType: error[unknown-event-type]: unknown EventType "Buzz"; expected HapticTransient, HapticContinuous, AudioContinuous or AudioCustom (line 4, column 40)"#,
            ])
        // decode throws the first error and carries all four findings.
        do {
            _ = try AHAP.decode(Array(text.utf8), file: "t.ahap")
            Issue.record("expected an error")
        } catch {
            #expect(error.path.description == "Pattern[0].Event.Time")
            #expect(error.location == SourceLocation(line: 2, column: 24))
            #expect(error.diagnostics.count == 4)
        }
    }

    @Test func typoFixtureWarnsAboutTheTypoAndStillPlaysItsEvent() throws {
        let bytes = try Fixtures.bytes("ahap/Typo.ahap")
        let doc = try AHAP.decode(bytes, file: "Typo.ahap")
        #expect(
            doc.diagnostics.map { $0.formatted(file: "Typo.ahap") } == [
                #"Typo.ahap:Pattern[1].ParameterCurves: warning[unknown-key]: unknown key "ParameterCurves" in a Pattern entry (did you mean "ParameterCurve"?); Core Haptics ignores it (line 15, column 13)"#
            ])
        #expect(
            doc.pattern.events == [
                HapticEvent(
                    time: 0, type: .hapticTransient,
                    parameters: [.init(.hapticIntensity, 1), .init(.hapticSharpness, 0.6)])
            ])
        #expect(doc.pattern.parameterCurves.isEmpty)
    }

    @Test func seventeenPointCurveIsAWarningNotAnError() throws {
        let doc = try AHAP.decode(try Fixtures.bytes("ahap/Curve17.ahap"))
        #expect(doc.diagnostics.map(\.code) == [.tooManyControlPoints])
        // Core Haptics plays it and exporters write it: a note, so --strict passes.
        #expect(doc.diagnostics.first?.severity == .note)
        #expect(
            doc.diagnostics.first?.message
                == "ParameterCurve has 17 control points; Core Haptics tooling uses at most 16 per curve and splits longer ones"
        )
        #expect(
            doc.diagnostics.first?.path.description == "Pattern[1].ParameterCurve.ParameterCurveControlPoints"
        )
        #expect(doc.pattern.parameterCurves.first?.controlPoints.count == 17)
    }

    @Test func curvesPastAThousandPointsPlayWithAWarningNamingNoInternals() throws {
        let points = (0..<1500).map { #"{"Time": \#(Double($0) / 1000), "ParameterValue": 0.5}"# }
        let text = doc(
            #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [\#(points.joined(separator: ","))]}}"#
        )
        let decoded = try AHAP.decode(Array(text.utf8))
        #expect(decoded.pattern.parameterCurves.first?.controlPoints.count == 1500)
        #expect(decoded.diagnostics.map(\.code) == [.tooManyControlPoints])
        #expect(decoded.diagnostics.allSatisfy { !$0.message.contains("AHAPLimits") })
    }

    @Test func exporterOutputDecodesWithNotesOnly() throws {
        let heartbeat = try AHAP.decode(try Fixtures.bytes("ahap/Heartbeat.ahap"), file: "Heartbeat.ahap")
        #expect(heartbeat.diagnostics.map(\.code) == [.curveStartNotZero])
        #expect(heartbeat.diagnostics.allSatisfy { $0.severity == .note })
        // 13 ms between taps is legal AHAP; a tap without HapticIntensity gets Apple's default 1.
        #expect(heartbeat.pattern.events.map(\.time) == [0, 0.013, 0.5, 0.513])
        #expect(heartbeat.pattern.events[1].value(of: .hapticIntensity) == 1)
        #expect(heartbeat.pattern.events[3].value(of: .hapticSharpness) == 0.5)
    }

    @Test func trailingCommasAsInApplesSamplesAreReadAndLocated() throws {
        let kit = try AHAP.decode(try Fixtures.bytes("ahap/Kit.ahap"), file: "Kit.ahap")
        #expect(
            kit.diagnostics.map { "\($0.path) \($0.location!)" } == [
                "Metadata 6:112", "Pattern[4].ParameterCurve.ParameterCurveControlPoints 24:53", "Pattern 25:16",
            ])
        #expect(kit.diagnostics.allSatisfy { $0.code == .trailingComma && $0.severity == .warning })
        let custom = try #require(kit.pattern.events.first { $0.type == .audioCustom })
        #expect(custom.waveformPath == "AHAP/Kit.wav")
        #expect(kit.pattern.events[0].value(of: .hapticIntensity) == 1)  // not given: Apple's default
        #expect(kit.pattern.metadata["Project"] == .string("swift-haptics fixtures"))
        #expect(kit.pattern.parameterCurves.first?.controlPoints.count == 2)
    }

    @Test func nullIsReadAsAbsentWithANote() throws {
        let oscillate = try AHAP.decode(try Fixtures.bytes("ahap/Oscillate.ahap"), file: "Oscillate.ahap")
        #expect(oscillate.pattern.events.map(\.waveformPath) == [nil, nil])
        #expect(oscillate.pattern.events[1].value(of: .hapticSharpness) == 0.5)
        #expect(
            oscillate.diagnostics.map { $0.formatted(file: "O.ahap") } == [
                "O.ahap:$: note[missing-version]: no Version; reading the file as AHAP version 1 (line 1, column 1)",
                "O.ahap:Pattern[0].Event.EventWaveformPath: note[null-value]: EventWaveformPath is null; read as absent, as Core Haptics does (line 3, column 107)",
                "O.ahap:Pattern[1].Event.EventWaveformPath: note[null-value]: EventWaveformPath is null; read as absent, as Core Haptics does (line 6, column 109)",
                "O.ahap:Pattern[1].Event.EventParameters[1]: warning[missing-value]: HapticSharpness has no ParameterValue; Core Haptics uses the default 0.5 (line 8, column 33)",
                "O.ahap:Pattern[1].Event.EventParameters[1].ParameterValue: note[null-value]: ParameterValue is null; read as absent, as Core Haptics does (line 8, column 86)",
            ])
        // A required key that is null is missing.
        #expect(
            lintLines(doc(#"{"Event": {"Time": null, "EventType": "HapticTransient"}}"#)).map {
                $0.contains("error[missing-key]")
            } == [true, false])
    }

    @Test("A repeated key's last value counts, null or not")
    func aRepeatedKeysLastValueDecidesWhetherItIsNull() throws {
        // null first, a time last: the event is at 0.5, with only the duplicate's warning.
        let late = doc(#"{"Event": {"Time": null, "Time": 0.5, "EventType": "HapticTransient"}}"#)
        #expect(try AHAP.decode(Array(late.utf8)).pattern.events.map(\.time) == [0.5])
        #expect(lintLines(late).map { $0.contains("warning[duplicate-key]") } == [true])
        // A time first, null last: the time is missing.
        let early = lintLines(doc(#"{"Event": {"Time": 0.5, "Time": null, "EventType": "HapticTransient"}}"#))
        #expect(early.contains { $0.contains("error[missing-key]: Event has no Time") })
        #expect(early.contains { $0.contains("warning[duplicate-key]") })
    }

    @Test func numbersWrittenAsStringsAreReadWithAWarning() throws {
        let text = doc(#"{"Event": {"Time": "0.25", "EventType": "HapticTransient"}}"#)
        let decoded = try AHAP.decode(Array(text.utf8))
        #expect(decoded.pattern.events.first?.time == 0.25)
        #expect(decoded.diagnostics.map(\.code) == [.numberAsString])
        #expect(
            lintLines(doc(#"{"Event": {"Time": "0x10", "EventType": "HapticTransient"}}"#)).first?.contains(
                "error[wrong-type]") == true)
    }

    @Test func continuousEventsStopAtThirtySecondsAsOnADevice() throws {
        let text = doc(
            #"{"Event": {"Time": 1, "EventType": "HapticContinuous", "EventDuration": 103, "EventParameters": [{"ParameterID": "ReleaseTime", "ParameterValue": 0.5}]}}"#
        )
        let decoded = try AHAP.decode(Array(text.utf8))
        #expect(decoded.pattern.events.first?.duration == 30)
        #expect(decoded.pattern.duration == 31)
        #expect(decoded.diagnostics.map(\.code) == [.durationTooLong])
        var limits = AHAPLimits.default
        limits.maxContinuousDuration = 5
        #expect(try AHAP.decode(Array(text.utf8), limits: limits).pattern.events.first?.duration == 5)
    }
}
