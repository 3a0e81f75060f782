import Foundation
import Testing
import _ToolTestSupport

/// `haptic studio` renders a legal 1-hour pattern for the page in bounded memory (issue 32):
/// the WAV is streamed block by block, so the server's peak stays near its idle size however
/// long the render, even with three at once.
@Suite(.serialized) struct StudioLongRenderTests {
    /// A tap at 1 s and one at 3,599 s: a 1-hour render (345 MB of 16-bit WAV) from 120 bytes.
    static let hour = """
        {"Pattern": [{"Event": {"Time": 1, "EventType": "HapticTransient"}},
                     {"Event": {"Time": 3599, "EventType": "HapticTransient"}}]}
        """

    @Test(.timeLimit(.minutes(5))) func threeOneHourRendersAtOnceStayUnder300MB() async throws {
        let scratch = try ScratchFolder()
        try scratch.write("hour.ahap", Self.hour)
        let studio = try await StudioChild(serving: scratch.url)
        defer { studio.kill() }
        let (port, token) = (studio.port, studio.token)
        let body = "{\"path\": \"\(scratch.url.lastPathComponent)/hour.ahap\"}"
        let rate = 48_000
        // Frames to look at: before and after each tap, and the silence between them.
        let probes = [
            0..<rate, rate..<(rate + 2_400), (1_800 * rate)..<(1_801 * rate), (3_599 * rate)..<(3_599 * rate + 2_400),
        ]
        let renders = try await withThrowingTaskGroup(of: WAVRead.self) { group in
            for _ in 0..<3 {
                group.addTask {
                    try await onOwnThread {
                        try WAVRead(
                            port: port, token: token, body: body,
                            probes: [0..<44] + probes.map { $0.lowerBound * 2 + 44..<$0.upperBound * 2 + 44 })
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let peak = try studio.kilobytes("VmHWM")
        for render in renders {
            #expect(render.status == 200, "\(render.head)")
            #expect(render.head.lowercased().contains("content-type: audio/wav"))
            let length = try #require(render.contentLength, "no Content-Length: \(render.head)")
            #expect(render.received == length, "the body is as long as it says")
            let frames = (length - 44) / 2
            // The second tap starts at 3,599 s; its release ends within the next second.
            #expect(frames > 3_599 * rate && frames < 3_600 * rate, "\(frames) frames")
            let header = render.probed[0].prefix(44)
            #expect(Array(header.prefix(4)) == Array("RIFF".utf8))
            #expect(Array(header[36..<40]) == Array("data".utf8))
            let dataSize = header[40..<44].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
            #expect(dataSize == frames * 2)
            let samples = render.probed.dropFirst().map { bytes in
                stride(from: bytes.startIndex, to: bytes.endIndex - 1, by: 2).map {
                    Int16(bitPattern: UInt16(bytes[$0]) | UInt16(bytes[$0 + 1]) << 8)
                }
            }
            // Each check is a Bool of its own so a failure does not print 48,000 samples.
            let silentBefore = samples[0].count == rate && samples[0].allSatisfy { $0 == 0 }
            #expect(silentBefore, "silence before the first tap")
            let firstSounds = samples[1].contains { abs(Int($0)) > 1_000 }
            #expect(firstSounds, "the tap at 1 s sounds")
            let silentBetween = samples[2].count == rate && samples[2].allSatisfy { $0 == 0 }
            #expect(silentBetween, "silence at 30 minutes")
            // The render ends where the last tap's release does, within the probe.
            #expect(samples[3].count == frames - 3_599 * rate)
            let sameTap = samples[1].prefix(samples[3].count).elementsEqual(samples[3])
            #expect(sameTap, "the tap at 3,599 s sounds as the one at 1 s")
            let silentAfter = samples[1].dropFirst(samples[3].count).allSatisfy { $0 == 0 }
            #expect(silentAfter, "the first tap is silent where the render of the last one ends")
        }
        // Before streaming: 1.82 GB for one such request, 3.09 GB for three.
        #expect(peak < 300 * 1024, "the studio's peak resident size: \(peak / 1024) MB")
    }
}

/// A `POST /api/render` read as it arrives, keeping only the bytes in `probes` (offsets in the
/// body) and counting the rest, so the test holds none of the 345 MB either.
struct WAVRead: Sendable {
    var head = ""
    var status = 0
    var contentLength: Int?
    var received = 0
    var probed: [[UInt8]]

    init(port: Int, token: String, body: String, probes: [Range<Int>]) throws {
        probed = probes.map { _ in [] }
        let fd = try RawHTTP.connect(port: port, timeoutSeconds: 60)
        defer { close(fd) }
        let request =
            "POST /api/render HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nX-Studio-Token: \(token)\r\n"
            + "Origin: http://127.0.0.1:\(port)\r\nContent-Type: application/json\r\n"
            + "Content-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
        let bytes = Array(request.utf8)
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw RawHTTP.Failure(description: "send: \(errno)") }
            sent += n
        }
        var pending: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n <= 0 { break }
            var data = chunk[0..<n]
            if contentLength == nil && status == 0 {
                pending.append(contentsOf: data)
                guard
                    let end = (0..<max(0, pending.count - 3)).first(where: {
                        pending[$0..<$0 + 4].elementsEqual([13, 10, 13, 10])
                    })
                else { continue }
                head = String(decoding: pending[..<end], as: UTF8.self)
                status = Int(head.split(separator: " ").dropFirst().first ?? "") ?? -1
                contentLength = head.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-length:") }
                    .flatMap { Int($0.split(separator: ":")[1].trimmingCharacters(in: .whitespaces)) }
                data = pending[(end + 4)...]
            }
            let start = received
            for (i, probe) in probes.enumerated() {
                let lower = max(probe.lowerBound, start)
                let upper = min(probe.upperBound, start + data.count)
                if lower < upper {
                    let from = data.startIndex + lower - start
                    probed[i].append(contentsOf: data[from..<(from + upper - lower)])
                }
            }
            received += data.count
        }
    }
}
