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
}
