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
