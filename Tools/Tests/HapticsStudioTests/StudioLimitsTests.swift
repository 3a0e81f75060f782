import Foundation
import HapticsStudio
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
                ("rising-falling.ahap", "17", range), ("rising-falling.ahap", "\"NaN\"", "\"rate\" must be a number"),
                ("long.ahap", "0.002", slow),
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
            // Still up: a render at an ordinary rate; null is no rate, as for every member.
            for (file, rate) in [("rising-falling.ahap", "0.5"), ("rising-falling.ahap", "null")] {
                let response = try await studio.call(
                    "POST", "/api/render", json: "{\"path\": \"pats/\(file)\", \"rate\": \(rate)}")
                #expect(response.status == 200, "\(file) at \(rate): \(response.text.prefix(200))")
                #expect(response.header("Content-Type") == "audio/wav")
            }
        }
    }

    /// A head the HTTP parser would refuse (llhttp stops at 80 KB) used to get no answer, the
    /// connection left open: now 414 (request line) or 431 (head), and the connection closed.
    @Test(.timeLimit(.minutes(1))) func aRequestLineOver64KiBIsAnswered414AndClosed() async throws {
        try await StudioHarness.with { studio in
            let host = ("Host", "127.0.0.1:\(studio.port)")
            let started = ContinuousClock.now
            let long = try await RawHTTP.request(
                port: studio.port, method: "GET",
                target: "/api/pattern?path=" + String(repeating: "a", count: 100_000), headers: [host])
            #expect(long.status == 414)
            #expect(long.header("Content-Type") == "application/json")
            #expect(long.text == "{\"error\":\"the request line is longer than 65536 bytes\"}")
            let padded = try await RawHTTP.request(
                port: studio.port, method: "GET", target: "/api/files",
                headers: [host, ("X-Pad", String(repeating: "b", count: 100_000))])
            #expect(padded.status == 431)
            #expect(padded.text == "{\"error\":\"the request head is longer than 65536 bytes\"}")
            // RawHTTP reads to the end: answered and closed, not left waiting for its 30 s timeout.
            #expect(ContinuousClock.now - started < .seconds(10))

            // The same line as the second request of a kept-alive connection: Hummingbird's 400, closed.
            let token = studio.token
            let port = studio.port
            let replies = try await onOwnThread { () throws -> String in
                let fd = try RawHTTP.connect(port: port, timeoutSeconds: 20)
                defer { close(fd) }
                let first = "GET /api/files HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Studio-Token: \(token)\r\n\r\n"
                let second = "GET /" + String(repeating: "a", count: 100_000) + " HTTP/1.1\r\nHost: x\r\n\r\n"
                let bytes = Array((first + second).utf8)
                var sent = 0
                while sent < bytes.count {
                    let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if n <= 0 { break }  // the server may close before taking it all
                    sent += n
                }
                var received: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 65_536)
                while case let n = recv(fd, &chunk, chunk.count, 0), n > 0 { received.append(contentsOf: chunk[0..<n]) }
                return String(decoding: received, as: UTF8.self)
            }
            #expect(replies.hasPrefix("HTTP/1.1 200 OK"), "\(replies.prefix(200))")
            #expect(replies.contains("HTTP/1.1 400 Bad Request"), "\(replies.suffix(300))")

            let files = try await studio.call("GET", "/api/files")
            #expect(files.status == 200, "still up")
        }
    }

    /// Issue 28: a WebSocket its page resets (a tab killed, a network stack that sends RST)
    /// leaves no subscriber behind. Before, the reset made the inbound stream throw past the
    /// unsubscription, so each such socket kept its subscriber and sender for good (9 KB each,
    /// and every broadcast went to all of them).
    @Test(.timeLimit(.minutes(1))) func socketsResetByThePageLeaveNoSubscriber() async throws {
        try await StudioHarness.with { studio in
            let port = studio.port
            let headers = [("Host", "127.0.0.1:\(port)"), ("Origin", studio.origin), ("X-Studio-Token", studio.token)]
            let said = try await onOwnThread { () throws -> [String?] in
                try (0..<3).map { _ in
                    let socket = try RawWebSocket(port: port, headers: headers)
                    let first = try socket.next()
                    // Closed with SO_LINGER 0 (when `socket` goes): a reset, not a close.
                    var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
                    setsockopt(socket.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
                    return first
                }
            }
            #expect(said == Array(repeating: #"{"type":"subscribed"}"#, count: 3))
            // The studio notices each reset when it reads the socket: give it up to 20 s.
            var open = await studio.studio.openSockets()
            let deadline = ContinuousClock.now + .seconds(20)
            while open > 0 && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                open = await studio.studio.openSockets()
            }
            #expect(open == 0, "\(open) subscribers left by reset sockets")
        }
    }

    /// Issue 28: WebSockets held open by someone with the token no longer keep the pages'
    /// requests out. Before, 256 of them took every place of the connection bound; now a socket
    /// past ``Studio/maxSockets`` closes the oldest, and requests are still answered.
    @Test(.timeLimit(.minutes(2))) func socketsPastTheirBoundCloseTheOldestAndRequestsStillAnswer() async throws {
        try await StudioHarness.with { studio in
            let port = studio.port
            let headers = [("Host", "127.0.0.1:\(port)"), ("Origin", studio.origin), ("X-Studio-Token", studio.token)]
            let count = Studio.maxSockets + 3
            let sockets = try await onOwnThread { () throws -> [RawWebSocket] in
                try (0..<count).map { _ in
                    let socket = try RawWebSocket(port: port, headers: headers)
                    guard try socket.next() == #"{"type":"subscribed"}"# else {
                        throw RawHTTP.Failure(description: "a socket was not subscribed")
                    }
                    return socket
                }
            }
            var open = await studio.studio.openSockets()
            let deadline = ContinuousClock.now + .seconds(10)
            while open > Studio.maxSockets && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
                open = await studio.studio.openSockets()
            }
            #expect(open == Studio.maxSockets, "\(open) sockets kept of \(count)")
            // The oldest was told to go: a close frame, then the end of its stream.
            let oldest = sockets[0]
            let ended = try await onOwnThread { try oldest.next() }
            #expect(ended == nil)
            #expect(try await studio.call("GET", "/api/files").status == 200, "requests answer beside the sockets")
            withExtendedLifetime(sockets) {}
        }
    }
}
