import Foundation
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// Why a file cannot be watched.
public struct FileWatcherError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    /// The system call that failed, with its `errno`.
    public var cause: SystemCallError

    public var description: String {
        "cannot watch \(path): \(cause.path.map { "its folder \($0): " } ?? "")\(cause.errno.description)"
    }
}

/// Notices when a file is saved, however the editor saves it.
///
/// On Linux it watches the file's *folder* with inotify, so a save that writes a new file and
/// renames it over the old one (what most editors do) is seen as well as an in-place write. It
/// reacts to a file written and closed, moved into place or created under the watched name.
/// Elsewhere it polls the file's modification time, size and inode every 100 ms.
///
/// ```swift
/// let watcher = try FileWatcher(path: "tap.ahap")
/// while watcher.waitForChange(stopping: { interrupted.load(ordering: .relaxed) }) { reload() }
/// ```
public final class FileWatcher {
    /// The watched file, as given.
    public let path: String
    /// How long the file must stay quiet after a change before it counts as saved: editors often
    /// write in several steps.
    public var settle: Duration = .milliseconds(40)

    #if os(Linux)
        private let descriptor: Int32
        private let name: String
        private var buffer = [UInt8](repeating: 0, count: 8192)
    #else
        private var last: Stamp?
    #endif

    /// Starts watching `path` (its folder must exist; the file itself need not, yet).
    public init(path: String) throws(FileWatcherError) {
        self.path = path
        #if os(Linux)
            let url = URL(filePath: path)
            name = url.lastPathComponent
            let folder = url.deletingLastPathComponent().path(percentEncoded: false)
            // IN_CLOEXEC | IN_NONBLOCK (glibc's values; imported as enum cases of varying type).
            do {
                descriptor = try systemCall("inotify_init1") { inotify_init1(0o2_000_000 | 0o4_000) }
            } catch {
                throw FileWatcherError(path: path, cause: error)
            }
            let mask = UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_CREATE) | UInt32(IN_ONLYDIR)
            let watched = folder.isEmpty ? "." : folder
            do {
                try systemCall("inotify_add_watch", path: watched) { inotify_add_watch(descriptor, watched, mask) }
            } catch {
                close(descriptor)
                throw FileWatcherError(path: path, cause: error)
            }
        #else
            last = Stamp(path)
        #endif
    }

    deinit {
        #if os(Linux)
            close(descriptor)
        #endif
    }

    /// Blocks until the file changes (true) or `stopping` returns true (false). `stopping` is
    /// asked about every 100 ms. A change made while nobody was waiting is reported at once.
    public func waitForChange(stopping: () -> Bool) -> Bool {
        while !stopping() {
            if changed(within: 100) {
                settleDown()
                return true
            }
        }
        return false
    }

    /// Waits until no further change arrives for `settle`.
    private func settleDown() {
        let milliseconds = Int32(
            settle.components.seconds * 1000 + settle.components.attoseconds / 1_000_000_000_000_000)
        while changed(within: milliseconds) {}
    }

    #if os(Linux)
        /// Whether a change to the file arrived within `milliseconds`.
        private func changed(within milliseconds: Int32) -> Bool {
            var descriptorPoll = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&descriptorPoll, 1, milliseconds) > 0 else { return false }
            var hit = false
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                hit = buffer.withUnsafeBytes { events($0, count: count) } || hit
            }
            return hit
        }

        /// Whether any `struct inotify_event` in the bytes names the watched file.
        private func events(_ bytes: UnsafeRawBufferPointer, count: Int) -> Bool {
            var offset = 0
            var hit = false
            while offset + 16 <= count {
                // struct inotify_event { int wd; uint32_t mask, cookie, len; char name[]; }
                let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                let start = offset + 16
                let end = min(count, start + length)
                let nameBytes = bytes[start..<end].prefix { $0 != 0 }
                if String(decoding: nameBytes, as: UTF8.self) == name { hit = true }
                offset = start + length
            }
            return hit
        }
    #else
        private struct Stamp: Equatable {
            var modified: timespec
            var size: off_t
            var inode: ino_t

            init?(_ path: String) {
                var info = stat()
                guard stat(path, &info) == 0 else { return nil }
                modified = info.st_mtimespec
                size = info.st_size
                inode = info.st_ino
            }

            static func == (a: Stamp, b: Stamp) -> Bool {
                a.modified.tv_sec == b.modified.tv_sec && a.modified.tv_nsec == b.modified.tv_nsec
                    && a.size == b.size && a.inode == b.inode
            }
        }

        /// Whether the file's stamp differs from the last one seen, polled over `milliseconds`.
        private func changed(within milliseconds: Int32) -> Bool {
            var waited: Int32 = 0
            repeat {
                let now = Stamp(path)
                if now != last {
                    last = now
                    return true
                }
                let step = min(100, milliseconds - waited)
                if step > 0 { usleep(useconds_t(step) * 1000) }
                waited += step
            } while waited < milliseconds
            return false
        }
    #endif
}
