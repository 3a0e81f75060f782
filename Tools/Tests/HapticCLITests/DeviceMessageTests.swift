import Foundation
import Testing

/// What `play` says about a device it cannot use: one line, whatever the ALSA plugin said.
@Suite(
    .enabled(
        if: FileManager.default.fileExists(
            atPath: "/usr/lib/x86_64-linux-gnu/alsa-lib/libasound_module_pcm_pulse.so"),
        "needs ALSA's pulse plugin (libasound2-plugins)"))
struct DeviceMessageTests {
    @Test func aSoundServerThatIsNotThereIsSaidInOneLine() async throws {
        let scratch = try ScratchFolder()
        let pattern = try scratch.write(
            "tap.ahap", #"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}}]}"#)
        let config = try scratch.write(
            "dead.conf", "pcm.deadpulse { type pulse; server \"unix:\(scratch.path("no-server"))\" }\n")
        var environment = ProcessInfo.processInfo.environment
        environment["ALSA_CONFIG_PATH"] = "/usr/share/alsa/alsa.conf:\(config)"
        environment["TMPDIR"] = scratch.url.path(percentEncoded: false)
        let result = try await Haptic.run(
            ["play", pattern, "--device", "deadpulse"], killAfter: 20, environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        // PulseAudio's message ends with a newline of its own; the user sees one line.
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1].isEmpty, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("haptic: no usable audio device (device 'deadpulse' "), "\(result.stderr)")
        #expect(result.stderr.contains("(PulseAudio: Unable to connect: "), "\(result.stderr)")
        #expect(result.stderr.hasSuffix("; writing the preview to a WAV file instead\n"), "\(result.stderr)")
    }
}
