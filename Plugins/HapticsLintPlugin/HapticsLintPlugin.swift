import Foundation
import PackagePlugin

/// Lints a Swift target's `.ahap` and `.haptic` files (resources or not) at build time with
/// `haptic-lint`: findings print as `FILE:LINE:COL: error|warning: ...`, which SwiftPM and Xcode
/// show at the file and line, and an error fails the build.
///
/// A build command runs only for an output something uses, so the tool's output is a Swift file
/// holding one comment, compiled into the target; it is written only when nothing fails. The
/// command reruns when a pattern file or the tool changes.
@main
struct HapticsLintPlugin: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: any Target) async throws -> [Command] {
        guard let module = target as? SwiftSourceModuleTarget else { return [] }
        let patterns = patternFiles(module.sourceFiles.map(\.url))
        guard !patterns.isEmpty else { return [] }
        let stamp = context.pluginWorkDirectoryURL.appending(path: "HapticsLint.swift")
        return [
            .buildCommand(
                displayName:
                    "Linting \(patterns.count) haptic pattern file\(patterns.count == 1 ? "" : "s") in \(target.name)",
                executable: try context.tool(named: "haptic-lint").url,
                arguments: ["--stamp", stamp.path(percentEncoded: false), "--"]
                    + patterns.map { $0.path(percentEncoded: false) },
                inputFiles: patterns,
                outputFiles: [stamp])
        ]
    }
}
