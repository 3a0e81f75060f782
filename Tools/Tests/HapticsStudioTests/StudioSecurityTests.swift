import Foundation
import HapticsStudio
import HapticsSynthesis
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
                ("GET", "/api/files", [host], nil),
                ("GET", "/api/pattern?path=pats/sharp-tap.ahap", [host], nil),
                // Neither a cookie nor the query is a credential (only the WebSocket takes ?token=).
                ("GET", "/api/files", [host, ("Cookie", "haptic-studio=\(studio.token)")], nil),
                ("GET", "/api/files?token=\(studio.token)", [host], nil),
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
                #expect(response.text.hasPrefix("{\"error\":\"refused: "), "\(response.text)")
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

    /// The page's assets need no token (they hold no data, and the token is in the address's
    /// fragment, which the browser does not send), and no response ever sets a cookie: a cookie
    /// would go to every server on 127.0.0.1 and be replaced by another studio's.
    @Test(.timeLimit(.minutes(1))) func thePageNeedsNoTokenAndNothingSetsACookie() async throws {
        try await StudioHarness.with { studio in
            let host = ("Host", "127.0.0.1:\(studio.port)")
            for target in ["/", "/?token=\(studio.token)", "/studio.js", "/studio-worker.js", "/studio.css"] {
                let response = try await RawHTTP.request(
                    port: studio.port, method: "GET", target: target, headers: [host])
                #expect(response.status == 200, "\(target)")
                #expect(response.header("Set-Cookie") == nil, "\(target)")
                #expect(!response.text.contains(studio.token), "\(target)")
                #expect(response.header("Content-Security-Policy") == Self.csp)
            }
            let page = try await RawHTTP.request(port: studio.port, method: "GET", target: "/", headers: [host])
            #expect(page.header("Content-Type") == "text/html; charset=utf-8")
            #expect(page.text.contains("<script src=\"/studio.js\" defer></script>"))
            #expect(!page.text.contains("<script>"), "no inline script: the CSP forbids it")
            #expect(page.header("X-Content-Type-Options") == "nosniff")
            #expect(page.header("Referrer-Policy") == "no-referrer")
            #expect(page.header("Cache-Control") == "no-store")
            // The assets still need this server's Host.
            let foreign = try await RawHTTP.request(
                port: studio.port, method: "GET", target: "/", headers: [("Host", "evil.example:\(studio.port)")])
            #expect(foreign.status == 403)
            let files = try await studio.call("GET", "/api/files")
            #expect(files.status == 200)
            #expect(files.header("Set-Cookie") == nil)
            #expect(studio.studio.url == "http://127.0.0.1:\(studio.port)/#token=\(studio.token)")
        }
    }

    /// Two studios: each one's token opens only itself (header and WebSocket query), so the two
    /// run side by side and neither can stand in for the other.
    @Test(.timeLimit(.minutes(1))) func twoStudiosEachTakeOnlyTheirOwnToken() async throws {
        try await StudioHarness.with { a in
            try await StudioHarness.with { b in
                for (server, other) in [(a, b), (b, a)] {
                    let host = ("Host", "127.0.0.1:\(server.port)")
                    let origin = ("Origin", server.origin)
                    let mine = try await RawHTTP.request(
                        port: server.port, method: "GET", target: "/api/files",
                        headers: [host, ("X-Studio-Token", server.token)])
                    #expect(mine.status == 200)
                    let theirs = try await RawHTTP.request(
                        port: server.port, method: "GET", target: "/api/files",
                        headers: [host, ("X-Studio-Token", other.token)])
                    #expect(theirs.status == 403)
                    let upgrade = [
                        host, origin, ("Upgrade", "websocket"), ("Connection", "Upgrade"),
                        ("Sec-WebSocket-Version", "13"),
                        ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
                    ]
                    let refused = try await RawHTTP.request(
                        port: server.port, method: "GET", target: "/ws?token=\(other.token)", headers: upgrade)
                    Self.expectRefusedUpgrade(refused)
                    let port = server.port
                    let token = server.token
                    let opened = try await onOwnThread {
                        try RawWebSocket(
                            port: port, target: "/ws?token=\(token)",
                            headers: [("Host", "127.0.0.1:\(port)"), ("Origin", "http://127.0.0.1:\(port)")])
                    }
                    _ = opened
                }
            }
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

    /// An AudioCustom event's waveform is read through the held served folder: a link on its
    /// path, or a `..` above the served folder, is an error finding and is neither heard nor
    /// read, while `.` and `..` that stay inside are as `render` reads them.
    @Test(.timeLimit(.minutes(1))) func waveformsAreReadOnlyInsideTheServedFolder() async throws {
        let tone = (0..<4_800).map { Float(sin(Double($0) * 2 * .pi * 200 / 48_000) * 0.8) }
        let wav = Data(WAV.encode(AudioClip(sampleRate: 48_000, channels: 1, samples: tone), sampleFormat: .s16))
        let outside = FileManager.default.temporaryDirectory.appending(path: "outside-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: outside) }
        try wav.write(to: outside.appending(path: "tone.wav"))
        let custom = { (name: String) in
            """
            {"Version": 1, "Pattern": [{"Event": {"Time": 0.5, "EventType": "AudioCustom",
              "EventWaveformPath": "\(name)"}}]}
            """
        }
        try await StudioHarness.with(files: [
            "inside.ahap": custom("sounds/../sounds/./tone.wav"), "linked.ahap": custom("away/tone.wav"),
            "above.ahap": custom("../\(outside.lastPathComponent)/tone.wav"), "file-link.ahap": custom("alias.wav"),
        ]) { studio in
            try FileManager.default.createDirectory(at: studio.url("sounds"), withIntermediateDirectories: true)
            try wav.write(to: studio.url("sounds/tone.wav"))
            try FileManager.default.createSymbolicLink(at: studio.url("away"), withDestinationURL: outside)
            try FileManager.default.createSymbolicLink(
                at: studio.url("alias.wav"), withDestinationURL: outside.appending(path: "tone.wav"))
            // The served folder's parent holds the outside folder for `above.ahap` to climb to.
            let parent = studio.folder.deletingLastPathComponent()
            try FileManager.default.copyItem(at: outside, to: parent.appending(path: outside.lastPathComponent))
            defer { try? FileManager.default.removeItem(at: parent.appending(path: outside.lastPathComponent)) }
            func findings(_ name: String) async throws -> (codes: [String], messages: [String], loudest: Double) {
                let view = try await studio.object("GET", "/api/pattern?path=pats/\(name)")
                let list = view["diagnostics"] as? [[String: Any]] ?? []
                let high = (view["waveform"] as? [String: Any])?["max"] as? [Double] ?? []
                return (
                    list.map { "\($0["severity"] ?? "")[\($0["code"] ?? "")]" },
                    list.compactMap { $0["message"] as? String }, high.max() ?? 0
                )
            }
            let inside = try await findings("inside.ahap")
            #expect(!inside.codes.contains { $0.hasPrefix("error") }, "\(inside.messages)")
            #expect(inside.loudest > 0.5, "the waveform inside is heard")
            for (name, why) in [
                ("linked.ahap", "EventWaveformPath 'away/tone.wav' goes through a symbolic link (away)"),
                ("file-link.ahap", "EventWaveformPath 'alias.wav' goes through a symbolic link (alias.wav)"),
                ("above.ahap", "leads outside the served folder; refused"),
            ] {
                let result = try await findings(name)
                #expect(result.codes.contains("error[waveform-path]"), "\(name): \(result.codes)")
                #expect(result.messages.contains { $0.contains(why) }, "\(name): \(result.messages)")
                #expect(result.loudest < 0.01, "\(name): nothing from outside is heard (\(result.loudest))")
            }
        }
    }
}
