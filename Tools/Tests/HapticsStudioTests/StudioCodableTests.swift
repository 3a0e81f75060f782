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
}
