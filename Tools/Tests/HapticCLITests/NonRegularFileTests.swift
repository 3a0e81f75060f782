import Foundation
import Testing
import _ToolTestSupport

/// A FIFO, a device or a socket where a file is expected: refused at once with a message saying
/// what it is, never read (a FIFO without a writer would block for ever, a device never ends).
@Suite struct NonRegularFileTests {
    let scratch: ScratchFolder
    init() throws { scratch = try ScratchFolder() }

    func fifo(_ name: String) throws -> String {
        let path = scratch.path(name)
        try #require(mkfifo(path, 0o600) == 0, "mkfifo \(path)")
        return path
    }

    /// A listening Unix socket at `name` (closed when the test process ends).
    func socket(_ name: String) throws -> String {
        let path = scratch.path(name)
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        try #require(descriptor >= 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            for (index, byte) in path.utf8.prefix(raw.count - 1).enumerated() { raw[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        try #require(bound == 0, "bind \(path)")
        return path
    }

    @Test func aFIFOAsThePatternIsRefusedAtOnce() async throws {
        let path = try fifo("pipe.ahap")
        for command in ["lint", "info", "render"] {
            var arguments = [command, path]
            if command == "render" { arguments += ["-o", scratch.path("out.wav")] }
            let result = try await Haptic.run(arguments, killAfter: 10)
            #expect(result.status == 1, "\(command): \(result.status) \(result.stderr)")
            let said = result.output + result.stderr
            #expect(said.contains("'\(path)' is a FIFO (named pipe), not a regular file; refused"), "\(said)")
        }
    }

    @Test func aDeviceAndASocketAsThePatternAreRefused() async throws {
        let socket = try socket("socket.ahap")
        let devices = [("/dev/null", "a character device"), ("/dev/zero", "a character device"), (socket, "a socket")]
        for (path, kind) in devices {
            let result = try await Haptic.run(["lint", path], killAfter: 10)
            #expect(result.status == 1)
            #expect(result.output.contains("'\(path)' is \(kind), not a regular file; refused"), "\(result.output)")
        }
    }

    @Test func aFolderLintReportsItsFIFOAndLintsTheRest() async throws {
        _ = try fifo("a-pipe.ahap")
        _ = try scratch.write("tap.ahap", #"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}}]}"#)
        let result = try await Haptic.run(["lint", scratch.path("")], killAfter: 10)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.output.contains("a-pipe.ahap' is a FIFO (named pipe), not a regular file; refused"))
    }

    @Test func aFIFOAsTheWaveformIsRefusedNamingTheEvent() async throws {
        _ = try fifo("clip.wav")
        let pattern = try scratch.write(
            "custom.ahap",
            #"{"Pattern":[{"Event":{"Time":0,"EventType":"AudioCustom","EventWaveformPath":"clip.wav"}}]}"#)
        let result = try await Haptic.run(["render", pattern, "-o", scratch.path("out.wav")], killAfter: 10)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.contains("Pattern[0].Event.EventWaveformPath"), "\(result.stderr)")
        #expect(result.stderr.contains("is a FIFO (named pipe), not a regular file; refused"), "\(result.stderr)")
    }

    /// `-o` naming a FIFO (or `/dev/null`, a device) writes into it: a temporary file renamed
    /// over it would have replaced it with a regular file (as root, `/dev/null` itself).
    @Test func renderingIntoAFIFOWritesThroughItAndLeavesItAFIFO() async throws {
        let pipe = try fifo("out.wav")
        let pattern = try scratch.write(
            "tap.ahap", #"{"Pattern":[{"Event":{"Time":0.01,"EventType":"HapticTransient"}}]}"#)
        let captured = scratch.path("captured.wav")
        let reader = try await ChildProcess.start("/bin/sh", ["-c", "exec cat \"$0\" > \"$1\"", pipe, captured])
        let result = try await Haptic.run(["render", pattern, "-o", pipe, "--format", "f32"], killAfter: 20)
        _ = try await reader.wait()
        #expect(result.status == 0, "\(result.stderr)")
        var status = stat()
        #expect(stat(pipe, &status) == 0 && status.st_mode & S_IFMT == S_IFIFO)
        let expected = try await Haptic.run(["render", pattern, "-o", "-", "--format", "f32"])
        let bytes = try [UInt8](Data(contentsOf: URL(filePath: captured)))
        #expect(bytes.count > 44 && bytes == expected.stdout, "\(bytes.count) bytes")
    }

    @Test func renderingOnePatternOntoAFolderWritesIntoIt() async throws {
        let pattern = try scratch.write(
            "tap.ahap", #"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}}]}"#)
        try FileManager.default.createDirectory(atPath: scratch.path("out"), withIntermediateDirectories: true)
        let result = try await Haptic.run(["render", pattern, "-o", scratch.path("out")], killAfter: 20)
        #expect(result.status == 0, "\(result.stderr)")
        let written = try Data(contentsOf: URL(filePath: scratch.path("out/tap.wav")))
        #expect(written.count > 44 && written.starts(with: Array("RIFF".utf8)))
    }
}
