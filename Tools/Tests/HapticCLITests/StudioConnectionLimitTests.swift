import Foundation
import Testing
import _ToolTestSupport

/// Connections that send nothing, or a byte now and then, neither hold the studio's file
/// descriptors for good nor keep the page out. With no bound, 1,100 of them at a soft limit of
/// 1,024 file descriptors left the studio unable to accept or open a file, and killed it with
/// SIGILL (libdispatch traps when it cannot read `/proc` for its thread pool).
///
/// The studio runs as `haptic studio`, a process of its own, and each timed sequence runs on one
/// thread of its own: in this test process, while the other suites run, Swift's cooperative
/// threads (which a studio served from here would share) can be busy for seconds, and the
/// times would measure that, not the studio.
@Suite(.serialized) struct StudioConnectionLimitTests {
    /// `haptic studio` on a folder with one pattern: the process, its port and its token (and the
    /// folder, kept while the studio serves it).
    static func studio() async throws -> (LiveHaptic, port: Int, token: String, folder: ScratchFolder) {
        let scratch = try ScratchFolder()
        _ = try scratch.write("tap.ahap", PlayWatchTests.valid)
        let studio = try await LiveHaptic(
            ["studio", scratch.url.path(percentEncoded: false), "--device", "null"], standardOutputToo: true)
        let found = await studio.address()
        let address = try #require(found, "no address in: \(studio.text)")
        let token = try #require(address.fragment()?.replacingOccurrences(of: "token=", with: ""))
        return (studio, address.port ?? 0, token, scratch)
    }

    /// Reads until the server closes the connection (or the socket's read timeout).
    static func readToEnd(_ fd: Int32) -> String {
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while case let n = recv(fd, &chunk, chunk.count, 0), n > 0 { received.append(contentsOf: chunk[0..<n]) }
        return String(decoding: received, as: UTF8.self)
    }

    @Test(.timeLimit(.minutes(1))) func idleConnectionsMakeRoomAndTimeOut() async throws {
        let (studio, port, token, folder) = try await Self.studio()
        defer { withExtendedLifetime(folder) { studio.kill() } }
        let headers = [("Host", "127.0.0.1:\(port)"), ("X-Studio-Token", token)]
        struct Seen: Sendable {
            var files = 0, again = 0
            var oldest = "", newest = ""
            var filesIn = Duration.zero, oldestIn = Duration.zero, newestIn = Duration.zero
        }
        let seen = try await onOwnThread { () throws -> Seen in
            // More idle connections than the studio keeps open (at most 256), each one byte in.
            let idle = try (0..<300).map { _ in
                let fd = try RawHTTP.connect(port: port, timeoutSeconds: 30)
                _ = send(fd, "G", 1, Int32(MSG_NOSIGNAL))
                return fd
            }
            defer { for fd in idle { close(fd) } }
            let clock = ContinuousClock()
            let started = clock.now
            var seen = Seen()
            // The page still gets in, at once.
            seen.files = try RawHTTP.send(port: port, method: "GET", target: "/api/files", headers: headers).status
            seen.filesIn = clock.now - started
            // The oldest idle connection was closed to make room: no answer, at once.
            seen.oldest = Self.readToEnd(idle[0])
            seen.oldestIn = clock.now - started
            // The newest, whose head never came, is answered 408 after 10 s and closed.
            seen.newest = Self.readToEnd(idle[299])
            seen.newestIn = clock.now - started
            seen.again = try RawHTTP.send(port: port, method: "GET", target: "/api/files", headers: headers).status
            return seen
        }
        #expect(seen.files == 200)
        #expect(seen.filesIn < .seconds(5), "\(seen.filesIn)")
        #expect(seen.oldest == "", "\(seen.oldest.prefix(200))")
        #expect(seen.oldestIn < .seconds(5), "closed, not left to the 30 s read timeout: \(seen.oldestIn)")
        #expect(seen.newest.hasPrefix("HTTP/1.1 408 Request Timeout"), "\(seen.newest.prefix(200))")
        #expect(seen.newest.hasSuffix("{\"error\":\"the request head did not arrive within 10 s\"}"))
        #expect(seen.newestIn > .seconds(5) && seen.newestIn < .seconds(20), "\(seen.newestIn)")
        #expect(seen.again == 200, "still up")
    }

    /// A kept-alive connection idle after its request (here refused 403, as a stranger's is) is
    /// closed after 15 s instead of holding its place for good.
    @Test(.timeLimit(.minutes(1))) func keptAliveIdleConnectionsAreClosed() async throws {
        let (studio, port, _, folder) = try await Self.studio()
        defer { withExtendedLifetime(folder) { studio.kill() } }
        let (reply, waited) = try await onOwnThread { () throws -> (String, Duration) in
            let clock = ContinuousClock()
            let started = clock.now
            let fd = try RawHTTP.connect(port: port, timeoutSeconds: 40)
            defer { close(fd) }
            let request = "GET /api/files HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n"
            _ = request.withCString { send(fd, $0, strlen($0), Int32(MSG_NOSIGNAL)) }
            return (Self.readToEnd(fd), clock.now - started)
        }
        #expect(reply.hasPrefix("HTTP/1.1 403"), "\(reply.prefix(200))")
        #expect(waited > .seconds(10) && waited < .seconds(30), "closed after 15 s idle, not held: \(waited)")
    }
}
