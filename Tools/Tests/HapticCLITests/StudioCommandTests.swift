import Foundation
import Testing
import _ToolTestSupport

/// `haptic studio` as a user runs it: one address on standard output, the files served behind
/// the token, Ctrl-C ends it with 130; a missing folder and a taken port are said in one line.
@Suite(.serialized) struct StudioCommandTests {
    /// Starts `haptic studio arguments`, collecting what it prints.
    static func studio(_ arguments: [String]) async throws -> LiveHaptic {
        try await LiveHaptic(["studio"] + arguments, standardOutputToo: true)
    }

    @Test(.timeLimit(.minutes(1))) func printsOneAddressServesBehindTheTokenAndStopsOnCtrlC() async throws {
        let scratch = try ScratchFolder()
        _ = try scratch.write("tap.ahap", PlayWatchTests.valid)
        let studio = try await Self.studio([scratch.url.path(percentEncoded: false), "--device", "null"])
        let found = await studio.address()
        let address = try #require(found, "no address in: \(studio.text)")
        #expect(
            studio.text.hasPrefix(
                "haptic studio: serving 1 pattern under \(scratch.url.lastPathComponent); plays through ALSA device null\n"
            ))
        #expect(address.host() == "127.0.0.1")
        let token = try #require(address.fragment()?.replacingOccurrences(of: "token=", with: ""))
        #expect(token.count == 64)
        let port = address.port ?? 0
        let host = ("Host", "127.0.0.1:\(port)")
        let refused = try await RawHTTP.request(port: port, method: "GET", target: "/api/files", headers: [host])
        #expect(refused.status == 403)
        #expect(refused.text.contains("refused"))
        let listed = try await RawHTTP.request(
            port: port, method: "GET", target: "/api/files", headers: [host, ("X-Studio-Token", token)])
        #expect(listed.status == 200)
        #expect(listed.text.contains("/tap.ahap\""))
        #expect(try await studio.interrupt() == 130)
    }

    @Test(.timeLimit(.minutes(1))) func aFileServesItsFolderAndOpensFirst() async throws {
        let scratch = try ScratchFolder()
        _ = try scratch.write("a.ahap", PlayWatchTests.valid)
        let file = try scratch.write("tap.ahap", PlayWatchTests.valid)
        let studio = try await Self.studio([file, "--device", "null"])
        let found = await studio.address()
        let address = try #require(found, "no address in: \(studio.text)")
        let fragment = try #require(address.fragment(percentEncoded: false))
        #expect(fragment.hasPrefix("token="))
        #expect(fragment.hasSuffix("&open=\(scratch.url.lastPathComponent)/tap.ahap"), "\(fragment)")
        #expect(studio.text.contains("serving 2 patterns under \(scratch.url.lastPathComponent);"))
        #expect(try await studio.interrupt() == 130)
    }

    /// An idle studio sleeps: nothing polls while nothing plays. Counts the threads' voluntary
    /// context switches (each wake-up ends in one; other processes' load does not add to them).
    /// The playhead publisher's 16 ms poll made about 430 a second.
    @Test(.timeLimit(.minutes(1))) func anIdleStudioSleeps() async throws {
        let scratch = try ScratchFolder()
        _ = try scratch.write("tap.ahap", PlayWatchTests.valid)
        let studio = try await Self.studio([scratch.url.path(percentEncoded: false), "--device", "null"])
        #expect(await studio.address() != nil, "no address in: \(studio.text)")
        func switches() throws -> Int {
            let tasks = "/proc/\(studio.child.processIdentifier)/task"
            return try FileManager.default.contentsOfDirectory(atPath: tasks).reduce(0) { sum, thread in
                let status = (try? String(contentsOfFile: "\(tasks)/\(thread)/status", encoding: .utf8)) ?? ""
                let line = status.split(separator: "\n").first { $0.hasPrefix("voluntary_ctxt_switches:") }
                return sum + (line.flatMap { Int($0.split(separator: "\t").last ?? "") } ?? 0)
            }
        }
        try await Task.sleep(for: .seconds(1))
        let before = try switches()
        try await Task.sleep(for: .seconds(3))
        let perSecond = Double(try switches() - before) / 3
        #expect(perSecond < 60, "\(perSecond) wake-ups a second")
        #expect(try await studio.interrupt() == 130)
    }

    @Test(.timeLimit(.minutes(1))) func aMissingFolderAndATakenPortAreSaidInOneLine() async throws {
        let missing = try await Self.studio(["/no/such/folder"])
        #expect(try await missing.wait() == 1)
        #expect(missing.text.contains("/no/such/folder: no such folder"), "\(missing.text)")

        let scratch = try ScratchFolder()
        let first = try await Self.studio([scratch.url.path(percentEncoded: false), "--device", "null"])
        let port = try #require(await first.address()?.port)
        let second = try await Self.studio([
            scratch.url.path(percentEncoded: false), "--port", "\(port)", "--device", "null",
        ])
        #expect(try await second.wait() == 1)
        #expect(second.text.contains("port \(port) is in use; try --port 0"), "\(second.text)")
        #expect(try await first.send(SIGTERM) == 143)
    }
}

extension LiveHaptic {
    /// The address `haptic studio` prints, once it has (nil if it exits or 30 s pass first).
    func address() async -> URL? {
        guard await waitFor("#token=", seconds: 30) else { return nil }
        let line = text.split(separator: "\n").first { $0.contains("#token=") }
        return line.flatMap { URL(string: $0.trimmingCharacters(in: .whitespaces)) }
    }
}
