import Foundation
import HapticsSynthesis
import Testing
import _ToolTestSupport

@Suite struct RenderCommandTests {
    let scratch: ScratchFolder
    init() throws { scratch = try ScratchFolder() }

    func renderedSamples(_ pattern: String, _ extra: [String] = []) async throws -> AudioClip {
        let out = scratch.path("out.wav")
        let result = try await Haptic.run(["render", pattern, "-o", out] + extra)
        #expect(result.status == 0, "\(result.stderr)")
        return try WAV.decode([UInt8](Data(contentsOf: URL(filePath: out))))
    }

    @Test func theSharpTapStartsOnTheFirstSample() async throws {
        let clip = try await renderedSamples(Haptic.patterns.appending(path: "examples/sharp-tap.ahap").path)
        #expect(clip.sampleRate == 48_000 && clip.channels == 1)
        let onsets = AudioAnalysis.onsets(clip.samples, channels: 1, minGapFrames: 2_400)
        #expect(onsets == [0])
        #expect(AudioAnalysis.peak(clip.samples) > 0.5)
    }

    /// The day-50 sequence: the first tap has intensity 0 and is silent, the other 19 land
    /// exactly on round(t × rate), 100 ms apart.
    @Test(arguments: [44_100, 48_000, 96_000])
    func theRisingFallingTapsLandOnTheirSamples(rate: Int) async throws {
        let clip = try await renderedSamples(
            Haptic.patterns.appending(path: "examples/rising-falling.ahap").path, ["--sample-rate", "\(rate)"])
        #expect(clip.sampleRate == rate)
        let expected = (1..<20).map { Int((Double($0) / 10 * Double(rate)).rounded()) }
        let onsets = AudioAnalysis.onsets(clip.samples, channels: 1, threshold: 1e-9, minGapFrames: rate / 20)
        #expect(onsets == expected)
    }

    @Test func standardOutputCarriesTheSameWAVAsAFile() async throws {
        let pattern = Haptic.patterns.appending(path: "examples/rising-falling.ahap").path
        let out = scratch.path("file.wav")
        #expect(try await Haptic.run(["render", pattern, "-o", out, "--format", "f32"]).status == 0)
        let piped = try await Haptic.run(["render", pattern, "-o", "-", "--format", "f32"])
        #expect(piped.status == 0)
        #expect(piped.stderr.isEmpty)
        #expect(piped.stdout == [UInt8](try Data(contentsOf: URL(filePath: out))))
        #expect(Array(piped.stdout.prefix(4)) == Array("RIFF".utf8))
    }

    @Test(arguments: [("s16", 1, 44_100), ("s24", 2, 48_000), ("f32", 2, 96_000)])
    func theWAVHeaderSaysWhatWasAskedFor(format: String, channels: Int, rate: Int) async throws {
        let clip = try await renderedSamples(
            Haptic.patterns.appending(path: "examples/sharp-tap.ahap").path,
            ["--format", format, "--channels", "\(channels)", "--sample-rate", "\(rate)"])
        #expect(clip.channels == channels)
        #expect(clip.sampleRate == rate)
        let bytes = [UInt8](try Data(contentsOf: URL(filePath: scratch.path("out.wav"))))
        let bits = Int(bytes[34]) | Int(bytes[35]) << 8
        #expect(bits == ["s16": 16, "s24": 24, "f32": 32][format])
    }

    @Test func renderingTwiceGivesTheSameBytes() async throws {
        let pattern = Haptic.fixtures.appending(path: "ahap/Heartbeat.ahap").path
        let a = try await Haptic.run(["render", pattern, "-o", "-"])
        let b = try await Haptic.run(["render", pattern, "-o", "-"])
        #expect(a.status == 0 && a.stdout.count > 44)
        #expect(a.stdout == b.stdout)
    }

    @Test func kitPlaysItsAudioFileFromTheAHAPFolder() async throws {
        let clip = try await renderedSamples(Haptic.fixtures.appending(path: "ahap/Kit.ahap").path)
        #expect(AudioAnalysis.peak(clip.samples) > 0.1)
    }

