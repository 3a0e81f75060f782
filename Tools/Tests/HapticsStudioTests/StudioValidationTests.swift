import Foundation
import Testing
import _ToolTestSupport

/// docs/studio.md, "API": every input of the wrong JSON type, not finite, or outside what the
/// studio can act on is a 400 naming it, and the file on disk is unchanged (issue 28). Before, a
/// wrong type was silently ignored (`"from": "x"` played from 0, `"loop": "yes"` did not loop) or
/// taken as an empty path.
@Suite(.serialized) struct StudioValidationTests {
    @Test(.timeLimit(.minutes(1))) func everyInputOfTheWrongShapeIsA400NamingIt() async throws {
        try await StudioHarness.with { studio in
            let file = "\"path\": \"pats/rising-falling.ahap\""
            let before = try Data(contentsOf: studio.url("rising-falling.ahap"))
            let cases: [(String, String, String, String)] = [
                ("POST", "/api/render", "{\(file), \"from\": \"x\"}", "\"from\" must be a number"),
                ("POST", "/api/play", "{\(file), \"from\": -1}", "\"from\" must be a finite number from 0.0 to 3600.0"),
                (
                    "POST", "/api/play", "{\(file), \"from\": 1e300}",
                    "\"from\" must be a finite number from 0.0 to 3600.0"
                ),
                ("POST", "/api/play", "{\(file), \"to\": \"1\"}", "\"to\" must be a number"),
                ("POST", "/api/play", "{\(file), \"from\": 1, \"to\": 0.5}", "\"to\" must not be before \"from\""),
                ("POST", "/api/play", "{\(file), \"loop\": \"yes\"}", "\"loop\" must be a boolean"),
                (
                    "POST", "/api/play", "{\(file), \"loop\": true, \"from\": 0.5, \"to\": 0.5}",
                    "a loop needs at least 1 ms of the pattern between \"from\" and \"to\""
                ),
                (
                    "POST", "/api/play", "{\(file), \"loop\": true, \"from\": 100}",
                    "a loop needs at least 1 ms of the pattern between \"from\" and \"to\""
                ),
                ("POST", "/api/render", "{\(file), \"voice\": 3}", "\"voice\" must be a string"),
                ("POST", "/api/render", "{\"path\": 5}", "\"path\" must be a string"),
                ("POST", "/api/render", "[1, 2]", "the request body must be a JSON object"),
                ("POST", "/api/analyze", "{\"path\": 5, \"ahap\": {}}", "\"path\" must be a string"),
                ("POST", "/api/analyze", "{\(file), \"ahap\": [1]}", "\"ahap\" must be an AHAP object"),
                (
                    "PUT", "/api/pattern?path=pats/rising-falling.ahap",
                    "{\"ahap\": {\"Version\": 1, \"Pattern\": []}, \"baseVersion\": 7}",
                    "\"baseVersion\" must be a string"
                ),
                ("POST", "/api/diff", "{\"a\": 5, \"b\": {}}", "\"a\" must be an AHAP object"),
                // An edit's index that is not a whole number: was `the request has no "ahap"`.
                (
                    "POST", "/api/analyze", "{\(file), \"edits\": [{\"index\": 1.5, \"element\": {}}]}",
                    "the request is not what EditRequest expects: edits[0].index: "
                        + "an entry index is a whole number from 0 to 2147483647, not 1.5"
                ),
                (
                    "POST", "/api/diff", "{\(file), \"against\": \"git\", \"edits\": [{\"remove\": 1e30}]}",
                    "the request is not what EditRequest expects: edits[0].remove: "
                        + "an entry index is a whole number from 0 to 2147483647, not 1e+30"
                ),
                (
                    "POST", "/api/play", "{\(file), \"edits\": [{\"add\": {}}, {\"remove\": -1}]}",
                    "the request is not what PlayRequest expects: edits[1].remove: "
                        + "an entry index is a whole number from 0 to 2147483647, not -1.0"
                ),
                // The attack round's window to 1e308: 5.8 s of sampling before.
                (
                    "POST", "/api/analyze", "{\(file), \"edits\": [], \"window\": {\"start\": 0, \"end\": 1e308}}",
                    "\"window.end\" must be a finite number from \"window.start\" to 3600.0"
                ),
                (
                    "POST", "/api/analyze", "{\(file), \"edits\": [], \"window\": {\"start\": -1e308, \"end\": 1}}",
                    "\"window.start\" must be a finite number from 0 to 3600.0"
                ),
                (
                    "POST", "/api/analyze",
                    "{\(file), \"edits\": [], \"window\": {\"start\": 0, \"end\": 1, \"columns\": 100000}}",
                    "\"window.columns\" must be a whole number from 1 to 8192"
                ),
            ]
            for (method, target, body, message) in cases {
                let response = try await studio.call(method, target, json: body)
                #expect(response.status == 400, "\(method) \(target) \(body): \(response.status) \(response.text)")
                let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
                #expect(json?["error"] as? String == message, "\(body)")
            }
            // fuzz-studio's finding: a name longer than the file system allows was a 500.
            let long = String(repeating: "a", count: 300) + ".ahap"
            for (method, body) in [
                ("GET", nil), ("PUT", "{\"ahap\": {\"Version\": 1, \"Pattern\": []}, \"baseVersion\": \"x\"}"),
            ] {
                let response = try await studio.call(method, "/api/pattern?path=pats/sub/\(long)", json: body)
                #expect(response.status == 404, "\(method): \(response.text)")
            }
            // The attack round's 8 MB path: a 404 echoing it whole, after 2.8 s and 200 MB.
            let deep = "pats/" + String(repeating: "a/", count: 400_000) + "x.ahap"
            let longer = "pats/" + String(repeating: "a/", count: 2_500) + "x.ahap"
            for (method, target, body, bytes) in [
                ("POST", "/api/analyze", "{\"path\": \"\(deep)\", \"edits\": []}", 800_011),
                ("GET", "/api/pattern?path=\(longer)", nil, 5_011),
            ] {
                let response = try await studio.call(method, target, json: body)
                #expect(response.status == 400, "\(method): \(response.status)")
                let json = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
                #expect(json?["error"] as? String == "\"path\" is \(bytes) bytes long; a studio path is at most 4096")
            }
            #expect(try Data(contentsOf: studio.url("rising-falling.ahap")) == before)
            #expect(try await studio.call("GET", "/api/files").status == 200, "still up")
        }
    }

