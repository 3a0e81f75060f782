import Foundation
import HapticsCore
import HapticsSynthesis
import Testing
import _ToolTestSupport

/// An AudioCustom waveform Core Haptics plays but this build does not decode (Side-Search's AAC
/// `.m4a`, issue 31): the rest of the pattern plays, and every command says which file and why,
/// as for a missing waveform.
@Suite struct UndecodedWaveformTests {
    let scratch: ScratchFolder
    init() throws { scratch = try ScratchFolder() }

    static let lines = [
        #"{"Version": 1, "Pattern": ["#,
        #"  {"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}]}},"#,
        #"  {"Event": {"Time": 0.05, "EventType": "AudioCustom", "EventWaveformPath": "sound.m4a"}},"#,
        #"  {"Event": {"Time": 0.1, "EventType": "HapticContinuous", "EventDuration": 0.2}}"#,
        "]}",
    ]

    /// The pattern with the AAC event, and the same pattern without it.
    func write() throws -> (with: String, without: String) {
        // An MPEG-4 audio file's first box (`ftyp`, brand `M4A `), then bytes no decoder here reads.
        let m4a: [UInt8] = [0, 0, 0, 0x1C] + Array("ftypM4A ".utf8) + [0, 0, 2, 0] + Array("M4A isomiso2".utf8)
        try scratch.write("sound.m4a", m4a + [UInt8](repeating: 0x5A, count: 200))
        let with = try scratch.write("aac.ahap", Self.lines.joined(separator: "\n"))
        var rest = Self.lines
        rest.remove(at: 2)
        let without = try scratch.write("rest.ahap", rest.joined(separator: "\n"))
        return (with, without)
    }

    func finding(_ ahap: String, _ severity: String) -> String {
        "\(ahap):Pattern[1].Event.EventWaveformPath: \(severity)[waveform-not-decoded]: waveform 'sound.m4a' is an "
            + "MPEG-4 audio file (AAC or ALAC, .m4a), which this build does not decode (WAV only; Core Haptics plays "
            + "it); the rest of the pattern plays without it (line 3, column 77)"
    }

    @Test func renderPlaysTheRestSampleForSampleWithOneWarning() async throws {
        let (with, without) = try write()
        let heard = try await Haptic.run(["render", with, "-o", scratch.path("with.wav")])
        #expect(heard.status == 0, "\(heard.stderr)")
        #expect(heard.stderr.split(separator: "\n").map(String.init) == [finding(with, "warning")], "\(heard.stderr)")
        let rest = try await Haptic.run(["render", without, "-o", scratch.path("without.wav")])
        #expect(rest.status == 0, "\(rest.stderr)")
        let a = try WAV.decode([UInt8](Data(contentsOf: URL(filePath: scratch.path("with.wav")))))
        let b = try WAV.decode([UInt8](Data(contentsOf: URL(filePath: scratch.path("without.wav")))))
        #expect(a.samples.count == b.samples.count && a.samples.count > 14_000)
        #expect(a.samples == b.samples)
    }

    @Test func infoSaysTheSameWarning() async throws {
        let (with, _) = try write()
        let result = try await Haptic.run(["info", with])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").map(String.init) == [finding(with, "warning")], "\(result.stderr)")
    }

    @Test func lintKeepsItAnErrorAsForAMissingWaveform() async throws {
        let (with, _) = try write()
        let result = try await Haptic.run(["lint", with])
        #expect(result.status == 1)
        #expect(
            result.output.split(separator: "\n").map(String.init).contains(finding(with, "error")), "\(result.output)")
    }

    @Test func aBrokenWAVIsStillRefused() async throws {
        try scratch.write("sound.m4a", Array("RIFF, but not audio".utf8))
        let with = try scratch.write("aac.ahap", Self.lines.joined(separator: "\n"))
        let result = try await Haptic.run(["render", with, "-o", scratch.path("with.wav")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("error[waveform-unreadable]"), "\(result.stderr)")
    }
}
