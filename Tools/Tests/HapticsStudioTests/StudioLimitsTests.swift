import Foundation
import Testing
import _ToolTestSupport

/// Requests that ask for more than the studio can give get a clear 4xx and the server stays up
/// (issue 32).
@Suite(.serialized) struct StudioLimitsTests {
    static let long = """
        {"Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 10}}]}
        """

    /// Rates outside 0.001...16, or that slow a pattern to more than 3,600 s, are refused before
    /// anything is rendered or played (1e-40 used to kill the server in the frame conversion,
    /// 1e-7 to make it allocate 3.6 TB).
    @Test(.timeLimit(.minutes(1))) func ratesThatCannotPlayThePatternAreRefused() async throws {
        try await StudioHarness.with(files: ["long.ahap": Self.long]) { studio in
            let range = "rate must be a number from 0.001 to 16.0"
            let slow =
                "rate 0.002 would make this 10 s pattern last 5000 s; the longest is 3600 s "
                + "(the slowest rate for it is 0.00278)"
            let cases: [(String, String, String)] = [
                ("rising-falling.ahap", "1e-40", range), ("rising-falling.ahap", "1e-30", range),
                ("rising-falling.ahap", "1e-7", range), ("rising-falling.ahap", "0", range),
                ("rising-falling.ahap", "-1", range), ("rising-falling.ahap", "1e300", range),
                ("rising-falling.ahap", "17", range), ("rising-falling.ahap", "\"NaN\"", range),
                ("rising-falling.ahap", "null", range), ("long.ahap", "0.002", slow),
            ]
            for route in ["/api/render", "/api/play"] {
                for (file, rate, message) in cases {
                    let response = try await studio.call(
                        "POST", route, json: "{\"path\": \"pats/\(file)\", \"rate\": \(rate)}")
                    #expect(response.status == 400, "\(route) rate \(rate): \(response.text)")
                    #expect(response.header("Content-Type") == "application/json")
                    let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
                    #expect(body?["error"] as? String == message, "\(route) rate \(rate)")
                }
            }
            // Still up: a render at an ordinary rate.
            for (file, rate) in [("rising-falling.ahap", "0.5")] {
                let response = try await studio.call(
                    "POST", "/api/render", json: "{\"path\": \"pats/\(file)\", \"rate\": \(rate)}")
                #expect(response.status == 200, "\(file) at \(rate): \(response.text.prefix(200))")
                #expect(response.header("Content-Type") == "audio/wav")
            }
        }
    }
}