    /// Issue 32: 100,000 overlapping continuous events took 22.8 s and 500 MB to analyse. More
    /// than 512 sounding at once (the engine's voices) is a 413 saying when, in bounded time, to
    /// analyse, render or play; 512 are analysed and rendered.
    @Test(.timeLimit(.minutes(1))) func tooManyEventsSoundingAtOnceAreA413() async throws {
        try await StudioHarness.with { studio in
            func events(_ count: Int) -> String {
                let list = (0..<count).map {
                    "{\"Event\": {\"Time\": \(Double($0) / 100_000), \"EventType\": \"HapticContinuous\", "
                        + "\"EventDuration\": 0.1}}"
                }
                return "{\"Version\": 1, \"Pattern\": [\(list.joined(separator: ", "))]}"
            }
            // Not shown, and not played or rendered either (an hour of 860 at once rendered for 68 s).
            for (route, count, most, at) in [
                ("/api/analyze", 20_000, 10001, "0.10002"), ("/api/render", 513, 513, "0.00512"),
                ("/api/play", 513, 513, "0.00512"),
            ] {
                let refused = try await studio.call(
                    "POST", route, json: "{\"path\": \"pats/sharp-tap.ahap\", \"ahap\": \(events(count))}")
                #expect(refused.status == 413, "\(route)")
                let json = try JSONSerialization.jsonObject(with: Data(refused.body)) as? [String: Any]
                #expect(
                    json?["error"] as? String
                        == "this pattern has \(most) continuous events sounding at once (at \(at) s); the studio "
                        + "analyses, plays and renders patterns with at most 512 (what its engine can voice); "
                        + "haptic lint reads it", "\(route)")
            }
            for route in ["/api/analyze", "/api/render"] {
                let allowed = try await studio.call(
                    "POST", route, json: "{\"path\": \"pats/sharp-tap.ahap\", \"ahap\": \(events(512))}")
                #expect(allowed.status == 200, "\(route)")
            }
        }
    }
}