    @Test func aMissingPatternIsNamedAndExitsOne() async throws {
        let result = try await Haptic.run(["render", "no-such.ahap", "-o", scratch.path("x.wav")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("no-such.ahap"))
        #expect(result.stderr.contains("does not exist"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("x.wav")))
    }

    @Test func aFolderThatDoesNotExistLeavesNothingBehind() async throws {
        let pattern = Haptic.patterns.appending(path: "examples/sharp-tap.ahap").path
        let result = try await Haptic.run(["render", pattern, "-o", scratch.path("missing/out.wav")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("missing"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.url.path(percentEncoded: false)).isEmpty)
    }

    @Test(arguments: [
        (["--sample-rate", "22050"], "--sample-rate must be one of 44100, 48000, 96000 (got 22050)"),
        (["--channels", "6"], "--channels must be 1 or 2 (got 6)"),
        (["--voice", "kazoo"], "unknown --voice 'kazoo'; choose one of:"),
        (["--format", "u8"], "The value 'u8' is invalid for '--format <format>'"),
    ])
    func badFlagsAreExplained(flags: [String], message: String) async throws {
        let pattern = Haptic.patterns.appending(path: "examples/sharp-tap.ahap").path
        let result = try await Haptic.run(["render", pattern, "-o", scratch.path("x.wav")] + flags)
        #expect(result.status == 64)
        #expect(result.stderr.contains(message), "\(result.stderr)")
    }

    @Test func pipedRendersDrawNoProgressBar() async throws {
        let long = try scratch.write("long.ahap", longPattern(seconds: 240))
        let result = try await Haptic.run(["render", long, "-o", scratch.path("long.wav")])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty, "\(result.stderr)")
    }
}

/// A pattern of `seconds` length: a transient every 100 ms.
func longPattern(seconds: Int) -> String {
    let events = (0..<(seconds * 10)).map {
        #"{"Event":{"Time":\#(Double($0) / 10),"EventType":"HapticTransient"}}"#
    }
    return #"{"Version":1,"Pattern":[\#(events.joined(separator: ","))]}"#
}

/// The progress bar, as a person at a terminal sees it: `script` gives the command a real tty.
@Suite struct ProgressBarTests {
    @Test func aLongRenderShowsProgressOnATerminal() async throws {
        let scratch = try ScratchFolder()
        let long = try scratch.write("long.ahap", longPattern(seconds: 600))
        let command = "\(Haptic.executable.path(percentEncoded: false)) render \(long) -o \(scratch.path("out.wav"))"
        let result = try await ChildProcess.run("/usr/bin/script", ["-qec", command, "/dev/null"])
        let screen = result.output
        #expect(result.status == 0)
        #expect(screen.contains("rendering "), "\(screen.debugDescription)")
        #expect(screen.contains("100%"))
        #expect(screen.contains("100%  599.9 of 599.9 s"), "the last tap is at 599.9 s")
        #expect(screen.hasSuffix("\r\u{1B}[K"), "the bar is cleared at the end")
    }
}

/// Hand-written `.haptic` clips through the commands that read patterns.
@Suite struct HapticClipCommandTests {
    let scratch: ScratchFolder
    init() throws { scratch = try ScratchFolder() }

