import Foundation
import HapticsCore
import Testing

@testable import HapticsEngine

/// `PatternFile.readFile`: a regular file read whole, straight into the array fstat sized, and
/// refused past the limit, also when its size said nothing (a file that grows after the check).
@Suite struct PatternFileReadTests {
    static func temporaryFile(_ bytes: [UInt8]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appending(path: "read-\(UUID().uuidString).bin").path
        try Data(bytes).write(to: URL(filePath: path))
        return path
    }

    @Test(arguments: [0, 1, 4_095, 4_096, 300_001])
    func aFileIsReadWholeAndExactly(count: Int) throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15 &+ UInt64(count)
        let bytes = (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
        let path = try Self.temporaryFile(bytes)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let read = try PatternFile.readFile(path, limit: 1 << 20, what: "pattern", file: path, at: .root)
        #expect(read == bytes)
    }

    @Test func aFileAtTheLimitIsReadAndOneByteMoreIsRefusedBeforeReading() throws {
        let path = try Self.temporaryFile([UInt8](repeating: 0x20, count: 1_000))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try PatternFile.readFile(path, limit: 1_000, what: "pattern", file: path, at: .root).count == 1_000)
        #expect {
            try PatternFile.readFile(path, limit: 999, what: "pattern", file: path, at: .root)
        } throws: { error in
            (error as? AHAPError)?.message == "pattern '\(path)' is 1000 bytes; the limit is 999 bytes"
        }
    }

    /// A file whose size says 0 but that has content (as a file that grew after the size check
    /// does): read on past the size, whole, and refused once it passes the limit.
    @Test func aFileLongerThanItsSizeIsReadWholeOrRefusedPastTheLimit() throws {
        let path = "/proc/version"
        var status = stat()
        try #require(stat(path, &status) == 0 && status.st_size == 0)
        let read = try PatternFile.readFile(path, limit: 1 << 20, what: "pattern", file: path, at: .root)
        let expected = try #require(FileManager.default.contents(atPath: path))
        #expect(read.count > 8 && read == [UInt8](expected))
        #expect {
            try PatternFile.readFile(path, limit: 8, what: "pattern", file: path, at: .root)
        } throws: { error in
            (error as? AHAPError)?.message == "pattern '/proc/version' is larger than the limit of 8 bytes"
        }
    }
}
