import Foundation
import Synchronization
import Testing
import _HapticsTestSupport

/// `haptic studio` as a user runs it: one address on standard output, the files served behind
/// the token, Ctrl-C ends it with 130; a missing folder and a taken port are said in one line.
@Suite(.serialized) struct StudioCommandTests {
    /// A running `haptic studio` whose standard output is read as it arrives.
    final class Running: Sendable {
        let process: Process
        let output = LiveHaptic.Collected()
        let arrived = DispatchSemaphore(value: 0)

        init(_ arguments: [String]) throws {
            let process = Process()
            process.executableURL = Haptic.executable
            process.arguments = ["studio"] + arguments
            let pipe = Pipe()
            process.standardOutput = pipe
            process.standardError = pipe
            self.process = process
            pipe.fileHandleForReading.readabilityHandler = { [output, arrived] handle in
                let data = handle.availableData
                guard !data.isEmpty else {
                    handle.readabilityHandler = nil
                    return
                }
                output.text.withLock { $0 += String(decoding: data, as: UTF8.self) }
                arrived.signal()
            }
            try process.run()
        }

        var text: String { output.text.withLock { $0 } }

        /// The address once printed (nil after 30 s).
        func address() -> URL? {
            let deadline = DispatchTime.now() + 30
            while true {
                if let line = text.split(separator: "\n").first(where: { $0.contains("?token=") }) {
                    return URL(string: line.trimmingCharacters(in: .whitespaces))
                }
                if !process.isRunning || arrived.wait(timeout: deadline) == .timedOut { return nil }
            }
        }

        func stop(_ signal: Int32 = SIGINT) -> Int32 {
            _ = kill(process.processIdentifier, signal)
            let exited = DispatchSemaphore(value: 0)
            process.terminationHandler = { _ in exited.signal() }
            if process.isRunning, exited.wait(timeout: .now() + 10) == .timedOut {
                _ = kill(process.processIdentifier, SIGKILL)
            }
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    // The waits below block (a pipe, a child's exit), so they run off Swift's cooperative pool,
    // which every other test in the process shares.

    @Test(.timeLimit(.minutes(1))) func printsOneAddressServesBehindTheTokenAndStopsOnCtrlC() async throws {
        let scratch = try ScratchFolder()
        _ = try scratch.write("tap.ahap", PlayWatchTests.valid)
        let studio = try Running([scratch.url.path(percentEncoded: false), "--device", "null"])
        let found = try await offPool { studio.address() }
        let address = try #require(found, "no address in: \(studio.text)")
        #expect(
            studio.text.hasPrefix(
                "haptic studio: serving 1 pattern under \(scratch.url.lastPathComponent); plays through ALSA device null\n"
            ))
        #expect(address.host() == "127.0.0.1")
        let token = try #require(address.query()?.replacingOccurrences(of: "token=", with: ""))
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
        #expect(try await offPool { studio.stop() } == 130)
    }

    @Test(.timeLimit(.minutes(1))) func aMissingFolderAndATakenPortAreSaidInOneLine() async throws {
        let missing = try Running(["/no/such/folder"])
        try await offPool { missing.process.waitUntilExit() }
        #expect(missing.process.terminationStatus == 1)
        #expect(missing.text.contains("/no/such/folder: no such folder"), "\(missing.text)")

        let scratch = try ScratchFolder()
        let first = try Running([scratch.url.path(percentEncoded: false), "--device", "null"])
        let port = try #require(try await offPool { first.address()?.port })
        let second = try Running([scratch.url.path(percentEncoded: false), "--port", "\(port)", "--device", "null"])
        try await offPool { second.process.waitUntilExit() }
        #expect(second.process.terminationStatus == 1)
        #expect(second.text.contains("port \(port) is in use; try --port 0"), "\(second.text)")
        #expect(try await offPool { first.stop(SIGTERM) } == 143)
    }
}