    static let clip = #"""
        {"version": {"major": 1, "minor": 0, "patch": 0},
         "signals": {"continuous": {"envelopes": {
           "amplitude": [{"time": 0, "amplitude": 0.1},
                         {"time": 0.4, "amplitude": 0.2, "emphasis": {"amplitude": 0.9, "frequency": 0.9}},
                         {"time": 1.25, "amplitude": 0.5}],
           "frequency": [{"time": 0, "frequency": 0.3}, {"time": 1.25, "frequency": 0.8}]}}}}
        """#

    @Test(arguments: ["clip.haptic", "clip.json"])
    func aClipRendersAudiblyForItsOwnLengthByExtensionOrContent(name: String) async throws {
        // The last breakpoint is at 1.25 s; the carrier's release adds at most 5 ms.
        try await renderAudibly(try scratch.write(name, Self.clip), lasting: 1.25)
    }

    /// Renders `input`, expects it audible and `seconds` long plus at most the carrier's 5 ms
    /// release; returns the audio.
    @discardableResult
    func renderAudibly(_ input: String, lasting seconds: Double) async throws -> AudioClip {
        let out = scratch.path("out.wav")
        let result = try await Haptic.run(["render", input, "-o", out])
        #expect(result.status == 0, "\(result.stderr)")
        let audio = try WAV.decode([UInt8](Data(contentsOf: URL(filePath: out))))
        let rendered = Double(audio.frameCount) / Double(audio.sampleRate)
        #expect(rendered >= seconds && rendered <= seconds + 0.005 + 1 / Double(audio.sampleRate), "\(rendered)")
        #expect(AudioAnalysis.peak(audio.samples) > 0.05)
        return audio
    }

    @Test func aV0VIJClipRendersForItsDurationAndLintsWithItsNotes() async throws {
        let input = try scratch.write(
            "old.vij",
            #"""
            {"metadata": {"editor": "hand", "duration": 0.8},
             "voices": {"envelopes": [[{"time": 0, "amplitude": 0.3}, {"time": 0.5, "amplitude": 0.6}]],
                        "transients": [[{"time": 0.5, "amplitude": 1}, {"time": 0.65, "amplitude": 1}],
                                       [{"time": 0.5, "amplitude": 0.5}, {"time": 0.65, "amplitude": 0.5}]]}}
            """#)
        let audio = try await renderAudibly(input, lasting: 0.8)
        // The unmatched transient at 0.65 s is heard: a burst well above the carrier just before.
        func peak(_ from: Double, _ to: Double) -> Float {
            let rate = Double(audio.sampleRate)
            return AudioAnalysis.peak(Array(audio.samples[Int(from * rate)..<Int(to * rate)]))
        }
        #expect(peak(0.65, 0.67) > 1.5 * peak(0.6, 0.64), "\(peak(0.65, 0.67)) against \(peak(0.6, 0.64))")
        let lint = try await Haptic.run(["lint", input])
        #expect(lint.status == 0, "\(lint.output)")
        let finding = "\(input):voices.transients[0][1]: warning[transient-unmatched]"
        #expect(lint.output.contains(finding), "\(lint.output)")
    }

    @Test func anInvalidClipIsRefusedWithItsPlaceByEveryReader() async throws {
        let input = try scratch.write(
            "bad.haptic", Self.clip.replacingOccurrences(of: #""amplitude": 0.5"#, with: #""amplitude": 5"#))
        let expected =
            "\(input):signals.continuous.envelopes.amplitude[2].amplitude: error[value-out-of-range]: amplitude is 5; it must be between 0 and 1 (line 5, column 46)"
        let render = try await Haptic.run(["render", input, "-o", scratch.path("x.wav")])
        #expect(render.status != 0)
        #expect(render.stderr.contains(expected), "\(render.stderr)")
        let lint = try await Haptic.run(["lint", scratch.path("")])
        #expect(lint.status == 1)
        #expect(lint.output.contains(expected), "\(lint.output)")
        let info = try await Haptic.run(["info", input])
        #expect(info.status != 0 && info.stderr.contains("error[value-out-of-range]"))
    }
}

@Suite struct ConvertCommandTests {
    let scratch: ScratchFolder
    init() throws { scratch = try ScratchFolder() }

    @Test func aClipBecomesAHAPAndComesBackWithItsLossReported() async throws {
        let input = try scratch.write("clip.haptic", HapticClipCommandTests.clip)
        let ahap = scratch.path("clip.ahap")
        let forward = try await Haptic.run(["convert", input, "-o", ahap])
        #expect(forward.status == 0)
        // The clip's emphasis is louder than its breakpoint: Meta's players play it unscaled, so the
        // intensity control is held at the emphasis's level for 20 ms (docs/formats.md).
        #expect(forward.stderr.hasPrefix("\(input): lost: emphasis-held (1x): Core Haptics scales a transient"))
        let back = scratch.path("back.haptic")
        let reverse = try await Haptic.run(["convert", ahap, "-o", back, "--json"])
        #expect(reverse.status == 0 && reverse.stderr == "")
        #expect(
            reverse.output == """
                {
                  "from" : "ahap",
                  "losses" : [

                  ],
                  "to" : "haptic"
                }

