import Foundation
import Synchronization
import Testing
import _HapticsTestSupport

/// haptic-lint, the plugins' tool, run as the plugins and the pre-commit hook run it; then the two
/// plugins end to end, in a scratch package that depends on this one by path.
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
        let result = try TestProcess.run(executable, arguments, in: directory, mergingErrors: true)
        return Result(status: result.status, output: result.output)
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

        // The nearest .haptic-lint.json decides, as for `haptic lint`: the unknown key disabled,
        // then made an error; a broken configuration names its file and place.
        try Data(#"{"disable": ["unknown-key"]}"#.utf8).write(to: folder.appending(path: ".haptic-lint.json"))
        let quiet = try Self.run(Self.tool, ["--strict", warned])
        #expect(quiet.status == 0)
        #expect(quiet.output == "")
        try Data(#"{"error": ["unknown-key"]}"#.utf8).write(to: folder.appending(path: ".haptic-lint.json"))
        let escalated = try Self.run(Self.tool, [warned])
        #expect(escalated.status == 1)
        #expect(escalated.output.hasPrefix("\(warned):4:63: error: Pattern[0].Event.Sharpnes"))
        try Data(#"{"disable": ["unknown-keys"]}"#.utf8).write(to: folder.appending(path: ".haptic-lint.json"))
        let broken = try Self.run(Self.tool, [warned])
        #expect(broken.status == 1)
        #expect(broken.output.contains(".haptic-lint.json:disable[0]: unknown rule 'unknown-keys'"))
        try FileManager.default.removeItem(at: folder.appending(path: ".haptic-lint.json"))

        let usage = try Self.run(Self.tool, ["--bogus", warned])
        #expect(usage.status == 64)
        #expect(usage.output.hasPrefix("haptic-lint: unknown option --bogus\nusage: haptic-lint"))
        #expect(try Self.run(Self.tool, []).status == 64)
        let missing = try Self.run(Self.tool, [folder.appending(path: "gone.ahap").path(percentEncoded: false)])
        #expect(missing.status == 1)
        #expect(missing.output.contains("gone.ahap: error: $: AHAP file"))
    }

    /// A package that uses both plugins: its build fails at the bad file's line, builds clean once
    /// the file has only a warning (printed), and `swift package lint-haptics` prints the findings.
    /// Slow (it builds this package's libraries in a fresh scratch package, minutes on two cores),
    /// so it runs only with HAPTICS_PLUGIN_TESTS=1: tools/test runs it on its own, after the rest.
    /// It resolves the way this package does (swift-collections and swift-system, no other).
    @Test(.enabled(if: ProcessInfo.processInfo.environment["HAPTICS_PLUGIN_TESTS"] == "1"))
    func aPackageUsingThePluginsFailsAtTheFileAndLine() throws {
        let package = try Self.scratch("haptics-lint-plugin")
        defer { try? FileManager.default.removeItem(at: package) }
        let manifest = """
            // swift-tools-version: 6.1
            import PackageDescription

            let package = Package(
                name: "LintScratch",
                platforms: [.macOS(.v15)],
                dependencies: [.package(name: "swift-haptics", path: "\(Self.root.path(percentEncoded: false))")],
                targets: [
                    .target(
                        name: "App", resources: [.copy("Haptics")],
                        plugins: [.plugin(name: "HapticsLintPlugin", package: "swift-haptics")])
                ]
            )

            """
        func write(_ text: String, _ path: String) throws {
            let url = package.appending(path: path)
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: url)
        }
        try write(manifest, "Package.swift")
        try write("public let answer = 42\n", "Sources/App/App.swift")
        try write(Self.bad, "Sources/App/Haptics/Tap.ahap")
        let swift = URL(filePath: "/usr/bin/env")
        let file = package.appending(path: "Sources/App/Haptics/Tap.ahap").standardizedFileURL.path(
            percentEncoded: false)

        let failing = try Self.run(swift, ["swift", "build", "--package-path", package.path(percentEncoded: false)])
        #expect(failing.status != 0)
        #expect(
            failing.output.contains(
                "\(file):4:28: error: Pattern[0].Event.Time: Time -1 is negative; times are seconds from the start [negative-time]"
            ), "\(failing.output)")

        try write(Self.warned, "Sources/App/Haptics/Tap.ahap")
        let passing = try Self.run(swift, ["swift", "build", "--package-path", package.path(percentEncoded: false)])
        #expect(passing.status == 0, "\(passing.output)")
        #expect(passing.output.contains("\(file):4:63: warning: Pattern[0].Event.Sharpnes: unknown key"))

        try write(Self.bad, "Sources/App/Haptics/Bad.ahap")
        let command = try Self.run(swift, ["swift", "package", "lint-haptics"], in: package)
        #expect(command.status != 0)
        #expect(
            command.output.contains(
                "Sources/App/Haptics/Bad.ahap:4:28: error: Pattern[0].Event.Time: Time -1 is negative"),
            "\(command.output)")
        #expect(command.output.contains("Sources/App/Haptics/Tap.ahap:4:63: warning: Pattern[0].Event.Sharpnes"))
    }
}
