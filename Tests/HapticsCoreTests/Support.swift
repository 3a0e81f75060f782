import Foundation
import HapticsCore

/// The project's own fixtures: `Tests/Fixtures` (Tests/Fixtures/README.md says what each exercises).
enum Fixtures {
    static let root: URL = URL(filePath: #filePath)
        .deletingLastPathComponent()  // HapticsCoreTests
        .deletingLastPathComponent()  // Tests
        .appending(path: "Fixtures")

    static func bytes(_ relative: String) throws -> [UInt8] {
        Array(try Data(contentsOf: root.appending(path: relative)))
    }

    /// Every `.ahap` file, relative to `root`, sorted.
    static let ahapFiles: [String] = {
        let base = root.appending(path: "ahap")
        guard let walker = FileManager.default.enumerator(at: base, includingPropertiesForKeys: nil) else {
            return []
        }
        var found: [String] = []
        for case let url as URL in walker where url.pathExtension == "ahap" {
            found.append("ahap/" + url.path.dropFirst(base.path.count + 1))
        }
        return found.sorted()
    }()
}

/// Lint lines for a JSON text, as the CLI prints them for file `t.ahap`.
func lintLines(_ json: String, limits: AHAPLimits = .default) -> [String] {
    AHAP.lint(Array(json.utf8), file: "t.ahap", limits: limits).map { $0.formatted(file: "t.ahap") }
}

/// Wraps one pattern element in a minimal document: the element starts on line 2, column 13.
func doc(_ element: String) -> String {
    "{\"Version\": 1, \"Pattern\": [\n            \(element)\n]}"
}
