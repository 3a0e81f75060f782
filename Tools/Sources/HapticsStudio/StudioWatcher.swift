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
        /// The version the pages were last told of (or that the first page opened).
        var version: String
        var stamp: Stamp?
        /// The inotify watch on the file's folder; nil when the file is checked by the fallback.
        var watch: Int32?
        var name: String
        /// What the studio is writing or wrote to the file that the watcher has not seen yet.
        var written: Written?
        /// Counts the changes to `version`, `stamp` and `written`: a check whose read began before
        /// one reads again, so no check compares what it read with a state that came after it.
        var generation = 0
    }

    /// The studio's own writes to a file, which the save announces itself (`announceSave`): seen
    /// on disk, such a version is no news. `versions` are the ones written and not yet seen, the
    /// oldest first; `over` is the version on disk before them (the last of them the watcher has
    /// seen), which a check may read while the write is on its way.
    struct Written: Equatable, Sendable {
        var versions: [String]
        var over: String
    }

    /// The file the studio is about to write over: its opening (status, folder) and version.
    struct Current {
        var opened: StudioFiles.Opened
        var version: String
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

    /// Starts watching `path`, which a page opened (`opened`, its bytes at `version`). A file
    /// watched already keeps what the watcher knows of it: the version the other pages were told
    /// of, and the studio's own writes still on their way (a page that read the file before a
    /// save's write may get here after it), so a page's opening never turns a change into no news
    /// nor the studio's save into another program's.
    func watch(_ path: String, opened: StudioFiles.Opened, version: String) {
        let watch = addWatch(opened)
        let dropped = known.withLock { known -> Int32? in
            if var entry = known.removeValue(forKey: path) {
                entry.watch = watch ?? entry.watch
                known[path] = entry
                return nil
            }
            known[path] = Known(version: version, stamp: Self.stamp(opened.status), watch: watch, name: opened.name)
            return Self.trim(&known)
        }
        if let dropped, let notify { _ = try? systemCall("inotify_rm_watch") { inotify_rm_watch(notify, dropped) } }
    }

    /// Notes that the studio is about to write `version` to `path` (under its save lock), over
    /// `current` (nil for a new file), so the write, when the watcher sees it, is not announced as
    /// another program's change: the save announces it. A file not watched yet is watched from
    /// `current` on, so a page that opens it meanwhile cannot set an older version.
    func willWrite(_ path: String, version: String, over current: Current?) {
        let watch = current.flatMap { addWatch($0.opened) }
        let dropped = known.withLock { known -> Int32? in
            var added = false
            if known[path] == nil {
                guard let current else { return nil }
                known[path] = Known(
                    version: current.version, stamp: Self.stamp(current.opened.status), watch: watch,
                    name: current.opened.name)
                added = true
            }
            known[path]?.generation += 1
            if var written = known[path]?.written {
                written.versions.append(version)
                if written.versions.count > Self.writesKept { written.versions.removeFirst() }
                known[path]?.written = written
            } else {
                known[path]?.written = Written(versions: [version], over: current?.version ?? "")
            }
            return added ? Self.trim(&known) : nil
        }
        if let dropped, let notify { _ = try? systemCall("inotify_rm_watch") { inotify_rm_watch(notify, dropped) } }
    }

    /// Takes back ``willWrite(_:version:over:)`` for a write that failed.
    func writeFailed(_ path: String, version: String) {
        known.withLock { known in
            guard var written = known[path]?.written, let index = written.versions.lastIndex(of: version) else {
                return
            }
            written.versions.remove(at: index)
            known[path]?.written = written.versions.isEmpty ? nil : written
            known[path]?.generation += 1
        }
    }

    /// Most of the studio's writes to one file kept unseen (saves faster than the watcher).
    static let writesKept = 32

    /// An inotify watch on the opened file's folder (nil without inotify, or at its limit).
    private func addWatch(_ opened: StudioFiles.Opened) -> Int32? {
        guard let notify else { return nil }
        let mask = UInt32(IN_CLOSE_WRITE) | UInt32(IN_MOVED_TO) | UInt32(IN_CREATE) | UInt32(IN_ONLYDIR)
        do throws(SystemCallError) {
            return try systemCall("inotify_add_watch") {
                inotify_add_watch(notify, "/proc/self/fd/\(opened.folder.fd)", mask)
            }
        } catch {
            useFallback(reason: error.errno.description)
            return nil
        }
    }

    /// Drops the least recently opened file beyond ``capacity``; returns its folder's watch when
    /// no other watched file is in that folder (to be removed).
    private static func trim(_ known: inout OrderedDictionary<String, Known>) -> Int32? {
        guard known.count > capacity else { return nil }
        let first = known.removeFirst()
        guard let watch = first.value.watch, !known.values.contains(where: { $0.watch == watch }) else {
            return nil
        }
        return watch
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
    /// last seen (noting the new status and version), unless the studio wrote that version.
    func changes(_ paths: [String]) -> [String] {
        var messages: [String] = []
        for path in paths {
            if let version = change(path) {
                let message: JSONValue = .object([
                    "type": .string("changed"), "path": .string(path), "version": .string(version),
                ])
                messages.append(message.jsonText)
            }
        }
        return messages
    }

    /// The version `path` moved to from another program's write, or nil (no change, or the
    /// studio's own). Reads again when what the watcher knows changed during the read.
    private func change(_ path: String) -> String? {
        while true {
            guard let entry = known.withLock({ $0[path] }) else { return nil }
            let now = stamp(path)
            guard now != entry.stamp else { return nil }
            let bytes = try? files.read(path)
            let version = bytes.map(StudioFiles.version(of:))
            enum Outcome { case again, news(String?) }
            let outcome = known.withLock { known -> Outcome in
                guard var current = known[path] else { return .news(nil) }
                guard current.generation == entry.generation else { return .again }
                current.generation += 1
                current.stamp = now
                defer { known[path] = current }
                guard let version else { return .news(nil) }
                let old = current.version
                current.version = version
                if var written = current.written {
                    if let index = written.versions.firstIndex(of: version) {
                        // The studio's write (the save tells the pages); the ones before it are past.
                        written.over = version
                        written.versions.removeFirst(index + 1)
                        current.written = written.versions.isEmpty ? nil : written
                        return .news(nil)
                    }
                    // Not what the studio wrote over either: another program wrote since.
                    if version != written.over { current.written = nil }
                }
                return .news(old != version ? version : nil)
            }
            if case .news(let version) = outcome { return version }
        }
    }
}
