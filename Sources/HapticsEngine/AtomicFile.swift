import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A file written in full under a temporary name beside its destination and moved over it only
/// when complete (flushed, then renamed, then the folder flushed), so that a reader, a crash or a
/// full disk leaves the old file or the new one, never a part of one. The one way this repository
/// replaces a file: rendered WAVs, plots, review pages, conversions and the studio's saves.
///
/// The temporary file is created with `O_EXCL | O_NOFOLLOW` in the destination's own folder
/// (a rename never crosses file systems), optionally relative to a folder held open (`directory`),
/// which is how the studio keeps every write inside the folder it serves. Every call goes through
/// `systemCall`, so a failure names the call, the file and the `errno`.
///
/// ```swift
/// try writeAtomically(Array(svg.utf8), to: "plot.svg")
///
/// let file = try AtomicFile(replacing: "out.wav")    // stream into it, then:
/// try file.write(header); try file.commit()            // or file.abandon() after a failure
/// ```
@_spi(Tooling) public final class AtomicFile {
    /// The temporary file, open for writing.
    public let descriptor: CInt
    /// The destination, as given (relative to `directory`).
    public let path: String
    private let directory: CInt
    private let temporary: String
    private var isOpen = true
    private var isSettled = false

    /// Creates the temporary file for `path` (relative to the folder open as `directory`, or the
    /// working folder when nil).
    ///
    /// - Parameter mode: the new file's permissions; nil keeps those of the file it replaces
    ///   (0o644 for a new file).
    public init(replacing path: String, in directory: CInt? = nil, mode: UInt32? = nil) throws(SystemCallError) {
        let directory = directory ?? AT_FDCWD
        self.path = path
        self.directory = directory
        let slash = path.lastIndex(of: "/")
        let folder = slash.map { String(path[...$0]) } ?? ""
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        temporary = folder + ".\(name).partial-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        var permissions = mode ?? 0o644
        if mode == nil {
            var status = stat()
            if fstatat(directory, path, &status, 0) == 0 { permissions = status.st_mode & 0o7777 }
        }
        descriptor = try systemCall("open", path: temporary) { [temporary] in
            openat(directory, temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, permissions)
        }
    }

    deinit { abandon() }

    /// Writes all of `bytes` at the current offset, however little each call takes.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(SystemCallError) {
        var offset = 0
        while offset < bytes.count {
            let written = try systemCall("write", path: path) {
                Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            }
            guard written > 0 else { throw SystemCallError(call: "write", path: path, errno: .noSpace) }
            offset += written
        }
    }

    /// Flushes the file (when `durable`), moves it over the destination and flushes the folder, so
    /// the rename itself survives a crash.
    public func commit(durable: Bool = true) throws(SystemCallError) {
        precondition(!isSettled, "an AtomicFile is committed or abandoned once")
        do {
            if durable { try systemCall("fsync", path: path) { fsync(descriptor) } }
            isOpen = false
            try systemCall("close", path: path) { close(descriptor) }
            try systemCall("rename", path: path) { [temporary] in renameat(directory, temporary, directory, path) }
            isSettled = true
            if durable { try syncFolder() }
        } catch {
            abandon()
            throw error
        }
    }

    /// Closes and removes the temporary file; the destination stays as it was. Safe to call more
    /// than once, and after a failed commit.
    public func abandon() {
        if isOpen { close(descriptor) }
        isOpen = false
        if !isSettled { unlinkat(directory, temporary, 0) }
        isSettled = true
    }

    private func syncFolder() throws(SystemCallError) {
        let folder = path.lastIndex(of: "/").map { String(path[...$0]) } ?? "."
        let fd = try systemCall("open", path: folder) { openat(directory, folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(fd) }
        try systemCall("fsync", path: folder) { fsync(fd) }
    }
}

/// Replaces the file at `path` (relative to the folder open as `directory`, or the working folder
/// when nil) with `bytes`, in
/// one step as far as any reader can tell: `AtomicFile` written, flushed and renamed over it.
///
/// - Parameters:
///   - mode: the permissions; nil keeps those of the file replaced (0o644 for a new one).
///   - durable: flush the file and its folder before returning (a crash keeps the new file).
/// - Complexity: O(n) in the bytes, plus the system's flushes.
@_spi(Tooling) public func writeAtomically(
    _ bytes: [UInt8], to path: String, in directory: CInt? = nil, mode: UInt32? = nil, durable: Bool = true
) throws(SystemCallError) {
    let file = try AtomicFile(replacing: path, in: directory, mode: mode)
    try bytes.withUnsafeBytes { raw in Result { () throws(SystemCallError) in try file.write(raw) } }.get()
    try file.commit(durable: durable)
}
