import Foundation
@_spi(Tooling) import HapticsEngine
import SystemPackage
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Replacing a file: a reader sees the old bytes or the new ones, the permissions stay, a failure
/// leaves the old file and no temporary file, and a folder held open bounds where the file goes.
@Suite struct AtomicFileTests {
    /// A fresh folder, removed after `body`.
    static func inFolder(_ body: (String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "atomic-\(UUID().uuidString)")
            .path(percentEncoded: false)
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try body(folder)
    }

    static func contents(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: path).map { Array($0) }
    }

    @Test func replacesTheBytesKeepsThePermissionsAndLeavesNothingBeside() throws {
        try Self.inFolder { folder in
            let path = folder + "/pattern.ahap"
            try Data("old".utf8).write(to: URL(filePath: path))
            chmod(path, 0o600)
            try writeAtomically(Array("new and longer".utf8), to: path)
            #expect(Self.contents(path) == Array("new and longer".utf8))
            var status = stat()
            stat(path, &status)
            #expect(status.st_mode & 0o777 == 0o600)
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["pattern.ahap"])
        }
    }

    @Test func aNewFileIsCreatedWithTheGivenMode() throws {
        try Self.inFolder { folder in
            try writeAtomically([1, 2, 3], to: folder + "/new.bin", mode: 0o640)
            var status = stat()
            stat(folder + "/new.bin", &status)
            #expect(status.st_mode & 0o777 == 0o640)
            #expect(Self.contents(folder + "/new.bin") == [1, 2, 3])
        }
    }

    @Test func anAbandonedFileLeavesTheOldBytesAndNoTemporaryFile() throws {
        try Self.inFolder { folder in
            let path = folder + "/out.wav"
            try Data("old".utf8).write(to: URL(filePath: path))
            do {
                let file = try AtomicFile(replacing: path)
                try Array("half a".utf8).withUnsafeBytes { try file.write($0) }
                #expect(try FileManager.default.contentsOfDirectory(atPath: folder).count == 2, "the temporary file")
                file.abandon()
            }
            #expect(Self.contents(path) == Array("old".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == ["out.wav"])
        }
    }

    @Test func aFileDroppedWithoutCommitIsRemoved() throws {
        try Self.inFolder { folder in
            do {
                let file = try AtomicFile(replacing: folder + "/dropped.wav")
                try [UInt8](repeating: 7, count: 100).withUnsafeBytes { try file.write($0) }
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [])
        }
    }

    @Test func aMissingFolderIsAnErrorNamingTheCallAndTheFile() throws {
        try Self.inFolder { folder in
            #expect {
                try writeAtomically([1], to: folder + "/missing/x.svg")
            } throws: { error in
                guard let error = error as? SystemCallError else { return false }
                return error.call == "open" && error.errno == .noSuchFileOrDirectory
                    && error.path?.hasPrefix(folder + "/missing/.x.svg.partial-") == true
            }
        }
    }

    @Test func relativeToAHeldFolderTheFileLandsThere() throws {
        try Self.inFolder { folder in
            try FileManager.default.createDirectory(atPath: folder + "/served/sub", withIntermediateDirectories: true)
            let held = open(folder + "/served", O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            #expect(held >= 0)
            defer { close(held) }
            try writeAtomically(Array("x".utf8), to: "sub/a.ahap", in: held)
            #expect(Self.contents(folder + "/served/sub/a.ahap") == Array("x".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: folder + "/served/sub") == ["a.ahap"])
        }
    }
}
