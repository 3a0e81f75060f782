import Foundation
import HapticsStudio
import Testing
import _ToolTestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `/api/render` of a legal pattern can keep a core busy for a minute (512 voices for an hour),
/// and every connection the studio takes could ask for one: at most ``Studio/renderLimit``
/// renders run at once, and one more is a 503 at once, until one ends (issue 28).
@Suite(.serialized) struct StudioRenderLimitTests {
    /// An hour of continuous events (each 30 s, the longest one may be): 345 MB of WAV, so a
    /// client that reads none of it holds its render in flight (the writer waits for the
    /// connection).
    static let hour: String = {
        let events = stride(from: 0, to: 3_600, by: 30).map {
            "{\"Event\": {\"Time\": \($0), \"EventType\": \"HapticContinuous\", \"EventDuration\": 30}}"
        }
        return "{\"Version\": 1, \"Pattern\": [\(events.joined(separator: ", "))]}"
    }()

    /// Sends a render of `ahap` on a connection of its own and reads nothing: the render stays in
    /// flight until the connection closes.
    static func held(_ studio: StudioHarness, _ ahap: String) throws -> Int32 {
        let fd = try RawHTTP.connect(port: studio.port, timeoutSeconds: 30)
        let body = Array("{\"path\": \"pats/sharp-tap.ahap\", \"ahap\": \(ahap)}".utf8)
        let head =
            "POST /api/render HTTP/1.1\r\nHost: 127.0.0.1:\(studio.port)\r\nX-Studio-Token: \(studio.token)\r\n"
            + "Origin: \(studio.origin)\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
        let bytes = Array(head.utf8) + body
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw RawHTTP.Failure(description: "send: \(errno)") }
            sent += n
        }
        return fd
    }

    /// A render of a short pattern, read whole: its status, retried until `wanted` or 20 s.
    static func probe(_ studio: StudioHarness, until wanted: Int) async throws -> RawHTTP.Response {
        let began = ContinuousClock.now
        while true {
            let answer = try await studio.call(
                "POST", "/api/render", json: "{\"path\": \"pats/sharp-tap.ahap\"}")
            if answer.status == wanted || ContinuousClock.now - began > .seconds(20) { return answer }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    @Test(.timeLimit(.minutes(1))) func rendersPastTheLimitAreA503UntilOneEnds() async throws {
        try await StudioHarness.with { studio in
            var held: [Int32] = []
            defer { for fd in held { close(fd) } }
            for _ in 0..<Studio.renderLimit { held.append(try Self.held(studio, Self.hour)) }
            let refused = try await Self.probe(studio, until: 503)
            #expect(refused.status == 503)
            let json = try JSONSerialization.jsonObject(with: Data(refused.body)) as? [String: Any]
            #expect(
                json?["error"] as? String
                    == "the studio is rendering \(Studio.renderLimit) patterns already; try again when one has "
                    + "finished")
            #expect(refused.header("Retry-After") == "1")
            // Other requests are answered meanwhile.
            #expect(try await studio.call("GET", "/api/files").status == 200)
            // A client that goes away frees its render's place.
            close(held.removeLast())
            let rendered = try await Self.probe(studio, until: 200)
            #expect(rendered.status == 200)
            #expect(rendered.header("Content-Type") == "audio/wav")
        }
    }
}
