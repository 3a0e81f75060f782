import Foundation
import HapticsCore
import HapticsReview
import Subprocess
import SystemPackage

/// The last committed version of a file, for "compare with HEAD".
enum StudioGit {
    /// `git show HEAD:./NAME` run in `folder`, the file's folder held open: git's standard input
    /// is that folder and it runs in `/proc/self/fd/0`, so it starts in the very folder the studio
    /// checked, whatever has been renamed or linked since.
    ///
    /// Through swift-subprocess: the descriptor is handed over as standard input and closed once
    /// git has started; the output is collected up to the size the studio opens.
    ///
    /// - Throws: ``StudioError`` 404 when git is missing, the folder is not in a repository, or
    ///   the file is not committed; 413 when the committed version is larger than 16 MiB.
    static func committed(folder: Descriptor, name: String) async throws(StudioError) -> [UInt8] {
        let copy = dup(folder.fd)
        guard copy >= 0 else { throw StudioError(500, "\(name): cannot run git (errno \(errno))") }
        do {
            let result = try await Subprocess.run(
                .name("git"), arguments: ["-C", "/proc/self/fd/0", "show", "HEAD:./" + name],
                input: .fileDescriptor(FileDescriptor(rawValue: copy), closeAfterSpawningProcess: true),
                output: .bytes(limit: 16 << 20), error: .discarded)
            guard result.terminationStatus.isSuccess else {
                throw StudioError.notFound(
                    "\(name) has no committed version (not in a git repository, or never committed)")
            }
            return result.standardOutput
        } catch let error as StudioError {
            throw error
        } catch let error as SubprocessError where error.code == .outputLimitExceeded {
            throw StudioError(413, "\(name): its committed version is larger than 16 MiB")
        } catch {
            throw .notFound("git is not installed")
        }
    }
}
