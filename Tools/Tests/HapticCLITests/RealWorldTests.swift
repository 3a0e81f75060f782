import Foundation
import HapticsCore
import HapticsSynthesis
import Testing
import _ToolTestSupport

/// What real-world files need (issue 10): every file heard, every finding said once.
@Suite struct HearEveryFileTests {
    let scratch: ScratchFolder
    init() throws { scratch = try ScratchFolder() }

    /// Apple's Unity samples: the waveform path is relative to StreamingAssets, not the AHAP.
    static let unity = #"""
        {"Version": 1, "Pattern": [
          {"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}]}},
          {"Event": {"Time": 0.1, "EventType": "AudioCustom", "EventWaveformPath": "CoreHaptics/Ricochet/Grow.wav"}},
          {"Event": {"Time": 0.3, "EventType": "AudioCustom", "EventWaveformPath": "CoreHaptics/Ricochet/Grow.wav"}}
        ]}
        """#

    func writeUnity() throws -> String {
        let ahap = try scratch.write("StreamingAssets/Haptics/Grow.ahap", Self.unity)
        let wav = try Data(contentsOf: TestFiles.fixtures.appending(path: "ahap/AHAP/Kit.wav"))
        try scratch.write("StreamingAssets/CoreHaptics/Ricochet/Grow.wav", [UInt8](wav))
        return ahap
    }

    @Test(arguments: ["render", "info", "plot", "review"])
    func aMissingWaveformIsOneWarningAndTheRestPlays(command: String) async throws {
        let ahap = try writeUnity()
        let output = scratch.path(command == "plot" ? "out.svg" : command == "review" ? "out.html" : "out.wav")
        let arguments = command == "info" ? [command, ahap] : [command, ahap, "-o", output]
        let result = try await Haptic.run(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        let folder = scratch.path("StreamingAssets/Haptics")
        let warning =
            "\(ahap):Pattern[1].Event.EventWaveformPath: warning[waveform-not-found]: waveform 'CoreHaptics/Ricochet/Grow.wav' not found (looked in \(folder)); playing the rest without it (--waveforms DIR adds a folder to look in) (line 3, column 76)"
        if command == "review" {
            let html = try String(contentsOfFile: output, encoding: .utf8)
            #expect(html.components(separatedBy: "waveform-not-found").count - 1 == 1)
        } else {
            #expect(result.stderr.split(separator: "\n").map(String.init) == [warning], "\(result.stderr)")
        }
        if command == "render" {
            let clip = try WAV.decode([UInt8](Data(contentsOf: URL(filePath: output))))
            #expect(AudioAnalysis.onsets(clip.samples, channels: 1, minGapFrames: 2_400) == [0])
        }
    }

    @Test(.timeLimit(.minutes(1))) func playAndPlayWatchPlayTheRestWithOneWarning() async throws {
        let ahap = try writeUnity()
        let warning =
            "\(ahap):Pattern[1].Event.EventWaveformPath: warning[waveform-not-found]: waveform 'CoreHaptics/Ricochet/Grow.wav' not found"
        let play = try await Haptic.run(["play", "--device", "null", ahap])
        #expect(play.status == 0, "\(play.stderr)")
        #expect(play.stderr.components(separatedBy: warning).count - 1 == 1, "\(play.stderr)")
        let watch = try await LiveHaptic(["play", "--watch", "--device", "null", ahap])
        defer { watch.kill() }
        #expect(await watch.waitFor("playing \(ahap) ("))
        #expect(await watch.waitFor("haptic: waiting for the next save of \(ahap)\n"))
        #expect(watch.text.components(separatedBy: warning).count - 1 == 1, "\(watch.text)")
        #expect(try await watch.interrupt() == 130)
    }

    @Test func lintKeepsAMissingWaveformAnError() async throws {
        let ahap = try writeUnity()
        let result = try await Haptic.run(["lint", ahap])
        #expect(result.status == 1)
        #expect(result.output.contains("error[waveform-not-found]: waveform 'CoreHaptics/Ricochet/Grow.wav' not found"))
    }

    @Test func waveformsFolderFindsTheAudioAndItIsHeard() async throws {
        let ahap = try writeUnity()
        let assets = scratch.path("StreamingAssets")
        let result = try await Haptic.run(["render", ahap, "--waveforms", assets, "-o", scratch.path("o.wav")])
        #expect(result.status == 0)
        #expect(result.stderr == "")
        let clip = try WAV.decode([UInt8](Data(contentsOf: URL(filePath: scratch.path("o.wav")))))
        // The tap at 0, then Kit.wav (0.3 s, peak 0.69 in its first 5 ms) at 0.1 s and 0.3 s.
        let hit = Array(clip.samples[4_800..<(4_800 + 480)])
        #expect(AudioAnalysis.peak(hit) > 0.3)
        #expect(Double(clip.frameCount) / 48_000 > 0.59)
        let lint = try await Haptic.run(["lint", ahap, "--waveforms", assets])
        #expect(lint.status == 0, "\(lint.output)")
    }

    @Test func theSandboxHoldsInsideWaveformFolders() async throws {
        try scratch.write(
            "secret/x.wav", [UInt8](try Data(contentsOf: TestFiles.fixtures.appending(path: "ahap/AHAP/Kit.wav"))))
        let ahap = try scratch.write(
            "a/p.ahap",
            #"{"Pattern":[{"Event":{"Time":0,"EventType":"AudioCustom","EventWaveformPath":"../secret/x.wav"}}]}"#)
        try FileManager.default.createDirectory(atPath: scratch.path("extra"), withIntermediateDirectories: true)
        let result = try await Haptic.run([
            "render", ahap, "--waveforms", scratch.path("extra"), "-o", scratch.path("o.wav"),
        ])
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("error[waveform-path]: EventWaveformPath '../secret/x.wav' leads outside the folder")
        )
        let notAFolder = try await Haptic.run([
            "render", ahap, "--waveforms", scratch.path("nope"), "-o", scratch.path("o.wav"),
        ])
        #expect(notAFolder.status != 0)
        #expect(notAFolder.stderr.contains("--waveforms '\(scratch.path("nope"))' is not a folder"))
    }

    @Test func continuousEventsStopAtThirtySecondsWithTheRelease() async throws {
        let ahap = try scratch.write(
            "long.ahap",
            #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":40,"EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1},{"ParameterID":"ReleaseTime","ParameterValue":0.2}]}}]}"#
        )
        let result = try await Haptic.run(["render", ahap, "-o", scratch.path("o.wav"), "--sample-rate", "44100"])
        #expect(result.status == 0)
        let clip = try WAV.decode([UInt8](Data(contentsOf: URL(filePath: scratch.path("o.wav")))))
        let seconds = Double(clip.frameCount) / 44_100
        #expect(seconds > 30 && seconds < 30.5, "\(seconds)")
        // Still sounding just before 30 s; quiet once the release is over.
        #expect(AudioAnalysis.peak(Array(clip.samples[(29 * 44_100)..<(29 * 44_100 + 4_410)])) > 0.1)
        #expect(AudioAnalysis.peak(Array(clip.samples.suffix(441))) < 0.01)
        let info = try await Haptic.run(["info", "--json", ahap, "--sample-rate", "44100"])
        let json = try #require(try JSONSerialization.jsonObject(with: Data(info.stdout)) as? [String: Any])
        #expect(json["patternDurationSeconds"] as? Double == 30)
        #expect(json["durationSeconds"] as? Double == seconds)
    }

    @Test func infoGivesShortPatternsAMomentaryLoudness() async throws {
        let tap = Haptic.patterns.appending(path: "examples/sharp-tap.ahap").path(percentEncoded: false)
        let result = try await Haptic.run(["info", tap])
        #expect(result.status == 0)
        let rendered = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("  rendered") })
        #expect(!rendered.contains("silent"))
        #expect(rendered.contains("momentary loudness -"))
        #expect(rendered.hasSuffix("LUFS (one 400 ms window)"))
        let json = try await Haptic.run(["info", "--json", tap])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        let momentary = try #require(object["momentaryLoudnessLUFS"] as? Double)
        #expect(momentary > -40 && momentary < -5)
        #expect(object["loudnessLUFS"] == nil)
    }
}

@Suite struct SayEachFindingOnceTests {
    let scratch: ScratchFolder
    init() throws { scratch = try ScratchFolder() }

    /// 564 out-of-range values, as one exporter wrote them.
    func clampedFile() throws -> String {
        let events = (0..<282).map { i in
            #"{"Event":{"Time":\#(Double(i) / 100),"EventType":"HapticTransient","EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1.5},{"ParameterID":"HapticSharpness","ParameterValue":-0.5}]}}"#
        }
        return try scratch.write("clamped.ahap", #"{"Version":1,"Pattern":["# + events.joined(separator: ",\n") + "]}")
    }

    @Test func fiveHundredSixtyFourClampedValuesLintInFourLines() async throws {
        let file = try clampedFile()
        let result = try await Haptic.run(["lint", file])
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines.prefix(3).allSatisfy { $0.contains(": warning[value-clamped]: ") })
        #expect(lines[3] == "\(file): ... and 561 more [value-clamped] in this file (--all shows every one)")
        #expect(result.stderr == "lint: 1 file: 0 errors, 564 warnings\n")
        let all = try await Haptic.run(["lint", "--all", file])
        #expect(all.output.split(separator: "\n").count == 564)
        let json = try await Haptic.run(["lint", "--json", file])
        let object = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout)) as? [String: Any])
        #expect((object["findings"] as? [Any])?.count == 564)
        // render says it once too.
        let render = try await Haptic.run(["render", file, "-o", scratch.path("o.wav")])
        #expect(render.stderr.split(separator: "\n").count == 4)
    }

    @Test func rulesListsEveryRuleWithItsDefaultSeverity() async throws {
        let result = try await Haptic.run(["lint", "--rules"])
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == Diagnostic.Code.all.count)
        for (line, code) in zip(lines, Diagnostic.Code.all) {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            #expect(fields.prefix(2).map(String.init) == [code.rawValue, code.defaultSeverity.rawValue])
        }
    }

    @Test func severityComesFromTheNearestConfigFileThenTheFlags() async throws {
        let file = try clampedFile()
        try scratch.write(".haptic-lint.json", #"{"disable": ["value-clamped"], "enable": ["missing-version"]}"#)
        let bare = try scratch.write(
            "sub/bare.ahap", #"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}}]}"#)
        let configured = try await Haptic.run(["lint", "--strict", file, bare])
        #expect(configured.status == 1, "missing-version is a warning here, and --strict counts it")
        #expect(
            configured.output
                == "\(bare):$: warning[missing-version]: no Version; reading the file as AHAP version 1 (line 1, column 1)\n"
        )
        let flags = try await Haptic.run([
            "lint", "--error", "value-clamped", "--disable", "missing-version", file, bare,
        ])
        #expect(flags.status == 1)
        #expect(flags.stderr == "lint: 2 files: 564 errors, 0 warnings\n")
        let unknown = try await Haptic.run(["lint", "--disable", "value-clamp", file])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("unknown rule 'value-clamp' (did you mean 'value-clamped'?)"))
        let error = try await Haptic.run(["lint", "--disable", "json-syntax", file])
        #expect(error.stderr.contains("rule 'json-syntax' is an error"))
        try scratch.write("bad/.haptic-lint.json", #"{"disable": ["nope"]}"#)
        let badConfig = try scratch.write("bad/x.ahap", #"{"Pattern":[]}"#)
        let broken = try await Haptic.run(["lint", badConfig])
        #expect(broken.status == 1)
        #expect(broken.stderr.contains("\(scratch.path("bad/.haptic-lint.json")):disable[0]: unknown rule 'nope'"))
    }

    @Test func notesShowOnlyWhenAskedAndStrictIgnoresThem() async throws {
        let heartbeat = Haptic.fixtures.appending(path: "ahap/Heartbeat.ahap").path(percentEncoded: false)
        let strict = try await Haptic.run(["lint", "--strict", heartbeat])
        #expect(strict.status == 0)
        #expect(strict.output == "")
        #expect(strict.stderr == "lint: 1 file: 0 errors, 0 warnings, 1 note (--notes shows them)\n")
        let notes = try await Haptic.run(["lint", "--notes", heartbeat])
        #expect(notes.output.contains("note[curve-start-not-zero]: first control point is at 0.1 s"))
    }

    @Test func pathsStayAsTheUserTypedThem() async throws {
        let result = try await Haptic.run(["lint", "Tests/Fixtures/ahap"], in: Haptic.packageRoot)
        let files = Set(result.output.split(separator: "\n").map { String($0.prefix { $0 != ":" }) })
        #expect(
            files == [
                "Tests/Fixtures/ahap/Kit.ahap", "Tests/Fixtures/ahap/Oscillate.ahap",
                "Tests/Fixtures/ahap/Typo.ahap",
            ])
        let missing = try await Haptic.run(
            ["render", "Tests/Fixtures/ahap/Kit.ahap", "-o", scratch.path("o.wav")], in: Haptic.packageRoot)
        #expect(missing.stderr.hasPrefix("Tests/Fixtures/ahap/Kit.ahap:Metadata: warning[trailing-comma]"))
    }

    @Test func wrongNamesGetASuggestionFoldedLikeOtherRepeats() async throws {
        let events = (0..<5).map { i in
            #"{"Event":{"Time":\#(i),"EventType":"HapticContinuous","EventDuration":0.1,"EventParameters":[{"ParameterID":"HapticAttackTime","ParameterValue":0.1}]}}"#
        }
        let file = try scratch.write("typos.ahap", #"{"Version":1,"Pattern":["# + events.joined(separator: ",") + "]}")
        let result = try await Haptic.run(["lint", file])
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.count == 4)
        #expect(lines[0].contains(#"unknown event ParameterID "HapticAttackTime" (did you mean "AttackTime"?)"#))
        #expect(lines[3] == "\(file): ... and 2 more [unknown-parameter-id] in this file (--all shows every one)")
    }
}
