import Foundation
import Testing
import _ToolTestSupport

/// docs/studio.md, "Security": every way in without the token, from a foreign Origin or Host, or
/// to a path outside the served folder is refused with 403, serves nothing and changes nothing.
@Suite(.serialized) struct StudioSecurityTests {
    static let csp =
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; media-src 'self' blob:; "
        + "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    @Test(.timeLimit(.minutes(1))) func everyRequestWithoutTheTokenIsRefused() async throws {
        try await StudioHarness.with { studio in
            let host = ("Host", "127.0.0.1:\(studio.port)")
            let origin = ("Origin", studio.origin)
            let before = try Data(contentsOf: studio.url("sharp-tap.ahap"))
            let attempts: [(String, String, [(String, String)], String?)] = [
                ("GET", "/", [host], nil),
                ("GET", "/studio.js", [host], nil),
                ("GET", "/studio.css", [host], nil),
                ("GET", "/api/files", [host], nil),
                ("GET", "/api/pattern?path=pats/sharp-tap.ahap", [host], nil),
                ("GET", "/?token=0000", [host], nil),
                (
                    "GET", "/api/files",
                    [
                        host,
                        ("X-Studio-Token", String(studio.token.dropLast()) + (studio.token.hasSuffix("0") ? "1" : "0")),
                    ], nil
                ),
                ("GET", "/api/files", [host, ("Cookie", "haptic-studio=\(String(repeating: "a", count: 64))")], nil),
                (
                    "PUT", "/api/pattern?path=pats/sharp-tap.ahap", [host, origin],
                    "{\"ahap\": {\"Pattern\": []}, \"baseVersion\": \"x\"}"
                ),
                ("POST", "/api/play", [host, origin], "{\"path\": \"pats/sharp-tap.ahap\"}"),
                (
                    "GET", "/ws",
                    [
                        host, origin, ("Upgrade", "websocket"), ("Connection", "Upgrade"),
                        ("Sec-WebSocket-Version", "13"),
                        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
                    ], nil
                ),
            ]
            for (method, target, headers, body) in attempts {
                let response = try await RawHTTP.request(
                    port: studio.port, method: method, target: target, headers: headers,
                    body: body.map { Array($0.utf8) })
                if target == "/ws" {
                    Self.expectRefusedUpgrade(response)
                    continue
                }
                #expect(response.status == 403, "\(method) \(target) \(headers.map(\.0)) got \(response.status)")
                #expect(response.text.hasPrefix("{\"error\": \"refused: "), "\(response.text)")
                #expect(response.header("Content-Security-Policy") == Self.csp)
                #expect(!response.text.contains("Pattern"), "nothing of the files is served")
            }
            #expect(try Data(contentsOf: studio.url("sharp-tap.ahap")) == before)
        }
    }

    /// A WebSocket upgrade the guard refuses is answered by hummingbird-websocket's upgrade path,
    /// which writes its own 400 (not the guard's 403): what matters is that no socket opens.
    static func expectRefusedUpgrade(_ response: RawHTTP.Response) {
        #expect(response.status != 101, "no WebSocket was opened")
        #expect([400, 403].contains(response.status), "refused: \(response.status)")
        #expect(response.header("Upgrade") == nil)
    }

    @Test(.timeLimit(.minutes(1))) func theTokenBecomesAnHttpOnlyStrictCookie() async throws {
        try await StudioHarness.with { studio in
            let host = ("Host", "127.0.0.1:\(studio.port)")
            let first = try await RawHTTP.request(
                port: studio.port, method: "GET", target: "/?token=\(studio.token)", headers: [host])
            #expect(first.status == 303)
            #expect(first.header("Location") == "/")
            let cookie = try #require(first.header("Set-Cookie"))
            #expect(cookie.hasPrefix("haptic-studio=\(studio.token)"))
            #expect(cookie.contains("HttpOnly"))
            #expect(cookie.contains("SameSite=Strict"))
            #expect(cookie.contains("Path=/"))
            let page = try await RawHTTP.request(
                port: studio.port, method: "GET", target: "/",
                headers: [host, ("Cookie", "haptic-studio=\(studio.token)")])
            #expect(page.status == 200)
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(page.text.contains("<script src=\"/studio.js\" defer></script>"))
            #expect(!page.text.contains("<script>"), "no inline script: the CSP forbids it")
            #expect(page.header("Content-Security-Policy") == Self.csp)
            #expect(page.header("X-Content-Type-Options") == "nosniff")
            #expect(page.header("Referrer-Policy") == "no-referrer")
            #expect(page.header("Cache-Control") == "no-store")
        }
    }

    @Test(.timeLimit(.minutes(1))) func foreignHostsAndOriginsAreRefusedEvenWithTheToken() async throws {
        try await StudioHarness.with { studio in
            let token = ("X-Studio-Token", studio.token)
            let port = studio.port
            let before = try Data(contentsOf: studio.url("sharp-tap.ahap"))
            let save = "{\"ahap\": {\"Version\": 1, \"Pattern\": []}, \"baseVersion\": \"x\"}"
            let attempts: [(String, String, [(String, String)], String?)] = [
                // DNS rebinding: a name that resolves to 127.0.0.1 is still not this server's name.
                ("GET", "/api/files", [("Host", "evil.example:\(port)"), token], nil),
                ("GET", "/api/files", [("Host", "127.0.0.1"), token], nil),
                ("GET", "/api/files", [("Host", "127.0.0.1:\(port + 1)"), token], nil),
                ("GET", "/api/files", [token], nil),
                // Cross-site requests: a foreign Origin, or none where a change needs one.
                ("GET", "/api/files", [("Host", "127.0.0.1:\(port)"), token, ("Origin", "http://evil.example")], nil),
                (
                    "PUT", "/api/pattern?path=pats/sharp-tap.ahap",
                    [("Host", "127.0.0.1:\(port)"), token, ("Origin", "http://evil.example")], save
                ),
                (
                    "PUT", "/api/pattern?path=pats/sharp-tap.ahap",
                    [("Host", "127.0.0.1:\(port)"), token, ("Origin", "http://127.0.0.1:\(port + 1)")], save
                ),
                ("PUT", "/api/pattern?path=pats/sharp-tap.ahap", [("Host", "127.0.0.1:\(port)"), token], save),
                ("POST", "/api/stop", [("Host", "127.0.0.1:\(port)"), token], "{}"),
                (
                    "GET", "/ws",
                    [
                        ("Host", "127.0.0.1:\(port)"), token, ("Upgrade", "websocket"), ("Connection", "Upgrade"),
                        ("Sec-WebSocket-Version", "13"), ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
                    ], nil
                ),
                (
                    "GET", "/ws",
                    [
                        ("Host", "127.0.0.1:\(port)"), token, ("Origin", "http://evil.example"),
                        ("Upgrade", "websocket"),
                        ("Connection", "Upgrade"), ("Sec-WebSocket-Version", "13"),
                        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
                    ], nil
                ),
            ]
            for (method, target, headers, body) in attempts {
                let response = try await RawHTTP.request(
                    port: port, method: method, target: target, headers: headers, body: body.map { Array($0.utf8) })
                if target == "/ws" {
                    Self.expectRefusedUpgrade(response)
                    continue
                }
                #expect(
                    response.status == 403, "\(method) \(target) \(headers) got \(response.status): \(response.text)")
                #expect(response.header("Content-Security-Policy") == Self.csp)
            }
            #expect(try Data(contentsOf: studio.url("sharp-tap.ahap")) == before)
            // The same requests from the page's own origin pass.
            let allowed = try await RawHTTP.request(
                port: port, method: "GET", target: "/api/files",
                headers: [("Host", "localhost:\(port)"), token, ("Origin", "http://localhost:\(port)")])
            #expect(allowed.status == 200)
        }
    }

    @Test(.timeLimit(.minutes(1))) func pathsThatLeaveTheServedFolderAreRefused() async throws {
        let outside = FileManager.default.temporaryDirectory.appending(path: "outside-\(UUID().uuidString).ahap")
        let secret = "{\"Version\": 1, \"Metadata\": {\"Secret\": \"outside\"}, \"Pattern\": []}"
        try Data(secret.utf8).write(to: outside)
        defer { try? FileManager.default.removeItem(at: outside) }
        try await StudioHarness.with(files: ["notes.txt": "not a pattern"]) { studio in
            try FileManager.default.createSymbolicLink(
                at: studio.url("link.ahap"), withDestinationURL: outside)
            try FileManager.default.createSymbolicLink(
                atPath: studio.url("up").path(percentEncoded: false), withDestinationPath: "..")
            try Data(secret.utf8).write(to: studio.folder.deletingLastPathComponent().appending(path: "beside.ahap"))
            let quoted = outside.path(percentEncoded: false).addingPercentEncoding(
                withAllowedCharacters: .alphanumerics)!
            for path in [
                "pats/link.ahap", "pats/../outside.ahap", "pats/./sharp-tap.ahap", "pats//sharp-tap.ahap", quoted,
                "other/sharp-tap.ahap", "pats/notes.txt", "pats/up/beside.ahap", "pats/%2E%2E/x.ahap",
                "pats\\..\\x.ahap",
            ] {
                let target =
                    "/api/pattern?path="
                    + (path.contains("%") ? path : path.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)
                let read = try await studio.call("GET", target)
                #expect(read.status == 403, "GET \(path): \(read.status) \(read.text)")
                #expect(!read.text.contains("outside\""), "the outside file's content never appears")
                let write = try await studio.call(
                    "PUT", target, json: "{\"ahap\": {\"Version\": 1, \"Pattern\": []}, \"baseVersion\": \"x\"}")
                #expect(write.status == 403, "PUT \(path): \(write.status) \(write.text)")
            }
            #expect(try String(contentsOf: outside, encoding: .utf8) == secret)
            let listed = try await studio.object("GET", "/api/files")
            let paths = (listed["files"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
            #expect(
                paths == ["pats/rising-falling.ahap", "pats/sharp-tap.ahap"], "no link out, no text file: \(paths)")
        }
    }
}
