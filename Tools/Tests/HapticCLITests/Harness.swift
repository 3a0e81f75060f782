import Foundation
import Testing
import _ToolTestSupport

/// Runs the real `haptic` executable, as a user or a CI job would.
struct Haptic {
    struct Result {
        var status: Int32
        var stdout: [UInt8]
        var stderr: String
        var output: String { String(decoding: stdout, as: UTF8.self) }
    }

    /// The built `haptic` binary: it sits beside the test bundle in the build folder.
    static let executable: URL = {
        var folder = URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appending(path: "haptic")
            if FileManager.default.isExecutableFile(atPath: candidate.path(percentEncoded: false)) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return packageRoot.appending(path: "Tools/.build/debug/haptic")
    }()

    /// The repository root (Patterns/, Tests/Fixtures/, tools/).
    static let packageRoot = TestFiles.packageRoot
    static let fixtures = TestFiles.fixtures
    static let patterns = packageRoot.appending(path: "Patterns")

    /// Runs `haptic ARGS` with `input` on standard input; returns status and both streams.
    /// With `killAfter`, a run still going after that many seconds is killed (status 9, SIGKILL),
    /// so a test of something that must not hang fails instead of hanging.
    static func run(
        _ arguments: [String], input: [UInt8] = [], in directory: URL? = nil, killAfter: Double? = nil,
        environment: [String: String]? = nil
    ) async throws -> Result {
        let result = try await ChildProcess.run(
            executable.path(percentEncoded: false), arguments, input: input,
            in: directory?.path(percentEncoded: false), environment: environment,
            killAfter: killAfter.map { .milliseconds(Int($0 * 1000)) })
        return Result(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }
}

/// A scratch folder removed when the test ends.
final class ScratchFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "haptic-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes `text` to `name` and returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        try write(name, Array(text.utf8))
    }

    @discardableResult
    func write(_ name: String, _ bytes: [UInt8]) throws -> String {
        let file = url.appending(path: name)
        try FileManager.default.createDirectory(
            at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: file)
        return file.path(percentEncoded: false)
    }

    func path(_ name: String) -> String { url.appending(path: name).path(percentEncoded: false) }
}

extension Haptic {
    /// Runs a `/bin/sh -c` command line (for `ulimit` and signal dispositions a test needs).
    static func runShell(_ command: String) async throws -> Result {
        let result = try await ChildProcess.run("/bin/sh", ["-c", command])
        return Result(status: result.status, stdout: result.stdout, stderr: result.stderr)
    }
}
