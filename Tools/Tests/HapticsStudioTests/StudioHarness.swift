import Foundation
import HapticsEngine
import HapticsStudio
import HapticsSynthesis
import Synchronization
import Testing
import _ToolTestSupport

/// A studio on a free port over a temporary folder of patterns, its engine writing to a WAV file
/// paced to real time: what `haptic studio` runs, in the test's process.
final class StudioHarness: Sendable {
    let folder: URL
    let studio: Studio
    let capture: URL
    private let server: Task<Void, any Error>

    /// The folder holds `Patterns/examples/*.ahap` (label "pats") plus `files`.
    init(files: [String: String] = [:]) async throws {
        folder = FileManager.default.temporaryDirectory.appending(path: "studio-\(UUID().uuidString)/pats")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        for name in ["rising-falling.ahap", "sharp-tap.ahap"] {
            try FileManager.default.copyItem(
                at: TestFiles.packageRoot.appending(path: "Patterns/examples/\(name)"), to: folder.appending(path: name)
            )
        }
        for (name, text) in files {
            let url = folder.appending(path: name)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        let capture = folder.deletingLastPathComponent().appending(path: "engine.wav")
        self.capture = capture
        let playback = StudioPlayback {
            let format = AudioFormat(sampleRate: 48_000, channels: 1)
            let file = try WAVFileOutput(path: capture.path(percentEncoded: false), format: format, sampleFormat: .f32)
            // 100 ms, a capture's buffer (OutputSelection.captureBufferMilliseconds): a paced capture writes
            // a stall longer than its buffer as silence, which would move the taps off the engine
            // clock this suite checks them against on a busy machine.
            return PacedOutput(file, bufferFrames: 4_800)
        }
        let studio = try Studio(folders: [folder.path(percentEncoded: false)], playback: playback)
        self.studio = studio
        let ready = AsyncStream<String>.makeStream()
        server = Task { try await studio.run { ready.continuation.yield($0) } }
        var iterator = ready.stream.makeAsyncIterator()
        _ = await iterator.next()
    }

    /// Runs `body` with a fresh studio and stops it afterwards, whatever `body` does.
    static func with<T>(files: [String: String] = [:], _ body: (StudioHarness) async throws -> T) async throws -> T {
        let studio = try await StudioHarness(files: files)
        do {
            let result = try await body(studio)
            await studio.stop()
            return result
        } catch {
            await studio.stop()
            throw error
        }
    }

    var port: Int { studio.port }

    /// Makes the served folder a git repository with `files` committed.
    func commit(_ files: [String]) async throws {
        let folder = self.folder.path(percentEncoded: false)
        for command in [
            ["init", "-q"], ["add"] + files, ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "x"],
        ] {
            let git = try await ChildProcess.run("git", ["-C", folder] + command)
            guard git.status == 0 else {
                throw RawHTTP.Failure(description: "git \(command.joined(separator: " ")) exited \(git.status)")
            }
        }
    }
    var token: String { studio.token }
    var origin: String { "http://127.0.0.1:\(port)" }

    func path(_ name: String) -> String { "pats/" + name }
    func url(_ name: String) -> URL { folder.appending(path: name) }

    func stop() async {
        server.cancel()
        _ = try? await server.value
        try? FileManager.default.removeItem(at: folder.deletingLastPathComponent())
    }

    /// A request as the page sends it: the token, the right Host, and (for changes) the Origin.
    func call(_ method: String, _ target: String, json: String? = nil) async throws -> RawHTTP.Response {
        var headers = [("Host", "127.0.0.1:\(port)"), ("X-Studio-Token", token)]
        if method != "GET" { headers.append(("Origin", origin)) }
        if json != nil { headers.append(("Content-Type", "application/json")) }
        return try await RawHTTP.request(
            port: port, method: method, target: target, headers: headers, body: json.map { Array($0.utf8) })
    }

    /// The JSON body of a successful call.
    func object(_ method: String, _ target: String, json: String? = nil) async throws -> [String: Any] {
        let response = try await call(method, target, json: json)
        #expect(response.status == 200, "\(method) \(target): \(response.text)")
        return try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }
}

/// The page's WebSocket as a browser opens it (one Origin, the page's), reading the server's text
/// frames. Client libraries add their own `Origin` (hummingbird-websocket's client sends
/// `ws://HOST` as well as any given), which the studio rightly refuses; this client sends exactly
/// the headers a browser sends.
final class RawWebSocket: @unchecked Sendable {
    // @unchecked: used by one thread at a time (the test hands it from the opening call to the reading one).

    let fd: Int32
    var buffer: [UInt8] = []

    init(port: Int, target: String = "/ws", headers: [(String, String)]) throws {
        fd = try RawHTTP.connect(port: port, timeoutSeconds: 10)
        var request = "GET \(target) HTTP/1.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        request += "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        request += "\r\n"
        _ = Array(request.utf8).withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
        while true {
            if let end = (0..<max(0, buffer.count - 3)).first(where: {
                buffer[$0..<$0 + 4].elementsEqual([13, 10, 13, 10])
            }) {
                let head = String(decoding: buffer[0..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                guard head.hasPrefix("HTTP/1.1 101") else {
                    throw RawHTTP.Failure(description: "upgrade refused: \(head.prefix(40))")
                }
                return
            }
            guard try fill() else { throw RawHTTP.Failure(description: "closed during the upgrade") }
        }
    }

    deinit { close(fd) }

    /// Reads more bytes; false at the end of the stream or a timeout.
    func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let n = recv(fd, &chunk, chunk.count, 0)
        guard n > 0 else { return false }
        buffer.append(contentsOf: chunk[0..<n])
        return true
    }

    /// The next text message, or nil when the socket closed or 10 s passed without one.
    func next() throws -> String? {
        while true {
            if buffer.count >= 2 {
                let opcode = buffer[0] & 0x0F
                var length = Int(buffer[1] & 0x7F)
                var offset = 2
                if length == 126, buffer.count >= 4 {
                    length = Int(buffer[2]) << 8 | Int(buffer[3])
                    offset = 4
                } else if length == 127, buffer.count >= 10 {
                    length = buffer[2..<10].reduce(0) { $0 << 8 | Int($1) }
                    offset = 10
                }
                if length < 126 || offset > 2, buffer.count >= offset + length {
                    let payload = Array(buffer[offset..<offset + length])
                    buffer.removeFirst(offset + length)
                    if opcode == 0x8 { return nil }
                    if opcode == 0x1 { return String(decoding: payload, as: UTF8.self) }
                    continue
                }
            }
            guard try fill() else { return nil }
        }
    }
}
