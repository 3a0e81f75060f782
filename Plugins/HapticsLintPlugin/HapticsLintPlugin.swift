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

/// What the linter reads among `files`: AHAP files and Meta/Lofelt `.haptic` clips, also inside
/// folders (a `.copy("Haptics")` resource is one folder), sorted.
func patternFiles(_ files: [URL]) -> [URL] {
    var found: [URL] = []
    for url in files {
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: url.path(percentEncoded: false), isDirectory: &isFolder) else {
            continue
        }
        if !isFolder.boolValue {
            if isPatternFile(url) { found.append(url) }
            continue
        }
        let walker = FileManager.default.enumerator(at: url, includingPropertiesForKeys: [.isRegularFileKey])
        while let inner = walker?.nextObject() as? URL {
            if isPatternFile(inner) { found.append(inner) }
        }
    }
    return found.sorted { $0.path(percentEncoded: false) < $1.path(percentEncoded: false) }
}

func isPatternFile(_ url: URL) -> Bool {
    ["ahap", "haptic"].contains(url.pathExtension.lowercased())
}
