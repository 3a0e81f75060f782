import Foundation
import Synchronization
import Testing

/// haptic-lint, the linter alone, run as the pre-commit hook runs it.
@Suite struct LintPluginTests {
    /// The repository root: this file is Tests/HapticsLintPluginTests/LintPluginTests.swift.
    static let root = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The built haptic-lint: beside the test bundle in the build folder.
    static let tool: URL = {
        var folder = URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appending(path: "haptic-lint")
            if FileManager.default.isExecutableFile(atPath: candidate.path(percentEncoded: false)) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return root.appending(path: ".build/debug/haptic-lint")
    }()

    /// An error at line 4 (a negative Time) in a file laid out as people write AHAP.
    static let bad = """
        {
            "Version": 1,
            "Pattern": [
                {"Event": {"Time": -1, "EventType": "HapticTransient"}}
            ]
        }

        """
    /// A warning only (an unknown key at line 4).
    static let warned = """
        {
            "Version": 1,
            "Pattern": [
                {"Event": {"Time": 0, "EventType": "HapticTransient", "Sharpnes": 1}}
            ]
        }

        """

    struct Result {
        var status: Int32
        var output: String
    }

    /// Runs `executable arguments` in `directory`, standard output and error together.
    static func run(_ executable: URL, _ arguments: [String], in directory: URL? = nil) throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let bytes = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Result(status: process.terminationStatus, output: String(decoding: bytes, as: UTF8.self))
    }

    static func scratch(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appending(path: "\(name)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    @Test func theToolPrintsCompilerLinesAndFailsOnErrors() throws {
        let folder = try Self.scratch("haptic-lint")
        defer { try? FileManager.default.removeItem(at: folder) }
        let bad = folder.appending(path: "bad.ahap").path(percentEncoded: false)
        let warned = folder.appending(path: "warned.ahap").path(percentEncoded: false)
        try Data(Self.bad.utf8).write(to: URL(filePath: bad))
        try Data(Self.warned.utf8).write(to: URL(filePath: warned))
        let stamp = folder.appending(path: "Stamp.swift")

        let failing = try Self.run(Self.tool, ["--stamp", stamp.path(percentEncoded: false), bad, warned])
        #expect(failing.status == 1)
        #expect(
            failing.output == """
                \(bad):4:28: error: Pattern[0].Event.Time: Time -1 is negative; times are seconds from the start [negative-time]
                \(warned):4:63: warning: Pattern[0].Event.Sharpnes: unknown key "Sharpnes" in an Event; Core Haptics ignores it [unknown-key]

                """)
        #expect(!FileManager.default.fileExists(atPath: stamp.path(percentEncoded: false)), "no stamp when it fails")

        let passing = try Self.run(Self.tool, ["--stamp", stamp.path(percentEncoded: false), warned])
        #expect(passing.status == 0)
        #expect(
            try String(contentsOf: stamp, encoding: .utf8) == "// haptic-lint checked 1 pattern file: no errors.\n")
        #expect(try Self.run(Self.tool, ["--strict", warned]).status == 1)
        #expect(
            try Self.run(Self.tool, ["--format", "github", warned]).output
                == "::warning file=\(warned),line=4,col=63,title=unknown-key::Pattern[0].Event.Sharpnes: unknown key \"Sharpnes\" in an Event; Core Haptics ignores it\n"
        )

        let usage = try Self.run(Self.tool, ["--bogus", warned])
        #expect(usage.status == 64)
        #expect(usage.output.hasPrefix("haptic-lint: unknown option --bogus\nusage: haptic-lint"))
        #expect(try Self.run(Self.tool, []).status == 64)
        let missing = try Self.run(Self.tool, [folder.appending(path: "gone.ahap").path(percentEncoded: false)])
        #expect(missing.status == 1)
        #expect(missing.output.contains("gone.ahap: error: $: AHAP file"))
    }
}
