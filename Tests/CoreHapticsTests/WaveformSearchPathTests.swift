import CoreHaptics
import Foundation
import HapticsSynthesis
import Testing

/// `CHHapticPattern(contentsOf:waveformSearchPaths:)`: the API's equivalent of `haptic --waveforms DIR`.
@Suite struct WaveformSearchPathTests {
    @Test func aWaveformOutsideTheAHAPFolderIsFoundOnlyThroughASearchPath() throws {
        let root = FileManager.default.temporaryDirectory.appending(path: "chsearch-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: root) }
        let haptics = root.appending(path: "Haptics"), assets = root.appending(path: "StreamingAssets")
        try FileManager.default.createDirectory(at: haptics, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: assets.appending(path: "Sounds"), withIntermediateDirectories: true)
        let clip = AudioClip(
            sampleRate: 48_000, channels: 1, samples: (0..<4_800).map { Float(sin(Double($0) * 0.1)) * 0.5 })
        try Data(WAV.encode(clip, sampleFormat: .s16)).write(to: assets.appending(path: "Sounds/hit.wav"))
        let ahap = haptics.appending(path: "hit.ahap")
        try Data(
            #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"AudioCustom","EventWaveformPath":"Sounds/hit.wav"}}]}"#
                .utf8
        ).write(to: ahap)

        #expect(throws: CHHapticError.self) { try CHHapticPattern(contentsOf: ahap) }
        let pattern = try CHHapticPattern(contentsOf: ahap, waveformSearchPaths: [assets])
        #expect(pattern.duration >= 0)
        // The sandbox holds: a search path does not let a waveform climb out of it.
        try Data(
            #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"AudioCustom","EventWaveformPath":"../StreamingAssets/Sounds/hit.wav"}}]}"#
                .utf8
        ).write(to: ahap)
        #expect(throws: CHHapticError.self) { try CHHapticPattern(contentsOf: ahap, waveformSearchPaths: [haptics]) }
    }
}
