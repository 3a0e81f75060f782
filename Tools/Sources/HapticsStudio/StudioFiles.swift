import Foundation
@_spi(Tooling) import HapticsEngine

/// Why the studio refused a request, with the HTTP status the page gets.
package struct StudioError: Error, Hashable, Sendable, CustomStringConvertible {
    package var status: Int
    package var message: String
    /// More members for the error's JSON (a conflict's current `version` and `text`).
    package var details: [String: String] = [:]

    package init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    package var description: String { message }

    static func forbidden(_ message: String) -> StudioError { StudioError(403, message) }
    static func badRequest(_ message: String) -> StudioError { StudioError(400, message) }
    static func notFound(_ message: String) -> StudioError { StudioError(404, message) }
}

/// The folders a studio serves, and the only way a request's path becomes a file.
///
/// A studio path is `LABEL/relative/path.ahap`, where `LABEL` names one served folder (its last
/// component, made unique). Resolution refuses what could leave the folder: absolute paths, `.`
/// and `..` components, empty components, backslashes, NUL, and symbolic links whose target lies
/// outside the folder (checked on the resolved real path, so a link planted later is caught too).
/// Only pattern files (`.ahap`, `.haptic`, `.vij`) are read or written.
///
/// ```swift
/// let files = try StudioFiles(folders: ["Patterns"])
/// let url = try files.resolve("Patterns/examples/heartbeat.ahap")
/// ```
package struct StudioFiles: Sendable {
    /// One served folder.
    package struct Root: Hashable, Sendable {
        /// What studio paths start with.
        package var label: String
        /// The folder's real path (symbolic links resolved), without a trailing slash.
        package var realPath: String
    }

    /// One file the studio lists.
    package struct Entry: Hashable, Sendable {
        package var path: String
        package var format: String
        package var bytes: Int
    }

    package let roots: [Root]

    /// The extensions the studio reads and writes.
    package static let extensions: Set<String> = ["ahap", "haptic", "vij"]

    /// Most files listed; a larger tree is cut (the page says so).
    package static let maximumListed = 10_000

    /// Serves `folders` (each must exist and be a folder).
    ///
    /// - Throws: ``StudioError`` naming the first folder that is missing or not a folder.
    package init(folders: [String]) throws(StudioError) {
        var roots: [Root] = []
        var used: Set<String> = []
        for folder in folders {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder) else {
                throw StudioError(404, "\(folder): no such folder")
            }
            guard isFolder.boolValue else { throw StudioError(400, "\(folder): not a folder") }
            guard let real = Self.realPath(folder) else { throw StudioError(400, "\(folder): cannot be resolved") }
            var base = URL(filePath: real).lastPathComponent
            if base.isEmpty || base == "/" { base = "root" }
            var label = base
            var n = 2
            while used.contains(label) {
                label = "\(base)-\(n)"
                n += 1
            }
            used.insert(label)
            roots.append(Root(label: label, realPath: real == "/" ? "" : real))
        }
        self.roots = roots
    }

    /// Every pattern file under the served folders, sorted by path; hidden folders and `.build*`
    /// are skipped, and links that lead outside their folder are not followed.
    package func list() -> (files: [Entry], truncated: Bool) {
        var out: [Entry] = []
        for root in roots {
            let base = URL(filePath: root.realPath.isEmpty ? "/" : root.realPath)
            guard
                let walker = FileManager.default.enumerator(
                    at: base, includingPropertiesForKeys: [.isRegularFileKey, .fileSizeKey],
                    options: [.skipsHiddenFiles])
            else { continue }
            for case let url as URL in walker {
                let name = url.lastPathComponent
                if name.hasPrefix(".build") || name == "node_modules" {
                    walker.skipDescendants()
                    continue
                }
                guard Self.extensions.contains(url.pathExtension.lowercased()) else { continue }
                let relative = String(url.path(percentEncoded: false).dropFirst(base.path(percentEncoded: false).count))
                    .trimmingCharacters(in: CharacterSet(charactersIn: "/"))
                let path = root.label + "/" + relative
                guard let resolved = try? resolve(path) else { continue }
                let size = (try? FileManager.default.attributesOfItem(atPath: resolved)[.size] as? Int) ?? 0
                out.append(Entry(path: path, format: Self.format(of: path), bytes: size))
                if out.count >= Self.maximumListed { return (out.sorted { $0.path < $1.path }, true) }
            }
        }
        return (out.sorted { $0.path < $1.path }, false)
    }

    /// `ahap`, `haptic` or `vij`, by extension.
    package static func format(of path: String) -> String {
        let ext = URL(filePath: path).pathExtension.lowercased()
        return ext == "vij" ? "vij" : ext == "haptic" ? "haptic" : "ahap"
    }

    /// The real path of the existing pattern file that studio path `path` names.
    ///
    /// - Throws: ``StudioError`` 403 for anything that could leave a served folder or is not a
    ///   pattern file, 404 for a file that does not exist.
    package func resolve(_ path: String) throws(StudioError) -> String {
        let (root, relative) = try split(path)
        let candidate = root.realPath + "/" + relative
        guard let real = Self.realPath(candidate) else { throw .notFound("\(path): no such file") }
        guard real.hasPrefix(root.realPath + "/") else {
            throw .forbidden("\(path): leads outside the served folder \(root.label)")
        }
        guard Self.extensions.contains(URL(filePath: real).pathExtension.lowercased()) else {
            throw .forbidden("\(path): the studio reads and writes only .ahap, .haptic and .vij files")
        }
        var status = stat()
        guard stat(real, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else {
            throw .forbidden("\(path): not a regular file")
        }
        return real
    }

    /// The file's bytes, at most `limit` of them.
    package func read(_ path: String, limit: Int = 16 << 20) throws(StudioError) -> [UInt8] {
        let real = try resolve(path)
        guard let handle = FileHandle(forReadingAtPath: real) else { throw StudioError(500, "\(path): cannot be read") }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: limit + 1)) ?? Data()
        guard data.count <= limit else { throw StudioError(413, "\(path): larger than \(limit) bytes") }
        return [UInt8](data)
    }

    /// Replaces the file's content atomically (a temporary file in the same folder, flushed, then
    /// renamed over it), keeping its permissions. The file must already exist.
    package func write(_ path: String, bytes: [UInt8]) throws(StudioError) {
        let real = try resolve(path)
        do {
            try writeAtomically(bytes, to: real)
        } catch {
            throw StudioError(500, "\(path): could not be written (\(error.errno))")
        }
    }

    /// The served folder and the relative path inside it, after the checks that need no disk.
    func split(_ path: String) throws(StudioError) -> (Root, String) {
        guard !path.isEmpty, !path.hasPrefix("/") else {
            throw .forbidden("\(path): paths are relative to a served folder")
        }
        guard !path.contains("\\"), !path.contains("\0") else { throw .forbidden("\(path): not a studio path") }
        let parts = path.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count >= 2, !parts.contains(where: { $0.isEmpty || $0 == "." || $0 == ".." }) else {
            throw .forbidden("\(path): '.', '..' and empty components are not allowed")
        }
        guard let root = roots.first(where: { $0.label == parts[0] }) else {
            throw .forbidden("\(path): \(parts[0]) is not a served folder")
        }
        return (root, parts.dropFirst().joined(separator: "/"))
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// A file's version: 64-bit FNV-1a of its bytes and their count, in hex. It detects that a file
    /// changed (for conflicts and reloads); it is not a security measure.
    package static func version(of bytes: [UInt8]) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + "-" + String(bytes.count)
    }
}
