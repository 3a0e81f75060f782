// The studio's routes (docs/studio.md, "API"), answered in-process through the same router and
// guard the server runs: any request gets a response, never a crash or a hang; every refusal is a
// 4xx with a JSON {"error": ...} body (a 5xx is a finding, except 503 from /api/play, which has no
// device here); every response carries the security headers; a save leaves no temporary file.
//
// An input is `METHOD TARGET`, a line end, optional `Name: value` header lines, an empty line and
// the body. The right Host, Origin and token are added unless the input starts with `~`, which
// sends exactly its own headers (the guard is fuzzed too; the token is 64 `f`s).
import Foundation
import FuzzSupport
import HTTPTypes
import HapticsEngine
import HapticsStudio
import Hummingbird
import NIOCore

struct NoDevice: Error {}

/// A response body written into memory.
struct Collector: ResponseBodyWriter {
    final class Storage: @unchecked Sendable {
        var bytes: [UInt8] = []
    }
    let storage: Storage

    mutating func write(_ buffer: ByteBuffer) async throws { storage.bytes += buffer.readableBytesView }
    consuming func finish(_ trailingHeaders: HTTPFields?) async throws {}
}

final class Outcome: @unchecked Sendable {
    var response: (status: Int, headers: HTTPFields, body: [UInt8])?
}

enum Fixture {
    static let token = String(repeating: "f", count: 64)
    static let folder = FileManager.default.temporaryDirectory.appending(path: "fuzz-studio-\(getpid())/pats")
    static let files: [String: String] = [
        "a.ahap": """
        {"Version": 1, "Pattern": [
          {"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [
            {"ParameterID": "HapticIntensity", "ParameterValue": 0.8}]}},
          {"Event": {"Time": 0.1, "EventType": "HapticContinuous", "EventDuration": 0.5}},
          {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0.1, "ParameterCurveControlPoints": [
            {"Time": 0, "ParameterValue": 0.2}, {"Time": 0.4, "ParameterValue": 1}]}}]}
        """,
        "sub/b.ahap": "{\"Version\": 1, \"Pattern\": []}",
        "notes.txt": "not a pattern",
    ]

    /// A sound for the audio routes: 0.2 s of 16-bit mono at 8 kHz, a 200 Hz burst at 0.05 s.
    static let sound: [UInt8] = {
        let frames = 1_600
        var bytes = Array("RIFF".utf8) + le(UInt32(36 + frames * 2), 4) + Array("WAVEfmt ".utf8)
        bytes += le(16, 4) + le(1, 2) + le(1, 2) + le(8_000, 4) + le(16_000, 4) + le(2, 2) + le(16, 2)
        bytes += Array("data".utf8) + le(UInt32(frames * 2), 4)
        for i in 0..<frames {
            let burst = (400..<640).contains(i) ? sin(Double(i) * 2 * .pi * 200 / 8_000) * 20_000 : 0
            bytes += le(UInt32(UInt16(bitPattern: Int16(burst))), 2)
        }
        return bytes
    }()

    static func le(_ value: UInt32, _ count: Int) -> [UInt8] { (0..<count).map { UInt8((value >> (8 * $0)) & 0xFF) } }

    static func write() {
        for (name, text) in files {
            let url = folder.appending(path: name)
            try? FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try? Data(text.utf8).write(to: url)
        }
        try? Data(sound).write(to: folder.appending(path: "sub/tone.wav"))
    }

    static let studio: InProcessStudio = {
        write()
        // libFuzzer ends a timed run with exit(): the folder goes with it (a crash leaves it to see).
        atexit { try? FileManager.default.removeItem(at: Fixture.folder.deletingLastPathComponent()) }
        symlink("a.ahap", folder.appending(path: "link.ahap").path(percentEncoded: false))
        let studio = try! Studio(
            folders: [folder.path(percentEncoded: false)], playback: StudioPlayback { throw NoDevice() }, token: token)
        return studio.inProcess()
    }()
}

