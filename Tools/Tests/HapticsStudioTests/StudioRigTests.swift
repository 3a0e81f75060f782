import Foundation
import HapticsEngine
import HapticsStudio
import HapticsSystem
import Testing
import _ToolTestSupport

/// The studio playing through real ALSA into the private PulseAudio rig (`tools/audio-rig`), as
/// `haptic studio` does on a desktop: the page asks the engine to play, the rig's sink records it,
/// and every tap is heard where the playhead said the play started. Runs on its own in
/// `tools/test`, like the other rig suites; skipped (saying so) without the rig outside CI.
@Suite(.serialized, .enabled(if: AudioRig.testsEnabled, "SKIPPED: no audio rig (tools/audio-rig/with-rig)"))
struct StudioRigTests {
    @Test(.timeLimit(.minutes(2))) func theEnginePlaysThroughALSAAndTheRigHearsEveryTap() async throws {
        try AudioRig.require()
        // Judged on a run without a stall of the machine as long as a quarter of the buffer: the
        // hypervisor's stalls are heard as gaps whatever the engine does (PlayThroughRigTests). A
        // run with a stall under 10 ms still had one tap 2.17 ms off (bare clone, session 21).
        let (status, text, samples) = try await onAStillMachine(attempts: 10, stallsBelow: 5) {
            let recording = try AudioRig.Recording()
            let playback = StudioPlayback { try OutputSelection(destination: .device("default")).open() }
            let folder = FileManager.default.temporaryDirectory.appending(path: "studio-rig-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            try FileManager.default.copyItem(
                at: TestFiles.packageRoot.appending(path: "Patterns/examples/rising-falling.ahap"),
                to: folder.appending(path: "rising-falling.ahap"))
            let studio = try Studio(folders: [folder.path(percentEncoded: false)], playback: playback)
            let ready = AsyncStream<String>.makeStream()
            let server = Task { try await studio.run { ready.continuation.yield($0) } }
            var iterator = ready.stream.makeAsyncIterator()
            _ = await iterator.next()
            let label = studio.files.roots[0].label
            let port = studio.port
            let response = try await RawHTTP.request(
                port: port, method: "POST", target: "/api/play",
                headers: [
                    ("Host", "127.0.0.1:\(port)"), ("Origin", "http://127.0.0.1:\(port)"),
                    ("X-Studio-Token", studio.token),
                ],
                body: Array("{\"path\": \"\(label)/rising-falling.ahap\"}".utf8))
            // Until the play has been heard to its end (its last message says so), then a little more.
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline, studio.playback.position()?.playing ?? false {
                try await Task.sleep(for: .milliseconds(20))
            }
            try await Task.sleep(for: .milliseconds(300))
            server.cancel()
            _ = try? await server.value
            return (response.status, response.text, try recording.stop())
        }
        #expect(status == 200, "\(text)")
        let onsets = StudioAPITests.onsets(samples, rate: 48_000, threshold: 0.01)
        #expect(onsets.count >= 17, "the taps of intensity 0.2 and up: \(onsets)")
        for pair in zip(onsets, onsets.dropFirst()) {
            #expect(abs(pair.1 - pair.0 - 0.1) < 0.002, "taps 100 ms apart as the pattern says: \(onsets)")
        }
    }
}
