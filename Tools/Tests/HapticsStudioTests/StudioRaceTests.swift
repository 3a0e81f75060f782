import CDispatch
import Foundation
import Glibc
import Synchronization
import Testing
import _ToolTestSupport

/// docs/studio.md, "Security": a symbolic link swapped in while requests run is never followed.
/// A thread swaps a served file for a link to a file outside, and a served folder for a link to a
/// folder outside, over and over, while reads, saves, compares and listings run; nothing outside is
/// read, written or left behind (issue 28: the server used to check a path, then open it again by
/// name, and leaked the outside file, replaced files outside and left temporary files there).
@Suite(.serialized) struct StudioRaceTests {
    /// What only the outside files contain.
    static let marker = "OUTSIDE-SECRET"
    static let pattern = """
        {"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient", \
        "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}]}}]}
        """

    @Test(.timeLimit(.minutes(3))) func swappedLinksAreNeverFollowed() async throws {
        try await StudioHarness.with(files: ["race.ahap": Self.pattern, "racedir/x.ahap": Self.pattern]) { studio in
            let manager = FileManager.default
            let folder = studio.folder.path(percentEncoded: false)
            let outside = studio.folder.deletingLastPathComponent().appending(path: "outside").path(
                percentEncoded: false)
            let target = outside + "/target"
            try manager.createDirectory(atPath: target, withIntermediateDirectories: true)
            let secret = Self.pattern.replacingOccurrences(
                of: "\"Version\": 1", with: "\"Version\": 1, \"Metadata\": {\"Note\": \"\(Self.marker)\"}")
            try Data(secret.utf8).write(to: URL(filePath: outside + "/secret.ahap"))

            // The save writes what the encoder makes of the pattern; the file inside and the one
            // outside hold exactly that, so a save meant for either would pass its version check.
            let opened = try await studio.object("GET", "/api/pattern?path=pats/racedir/x.ahap")
            let first = try await studio.object(
                "PUT", "/api/pattern?path=pats/racedir/x.ahap",
                json: "{\"ahap\": \(Self.pattern), \"baseVersion\": \"\(opened["version"] as? String ?? "")\"}")
            let version = try #require(first["version"] as? String)
            let saved = try Data(contentsOf: studio.url("racedir/x.ahap"))
            // Outside, a repository whose committed x.ahap is the secret, its working copy the saved bytes.
            try Data(secret.utf8).write(to: URL(filePath: target + "/x.ahap"))
            try await Self.git(target, ["init", "-q"])
            try await Self.git(target, ["add", "x.ahap"])
            try await Self.git(target, ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "x"])
            try saved.write(to: URL(filePath: target + "/x.ahap"))
            try Data(Self.pattern.utf8).write(to: URL(filePath: folder + "/.race-original"))
            let outsideInode = try Self.inode(target + "/x.ahap")

            let stop = Atomic<Bool>(false)
            let swaps = Atomic<Int>(0)
            let swapper = Thread {
                while !stop.load(ordering: .relaxed) {
                    Self.swap(folder: folder, outside: outside)
                    swaps.add(1, ordering: .relaxed)
                }
                Self.restore(folder: folder)
            }
            swapper.start()

            let port = studio.port
            let token = studio.token
            let origin = studio.origin
            let iterations = 2_000
            @Sendable func call(_ method: String, _ target: String, _ body: String?) throws -> RawHTTP.Response {
                var headers = [("Host", "127.0.0.1:\(port)"), ("X-Studio-Token", token)]
                if method != "GET" { headers.append(("Origin", origin)) }
                return try RawHTTP.send(
                    port: port, method: method, target: target, headers: headers, body: body.map { Array($0.utf8) })
            }
            let save = "{\"ahap\": \(Self.pattern), \"baseVersion\": \"\(version)\"}"
            async let reads = onOwnThread { () throws -> (leaks: Int, ok: Int) in
                var leaks = 0
                var ok = 0
                for i in 0..<iterations {
                    let response = try call("GET", "/api/pattern?text=1&path=pats/race.ahap", nil)
                    if response.text.contains(Self.marker) { leaks += 1 }
                    if response.status == 200 { ok += 1 }
                    if i % 4 == 0 {
                        let listed = try call("GET", "/api/files", nil)
                        if listed.text.contains("secret") || listed.text.contains("target") { leaks += 1 }
                    }
                }
                return (leaks, ok)
            }
            async let saves = onOwnThread { () throws -> (leaks: Int, ok: Int) in
                var leaks = 0
                var ok = 0
                for _ in 0..<iterations {
                    let response = try call("PUT", "/api/pattern?path=pats/racedir/x.ahap", save)
                    if response.text.contains(Self.marker) { leaks += 1 }
                    if response.status == 200 { ok += 1 }
                }
                return (leaks, ok)
            }
            async let compares = onOwnThread { () throws -> Int in
                var leaks = 0
                for _ in 0..<iterations / 8 {
                    let response = try call("GET", "/api/git?path=pats/racedir/x.ahap", nil)
                    if response.text.contains(Self.marker) || response.status == 200 { leaks += 1 }
                }
                return leaks
            }
            let (read, written, compared) = try await (reads, saves, compares)
            stop.store(true, ordering: .relaxed)
            while !swapper.isFinished { try await Task.sleep(for: .milliseconds(5)) }

            let leftOutside = try manager.contentsOfDirectory(atPath: target).filter { $0 != "x.ahap" && $0 != ".git" }
            let leftInside =
                (manager.enumerator(atPath: folder)?.allObjects as? [String] ?? []).filter { $0.contains(".partial-") }
            let outsideNow = try Data(contentsOf: URL(filePath: target + "/x.ahap"))
            print(
                "race: \(swaps.load(ordering: .relaxed)) swaps; reads \(read.ok)/\(iterations) served, "
                    + "\(read.leaks) leaks; saves \(written.ok)/\(iterations) written, \(written.leaks) leaks; "
                    + "compares \(compared) leaks; outside: inode \(try Self.inode(target + "/x.ahap") == outsideInode ? "same" : "REPLACED"), "
                    + "\(leftOutside.count) files left; inside: \(leftInside.count) temporary files left")
            #expect(swaps.load(ordering: .relaxed) > 1_000, "the swaps ran while the requests did")
            #expect(read.leaks == 0, "the outside file was never served")
            #expect(written.leaks == 0)
            #expect(compared == 0, "the outside repository's version was never shown")
            #expect(try Self.inode(target + "/x.ahap") == outsideInode, "the file outside was never replaced")
            #expect(outsideNow == saved)
            #expect(leftOutside.count == 0, "no temporary file outside")
            #expect(leftInside.count == 0, "no temporary file left inside")
            #expect(read.ok > 0 && written.ok > 0, "requests between the swaps still work")
            #expect(try String(contentsOfFile: outside + "/secret.ahap", encoding: .utf8) == secret)
        }
    }

    /// One round: the file becomes a link to the secret and the folder a link to the outside
    /// folder; a moment later both are themselves again.
    static func swap(folder: String, outside: String) {
        symlink(outside + "/secret.ahap", folder + "/.race-link")
        rename(folder + "/.race-link", folder + "/race.ahap")
        if rename(folder + "/racedir", folder + "/.race-dir") == 0 { symlink(outside + "/target", folder + "/racedir") }
        usleep(200)
        link(folder + "/.race-original", folder + "/.race-copy")
        rename(folder + "/.race-copy", folder + "/race.ahap")
        var status = stat()
        if lstat(folder + "/racedir", &status) == 0, (status.st_mode & S_IFMT) == S_IFLNK {
            unlink(folder + "/racedir")
        }
        rename(folder + "/.race-dir", folder + "/racedir")
        usleep(200)
    }

    static func restore(folder: String) {
        unlink(folder + "/.race-link")
        unlink(folder + "/.race-copy")
        var status = stat()
        if lstat(folder + "/racedir", &status) == 0, (status.st_mode & S_IFMT) == S_IFLNK {
            unlink(folder + "/racedir")
        }
        rename(folder + "/.race-dir", folder + "/racedir")
    }

    static func inode(_ path: String) throws -> UInt64 {
        var status = stat()
        guard lstat(path, &status) == 0 else { throw RawHTTP.Failure(description: "\(path): gone") }
        return UInt64(status.st_ino)
    }

    static func git(_ folder: String, _ arguments: [String]) async throws {
        let git = try await ChildProcess.run("git", ["-C", folder] + arguments)
        guard git.status == 0 else { throw RawHTTP.Failure(description: "git \(arguments) failed: \(git.stderr)") }
    }
}