                """)
        // The round trip renders the same audio as the original clip.
        let a = try await Haptic.run(["render", input, "-o", scratch.path("a.wav")])
        let b = try await Haptic.run(["render", back, "-o", scratch.path("b.wav")])
        #expect(a.status == 0 && b.status == 0)
        let first = try WAV.decode([UInt8](Data(contentsOf: URL(filePath: scratch.path("a.wav")))))
        let second = try WAV.decode([UInt8](Data(contentsOf: URL(filePath: scratch.path("b.wav")))))
        #expect(first.frameCount == second.frameCount)
        #expect(zip(first.samples, second.samples).allSatisfy { abs($0 - $1) < 1e-3 })
    }

    @Test func anUnknownTargetIsRefused() async throws {
        let input = try scratch.write("clip.haptic", HapticClipCommandTests.clip)
        let result = try await Haptic.run(["convert", input, "-o", scratch.path("out.txt")])
        #expect(result.status == 64)
        #expect(result.stderr.contains("give --to ahap, --to haptic or --to android"))
    }
}

@Suite struct AndroidExportTests {
    let scratch: ScratchFolder
    init() throws { scratch = try ScratchFolder() }

    @Test func aClipBecomesAWaveformAsLongAsItsRender() async throws {
        let input = try scratch.write("clip.haptic", HapticClipCommandTests.clip)
        let result = try await Haptic.run(["convert", input, "-o", scratch.path("a.json"), "--to", "android"])
        #expect(result.status == 0)
        #expect(result.stderr.contains("lost: sharpness"))
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(filePath: scratch.path("a.json"))))
        let effect = try #require(json as? [String: Any])
        #expect(effect["type"] as? String == "waveform" && effect["repeat"] as? Int == -1)
        let timings = try #require(effect["timings"] as? [Int])
        let amplitudes = try #require(effect["amplitudes"] as? [Int])
        #expect(timings.count == amplitudes.count)
        #expect(amplitudes.allSatisfy { (0...255).contains($0) })
        // Amplitude 0.1 at the start is 255 x 0.1 = 25.5; the last 10 ms step starts at 1.24 s,
        // where the intensity curve (linear in sqrt(amplitude)) is at 0.704: 255 x 0.704^2 = 126.
        #expect(amplitudes.first == 25 || amplitudes.first == 26)
        #expect(amplitudes.last == 126, "\(amplitudes)")
        #expect(try await Haptic.run(["render", input, "-o", scratch.path("a.wav")]).status == 0)
        let audio = try WAV.decode([UInt8](Data(contentsOf: URL(filePath: scratch.path("a.wav")))))
        let rendered = Double(audio.frameCount) / Double(audio.sampleRate) * 1000
        #expect(abs(Double(timings.reduce(0, +)) - rendered) <= 50, "\(timings.reduce(0, +)) ms vs \(rendered) ms")
    }

    @Test func aNonSustainedEventFadesInTheWaveformAndItEndsWithTheFade() async throws {
        // Sustained 0, DecayTime 0.5: the event fades out over 0.5 s of its 1 s.
        let ahap = try scratch.write(
            "fade.ahap",
            #"""
            {"Pattern": [{"Event": {"Time": 0, "EventType": "HapticContinuous", "EventDuration": 1,
              "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1},
                                  {"ParameterID": "DecayTime", "ParameterValue": 0.5},
                                  {"ParameterID": "Sustained", "ParameterValue": 0}]}}]}
            """#)
        let result = try await Haptic.run(["convert", ahap, "-o", scratch.path("f.json"), "--to", "android", "--check"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(filePath: scratch.path("f.json"))))
        let effect = try #require(json as? [String: Any])
        let amplitudes = try #require(effect["amplitudes"] as? [Int])
        let timings = try #require(effect["timings"] as? [Int])
        #expect(amplitudes.first == 255)
        #expect(zip(amplitudes, amplitudes.dropFirst()).allSatisfy { $0 > $1 }, "\(amplitudes)")
        #expect(amplitudes.last.map { $0 > 0 } == true)
        // No vibration after the fade: the waveform ends with it, well before EventDuration.
        let total = timings.reduce(0, +)
        #expect(total <= 510 && total >= 400, "\(total) ms")
        // The rendered fade and the waveform's end within 50 ms of each other.
        let length = try #require(result.stderr.firstMatch(of: /length ([+-]+[0-9.]+) ms/)?.1)
        #expect(abs(Double(length.replacingOccurrences(of: "+", with: "")) ?? 99) < 50, "\(result.stderr)")
    }

    @Test func transientsBecomeAComposition() async throws {
        let ahap = try scratch.write(
            "taps.ahap",
            #"""
            {"Pattern": [
              {"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.9}]}},
              {"Event": {"Time": 0.25, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}, {"ParameterID": "HapticSharpness", "ParameterValue": 0.1}]}}
            ]}
            """#)
        let result = try await Haptic.run(["convert", ahap, "-o", "-", "--to", "android", "--kotlin"])
        #expect(result.status == 0)
        #expect(
            result.output == """
                VibrationEffect.startComposition()
                    .addPrimitive(VibrationEffect.Composition.PRIMITIVE_CLICK, 1f, 0)
                    .addPrimitive(VibrationEffect.Composition.PRIMITIVE_THUD, 0.5f, 250)
                    .compose()

                """)
        let kotlinWithAHAP = try await Haptic.run(["convert", ahap, "-o", "-", "--to", "ahap", "--kotlin"])
        #expect(kotlinWithAHAP.status == 64 && kotlinWithAHAP.stderr.contains("--kotlin goes with --to android"))
    }
}

@Suite struct ConvertCheckTests {
    let scratch: ScratchFolder
    init() throws { scratch = try ScratchFolder() }

    @Test func theDay50TapsSurviveAHAPToHapticAndBackExactly() async throws {
        let input = Haptic.patterns.appending(path: "examples/rising-falling.ahap").path
        let result = try await Haptic.run(["convert", input, "-o", scratch.path("rf.haptic"), "--check"])
        #expect(result.status == 0)
        #expect(
            result.stderr
                == "\(input): check: envelope correlation 1.0, onsets 19 -> 19, largest shift 0.0 ms, emphases 20 of 20 kept, loudness +0.0 dB, length +0.0 ms\n"
        )
    }

    @Test func androidCheckIsMeasuredAndInTheJSONReport() async throws {
        let input = try scratch.write("clip.haptic", HapticClipCommandTests.clip)
        let result = try await Haptic.run([
            "convert", input, "-o", scratch.path("a.json"), "--to", "android", "--check", "--json",
        ])
        #expect(result.status == 0)
        let report = try #require(JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        let check = try #require(report["check"] as? [String: Any])
        let correlation = try #require(check["envelopeCorrelation"] as? Double)
        // The waveform keeps the envelope's shape (10 ms steps); the emphasis is below the carrier.
        #expect(correlation > 0.9, "\(correlation)")
        #expect(abs(try #require(check["lengthDifferenceMilliseconds"] as? Double)) <= 50)
        #expect(check["envelopeKept"] as? Bool == true, "\(check)")
    }

    @Test func aFlatBuzzAtChangingPitchesIsJudgedByItsLevel() async throws {
        // 2 s at intensity 1, the pitch changing every 50 ms (as ahap_rs doom.ahap): the
        // envelope's only shape is the carriers' ripple, which a correlation measures; the
        // level is what the conversion keeps (ConversionCheck.envelopeKept).
        let events = (0..<40).map { i in
            #"{"Event": {"Time": \#(Double(i) * 0.05), "EventType": "HapticContinuous", "EventDuration": 0.05, "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}, {"ParameterID": "HapticSharpness", "ParameterValue": \#([0.1, 0.9, 0.4][i % 3])}]}}"#
        }
        let input = try scratch.write("flat.ahap", #"{"Version": 1, "Pattern": [\#(events.joined(separator: ", "))]}"#)
        let result = try await Haptic.run([
            "convert", input, "-o", scratch.path("flat.haptic"), "--check", "--json",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let report = try #require(JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any])
        let check = try #require(report["check"] as? [String: Any])
        let correlation = try #require(check["envelopeCorrelation"] as? Double)
        #expect(correlation < 0.9, "a flat envelope's correlation measures its ripple: \(check)")
        #expect(try #require(check["originalEnvelopeSpread"] as? Double) <= 0.1, "\(check)")
        #expect(try #require(check["envelopeLevelDifferenceDB"] as? Double) <= 1, "\(check)")
        #expect(check["envelopeKept"] as? Bool == true, "\(check)")
        let line = try await Haptic.run(["convert", input, "-o", scratch.path("flat.haptic"), "--check"])
        #expect(line.stderr.contains("(flat: level within 0."), "\(line.stderr)")
        #expect(line.stderr.contains(" dB, kept), onsets 1 -> 1"), "\(line.stderr)")
    }
}

/// `haptic render` of several patterns or a folder: each into FOLDER/NAME.wav, on every core.
@Suite struct RenderManyTests {
    let scratch: ScratchFolder
    init() throws { scratch = try ScratchFolder() }

    func bytes(_ path: String) throws -> Data { try Data(contentsOf: URL(filePath: path)) }

    @Test func aFolderRendersEachPatternAsTheSingleRenderDoes() async throws {
        let examples = Haptic.patterns.appending(path: "examples").path
        let out = scratch.path("wavs")
        let many = try await Haptic.run(["render", examples, "-o", out, "--format", "s16"])
        #expect(many.status == 0, "\(many.stderr)")
        #expect(many.stderr.contains("render: 2 of 2 patterns written to \(out)"), "\(many.stderr)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: out).sorted() == [
                "rising-falling.wav", "sharp-tap.wav",
            ])
        for name in ["rising-falling", "sharp-tap"] {
            let single = scratch.path("\(name)-single.wav")
            let one = try await Haptic.run(["render", "\(examples)/\(name).ahap", "-o", single, "--format", "s16"])
            #expect(one.status == 0)
            #expect(try bytes("\(out)/\(name).wav") == bytes(single), "\(name)")
        }
        let clip = try WAV.decode([UInt8](bytes("\(out)/rising-falling.wav")))
        let onsets = AudioAnalysis.onsets(clip.samples, channels: 1, threshold: 1e-9, minGapFrames: 2_400)
        #expect(onsets == (1..<20).map { $0 * 4_800 })
    }

    @Test func aBadPatternFailsAloneAndTheOthersAreWritten() async throws {
        let good = Haptic.patterns.appending(path: "examples/sharp-tap.ahap").path
        let bad = try scratch.write(
            "broken.ahap", #"{"Pattern":[{"Event":{"Time":"soon","EventType":"HapticTransient"}}]}"#)
        let out = scratch.path("wavs")
        let result = try await Haptic.run(["render", bad, good, "-o", out])
        #expect(result.status == 1)
        #expect(
            result.stderr.contains("broken.ahap") && result.stderr.contains("Pattern[0].Event.Time"), "\(result.stderr)"
        )
        #expect(result.stderr.contains("render: 1 of 2 patterns written to \(out); 1 failed"), "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: "\(out)/sharp-tap.wav"))
        #expect(!FileManager.default.fileExists(atPath: "\(out)/broken.wav"))
    }

    @Test func namesThatWouldCollideAndStandardOutputAreRefused() async throws {
        let a = try scratch.write(
            "a/tap.ahap",
            try String(contentsOf: Haptic.patterns.appending(path: "examples/sharp-tap.ahap"), encoding: .utf8))
        let b = try scratch.write(
            "b/tap.ahap",
            try String(contentsOf: Haptic.patterns.appending(path: "examples/sharp-tap.ahap"), encoding: .utf8))
        let clash = try await Haptic.run(["render", a, b, "-o", scratch.path("wavs")])
        #expect(clash.status == 1)
        #expect(clash.stderr.contains("'\(a)' and '\(b)' would both render to"), "\(clash.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("wavs")))
        let piped = try await Haptic.run(["render", a, b, "-o", "-"])
        #expect(piped.status == 1)
        #expect(piped.stderr.contains("several patterns render into a folder: give -o FOLDER"), "\(piped.stderr)")
        #expect(piped.output.isEmpty)
    }
}
