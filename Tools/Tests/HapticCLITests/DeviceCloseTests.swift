import Foundation
import Testing
import _ToolTestSupport

/// Every way `haptic play` ends leaves the device drained and closed before the process exits:
/// through ALSA's `file` PCM, which completes its WAV header only when the device is closed, a
/// run that exited early would leave a header saying 0 data bytes.
@Suite struct DeviceCloseTests {
    /// The sizes in a WAV header ALSA's file PCM wrote: RIFF size, fmt fields and data size.
    ///
    /// The file PCM labels float data as integer PCM (format tag 1 with 32 bits, a known ALSA
    /// bug), so only the sizes and the layout are checked, not the format tag.
    struct Header {
        var riffSize: UInt32
        var channels: UInt16
        var sampleRate: UInt32
        var blockAlign: UInt16
        var dataSize: UInt32

        init(_ bytes: [UInt8]) throws {
            try #require(bytes.count >= 44, "only \(bytes.count) bytes")
            func u32(_ at: Int) -> UInt32 { bytes[at..<(at + 4)].reversed().reduce(0) { $0 << 8 | UInt32($1) } }
            func u16(_ at: Int) -> UInt16 { UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8 }
            try #require(Array(bytes[0..<4]) == Array("RIFF".utf8) && Array(bytes[8..<16]) == Array("WAVEfmt ".utf8))
            try #require(Array(bytes[36..<40]) == Array("data".utf8))
            riffSize = u32(4)
            channels = u16(22)
            sampleRate = u32(24)
            blockAlign = u16(32)
            dataSize = u32(40)
        }
    }

    func expectComplete(_ path: String, run: Int) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(filePath: path)))
        let header = try Header(bytes)
        #expect(header.dataSize > 0, "run \(run): the header says 0 data bytes")
        #expect(Int(header.dataSize) == bytes.count - 44, "run \(run): data size \(header.dataSize) of \(bytes.count)")
        #expect(Int(header.riffSize) == bytes.count - 8, "run \(run): RIFF size \(header.riffSize)")
        #expect(header.sampleRate == 48_000 && header.channels == 1)
        #expect(header.dataSize % UInt32(header.blockAlign) == 0)
    }

    /// Whether process `pid` still runs: it exists and is not a zombie waiting to be reaped.
    static func isAlive(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return false }
        return stat[stat.index(after: close)...].split(separator: " ").first != "Z"
    }

    @Test func twentyPlaysThroughTheFilePCMEachLeaveACompleteWAVHeader() async throws {
        let scratch = try ScratchFolder()
        let pattern = try scratch.write(
            "tap.ahap", #"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}}]}"#)
        for run in 1...20 {
            let capture = scratch.path("capture-\(run).wav")
            let result = try await Haptic.run(
                ["play", pattern, "--device", "file:FILE=\(capture),FORMAT=wav"], killAfter: 20)
            #expect(result.status == 0, "run \(run): \(result.stderr)")
            try expectComplete(capture, run: run)
        }
    }

    @Test func ctrlCAlsoLeavesACompleteWAVHeader() async throws {
        let scratch = try ScratchFolder()
        let pattern = try scratch.write(
            "buzz.ahap", #"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":2}}]}"#)
        for run in 1...5 {
            let capture = scratch.path("interrupted-\(run).wav")
            let process = try await ChildProcess.start(
                Haptic.executable.path(percentEncoded: false),
                ["play", "--loop", pattern, "--device", "file:FILE=\(capture),FORMAT=wav"])
            // Interrupt once the device is playing (its file has grown past the header), not after a
            // fixed sleep that a loaded machine can outlast before `play` is even running.
            let deadline = Date.now + 10
            while Date.now < deadline,
                ((try? FileManager.default.attributesOfItem(atPath: capture))?[.size] as? Int ?? 0) <= 44
            {
                try await Task.sleep(for: .milliseconds(10))
            }
            process.signal(SIGINT)
            let watchdog = Task {
                try await Task.sleep(for: .seconds(10))
                // The kernel's word, not the test's: on a starved test process this timer can
                // fire before `wait()` has been told of an exit that already happened.
                guard Self.isAlive(process.processIdentifier) else { return }
                process.signal(SIGKILL)
                Issue.record("run \(run): still playing 10 s after Ctrl-C")
            }
            let status = try await process.wait().status
            watchdog.cancel()
            #expect(status == 130, "run \(run)")
            try expectComplete(capture, run: run)
        }
    }
}