/// The request in `bytes`, or nil when it has no valid method or target.
func request(_ bytes: [UInt8]) -> (Request, String)? {
    var raw = bytes[...]
    let exact = raw.first == UInt8(ascii: "~")
    if exact { raw = raw.dropFirst() }
    let split = raw.firstRange(of: [10, 10]) ?? raw.endIndex..<raw.endIndex
    let head = String(decoding: raw[..<split.lowerBound], as: UTF8.self).split(separator: "\n")
    let body = Array(raw[split.upperBound...])
    guard let line = head.first else { return nil }
    let parts = line.split(separator: " ", maxSplits: 1)
    guard parts.count == 2, let method = HTTPRequest.Method(String(parts[0])) else { return nil }
    let target = String(parts[1])
    var fields = HTTPFields()
    var authority: String? = exact ? nil : "127.0.0.1:0"
    for header in head.dropFirst() {
        guard let colon = header.firstIndex(of: ":"),
            let name = HTTPField.Name(String(header[..<colon]).trimmingCharacters(in: .whitespaces))
        else { continue }
        let value = String(header[header.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        if name.canonicalName == "host" {
            authority = value
        } else {
            fields.append(HTTPField(name: name, value: value))
        }
    }
    if !exact {
        let token = HTTPField.Name("X-Studio-Token")!
        if fields[token] == nil { fields[token] = Fixture.token }
        if fields[.origin] == nil { fields[.origin] = "http://127.0.0.1:0" }
    }
    let httpRequest = HTTPRequest(
        method: method, scheme: "http", authority: authority, path: target, headerFields: fields)
    return (Request(head: httpRequest, body: .init(buffer: ByteBuffer(bytes: body))), target)
}

let status = runFuzzer { data, count in
    guard let (request, target) = request(bytes(data, count)) else { return 0 }
    let method = request.method
    let outcome = Outcome()
    let done = DispatchSemaphore(value: 0)
    Task.detached {  // not on the main actor: the main thread waits below
        let response = await Fixture.studio.respond(to: request)
        let storage = Collector.Storage()
        try? await response.body.write(Collector(storage: storage))
        outcome.response = (response.status.code, response.headers, storage.bytes)
        done.signal()
    }
    done.wait()
    let (code, headers, body) = outcome.response!
    // The target as Swift prints it: a control character (a CR ending the line) stays visible.
    let what =
        "\(method) \(target.prefix(200).debugDescription) -> \(code): \(String(decoding: body.prefix(300), as: UTF8.self))"
    // The one 5xx allowed: /api/play's 503 when there is no device, known by its message because
    // the router answers /api/play under other spellings too (`/api/play/`, `//api/play`, the
    // absolute form, a CR at the line's end), which a comparison of the target missed.
    let noDevice =
        code == 503
        && (try? JSONDecoder().decode(Studio.ErrorResponse.self, from: Data(body)))?.error.hasPrefix(
            "cannot play through the studio's output") == true
    require(code < 500 || noDevice, "a server error: \(what)")
    require(headers[.contentSecurityPolicy]?.hasPrefix("default-src 'none'") == true, "no CSP: \(what)")
    if code >= 400 {
        require(headers[.contentType] == "application/json", "an error that is not JSON: \(what)")
        let error = try? JSONDecoder().decode(Studio.ErrorResponse.self, from: Data(body))
        require(error.map { !$0.error.isEmpty } == true, "an error without a message: \(what)")
    }
    // After every request that may write (a save reaches the router under other spellings too),
    // no temporary file is left, and the fixture is put back for the next input.
    if method != .get && method != .head {
        let left =
            (try? FileManager.default.subpathsOfDirectory(atPath: Fixture.folder.path(percentEncoded: false))) ?? []
        require(!left.contains { $0.contains(".partial-") }, "a temporary file left: \(left)")
        Fixture.write()
    }
    return 0
}
exit(status)
