import Foundation
import HapticsCore
import HapticsReview
import OrderedCollections
import Synchronization

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
