import Foundation
import HapticsCore
import Testing

@testable import HapticsEngine

/// What the linter and `haptic info` are told about AudioCustom waveforms that are nowhere to be
/// found: one `waveform-not-found` error for each, in document order, not the first one only.
@Suite struct MissingWaveformsLintTests {
    @Test func everyMissingWaveformIsAnErrorOfItsOwn() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "waveforms-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func audio(_ name: String, at time: Double) -> String {
            #"{"Event": {"Time": \#(time), "EventType": "AudioCustom", "EventWaveformPath": "\#(name)"}}"#
        }
        let text =
            #"{"Version": 1, "Pattern": [\#(audio("kick.wav", at: 0)), \#(audio("snare.wav", at: 0.5)), "#
            + #"{"Event": {"Time": 0.7, "EventType": "HapticTransient"}}, \#(audio("kick.wav", at: 1)), "#
            + #"\#(audio("hat.wav", at: 1.5))]}"#
        let path = folder.appending(path: "drums.ahap").path
        try Data(text.utf8).write(to: URL(filePath: path))

        let (findings, file) = PatternFile.inspect(path)
        #expect(file == nil)
        let missing = findings.filter { $0.code == .waveformNotFound }
        #expect(missing.map(\.severity) == [.error, .error, .error], "\(findings)")
        #expect(
            missing.map(\.path.description) == [
                "Pattern[0].Event.EventWaveformPath", "Pattern[1].Event.EventWaveformPath",
                "Pattern[4].Event.EventWaveformPath",
            ])
        #expect(missing.map(\.message).allSatisfy { $0.hasSuffix("; --waveforms DIR adds a folder to look in") })
        #expect(missing.last?.message.hasPrefix("waveform 'hat.wav' not found") == true, "\(missing)")
        // Playing the rest still names each one once, as a warning.
        let played = PatternFile.inspect(path, missingWaveforms: .skip)
        #expect(played.file != nil)
        #expect(
            played.findings.filter { $0.code == .waveformNotFound }.map(\.severity) == [.warning, .warning, .warning])
    }
}
