import Foundation
import HapticsCore
@_spi(Tooling) import HapticsEngine
import HapticsReview
import OrderedCollections
import Synchronization
import SystemPackage

// `struct stat`'s members belong to whichever C module the compiler loaded first (Glibc through
// Foundation, or CDispatch through Dispatch); with MemberImportVisibility a file must import
// that module, so a file that reads stat's members imports both.
#if canImport(CDispatch)
    import CDispatch
#endif

/// Watches the files pages have opened and tells every page when one changes on disk (an editor
/// saved it, `git checkout`, another tab): `{"type": "changed", "path": P, "version": V}`.
///
/// One mechanism: inotify on each watched file's folder, the very folder the studio holds open
/// (its descriptor, through `/proc/self/fd`, so a folder renamed since is still the one watched).
/// A watch on the folder sees both ways editors save: a write in place (the file closed after
/// writing) and a new file moved over the old one, which a watch on the file itself misses. The
/// events arrive through a Dispatch read source, so an idle studio does not wake. On an event
/// the file's status (size, modification time, inode) is compared and, when it moved, its
/// content's version.
///
/// The fallback, when inotify cannot be had (the per-user limit of inotify instances or watches
/// reached: `fs.inotify.max_user_instances`, `fs.inotify.max_user_watches`): the files that have
/// no watch are checked once a second, and the studio says so once on standard error.
final class StudioWatcher: Sendable {
    struct Known: Sendable {
        var version: String
        var stamp: Stamp?
        /// The inotify watch on the file's folder; nil when the file is checked by the fallback.
        var watch: Int32?
        var name: String
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
    /// How often the fallback checks the files inotify does not watch.
    static let fallbackInterval = Duration.seconds(1)

    /// The inotify instance; nil when none could be had.
    private let notify: Int32?
    /// Folder watches' events, from the read source to ``run()``.
    private let events: AsyncStream<[Event]>
    private let eventSink: AsyncStream<[Event]>.Continuation
    /// Yields once when the first file goes without a watch (``run()`` starts the fallback then).
    private let fallbackNeeded: AsyncStream<Void>
    private let fallbackSink: AsyncStream<Void>.Continuation
    private let saidFallback = Atomic<Bool>(false)

    /// One inotify event: the watch (folder) and the name in it; a nil name for an overflow or a
    /// watch the kernel dropped (its folder removed).
    struct Event: Sendable {
        var watch: Int32
        var name: String?
    }

    init(files: StudioFiles, hub: StudioHub) {
        self.files = files
        self.hub = hub
        // IN_CLOEXEC | IN_NONBLOCK (glibc's values; imported as enum cases of varying type).
        let opened = Result { () throws(SystemCallError) in
            try systemCall("inotify_init1") { inotify_init1(0o2_000_000 | 0o4_000) }
        }
        notify = try? opened.get()
        (events, eventSink) = AsyncStream.makeStream(of: [Event].self)
        (fallbackNeeded, fallbackSink) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        if case .failure(let error) = opened { useFallback(reason: error.errno.description) }
    }

    deinit {
        if let notify { close(notify) }
    }

    /// Starts watching `path` (or notes a version the studio itself wrote, which is not news).
    func watch(_ path: String, version: String) {
        let opened = try? files.open(path)
        let stamp = opened.map { Self.stamp($0.status) }
        var watch: Int32?
        if let notify, let opened {
            let mask = UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_CREATE) | UInt32(IN_ONLYDIR)
            do throws(SystemCallError) {
                watch = try systemCall("inotify_add_watch") {
                    inotify_add_watch(notify, "/proc/self/fd/\(opened.folder.fd)", mask)
                }
            } catch {
                useFallback(reason: error.errno.description)
            }
        }
        let name = opened?.name ?? String(path.split(separator: "/").last ?? "")
        let dropped = known.withLock { known -> Int32? in
            known.removeValue(forKey: path)
            known[path] = Known(version: version, stamp: stamp, watch: watch, name: name)
            guard known.count > Self.capacity else { return nil }
            let first = known.removeFirst()
            // A folder's watch goes once no watched file is in that folder.
            guard let watch = first.value.watch, !known.values.contains(where: { $0.watch == watch }) else {
                return nil
            }
            return watch
        }
        if let dropped, let notify { _ = try? systemCall("inotify_rm_watch") { inotify_rm_watch(notify, dropped) } }
    }

    private func useFallback(reason: String) {
        fallbackSink.yield()
        if !saidFallback.exchange(true, ordering: .relaxed) {
            FileHandle.standardError.write(
                Data(
                    "haptic studio: cannot watch with inotify (\(reason)); checking the open files every second\n".utf8)
            )
        }
    }

