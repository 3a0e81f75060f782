import Foundation
import HapticsStudio
import Synchronization
import Testing
import _ToolTestSupport

/// docs/studio.md, "Security", in a real browser: the credential belongs to one studio. Two studios
/// opened one after the other in the same tab both stay logged in, and a foreign server on another
/// port of 127.0.0.1, visited afterwards, receives nothing that authenticates (issue 28: the token
/// was a host-wide cookie, so the second studio logged the first out and every local server got it).
@Suite(.serialized) struct StudioCredentialTests {
    static let ready = "document.body.dataset.ready === '1' && document.body.dataset.socket === 'open'"

    @Test(.timeLimit(.minutes(3))) func twoStudiosStayLoggedInAndAForeignServerGetsNoCredential() async throws {
        try await StudioHarness.with(files: ["only-a.ahap": "{\"Version\": 1, \"Pattern\": []}"]) { a in
            try await StudioHarness.with { b in
                let foreign = try ForeignServer()
                defer { foreign.stop() }
                let (listedA, listedB) = try await DevTools.withPage { page in
                    // Navigates and waits for that studio's page to be ready (not the last one's).
                    @Sendable func go(_ url: String, _ port: Int) async throws {
                        try await page.navigate(to: url)
                        try await page.waitFor("location.port === '\(port)' && " + Self.ready)
                    }
                    try await go(a.studio.url, a.port)
                    // The token left the address bar once read.
                    let address = try await page.string("location.href") ?? ""
                    #expect(
                        address.hasPrefix("http://127.0.0.1:\(a.port)/") && !address.contains(a.token), "\(address)")
                    try await go(b.studio.url, b.port)
                    // Back to each, by an address without the token: each still lets the page in.
                    try await go("http://127.0.0.1:\(a.port)/", a.port)
                    let listedA = try await page.number("document.querySelectorAll('#file-list li').length")
                    try await go("http://127.0.0.1:\(b.port)/", b.port)
                    let listedB = try await page.number("document.querySelectorAll('#file-list li').length")
                    // A page of the foreign server, and a request it makes with credentials.
                    try await page.navigate(to: "http://127.0.0.1:\(foreign.port)/page")
                    try await page.waitFor("location.port === '\(foreign.port)'")
                    let status = try await page.number(
                        "fetch('/api/files', {credentials: 'include'}).then(r => r.status)")
                    #expect(status == 200)
                    return (listedA, listedB)
                }
                #expect(listedA == 3, "studio A still serves its three files to the page")
                #expect(listedB == 2, "studio B serves its two")
                let heads = foreign.heads
                #expect(heads.count >= 2, "the foreign server saw the page and the fetch: \(heads.count)")
                for head in heads {
                    #expect(!head.contains(a.token) && !head.contains(b.token), "no token reaches it: \(head)")
                    #expect(!head.lowercased().contains("\ncookie:"), "no cookie reaches it: \(head)")
                }
            }
        }
    }
}

/// Another local web server, as a user might run beside the studio: answers every request with a
/// small page and keeps every request head it received.
final class ForeignServer: Sendable {
    let port: Int
    private let listener: Int32
    private let log = Log()

    final class Log: Sendable {
        let heads = Mutex<[String]>([])
    }

    var heads: [String] { log.heads.withLock { $0 } }

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(fd, 16) == 0 else {
            close(fd)
            throw RawHTTP.Failure(description: "the foreign server could not listen")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        listener = fd
        let log = self.log
        let thread = Thread {
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }
                var head: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 4096)
                var timeout = timeval(tv_sec: 5, tv_usec: 0)
                setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
                while !head.suffix(4).elementsEqual([13, 10, 13, 10]) {
                    let n = recv(client, &chunk, chunk.count, 0)
                    guard n > 0 else { break }
                    head.append(contentsOf: chunk[0..<n])
                }
                log.heads.withLock { $0.append(String(decoding: head, as: UTF8.self)) }
                let body = "<!doctype html><title>another server</title>"
                let reply =
                    "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: \(body.utf8.count)\r\n"
                    + "Connection: close\r\n\r\n" + body
                _ = Array(reply.utf8).withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                close(client)
            }
        }
        thread.start()
    }

    func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
    }
}
