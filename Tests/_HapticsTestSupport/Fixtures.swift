package import Foundation

/// Where this repository's tests find their files: the project's own fixtures under
/// `Tests/Fixtures` (always there) and the third-party corpus (only sometimes there).
///
/// The corpus is the folder `HAPTICS_CORPUS` names, or else `../shared/fixtures` beside the
/// package when it exists (CI has it). Tests of third-party files put
/// `.enabled(if: TestFiles.corpus != nil, TestFiles.corpusSkipped)` on their suite, so a fresh
/// clone skips them and says why.
///
/// ```swift
/// let kit = TestFiles.fixtures.appending(path: "ahap/Kit.ahap")
/// guard let corpus = TestFiles.corpus else { return }
/// ```
package enum TestFiles {
    /// The repository root (this file is `Tests/_HapticsTestSupport/Fixtures.swift`; the tool
    /// package's test support links to it, hence the resolved link).
    package static let packageRoot = URL(filePath: #filePath).resolvingSymlinksInPath()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `Tests/Fixtures`: hand-written AHAP and a generated WAV (Tests/Fixtures/README.md).
    package static let fixtures = packageRoot.appending(path: "Tests/Fixtures")

    /// The third-party corpus folder, or nil when there is none.
    package static let corpus: URL? = {
        if let named = ProcessInfo.processInfo.environment["HAPTICS_CORPUS"], !named.isEmpty {
            return URL(filePath: named, relativeTo: URL(filePath: FileManager.default.currentDirectoryPath))
                .standardizedFileURL
        }
        let beside = packageRoot.appending(path: "../shared/fixtures").standardizedFileURL
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(
            atPath: beside.path(percentEncoded: false), isDirectory: &isDirectory)
        return exists && isDirectory.boolValue ? beside : nil
    }()

    /// Why a conformance suite did not run.
    package static let corpusSkipped =
        "SKIPPED: no third-party corpus (set HAPTICS_CORPUS to a folder, or put shared/fixtures beside the package)"
}