    func stamp(_ path: String) -> Stamp? {
        files.status(path).map(Self.stamp)
    }

    static func stamp(_ status: stat) -> Stamp {
        Stamp(
            size: Int64(status.st_size), seconds: status.st_mtim.tv_sec, nanoseconds: status.st_mtim.tv_nsec,
            inode: UInt64(status.st_ino))
    }

    /// Reports changes until cancelled: inotify's events as they come, and the fallback's
    /// checks once a file goes without a watch.
    func run() async {
        let source = notify.map { fd in
            let source = DispatchSource.makeReadSource(
                fileDescriptor: fd, queue: DispatchQueue(label: "studio.watcher"))
            let sink = eventSink
            source.setEventHandler { sink.yield(Self.readEvents(fd)) }
            source.resume()
            return source
        }
        defer { source?.cancel() }
        await withTaskGroup { group in
            group.addTask {
                for await batch in self.events {
                    await self.check(self.paths(for: batch))
                }
            }
            group.addTask {
                for await _ in self.fallbackNeeded {
                    while !Task.isCancelled {
                        let unwatched = self.known.withLock { $0.filter { $0.value.watch == nil }.map(\.key) }
                        await self.check(unwatched)
                        try? await Task.sleep(for: Self.fallbackInterval)
                    }
                }
            }
            await withTaskCancellationHandler {
                await group.waitForAll()
            } onCancel: {
                self.eventSink.finish()
                self.fallbackSink.finish()
            }
        }
    }

    /// Every `struct inotify_event` waiting on `fd` (non-blocking).
    private static func readEvents(_ fd: Int32) -> [Event] {
        var found: [Event] = []
        var buffer = [UInt8](repeating: 0, count: 8192)
        while true {
            // Non-blocking: EAGAIN (nothing more) ends the loop like any failure.
            let read = buffer.withUnsafeMutableBytes { bytes in
                Result { () throws(SystemCallError) in
                    try systemCall("read") { Glibc.read(fd, bytes.baseAddress, bytes.count) }
                }
            }
            guard let count = try? read.get(), count > 0 else { break }
            buffer.withUnsafeBytes { bytes in
                var offset = 0
                while offset + 16 <= count {
                    // struct inotify_event { int wd; uint32_t mask, cookie, len; char name[]; }
                    let watch = bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self)
                    let mask = bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
                    let length = Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    let start = offset + 16
                    let end = min(count, start + length)
                    let overflow = mask & (UInt32(IN_Q_OVERFLOW) | UInt32(IN_IGNORED)) != 0
                    let name = String(decoding: bytes[start..<end].prefix { $0 != 0 }, as: UTF8.self)
                    found.append(Event(watch: watch, name: overflow ? nil : name))
                    offset = start + length
                }
            }
        }
        return found
    }

    /// The watched paths an event batch may concern: those named in a watched folder; all of them
    /// after an overflow; a dropped folder's files go to the fallback.
    private func paths(for batch: [Event]) -> [String] {
        known.withLock { known in
            var paths: [String] = []
            var lost = false
            for (path, entry) in known {
                for event in batch where event.watch == entry.watch || event.watch == -1 {
                    if let name = event.name {
                        if name == entry.name { paths.append(path) }
                    } else {
                        paths.append(path)
                        if event.watch != -1 {
                            known[path]?.watch = nil
                            lost = true
                        }
                    }
                }
            }
            if lost { fallbackSink.yield() }
            return Array(Set(paths))
        }
    }

    /// Compares each path's status with the last seen and, when it moved, its version;
    /// announces the changed ones.
    func check(_ paths: [String]) async {
        for message in changes(paths) { await hub.broadcast(message) }
    }

    /// What ``check(_:)`` announces for `paths`: a message for each whose version moved since
    /// last seen (noting the new status and version).
    func changes(_ paths: [String]) -> [String] {
        var messages: [String] = []
        for path in paths {
            guard let entry = known.withLock({ $0[path] }) else { continue }
            let now = stamp(path)
            guard now != entry.stamp else { continue }
            guard let bytes = try? files.read(path) else {
                known.withLock { $0[path]?.stamp = now }
                continue
            }
            let version = StudioFiles.version(of: bytes)
            let changed = known.withLock { known -> Bool in
                guard let old = known[path]?.version else { return false }
                known[path]?.version = version
                known[path]?.stamp = now
                return old != version
            }
            if changed {
                let message: JSONValue = .object([
                    "type": .string("changed"), "path": .string(path), "version": .string(version),
                ])
                messages.append(message.jsonText)
            }
        }
        return messages
    }
}
