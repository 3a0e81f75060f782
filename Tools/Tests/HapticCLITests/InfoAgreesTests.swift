import Foundation
import HapticsSynthesis
import Testing

/// `haptic info` says what the other commands say: its lint line is `haptic lint`'s counts, its
/// duration is the length `haptic render` writes.
@Suite struct InfoAgreesTests {
    let scratch: ScratchFolder
    init() throws { scratch = try ScratchFolder() }

    /// Half a second of a 441 Hz tone at 48 kHz, as 16-bit WAV bytes.
    static let tone = WAV.encode(
        AudioClip(
            sampleRate: 48_000, channels: 1,
            samples: (0..<24_000).map { Float(0.5 * sin(2 * Double.pi * 441 * Double($0) / 48_000)) }),
        sampleFormat: .s16)

    func json(_ result: Haptic.Result) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
    }

    /// (errors, warnings, notes) from `info --json` and from `lint --json`.
    func counts(_ file: String) async throws -> (info: [Int], lint: [Int]) {
        let info = try json(try await Haptic.run(["info", "--json", file]))
        let lint = try json(try await Haptic.run(["lint", "--json", file]))
        func three(_ o: [String: Any]) -> [Int] { ["errors", "warnings", "notes"].map { o[$0] as? Int ?? -1 } }
        return (three(info), three(lint))
    }

    @Test func theLintLineCountsWhatLintCounts() async throws {
        // Notes only: no Version (a note), and a curve starting after 0 (a note).
        let notes = try scratch.write(
            "notes.ahap",
            #"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}},{"ParameterCurve":{"ParameterID":"HapticIntensityControl","Time":0,"ParameterCurveControlPoints":[{"Time":0.1,"ParameterValue":1}]}}]}"#
        )
        // A warning and a note.
        let mixed = try scratch.write(
            "mixed.ahap", #"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient","Colour":1}}]}"#)
        // A waveform that is not there: an error in lint, so in info too.
        let missing = try scratch.write(
            "missing.ahap",
            #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}},{"Event":{"Time":0,"EventType":"AudioCustom","EventWaveformPath":"gone.wav"}}]}"#
        )
        // A rule a config file beside the file disables counts in neither.
        try scratch.write("quiet/.haptic-lint.json", #"{"disable": ["unknown-key"]}"#)
        let quiet = try scratch.write(
            "quiet/q.ahap", #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient","Colour":1}}]}"#)
        let expected: [String: [Int]] = [notes: [0, 0, 2], mixed: [0, 1, 1], missing: [1, 0, 0], quiet: [0, 0, 0]]
        for (file, three) in expected {
            let (info, lint) = try await counts(file)
            #expect(lint == three, "\(file)")
            #expect(info == lint, "\(file)")
        }
        // The text form says the same counts as lint's summary line.
        let text = try await Haptic.run(["info", mixed])
        #expect(text.status == 0)
        #expect(text.output.contains("\n  lint        0 errors, 1 warning, 1 note (haptic lint --notes \(mixed))"))
        let summary = try await Haptic.run(["lint", mixed]).stderr
        #expect(summary.hasPrefix("lint: 1 file: 0 errors, 1 warning, 1 note"))
        let missingText = try await Haptic.run(["info", missing])
        #expect(missingText.output.contains("\n  lint        1 error, 0 warnings (haptic lint \(missing))"))
        #expect(!(try await Haptic.run(["info", quiet]).output.contains("  lint ")))
    }

    @Test func theDurationIsTheRendersLength() async throws {
        try scratch.write("tone.wav", Self.tone)
        // An AudioCustom event at 0.1 s plays its 0.5 s waveform to its end: 0.6 s, where
        // CHHapticPattern.duration (the last start) is 0.1 s.
        let custom = try scratch.write(
            "custom.ahap",
            #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}},{"Event":{"Time":0.1,"EventType":"AudioCustom","EventWaveformPath":"tone.wav"}}]}"#
        )
        for file in [custom, Haptic.fixtures.appending(path: "ahap/Kit.ahap").path(percentEncoded: false)] {
            let wav = scratch.path("out.wav")
            #expect(try await Haptic.run(["render", file, "-o", wav]).status == 0)
            let clip = try WAV.decode([UInt8](Data(contentsOf: URL(filePath: wav))))
            let rendered = Double(clip.frameCount) / Double(clip.sampleRate)
            let info = try json(try await Haptic.run(["info", "--json", file]))
            #expect(info["durationSeconds"] as? Double == rendered, "\(file)")
            let text = try await Haptic.run(["info", file]).output
            #expect(text.contains("\n  duration    \(String(format: "%.3f s", rendered))"), "\(text)")
        }
        let info = try json(try await Haptic.run(["info", "--json", custom]))
        #expect(info["patternDurationSeconds"] as? Double == 0.1)
        let duration = try #require(info["durationSeconds"] as? Double)
        #expect(duration >= 0.6 && duration < 0.61, "\(duration)")
    }

    /// A transient with `EventDuration: 0` (what Core Haptics' exportDictionary() writes) is a
    /// full tap and lints clean, even under --strict; an AudioCustom event with 0 plays its waveform.
    @Test func zeroDurationIsNotSetThroughEveryCommand() async throws {
        try scratch.write("tone.wav", Self.tone)
        let zero = try scratch.write(
            "zero.ahap",
            #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient","EventDuration":0,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1}]}},{"Event":{"Time":0.1,"EventType":"AudioCustom","EventDuration":0,"EventWaveformPath":"tone.wav"}}]}"#
        )
        let lint = try await Haptic.run(["lint", "--strict", "--notes", zero])
        #expect(lint.status == 0)
        #expect(lint.output.isEmpty, "\(lint.output)")
        let info = try json(try await Haptic.run(["info", "--json", zero]))
        let duration = try #require(info["durationSeconds"] as? Double)
        #expect(duration >= 0.6, "\(duration)")
        let peak = try #require(info["peakDBFS"] as? Double)
        #expect(peak > -10, "\(peak)")
    }
}
