import Foundation
import HapticsCore
import HapticsReview
import OrderedCollections
import Synchronization

/// The open WebSockets: each page gets every message (playhead, file changed) as one text frame.
actor StudioHub {
    private var subscribers: [Int: AsyncStream<String>.Continuation] = [:]
    private var nextID = 0

    /// A new subscriber's stream; a slow page drops old playhead messages, never blocks the rest.
    func subscribe() -> (AsyncStream<String>, Int) {
        let (stream, continuation) = AsyncStream.makeStream(of: String.self, bufferingPolicy: .bufferingNewest(64))
        nextID += 1
        subscribers[nextID] = continuation
        return (stream, nextID)
    }

    func unsubscribe(_ id: Int) {
        subscribers.removeValue(forKey: id)?.finish()
    }

    func broadcast(_ text: String) {
        for continuation in subscribers.values { continuation.yield(text) }
    }

    var count: Int { subscribers.count }
}

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
        guard let real = try? files.resolve(path) else { return nil }
        var status = stat()
        guard stat(real, &status) == 0 else { return nil }
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

/// The last committed version of a file, for "compare with HEAD".
enum StudioGit {
    /// `git show HEAD:./NAME` run in the file's folder.
    ///
    /// - Throws: ``StudioError`` 404 when git is missing, the folder is not in a repository, or
    ///   the file is not committed.
    static func committed(_ realPath: String) throws(StudioError) -> [UInt8] {
        let url = URL(filePath: realPath)
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = [
            "git", "-C", url.deletingLastPathComponent().path(percentEncoded: false), "show",
            "HEAD:./" + url.lastPathComponent,
        ]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw .notFound("git is not installed")
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw .notFound(
                "\(url.lastPathComponent) has no committed version (not in a git repository, or never committed)")
        }
        return [UInt8](data)
    }
}

/// `PatternDiff` as the page's JSON: what changed, where on the timeline, in words.
enum StudioDiff {
    static func json(_ diff: PatternDiff) -> JSONValue {
        .object([
            "changes": .array(
                diff.changes.map { change in
                    .object([
                        "kind": .string(change.kind.rawValue), "element": .string(change.element.rawValue),
                        "time": .number(change.time), "start": .number(change.span.lowerBound),
                        "end": .number(change.span.upperBound),
                        "beforeIndex": change.beforeIndex.map { .number(Double($0)) } ?? .null,
                        "afterIndex": change.afterIndex.map { .number(Double($0)) } ?? .null,
                        "line": .string(change.line),
                    ])
                }),
            "unchanged": .number(Double(diff.unchangedCount)),
            "durationBefore": .number(diff.durationBefore), "durationAfter": .number(diff.durationAfter),
            "metadata": .array(diff.metadataChanges.map { .string($0.description) }),
            "identical": .bool(diff.isEmpty),
        ])
    }
}
