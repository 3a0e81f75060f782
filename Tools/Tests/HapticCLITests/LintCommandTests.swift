import Foundation
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

@Suite struct LintCommandTests {
    let scratch: ScratchFolder
    init() throws { scratch = try ScratchFolder() }

    static let typo =
        #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient","EventDuraton":1}},{"Event":{"Time":-1,"EventType":"HapticContinuous"}}]}"#

    static let clean =
        #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient","EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1}]}}]}"#

    @Test func everyFindingIsOneLineNamingFilePathAndLine() async throws {
        let file = try scratch.write("typo.ahap", Self.typo)
        let result = try await Haptic.run(["lint", file])
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
    @Test func aFolderOfManyFilesIsReportedInOrder() async throws {
        for index in 0..<24 {
            let name = String(format: "many/%02d.ahap", index)
            try scratch.write(name, index % 3 == 0 ? Self.typo : Self.clean)
        }
        let result = try await Haptic.run(["lint", scratch.path("many")])
        #expect(result.status == 1)
        let files = result.output.split(separator: "\n").map { $0.prefix { $0 != ":" } }
        let expected = stride(from: 0, to: 24, by: 3).flatMap { index in
            Array(repeating: scratch.path(String(format: "many/%02d.ahap", index)), count: 3)
        }
        #expect(files.map(String.init) == expected)
        #expect(result.stderr == "lint: 24 files: 16 errors, 8 warnings\n")
    }

    @Test func warningsAloneExitZeroUnlessStrict() async throws {
        let invalid = Haptic.fixtures.appending(path: "ahap/Typo.ahap").path(percentEncoded: false)
        let relaxed = try await Haptic.run(["lint", invalid])
        #expect(relaxed.status == 0)
        #expect(
            relaxed.output.contains(
                #"unknown key "ParameterCurves" in a Pattern entry (did you mean "ParameterCurve"?)"#))
        #expect(relaxed.output.contains("Typo.ahap:Pattern[1].ParameterCurves: warning[unknown-key]:"))
        let strict = try await Haptic.run(["lint", "--strict", invalid])
        #expect(strict.status == 1)
    }

    @Test func foldersAreSearchedForAHAPFiles() async throws {
        let result = try await Haptic.run(["lint", Haptic.fixtures.appending(path: "ahap").path(percentEncoded: false)])
        #expect(result.status == 0)
        // Curve17.ahap's 17-point curve is a note: Core Haptics plays it.
        #expect(result.stderr == "lint: 5 files: 0 errors, 5 warnings, 6 notes (--notes shows them)\n")
        #expect(result.output.split(separator: "\n").count == 5)
        #expect(!result.output.contains("Heartbeat.ahap"))
    }

    @Test func cleanFilesPrintNothing() async throws {
        let result = try await Haptic.run([
            "lint", Haptic.patterns.appending(path: "examples").path(percentEncoded: false),
        ])
        #expect(result.status == 0)
        #expect(result.output.isEmpty)
        // The tutorial's first tap has intensity 0: a note (inaudible-event), shown with --notes.
        #expect(result.stderr == "lint: 2 files: 0 errors, 0 warnings, 1 note (--notes shows them)\n")
    }

    @Test func jsonIsExact() async throws {
        let file = try scratch.write("typo.ahap", Self.typo)
        let result = try await Haptic.run(["lint", "--json", file])
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

    /// `--format github`: GitHub's documented workflow commands, one per finding, at the file,
    /// line and column; the exit status and summary as in text.
    @Test func githubFormatIsOneAnnotationPerFinding() async throws {
        let file = try scratch.write("typo, 1.ahap", Self.typo)
        let result = try await Haptic.run(["lint", "--format", "github", file])
        #expect(result.status == 1)
        let escaped = file.replacingOccurrences(of: ",", with: "%2C")
        #expect(
            result.output == """
                ::warning file=\(escaped),line=1,col=74,title=unknown-key::Pattern[0].Event.EventDuraton: unknown key "EventDuraton" in an Event (did you mean "EventDuration"?); Core Haptics ignores it
                ::error file=\(escaped),line=1,col=102,title=missing-duration::Pattern[1].Event: HapticContinuous event has no EventDuration; continuous events need one
                ::error file=\(escaped),line=1,col=110,title=negative-time::Pattern[1].Event.Time: Time -1 is negative; times are seconds from the start

                """)
        #expect(result.stderr == "lint: 1 file: 2 errors, 1 warning\n")
    }

    @Test func jsonFlagIsFormatJSON() async throws {
        let file = try scratch.write("typo.ahap", Self.typo)
        let flag = try await Haptic.run(["lint", "--json", file])
        let option = try await Haptic.run(["lint", "--format", "json", file])
        #expect(option.status == 1)
        #expect(option.output == flag.output)
        #expect(option.output.hasPrefix("{\n  \"errors\" : 2,"))
        let both = try await Haptic.run(["lint", "--json", "--format", "sarif", file])
        #expect(both.status == 64)
        #expect(both.stderr.contains("--json is --format json; give one format"))
        let unknown = try await Haptic.run(["lint", "--format", "xml", file])
        #expect(unknown.status == 64)
        #expect(unknown.stderr.contains("'xml'"))
    }

    /// `--format sarif` over the fixtures: every warning a result at its file and line (five: Kit's
    /// three trailing commas, Oscillate's missing value, Typo's unknown key; notes stay out). Checked
    /// against the official SARIF 2.1.0 schema when one is at hand (HAPTICS_SARIF_SCHEMA, or
    /// ../shared/schemas/sarif-schema-2.1.0.json) and python3 has jsonschema; else SKIPPED.
    @Test func sarifFormatIsAValidLog() async throws {
        let folder = Haptic.fixtures.appending(path: "ahap").path(percentEncoded: false)
        let result = try await Haptic.run(["lint", "--format", "sarif", folder])
        #expect(result.status == 0)
        let log = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        let run = try #require((log["runs"] as? [[String: Any]])?.first)
        let results = try #require(run["results"] as? [[String: Any]])
        #expect(results.count == 5)
        #expect(results.allSatisfy { $0["level"] as? String == "warning" })
        let text = result.output
        #expect(text.contains("\"uri\": \"file://\(folder)/Typo.ahap\""))

        let schema =
            ProcessInfo.processInfo.environment["HAPTICS_SARIF_SCHEMA"]
            ?? Haptic.packageRoot.appending(path: "../shared/schemas/sarif-schema-2.1.0.json").standardizedFileURL
            .path(percentEncoded: false)
        guard FileManager.default.fileExists(atPath: schema) else {
            print("SKIPPED: no SARIF 2.1.0 schema (set HAPTICS_SARIF_SCHEMA, or put shared/schemas beside the package)")
            return
        }
        let saved = try scratch.write("lint.sarif", result.stdout)
        let check = try await Haptic.runShell(
            "python3 -c 'import json, sys, jsonschema; jsonschema.validate(json.load(open(sys.argv[1])), "
                + "json.load(open(sys.argv[2]))); print(\"valid\")' '\(saved)' '\(schema)'")
        if check.stderr.contains("No module named 'jsonschema'") {
            print("SKIPPED: python3 has no jsonschema (pip install jsonschema)")
            return
        }
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.output == "valid\n")
    }

    /// `--format junit`: one suite per file; a file with warnings fails, a clean one passes.
    @Test func junitFormatHasASuitePerFile() async throws {
        let bad = try scratch.write("lint/a.ahap", Self.typo)
        let good = try scratch.write("lint/b.ahap", Self.clean)
        let result = try await Haptic.run(["lint", "--format", "junit", scratch.path("lint")])
        #expect(result.status == 1)
        #expect(result.output.hasPrefix(#"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"))
        #expect(result.output.contains(#"<testsuites name="haptic lint" tests="2" failures="1" errors="0">"#))
        #expect(result.output.contains(#"<testsuite name="\#(bad)" tests="1" failures="1" errors="0">"#))
        #expect(result.output.contains(#"<testcase classname="haptic lint" name="\#(good)"/>"#))
        #expect(result.output.components(separatedBy: "<failure ").count == 4)
        #expect(XMLParser(data: Data(result.stdout)).parse())
    }

    @Test func aMissingFileIsAFindingNotACrash() async throws {
        let other = try scratch.write(
            "ok.ahap", #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}}]}"#)
        let result = try await Haptic.run(["lint", scratch.path("gone.ahap"), other])
        #expect(result.status == 1)
        #expect(
            result.output
                == "\(scratch.path("gone.ahap")):$: error[file-not-found]: AHAP file '\(scratch.path("gone.ahap"))' does not exist\n"
        )
        #expect(result.stderr == "lint: 2 files: 1 error, 0 warnings\n")
    }

    @Test func aWaveformThatCannotBeFoundIsAnError() async throws {
        let file = try scratch.write(
            "custom.ahap",
            #"{"Pattern":[{"Event":{"Time":0,"EventType":"AudioCustom","EventWaveformPath":"missing.wav"}}]}"#)
        let result = try await Haptic.run(["lint", file])
        #expect(result.status == 1)
        #expect(
            result.output.contains(
                "custom.ahap:Pattern[0].Event.EventWaveformPath: error[waveform-not-found]: waveform 'missing.wav' not found"
            ))
    }
}

@Suite struct InfoCommandTests {
    @Test func describesTheRisingFallingExample() async throws {
        let result = try await Haptic.run([
            "info", Haptic.patterns.appending(path: "examples/rising-falling.ahap").path(percentEncoded: false),
        ])
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n").map(String.init)
        // The render's length, then Core Haptics' CHHapticPattern.duration (the last start).
        #expect(
            lines.contains {
                $0.hasPrefix("  duration    1.9") && $0.hasSuffix(" as rendered (CHHapticPattern.duration 1.900 s)")
            })
        #expect(lines.contains("  events      20: 20 HapticTransient"))
        #expect(lines.contains("  parameters  HapticIntensity 0…1 (20x)"))
        #expect(lines.contains { $0.hasPrefix("  rendered    1.9") && $0.contains("dBFS") && $0.contains("LUFS") })
    }

    @Test func jsonCarriesTheNumbers() async throws {
        let kit = Haptic.fixtures.appending(path: "ahap/Kit.ahap").path(percentEncoded: false)
        let result = try await Haptic.run(["info", "--json", kit])
        #expect(result.status == 0)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        #expect(json["patternDurationSeconds"] as? Double == 0.4)
        #expect((json["events"] as? [String: Int]) == ["AudioCustom": 1, "HapticContinuous": 1, "HapticTransient": 2])
        let peak = try #require(json["peakDBFS"] as? Double)
        #expect(peak < 0 && peak > -6)
        let loudness = try #require(json["loudnessLUFS"] as? Double)
        #expect(loudness < -10 && loudness > -40)
    }
}
