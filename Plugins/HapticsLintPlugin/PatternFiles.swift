import Foundation

// Shared by both plugins: Plugins/HapticsLintCommand/PatternFiles.swift links to this file (a
// plugin is one module and cannot import another).

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
