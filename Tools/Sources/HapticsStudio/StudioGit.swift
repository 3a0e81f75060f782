import Foundation
import HapticsCore
import HapticsReview
import OrderedCollections
import Synchronization

/// The last committed version of a file, for "compare with HEAD".
enum StudioGit {
    /// `git show HEAD:./NAME` run in `folder`, the file's folder held open: git's standard input
    /// is that folder and it runs in `/proc/self/fd/0`, so it starts in the very folder the studio
    /// checked, whatever has been renamed or linked since.
    ///
    /// - Throws: ``StudioError`` 404 when git is missing, the folder is not in a repository, or
    ///   the file is not committed.
    static func committed(folder: Descriptor, name: String) throws(StudioError) -> [UInt8] {
        let copy = dup(folder.fd)
        guard copy >= 0 else { throw StudioError(500, "\(name): cannot run git (errno \(errno))") }
        let input = FileHandle(fileDescriptor: copy, closeOnDealloc: true)
        let process = Process()
        process.executableURL = URL(filePath: "/usr/bin/env")
        process.arguments = ["git", "-C", "/proc/self/fd/0", "show", "HEAD:./" + name]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = input
        do {
            try process.run()
        } catch {
            throw .notFound("git is not installed")
        }
        try? input.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw .notFound("\(name) has no committed version (not in a git repository, or never committed)")
        }
        return [UInt8](data)
    }
}
