import Foundation
import Testing
import _ToolTestSupport

/// Connections that send nothing, or a byte now and then, neither hold the studio's file
/// descriptors for good nor keep the page out. With no bound, 1,100 of them at a soft limit of
/// 1,024 file descriptors left the studio unable to accept or open a file, and killed it with
/// SIGILL (libdispatch traps when it cannot read `/proc` for its thread pool).
@Suite(.serialized) struct StudioConnectionLimitTests {
    /// Reads until the server closes the connection (or the socket's read timeout).
    static func readToEnd(_ fd: Int32) -> String {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while case let n = recv(fd, &chunk, chunk.count, 0), n > 0 { received.append(contentsOf: chunk[0..<n]) }
        return String(decoding: received, as: UTF8.self)
    }

    @Test(.timeLimit(.minutes(1))) func idleConnectionsMakeRoomAndTimeOut() async throws {
        try await StudioHarness.with { studio in
            let port = studio.port
            // More idle connections than the studio keeps open (at most 256), each one byte in.
            let idle = try await offPool { () throws -> [Int32] in
                try (0..<300).map { _ in
                    let fd = try RawHTTP.connect(port: port, timeoutSeconds: 30)
                    _ = send(fd, "G", 1, Int32(MSG_NOSIGNAL))
                    return fd
                }
            }
            defer { for fd in idle { close(fd) } }
            // The page still gets in, at once.
            let started = ContinuousClock.now
            let files = try await studio.call("GET", "/api/files")
            #expect(files.status == 200)
            #expect(ContinuousClock.now - started < .seconds(5))
            // The oldest idle connection was closed to make room: no answer, at once.
            let oldest = try await offPool { Self.readToEnd(idle[0]) }
            #expect(oldest == "")
            #expect(ContinuousClock.now - started < .seconds(5), "closed, not left to the 30 s read timeout")
            // The newest, whose head never came, is answered 408 after 10 s and closed.
            let newest = try await offPool { Self.readToEnd(idle[299]) }
            let waited = ContinuousClock.now - started
            #expect(newest.hasPrefix("HTTP/1.1 408 Request Timeout"), "\(newest.prefix(200))")
            #expect(newest.hasSuffix("{\"error\":\"the request head did not arrive within 10 s\"}"))
            #expect(waited > .seconds(5) && waited < .seconds(20), "\(waited)")
            let again = try await studio.call("GET", "/api/files")
            #expect(again.status == 200, "still up")
        }
    }

    /// A kept-alive connection idle after its request (here refused 403, as a stranger's is) is
    /// closed after 15 s instead of holding its place for good.
    @Test(.timeLimit(.minutes(1))) func keptAliveIdleConnectionsAreClosed() async throws {
        try await StudioHarness.with { studio in
            let port = studio.port
            let started = ContinuousClock.now
            let reply = try await offPool { () throws -> String in
                let fd = try RawHTTP.connect(port: port, timeoutSeconds: 40)
                defer { close(fd) }
                let request = "GET /api/files HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
                _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
                return Self.readToEnd(fd)
            }
            let waited = ContinuousClock.now - started
            #expect(reply.hasPrefix("HTTP/1.1 403"), "\(reply.prefix(200))")
            #expect(waited > .seconds(10) && waited < .seconds(30), "closed after 15 s idle, not held: \(waited)")
        }
    }
}
