import Foundation
import HapticsCore
import HapticsReview
import OrderedCollections
import Synchronization

// `struct stat`'s members belong to whichever C module the compiler loaded first (Glibc through
// Foundation, or CDispatch through Dispatch); with MemberImportVisibility a file must import
// that module, so a file that reads stat's members imports both.
#if canImport(CDispatch)
    import CDispatch
#endif

/// Watches the files pages have opened and tells every page when one changes on disk (an editor
/// saved it, `git checkout`, another tab): `{"type": "changed", "path": P, "version": V}`.
///
/// It polls their status every 100 ms (size and modification time; the content's version only when
/// those moved), which costs a few `stat` calls and works for any editor's way of saving
/// (in place, or a new file renamed over the old one, which an inotify watch on the file misses).
final class StudioWatcher: Sendable {
    struct Known: Sendable {
        var version: String
        var stamp: Stamp?
    }

    struct Stamp: Equatable, Sendable {
        var size: Int64
        var seconds: Int
        var nanoseconds: Int
        var inode: UInt64
    }

    let files: StudioFiles
    let hub: StudioHub
    let known = Mutex<OrderedDictionary<String, Known>>([:])
    /// Most files watched at once; the least recently opened is dropped first.
    static let capacity = 64

    init(files: StudioFiles, hub: StudioHub) {
        self.files = files
        self.hub = hub
    }

    /// Starts watching `path` (or notes a version the studio itself wrote, which is not news).
    func watch(_ path: String, version: String) {
        let stamp = stamp(path)
        known.withLock { known in
            known.removeValue(forKey: path)
            known[path] = Known(version: version, stamp: stamp)
            if known.count > Self.capacity { known.removeFirst() }
        }
    }

    func stamp(_ path: String) -> Stamp? {
        guard let status = files.status(path) else { return nil }
        return Stamp(
            size: Int64(status.st_size), seconds: status.st_mtim.tv_sec, nanoseconds: status.st_mtim.tv_nsec,
            inode: UInt64(status.st_ino))
    }

    func run() async {
        while !Task.isCancelled {
            await poll()
            try? await Task.sleep(for: .milliseconds(100))
        }
    }

    func poll() async {
        let watched = known.withLock { $0 }
        for (path, entry) in watched {
            let now = stamp(path)
            guard now != entry.stamp else { continue }
            guard let bytes = try? files.read(path) else {
                known.withLock { $0[path]?.stamp = now }
                continue
            }
            let version = StudioFiles.version(of: bytes)
            let changed = known.withLock { known -> Bool in
                guard known[path] != nil else { return false }
                let old = known[path]!.version
                known[path] = Known(version: version, stamp: now)
                return old != version
            }
            if changed {
                let message: JSONValue = .object([
                    "type": .string("changed"), "path": .string(path), "version": .string(version),
                ])
                await hub.broadcast(message.jsonText)
            }
        }
    }
}
