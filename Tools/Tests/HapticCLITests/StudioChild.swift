import Foundation
import Testing
import _ToolTestSupport

/// `haptic studio FOLDER --device null` as a child process, with the port and token it printed:
/// for the tests that measure the server process itself (its memory), not only its answers.
struct StudioChild {
    let process: LiveHaptic
    let port: Int
    let token: String

    init(serving folder: URL) async throws {
        process = try await LiveHaptic(
            ["studio", folder.path(percentEncoded: false), "--device", "null"], standardOutputToo: true)
        let found = await process.address()
        let address = try #require(found, "no address in: \(process.text)")
        token = try #require(address.fragment()?.replacingOccurrences(of: "token=", with: ""))
        port = address.port ?? 0
    }

    func kill() { process.kill() }

    /// `key` of the server's `/proc/PID/status` (`VmRSS`, `VmHWM`), in kB.
    func kilobytes(_ key: String) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(process.child.processIdentifier)/status", encoding: .utf8)
        let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("\(key):") })
        return try #require(Int(line.split(separator: " ").dropFirst().first ?? ""))
    }
}
