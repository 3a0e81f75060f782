import Foundation
import Testing
import _ToolTestSupport

/// fuzz-studio's finding (issue 28): a compared pattern's `Version` beyond Int64 (1e108) trapped
/// the server in the diff's number formatting (SIGILL). Now the diff is answered.
@Suite struct StudioDiffVersionTests {
    @Test(.timeLimit(.minutes(1))) func aVersionBeyondInt64IsCompared() async throws {
        try await StudioHarness.with { studio in
            let tap = "\"Pattern\": [{\"Event\": {\"Time\": 0, \"EventType\": \"HapticTransient\"}}]"
            let huge = "1" + String(repeating: "0", count: 108)
            let response = try await studio.call(
                "POST", "/api/diff", json: "{\"a\": {\"Version\": 1, \(tap)}, \"b\": {\"Version\": \(huge), \(tap)}}")
            #expect(response.status == 200, "\(response.text)")
            let body = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
            #expect(body?["identical"] as? Bool == false)
            #expect(body?["unchanged"] as? Int == 1)
            let files = try await studio.call("GET", "/api/files")
            #expect(files.status == 200, "still up")
        }
    }
}
