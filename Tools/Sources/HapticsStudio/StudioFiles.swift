import Foundation
@_spi(Tooling) import HapticsEngine
import SystemPackage

// `struct stat`'s members belong to whichever C module the compiler loaded first (Glibc through
// Foundation, or CDispatch through Dispatch); with MemberImportVisibility a file must import
// that module, so a file that reads stat's members imports both.
#if canImport(CDispatch)
    import CDispatch
#endif

/// Why the studio refused a request, with the HTTP status the page gets.
package struct StudioError: Error, Hashable, Sendable, CustomStringConvertible {
    package var status: Int
    package var message: String
    /// A conflict's (409) current version and text of the file.
    package var version: String?
    package var text: String?
    /// The file an audio save would replace (409).
    package var path: String?
    /// Seconds after which a refused request may be tried again (`Retry-After`), for a 503.
    package var retryAfter: Int?

    package init(_ status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    package var description: String { message }

    /// The body every error is answered with.
    package var response: Studio.ErrorResponse {
        Studio.ErrorResponse(error: message, version: version, text: text, path: path)
    }

    static func forbidden(_ message: String) -> StudioError { StudioError(403, message) }
    static func badRequest(_ message: String) -> StudioError { StudioError(400, message) }
    static func notFound(_ message: String) -> StudioError { StudioError(404, message) }
}

/// The folders a studio serves, and the only way a request's path becomes a file.
///
/// A studio path is `LABEL/relative/path.ahap`, where `LABEL` names one served folder (its last
/// component, made unique). Paths are refused before the disk is touched when they are absolute or
/// have `.`, `..` or empty components, backslashes or NUL; only pattern files (`.ahap`, `.haptic`,
/// `.vij`) are read or written, and audio files (`.wav`, `.flac`, `.ogg`, `.opus`, `.mp3`) are read
/// by the audio routes only (StudioAudio.swift).
///
/// Every served folder is opened once, at start, and held open. A file is reached from that
/// descriptor one component at a time (`openat` with `O_NOFOLLOW`), so a symbolic link anywhere
/// on the way is refused, including one swapped in while a request runs; each folder and the file
/// are checked after opening (`fstat`: a folder or a regular file, on the served folder's device),
/// and what was opened is what is read, written beside, compared with git or watched: nothing is
/// opened again by name. A save writes a temporary file in the file's own (held) folder and renames
/// it over the file there (`AtomicFile` relative to that folder), removing it on every failure.
/// (`openat2` with `RESOLVE_BENEATH` would do the walk in one call, but glibc has no wrapper for it
/// and Swift cannot call the variadic `syscall`; the walk gives the same guarantee on any kernel.)
///
/// ```swift
/// let files = try StudioFiles(folders: ["Patterns"])
/// let bytes = try files.read("Patterns/examples/heartbeat.ahap")
/// ```
package struct StudioFiles: Sendable {
    /// One served folder.
    package struct Root: Sendable {
        /// What studio paths start with.
        package var label: String
        /// The folder's real path (symbolic links resolved), without a trailing slash.
        package var realPath: String
        /// The folder, held open for the studio's life: every file is opened relative to it.
        let folder: Descriptor
        /// The folder's device: nothing on another file system is served.
        let device: UInt64
    }

    /// One file the studio lists.
    package struct Entry: Hashable, Sendable {
        package var path: String
        package var format: String
        package var bytes: Int
    }

    /// A pattern file opened for a request: the held folder it is in, its name there, the open
    /// file and its status at opening.
    struct Opened: Sendable {
        var folder: Descriptor
        var name: String
        var file: Descriptor
        var status: stat
    }

    package let roots: [Root]

    /// The extensions the studio reads and writes.
    package static let extensions: Set<String> = ["ahap", "haptic", "vij"]

    /// The audio extensions listed and read by the audio routes (what `haptic convert` reads).
    package static let audioExtensions: Set<String> = ["wav", "wave", "flac", "ogg", "oga", "opus", "mp3"]

    /// Most files listed; a larger tree is cut (the page says so).
    package static let maximumListed = 10_000
    /// Deepest folder nesting listed.
    static let maximumDepth = 32

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
            let held: Descriptor
            let status: stat
            do throws(SystemCallError) {
                held = Descriptor(
                    try systemCall("open", path: real) { Glibc.open(real, O_RDONLY | O_DIRECTORY | O_CLOEXEC) })
                status = try Self.status(of: held.fd)
            } catch {
                throw StudioError(400, "\(folder): cannot be opened (\(error.errno))")
            }
            var base = URL(filePath: real).lastPathComponent
            if base.isEmpty || base == "/" { base = "root" }
            var label = base
            var n = 2
            while used.contains(label) {
                label = "\(base)-\(n)"
                n += 1
            }
            used.insert(label)
            roots.append(
                Root(label: label, realPath: real == "/" ? "" : real, folder: held, device: UInt64(status.st_dev)))
        }
        self.roots = roots
    }

    /// Every pattern and audio file under the served folders, sorted by path; hidden folders and `.build*`
    /// are skipped, symbolic links are not followed, and nothing on another file system is listed.
    package func list() -> (files: [Entry], truncated: Bool) {
        var out: [Entry] = []
        for root in roots {
            if Self.walk(root.folder, prefix: root.label, device: root.device, depth: 0, into: &out) {
                return (out.sorted { $0.path < $1.path }, true)
            }
        }
        return (out.sorted { $0.path < $1.path }, false)
    }

    /// Adds the pattern files under `folder` to `out`; true when ``maximumListed`` was reached.
    private static func walk(
        _ folder: Descriptor, prefix: String, device: UInt64, depth: Int, into out: inout [Entry]
    ) -> Bool {
        // A descriptor of its own (not a `dup`, which would share the read position with the
        // held one, so that a second listing would start at the end).
        guard let copy = try? systemCall("openat", { openat(folder.fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC) })
        else { return false }
        guard let stream = fdopendir(copy) else {
            close(copy)
            return false
        }
        defer { closedir(stream) }
        var names: [String] = []
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name.hasPrefix(".") || name == "node_modules" { continue }
            names.append(name)
        }
        for name in names.sorted() {
            guard let status = try? Self.status(of: name, in: folder), UInt64(status.st_dev) == device else { continue }
            let path = prefix + "/" + name
            switch status.st_mode & S_IFMT {
            case S_IFDIR:
                guard depth < maximumDepth,
                    let child = try? openFolder(folder, name, device: device, path: path)
                else { continue }
                if walk(child, prefix: path, device: device, depth: depth + 1, into: &out) { return true }
            case S_IFREG:
                let ext = URL(filePath: name).pathExtension.lowercased()
                guard extensions.contains(ext) || audioExtensions.contains(ext) else { continue }
                out.append(Entry(path: path, format: format(of: path), bytes: Int(status.st_size)))
                if out.count >= maximumListed { return true }
            default:
                continue
            }
        }
        return false
    }

    /// `ahap`, `haptic` or `vij`, by extension; for an audio file `wav`, `flac`, `ogg`, `opus` or `mp3`.
    package static func format(of path: String) -> String {
        let ext = URL(filePath: path).pathExtension.lowercased()
        if audioExtensions.contains(ext) { return ext == "wave" ? "wav" : ext == "oga" ? "ogg" : ext }
        return ext == "vij" ? "vij" : ext == "haptic" ? "haptic" : "ahap"
    }

    /// Whether `path` names an audio file (by extension).
    package static func isAudio(_ path: String) -> Bool {
        audioExtensions.contains(URL(filePath: path).pathExtension.lowercased())
    }

    /// Opens the existing pattern file that studio path `path` names, as the type says (with
    /// `audio`, the existing audio file instead).
    ///
    /// - Throws: ``StudioError`` 403 for anything that could leave a served folder (a symbolic
    ///   link on the way, another file system) or is not a regular pattern file, 404 for a file
    ///   that does not exist.
    func open(_ path: String, audio: Bool = false) throws(StudioError) -> Opened {
        let (root, relative) = try split(path)
        var components = relative.split(separator: "/").map(String.init)
        let name = components.removeLast()
        let ext = URL(filePath: name).pathExtension.lowercased()
        if audio {
            guard Self.audioExtensions.contains(ext) else {
                throw .forbidden("\(path): audio is read from .wav, .flac, .ogg, .opus and .mp3 files only")
            }
        } else if !Self.extensions.contains(ext) {
            throw .forbidden(
                "\(path): the studio reads and writes only .ahap, .haptic and .vij files"
                    + (Self.audioExtensions.contains(ext) ? " (audio opens through /api/audio)" : ""))
        }
        var folder = root.folder
        for component in components {
            folder = try Self.openFolder(folder, component, device: root.device, path: path)
        }
        // Looked at before it is opened, so that opening never touches a device or a FIFO.
        let before: stat
        do throws(SystemCallError) {
            before = try Self.status(of: name, in: folder)
        } catch {
            throw Self.failure(error.errno, path, folder: folder, name: name)
        }
        guard (before.st_mode & S_IFMT) == S_IFREG else { throw Self.notServed(path, before) }
        let file: Descriptor
        do throws(SystemCallError) {
            file = try Self.openFile(name, in: folder)
        } catch {
            throw Self.failure(error.errno, path, folder: folder, name: name)
        }
        guard let status = try? Self.status(of: file.fd), (status.st_mode & S_IFMT) == S_IFREG,
            UInt64(status.st_dev) == root.device
        else { throw .forbidden("\(path): not a regular file in the served folder") }
        return Opened(folder: folder, name: name, file: file, status: status)
    }

    /// `name` in `parent`, opened as a folder without following a link, on `device`.
    private static func openFolder(_ parent: Descriptor, _ name: String, device: UInt64, path: String)
        throws(StudioError) -> Descriptor
    {
        let folder: Descriptor
        do throws(SystemCallError) {
            folder = try openFolder(name, in: parent)
        } catch {
            throw failure(error.errno, path, folder: parent, name: name)
        }
        guard let status = try? Self.status(of: folder.fd), (status.st_mode & S_IFMT) == S_IFDIR,
            UInt64(status.st_dev) == device
        else {
            throw .forbidden("\(path): \(name) is on another file system")
        }
        return folder
    }

    private static func failure(_ code: Errno, _ path: String, folder: Descriptor, name: String) -> StudioError {
        if let status = try? Self.status(of: name, in: folder) {
            return notServed(path, status, component: name)
        }
        // A name longer than the file system allows (ENAMETOOLONG) names no file either.
        if code == .noSuchFileOrDirectory || code == .notDirectory || code == .fileNameTooLong {
            return .notFound("\(path): no such file")
        }
        if code == .permissionDenied { return .forbidden("\(path): the studio may not open it") }
        return StudioError(500, "\(path): cannot be opened (\(code))")
    }

    // MARK: - The calls, each through the `systemCall` funnel

    /// `name` in `folder` as it is (a link is not followed): `fstatat` with `AT_SYMLINK_NOFOLLOW`.
    static func status(of name: String, in folder: Descriptor) throws(SystemCallError) -> stat {
        var status = stat()
        try systemCall("fstatat", path: name) { fstatat(folder.fd, name, &status, AT_SYMLINK_NOFOLLOW) }
        return status
    }

    /// What an open descriptor is: `fstat`.
    static func status(of fd: CInt) throws(SystemCallError) -> stat {
        var status = stat()
        try systemCall("fstat") { fstat(fd, &status) }
        return status
    }

    /// The folder `name` in `folder`, refusing a link (`O_NOFOLLOW`).
    static func openFolder(_ name: String, in folder: Descriptor) throws(SystemCallError) -> Descriptor {
        Descriptor(
            try systemCall("openat", path: name) {
                openat(folder.fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
            })
    }

    /// The file `name` in `folder` for reading, refusing a link, never blocking on a FIFO or
    /// taking a terminal.
    static func openFile(_ name: String, in folder: Descriptor) throws(SystemCallError) -> Descriptor {
        Descriptor(
            try systemCall("openat", path: name) {
                openat(folder.fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
            })
    }

    private static func notServed(_ path: String, _ status: stat, component: String? = nil) -> StudioError {
        if (status.st_mode & S_IFMT) == S_IFLNK {
            return .forbidden(
                "\(path): \(component ?? "it") is a symbolic link; the studio follows none (it could lead "
                    + "outside the served folder)")
        }
        return .forbidden("\(path): not a regular file in the served folder")
    }

    /// A pattern file found in a served folder: where the files it refers to (AudioCustom
    /// waveforms) are looked for, through the same held folders.
    package struct Place: Sendable {
        /// The studio that found it.
        package var files: StudioFiles
        /// Its studio path (`LABEL/relative/path.ahap`).
        package var path: String
        /// Where it is on disk (the served folder's real path, then the studio path's components,
        /// none of them a link), for messages.
        package var realPath: String
    }

    /// The file studio path `path` names, checked as ``open(_:)`` checks it.
    ///
    /// - Throws: as ``open(_:)``.
    package func resolve(_ path: String) throws(StudioError) -> Place {
        _ = try open(path)
        let (root, relative) = try split(path)
        return Place(files: self, path: path, realPath: root.realPath + "/" + relative)
    }

    /// Why a file a pattern refers to cannot be read.
    package enum ReferenceFailure: Error, Hashable, Sendable {
        /// Nothing by that name (or a path a studio path cannot hold).
        case notFound
        /// The path leads outside the pattern's served folder, or through a symbolic link.
        case refused(String)
        /// Larger than the limit.
        case tooLarge(Int)
        /// Found, but not readable.
        case unreadable(String)
    }

    /// The bytes of `reference`, a path relative to `place`'s folder (an AudioCustom event's
    /// `EventWaveformPath`), reached through the held served folder as pattern files are: every
    /// component opened with `O_NOFOLLOW` and checked, so neither a link nor a `..` that climbs
    /// above the served folder reaches outside it, race or not. `.` and `..` inside the folder
    /// are allowed, as `render` allows them.
    package func read(_ reference: String, beside place: Place, limit: Int) throws(ReferenceFailure) -> [UInt8] {
        guard let (root, relative) = try? split(place.path) else { throw .notFound }
        var components = relative.split(separator: "/").dropLast().map(String.init)
        guard !reference.isEmpty, !reference.hasPrefix("/"), !reference.contains("\0") else { throw .notFound }
        for part in reference.split(separator: "/") {
            switch part {
            case ".": continue
            case "..":
                guard !components.isEmpty else { throw .refused("leads outside the served folder") }
                components.removeLast()
            default: components.append(String(part))
            }
        }
        guard let name = components.popLast() else { throw .notFound }
        var folder = root.folder
        for component in components {
            do throws(SystemCallError) {
                folder = try Self.openFolder(component, in: folder)
            } catch {
                throw Self.referenceFailure(error.errno, folder, component)
            }
        }
        let before: stat
        do throws(SystemCallError) {
            before = try Self.status(of: name, in: folder)
        } catch {
            throw Self.referenceFailure(error.errno, folder, name)
        }
        guard (before.st_mode & S_IFMT) == S_IFREG else {
            throw Self.referenceFailure(.tooManySymbolicLinkLevels, folder, name)
        }
        let file: Descriptor
        do throws(SystemCallError) {
            file = try Self.openFile(name, in: folder)
        } catch {
            throw Self.referenceFailure(error.errno, folder, name)
        }
        guard let status = try? Self.status(of: file.fd), (status.st_mode & S_IFMT) == S_IFREG,
            UInt64(status.st_dev) == root.device
        else {
            throw .refused("is not a regular file in the served folder")
        }
        guard Int(status.st_size) <= limit else { throw .tooLarge(Int(status.st_size)) }
        do {
            return try Self.read(Opened(folder: folder, name: name, file: file, status: status), path: "", limit: limit)
        } catch {
            throw error.status == 413 ? .tooLarge(limit + 1) : .unreadable(error.message)
        }
    }

    private static func referenceFailure(_ code: Errno, _ folder: Descriptor, _ name: String) -> ReferenceFailure {
        if let status = try? Self.status(of: name, in: folder) {
            switch status.st_mode & S_IFMT {
            case S_IFLNK: return .refused("goes through a symbolic link (\(name)); the studio follows none")
            case S_IFDIR where code == .tooManySymbolicLinkLevels: return .unreadable("is a folder")
            case S_IFREG: return .unreadable("cannot be opened (\(code))")
            default: return .refused("is not a regular file")
            }
        }
        return .notFound
    }

    /// The file's bytes, at most `limit` of them.
    package func read(_ path: String, limit: Int = 16 << 20) throws(StudioError) -> [UInt8] {
        try Self.read(open(path), path: path, limit: limit)
    }

    static func read(_ opened: Opened, path: String, limit: Int) throws(StudioError) -> [UInt8] {
        guard Int(opened.status.st_size) <= limit else { throw StudioError(413, "\(path): larger than \(limit) bytes") }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let read = chunk.withUnsafeMutableBytes { buffer in
                Result { () throws(SystemCallError) in
                    try systemCall("read", path: path) { Glibc.read(opened.file.fd, buffer.baseAddress, buffer.count) }
                }
            }
            let n: Int
            switch read {
            case .success(let count): n = count
            case .failure(let error): throw StudioError(500, "\(path): cannot be read (\(error.errno))")
            }
            if n == 0 { break }
            bytes.append(contentsOf: chunk[0..<n])
            guard bytes.count <= limit else { throw StudioError(413, "\(path): larger than \(limit) bytes") }
        }
        return bytes
    }

    /// Replaces the file's content atomically (a temporary file in the same folder, flushed, then
    /// renamed over it), keeping its permissions. The file must already exist.
    package func write(_ path: String, bytes: [UInt8]) throws(StudioError) {
        let opened = try open(path)
        do {
            try writeAtomically(
                bytes, to: opened.name, in: opened.folder.fd, mode: UInt32(opened.status.st_mode & 0o7777))
        } catch {
            throw StudioError(500, "\(path): could not be written (\(error.errno))")
        }
    }

    /// The file's last committed content (`git show HEAD:./NAME` in its held folder).
    ///
    /// - Throws: as ``open(_:)``, and ``StudioError`` 404 when there is no committed version.
    func committed(_ path: String) async throws(StudioError) -> [UInt8] {
        let opened = try open(path)
        return try await StudioGit.committed(folder: opened.folder, name: opened.name)
    }

    /// The file's status now (for the watcher), nil when it cannot be opened.
    func status(_ path: String) -> stat? { try? open(path).status }

    /// The served folder and the relative path inside it, after the checks that need no disk.
    func split(_ path: String) throws(StudioError) -> (Root, String) {
        // Longer than any path the system opens (PATH_MAX): refused before it is split, and not
        // echoed (an 8 MB path took 2.8 s and 200 MB to answer 404 with the path in its message).
        guard path.utf8.count <= Int(PATH_MAX) else {
            throw .badRequest("\"path\" is \(path.utf8.count) bytes long; a studio path is at most \(PATH_MAX)")
        }
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

    /// What tells that a file changed without reading it: its device, inode, size and times.
    static func stamp(_ status: stat) -> [Int] {
        [
            Int(truncatingIfNeeded: status.st_dev), Int(truncatingIfNeeded: status.st_ino), Int(status.st_size),
            Int(status.st_mtim.tv_sec), Int(status.st_mtim.tv_nsec), Int(status.st_ctim.tv_sec),
            Int(status.st_ctim.tv_nsec),
        ]
    }

    /// Whole seconds since the file's content or status last changed.
    static func secondsSinceChange(_ status: stat) -> Int {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return Int(now.tv_sec) - Int(max(status.st_mtim.tv_sec, status.st_ctim.tv_sec))
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

/// A file descriptor, closed when the last reference goes.
final class Descriptor: Sendable {
    let fd: CInt

    init(_ fd: CInt) { self.fd = fd }

    deinit { close(fd) }
}
