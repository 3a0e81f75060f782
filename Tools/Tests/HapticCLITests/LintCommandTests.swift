import Foundation
import Testing

@Suite struct LintCommandTests {
    let scratch: ScratchFolder
    init() throws { scratch = try ScratchFolder() }

    static let typo =
        #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient","EventDuraton":1}},{"Event":{"Time":-1,"EventType":"HapticContinuous"}}]}"#

    static let clean =
        #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient","EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1}]}}]}"#

    @Test func everyFindingIsOneLineNamingFilePathAndLine() throws {
        let file = try scratch.write("typo.ahap", Self.typo)
        let result = try Haptic.run(["lint", file])
        #expect(result.status == 1)
        #expect(
            result.output == """
                \(file):Pattern[0].Event.EventDuraton: warning[unknown-key]: unknown key "EventDuraton" in an Event (did you mean "EventDuration"?); Core Haptics ignores it (line 1, column 74)
                \(file):Pattern[1].Event: error[missing-duration]: HapticContinuous event has no EventDuration; continuous events need one (line 1, column 102)
                \(file):Pattern[1].Event.Time: error[negative-time]: Time -1 is negative; times are seconds from the start (line 1, column 110)

                """)
        #expect(result.stderr == "lint: 1 file: 2 errors, 1 warning\n")
    }

    /// The files are checked on every core, but the report lists them in order, each file's
    /// findings together, exactly as a one-at-a-time lint would.
    @Test func aFolderOfManyFilesIsReportedInOrder() throws {
        for index in 0..<24 {
            let name = String(format: "many/%02d.ahap", index)
            try scratch.write(name, index % 3 == 0 ? Self.typo : Self.clean)
        }
        let result = try Haptic.run(["lint", scratch.path("many")])
        #expect(result.status == 1)
        let files = result.output.split(separator: "\n").map { $0.prefix { $0 != ":" } }
        let expected = stride(from: 0, to: 24, by: 3).flatMap { index in
            Array(repeating: scratch.path(String(format: "many/%02d.ahap", index)), count: 3)
        }
        #expect(files.map(String.init) == expected)
        #expect(result.stderr == "lint: 24 files: 16 errors, 8 warnings\n")
    }

    @Test func warningsAloneExitZeroUnlessStrict() throws {
        let invalid = Haptic.fixtures.appending(path: "ahap/Typo.ahap").path(percentEncoded: false)
        let relaxed = try Haptic.run(["lint", invalid])
        #expect(relaxed.status == 0)
        #expect(
            relaxed.output.contains(
                #"unknown key "ParameterCurves" in a Pattern entry (did you mean "ParameterCurve"?)"#))
        #expect(relaxed.output.contains("Typo.ahap:Pattern[1].ParameterCurves: warning[unknown-key]:"))
        let strict = try Haptic.run(["lint", "--strict", invalid])
        #expect(strict.status == 1)
    }

    @Test func foldersAreSearchedForAHAPFiles() throws {
        let result = try Haptic.run(["lint", Haptic.fixtures.appending(path: "ahap").path(percentEncoded: false)])
        #expect(result.status == 0)
        #expect(result.stderr == "lint: 5 files: 0 errors, 6 warnings, 5 notes (--notes shows them)\n")
        #expect(result.output.split(separator: "\n").count == 6)
        #expect(!result.output.contains("Heartbeat.ahap"))
    }

    @Test func cleanFilesPrintNothing() throws {
        let result = try Haptic.run(["lint", Haptic.patterns.appending(path: "examples").path(percentEncoded: false)])
        #expect(result.status == 0)
        #expect(result.output.isEmpty)
        #expect(result.stderr == "lint: 2 files: 0 errors, 0 warnings\n")
    }

    @Test func jsonIsExact() throws {
        let file = try scratch.write("typo.ahap", Self.typo)
        let result = try Haptic.run(["lint", "--json", file])
        #expect(result.status == 1)
        #expect(
            result.output == """
                {
                  "errors" : 2,
                  "files" : 1,
                  "findings" : [
                    {
                      "code" : "unknown-key",
                      "column" : 74,
                      "file" : "\(file)",
                      "line" : 1,
                      "message" : "unknown key \\"EventDuraton\\" in an Event (did you mean \\"EventDuration\\"?); Core Haptics ignores it",
                      "path" : "Pattern[0].Event.EventDuraton",
                      "severity" : "warning"
                    },
                    {
                      "code" : "missing-duration",
                      "column" : 102,
                      "file" : "\(file)",
                      "line" : 1,
                      "message" : "HapticContinuous event has no EventDuration; continuous events need one",
                      "path" : "Pattern[1].Event",
                      "severity" : "error"
                    },
                    {
                      "code" : "negative-time",
                      "column" : 110,
                      "file" : "\(file)",
                      "line" : 1,
                      "message" : "Time -1 is negative; times are seconds from the start",
                      "path" : "Pattern[1].Event.Time",
                      "severity" : "error"
                    }
                  ],
                  "notes" : 0,
                  "warnings" : 1
                }

                """)
    }

    @Test func aMissingFileIsAFindingNotACrash() throws {
        let other = try scratch.write(
            "ok.ahap", #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}}]}"#)
        let result = try Haptic.run(["lint", scratch.path("gone.ahap"), other])
        #expect(result.status == 1)
        #expect(
            result.output
                == "\(scratch.path("gone.ahap")):$: error[file-not-found]: AHAP file '\(scratch.path("gone.ahap"))' does not exist\n"
        )
        #expect(result.stderr == "lint: 2 files: 1 error, 0 warnings\n")
    }

    @Test func aWaveformThatCannotBeFoundIsAnError() throws {
        let file = try scratch.write(
            "custom.ahap",
            #"{"Pattern":[{"Event":{"Time":0,"EventType":"AudioCustom","EventWaveformPath":"missing.wav"}}]}"#)
        let result = try Haptic.run(["lint", file])
        #expect(result.status == 1)
        #expect(
            result.output.contains(
                "custom.ahap:Pattern[0].Event.EventWaveformPath: error[waveform-not-found]: waveform 'missing.wav' not found"
            ))
    }
}

@Suite struct InfoCommandTests {
    @Test func describesTheRisingFallingExample() throws {
        let result = try Haptic.run([
            "info", Haptic.patterns.appending(path: "examples/rising-falling.ahap").path(percentEncoded: false),
        ])
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n").map(String.init)
        #expect(lines.contains("  duration    1.900 s"))
        #expect(lines.contains("  events      20: 20 HapticTransient"))
        #expect(lines.contains("  parameters  HapticIntensity 0…1 (20x)"))
        #expect(lines.contains { $0.hasPrefix("  rendered    1.9") && $0.contains("dBFS") && $0.contains("LUFS") })
    }

    @Test func jsonCarriesTheNumbers() throws {
        let kit = Haptic.fixtures.appending(path: "ahap/Kit.ahap").path(percentEncoded: false)
        let result = try Haptic.run(["info", "--json", kit])
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        #expect(json["durationSeconds"] as? Double == 0.4)
        #expect((json["events"] as? [String: Int]) == ["AudioCustom": 1, "HapticContinuous": 1, "HapticTransient": 2])
        let peak = try #require(json["peakDBFS"] as? Double)
        #expect(peak < 0 && peak > -6)
        let loudness = try #require(json["loudnessLUFS"] as? Double)
        #expect(loudness < -10 && loudness > -40)
    }
}
