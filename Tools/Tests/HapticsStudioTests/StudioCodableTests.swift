import Foundation
import Testing
import _ToolTestSupport

/// The routes answered from Codable types (issue 26) answer the same JSON on every run, byte for
/// byte: members in sorted order, integers without a fraction, paths unescaped.
@Suite struct StudioCodableTests {
    @Test(.timeLimit(.minutes(1))) func filesPlayAndStopAnswerTheDocumentedJSON() async throws {
        try await StudioHarness.with { studio in
            func size(_ name: String) throws -> Int {
                try FileManager.default.attributesOfItem(atPath: studio.url(name).path(percentEncoded: false))[.size]
                    as? Int ?? -1
            }
            let files = try await studio.call("GET", "/api/files")
            #expect(files.status == 200)
            #expect(
                files.text
                    == "{\"files\":["
                    + "{\"bytes\":\(try size("rising-falling.ahap")),\"format\":\"ahap\",\"path\":\"pats/rising-falling.ahap\"},"
                    + "{\"bytes\":\(try size("sharp-tap.ahap")),\"format\":\"ahap\",\"path\":\"pats/sharp-tap.ahap\"}"
                    + "],\"roots\":[\"pats\"],\"truncated\":false}")
            let play = try await studio.call("POST", "/api/play", json: "{\"path\": \"pats/sharp-tap.ahap\"}")
            #expect(play.status == 200)
            #expect(play.text.wholeMatch(of: /\{"id":[0-9]+,"playing":true\}/) != nil, "\(play.text)")
            let stop = try await studio.call("POST", "/api/stop", json: "{}")
            #expect(stop.text == "{\"playing\":false}")
        }
    }

    /// `/api/diff` (`Studio.DiffResponse`): an index that is not there is written as null, as
    /// docs/studio.md shows; errors (`Studio.ErrorResponse`) carry `error` and, for a conflict, the
    /// file's current `version` and `text`.
    @Test(.timeLimit(.minutes(1))) func diffAndErrorsAnswerTheDocumentedJSON() async throws {
        try await StudioHarness.with { studio in
            let tap = "{\"Event\": {\"Time\": 0.5, \"EventType\": \"HapticTransient\"}}"
            let diff = try await studio.call(
                "POST", "/api/diff",
                json: "{\"a\": {\"Pattern\": []}, \"b\": {\"Pattern\": [\(tap)]}}")
            #expect(diff.status == 200)
            #expect(
                diff.text
                    == "{\"changes\":[{\"afterIndex\":0,\"beforeIndex\":null,\"element\":\"event\",\"end\":0.5,"
                    + "\"kind\":\"added\",\"line\":\"+ added HapticTransient at 0.500 s (B Pattern[0]): intensity 1, sharpness 0.5\","
                    + "\"start\":0.5,\"time\":0.5}],\"durationAfter\":0.5,\"durationBefore\":0,"
                    + "\"identical\":false,\"metadata\":[],\"unchanged\":0}")
            let missing = try await studio.call("POST", "/api/diff", json: "{\"a\": {\"Pattern\": []}}")
            #expect(missing.status == 400)
            #expect(missing.text == "{\"error\":\"the request has no \\\"b\\\"\"}")
            let stale = try await studio.call(
                "PUT", "/api/pattern?path=pats/sharp-tap.ahap",
                json: "{\"baseVersion\": \"stale\", \"edits\": []}")
            #expect(stale.status == 409)
            let body = try #require(try JSONSerialization.jsonObject(with: Data(stale.body)) as? [String: Any])
            #expect(Set(body.keys) == ["error", "text", "version"])
            #expect(body["text"] as? String == (try String(contentsOf: studio.url("sharp-tap.ahap"), encoding: .utf8)))
            #expect(
                stale.text.hasPrefix("{\"error\":\"pats/sharp-tap.ahap changed on disk since it was opened\",\"text\":")
            )
        }
    }

    /// Three silent taps, each with its note ("cannot be heard").
    static let quiet = """
        {"Version": 1, "Pattern": [
          {"Event": {"Time": 0.0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0}]}},
          {"Event": {"Time": 1.0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0}]}},
          {"Event": {"Time": 2.0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0}]}}
        ]}
        """

    /// An edit analysed with a narrow window answers that window's curves and waveform, the
    /// counts, and of the findings only the one that changed: none of the other entries or
    /// findings travel again.
    @Test(.timeLimit(.minutes(1))) func anEditAnswersTheWindowAndOnlyTheFindingsThatChanged() async throws {
        try await StudioHarness.with(files: ["quiet.ahap": Self.quiet]) { studio in
            let opened = try await studio.object("GET", "/api/pattern?path=pats/quiet.ahap")
            let version = try #require(opened["version"] as? String)
            let key = try #require(opened["findingsKey"] as? String)
            #expect((opened["diagnostics"] as? [Any])?.count == 3)
            let moved =
                #"{"Event": {"Time": 1.5, "EventType": "HapticTransient", "EventParameters": "#
                + #"[{"ParameterID": "HapticIntensity", "ParameterValue": 0}]}}"#
            func analyze(_ known: String) async throws -> String {
                let response = try await studio.call(
                    "POST", "/api/analyze",
                    json: #"{"path": "pats/quiet.ahap", "baseVersion": "\#(version)", "#
                        + #""edits": [{"index": 1, "element": \#(moved)}], "#
                        + #""window": {"start": 1.5, "end": 1.5005, "columns": 1}, "findingsKey": "\#(known)"}"#)
                #expect(response.status == 200, "\(response.text)")
                // Where the server's time went, stage by stage, for DevTools and haptic-bench.
                let timing = try #require(response.header("Server-Timing"), "no Server-Timing header")
                #expect(
                    timing.wholeMatch(
                        of:
                            /body;dur=[0-9]+\.[0-9]{3}, decode;dur=[0-9]+\.[0-9]{3}, analyze;dur=[0-9]+\.[0-9]{3}, json;dur=[0-9]+\.[0-9]{3}/
                    ) != nil, "\(timing)")
                return response.text.replacing(/"analyzeMilliseconds":[0-9.e-]+/, with: #""analyzeMilliseconds":0"#)
                    .replacing(version, with: "V")
            }
            let patched = try await analyze(key)
            let newKey = try #require(patched.firstMatch(of: /"findingsKey":"([^"]+)"/)?.output.1)
            #expect(newKey != key)
            // Line 3, column 3: where the entry is in the text a save writes.
            let note =
                #"{"code":"inaudible-event","column":3,"element":1,"jsonPath":"Pattern[1].Event","line":3,"#
                + #""message":"HapticTransient at 1.5 s cannot be heard: its HapticIntensity is 0, under 0.04 (56 dB "#
                + #"below full strength)","severity":"note","time":1.5}"#
            let window =
                #""duration":2,"effective":{"intensity":[0,0,0],"sharpness":[0.5,0.5,0.5],"#
                + #""times":[1.495,1.5,1.505]},"eventsCount":3,"#
            let wave = #""waveform":{"max":[0],"min":[0],"seconds":0.0005,"start":1.5,"truncated":false}}"#
            #expect(
                patched
                    == #"{"analyzeMilliseconds":0,"curvesCount":0,"# + window
                    + #""findingsKey":"\#(newKey)","#
                    + #""findingsPatch":{"from":"\#(key)","insert":[\#(note)],"remove":1,"start":1},"#
                    + #""format":"ahap","metadata":{},"parametersCount":0,"path":"pats/quiet.ahap","version":"V","#
                    + wave)
            // The page has the new list: no findings at all.
            let same = try await analyze(String(newKey))
            #expect(!same.contains("diagnostics") && !same.contains("findingsPatch"), "\(same)")
            // A list the studio never sent: every finding.
            let unknown = try await analyze("unknown")
            #expect(unknown.contains(#""diagnostics":[{"#) && !unknown.contains("findingsPatch"), "\(unknown)")
            #expect(unknown.components(separatedBy: "inaudible-event").count == 4, "\(unknown)")
        }
    }
}
