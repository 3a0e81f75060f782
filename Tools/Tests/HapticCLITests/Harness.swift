import Foundation
import Synchronization
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
    ) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        if let environment { process.environment = environment }
        try process.run()
        if let killAfter {
            let pid = process.processIdentifier
            DispatchQueue.global().asyncAfter(deadline: .now() + killAfter) {
                if process.isRunning { kill(pid, SIGKILL) }
            }
        }
        return try collect(process, stdout: stdout, stderr: stderr) {
            if !input.isEmpty { stdin.fileHandleForWriting.write(Data(input)) }
            try stdin.fileHandleForWriting.close()
        }
    }

    /// Reads a started process's two streams to their ends and waits for it. Standard error is
    /// drained on another thread, so a chatty child never blocks on a full pipe while standard
    /// output is read; `feed` runs once the drain has started (to write standard input).
    private static func collect(
        _ process: Process, stdout: Pipe, stderr: Pipe, feed: () throws -> Void = {}
    ) throws -> Result {
        let errorHandle = stderr.fileHandleForReading
        let errorBytes = Mutex(Data())
        let drained = DispatchGroup()
        DispatchQueue.global().async(group: drained) {
            let bytes = errorHandle.readDataToEndOfFile()
            errorBytes.withLock { $0 = bytes }
        }
        try feed()
        let outBytes = stdout.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        drained.wait()
        return Result(
            status: process.terminationStatus, stdout: [UInt8](outBytes),
            stderr: String(decoding: errorBytes.withLock { $0 }, as: UTF8.self))
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
    static func runShell(_ command: String) throws -> Result {
        let process = Process()
        process.executableURL = URL(filePath: "/bin/sh")
        process.arguments = ["-c", command]
        let stdout = Pipe(), stderr = Pipe()
        process.standardOutput = stdout
        process.standardError = stderr
        process.standardInput = FileHandle.nullDevice
        try process.run()
        return try collect(process, stdout: stdout, stderr: stderr)
    }
}
