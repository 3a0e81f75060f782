import Foundation
import PackagePlugin

/// `swift package lint-haptics [--target NAME]... [--strict] [--notes]`: lints the `.ahap` and
/// `.haptic` files of the package's targets (or the named ones) with `haptic-lint`, printing
/// `FILE:LINE:COL: error|warning: ...` with paths relative to the package; fails on errors (or,
/// with --strict, warnings).
@main
struct HapticsLintCommand: CommandPlugin {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let names = extractor.extractOption(named: "target")
        var options: [String] = []
        if extractor.extractFlag(named: "strict") > 0 { options.append("--strict") }
        if extractor.extractFlag(named: "notes") > 0 { options.append("--notes") }
        guard extractor.remainingArguments.isEmpty else {
            throw Failure(
                description: "lint-haptics: unexpected \(extractor.remainingArguments.joined(separator: " ")); "
                    + "use: swift package lint-haptics [--target NAME]... [--strict] [--notes]")
        }
        let targets = names.isEmpty ? context.package.targets : try context.package.targets(named: names)
        let root = context.package.directoryURL.standardizedFileURL.path(percentEncoded: false)
        let prefix = root.hasSuffix("/") ? root : root + "/"
        var files: [String] = []
        for target in targets {
            guard let module = target.sourceModule else { continue }
            for file in patternFiles(module.sourceFiles.map(\.url)) {
                let path = file.standardizedFileURL.path(percentEncoded: false)
                files.append(path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path)
            }
        }
        guard !files.isEmpty else {
            print(
                "lint-haptics: no .ahap or .haptic files in \(names.isEmpty ? "the package's targets" : names.joined(separator: ", "))"
            )
            return
        }
        let process = Process()
        process.executableURL = try context.tool(named: "haptic-lint").url
        process.arguments = options + ["--"] + files
        process.currentDirectoryURL = context.package.directoryURL
        try process.run()
        process.waitUntilExit()
        let status = process.terminationStatus
        guard status == 0 else {
            throw Failure(
                description:
                    "lint-haptics: \(files.count) file\(files.count == 1 ? "" : "s") checked; haptic-lint exited with status \(status)"
            )
        }
        print("lint-haptics: \(files.count) file\(files.count == 1 ? "" : "s") checked")
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
