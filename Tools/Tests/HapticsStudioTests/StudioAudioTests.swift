import Foundation
import HapticsStudio
import HapticsSynthesis
import Testing
import _ToolTestSupport

/// Audio to haptics in the studio (issue 30; docs/studio.md, "Audio"): audio files are listed,
/// converted with the page's options (each checked, a 400 naming it), limited (413), served for
/// the browser to play, and saved as the `.ahap` `haptic convert` writes, never over a file
/// without being asked.
@Suite struct StudioAudioTests {
    /// Two seconds at 48 kHz: 200 Hz bursts of 60 ms, fading out, at 0.25, 0.75, 1.25 and 1.75 s.
    static let bursts: [UInt8] = {
        let rate = 48_000
        var samples = [Float](repeating: 0, count: 2 * rate)
        for start in [0.25, 0.75, 1.25, 1.75] {
            let first = Int(start * Double(rate))
            for i in 0..<(rate * 60 / 1000) {
                let fade = 1 - Double(i) / Double(rate * 60 / 1000)
                samples[first + i] = Float(sin(Double(i) * 2 * .pi * 200 / Double(rate)) * 0.8 * fade)
            }
        }
        return WAV.encode(AudioClip(sampleRate: rate, channels: 1, samples: samples), sampleFormat: .s16)
    }()

    /// The built `haptic` binary (beside the test bundle in the build folder).
    static let haptic: URL = {
        var folder = URL(filePath: CommandLine.arguments[0]).deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = folder.appending(path: "haptic")
            if FileManager.default.isExecutableFile(atPath: candidate.path(percentEncoded: false)) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return TestFiles.packageRoot.appending(path: "Tools/.build/debug/haptic")
    }()

    /// What `haptic convert INPUT -o OUT.ahap ARGS` writes.
    static func converted(_ input: URL, _ arguments: [String] = [], beside: Bool = false) async throws -> [UInt8] {
        let name = "convert-\(UUID().uuidString).ahap"
        let output =
            beside
            ? input.deletingLastPathComponent().appending(path: name)
            : FileManager.default.temporaryDirectory.appending(path: name)
        defer { try? FileManager.default.removeItem(at: output) }
        let result = try await ChildProcess.run(
            haptic.path(percentEncoded: false),
            ["convert", input.path(percentEncoded: false), "-o", output.path(percentEncoded: false)] + arguments)
        #expect(result.status == 0, "haptic convert \(arguments): \(result.stderr)")
        return try [UInt8](Data(contentsOf: output))
    }

    static func json(_ response: RawHTTP.Response) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
    }

    @Test(.timeLimit(.minutes(1))) func audioFilesAreListedAndOpenOnlyThroughTheAudioRoutes() async throws {
        try await StudioHarness.with(files: ["sounds/notes.txt": "x"]) { studio in
            try Data(Self.bursts).write(to: studio.url("sounds/drums.wav"))
            try Data(Self.bursts).write(to: studio.url("sounds/B.FLAC"))
            let list = try await studio.object("GET", "/api/files")
            let files = try #require(list["files"] as? [[String: Any]])
            let listed = files.map { "\($0["path"] ?? "") \($0["format"] ?? "") \($0["bytes"] ?? "")" }
            #expect(
                listed == [
                    "pats/rising-falling.ahap ahap \(try Data(contentsOf: studio.url("rising-falling.ahap")).count)",
                    "pats/sharp-tap.ahap ahap \(try Data(contentsOf: studio.url("sharp-tap.ahap")).count)",
                    "pats/sounds/B.FLAC flac \(Self.bursts.count)", "pats/sounds/drums.wav wav \(Self.bursts.count)",
                ])
            let pattern = try await studio.call("GET", "/api/pattern?path=pats/sounds/drums.wav")
            #expect(pattern.status == 403)
            #expect(
                pattern.text
                    == #"{"error":"pats/sounds/drums.wav: the studio reads and writes only .ahap, .haptic and .vij files (audio opens through /api/audio)"}"#
            )
            let file = try await studio.call("GET", "/api/audio/file?path=pats/sounds/drums.wav")
            #expect(file.status == 200)
            #expect(file.header("Content-Type") == "audio/wav")
            #expect(file.body == Self.bursts)
            let ahap = try await studio.call("GET", "/api/audio/file?path=pats/sharp-tap.ahap")
            #expect(ahap.status == 403)
            #expect(
                ahap.text
                    == #"{"error":"pats/sharp-tap.ahap: audio is read from .wav, .flac, .ogg, .opus and .mp3 files only"}"#
            )
        }
    }

    @Test(.timeLimit(.minutes(1))) func aConversionIsWhatHapticConvertMakesWithTheSameOptions() async throws {
        try await StudioHarness.with { studio in
            try Data(Self.bursts).write(to: studio.url("drums.wav"))
            let response = try await studio.call("POST", "/api/audio/convert", json: #"{"path": "pats/drums.wav"}"#)
            #expect(response.status == 200, "\(response.text)")
            let made = try Self.json(response)
            let audio = try #require(made["audio"] as? [String: Any])
            #expect(audio["container"] as? String == "wav")
            #expect(audio["sampleRate"] as? Int == 48_000)
            #expect(audio["channels"] as? Int == 1)
            #expect(audio["frames"] as? Int == 96_000)
            #expect(audio["seconds"] as? Double == 2)
            #expect(audio["bytes"] as? Int == Self.bursts.count)
            let options = try #require(made["options"] as? [String: Any])
            let used = try JSONSerialization.data(withJSONObject: options, options: [.sortedKeys])
            #expect(
                String(decoding: used, as: UTF8.self)
                    == #"{"content":"both","gain":0,"maxEventsPerSecond":30,"minimumGap":0.03,"resolution":0.75,"sensitivity":0.5}"#
            )
            #expect(made["transients"] as? Int == 4, "one transient per burst: \(made["transients"] ?? "")")
            #expect(made["onsets"] as? Int == 4)
            #expect(made["droppedForBudget"] as? Int == 0)
            let expected = try await Self.converted(studio.url("drums.wav"))
            #expect(made["ahapBytes"] as? Int == expected.count)
            let pattern = try #require(made["pattern"] as? [String: Any])
            #expect(pattern["format"] as? String == "ahap")
            let ahap = try #require(pattern["ahap"])
            let mine = try JSONSerialization.data(withJSONObject: ahap, options: [.sortedKeys])
            let theirs = try JSONSerialization.data(
                withJSONObject: try JSONSerialization.jsonObject(with: Data(expected)), options: [.sortedKeys])
            #expect(mine == theirs, "the pattern is haptic convert's")
            let transientTimes = ((pattern["events"] as? [[String: Any]]) ?? []).filter {
                $0["type"] as? String == "transient"
            }.compactMap { $0["time"] as? Double }
            #expect(transientTimes.count == 4)
            for (time, burst) in zip(transientTimes, [0.25, 0.75, 1.25, 1.75]) {
                #expect(abs(time - burst) < 0.02, "a transient at each burst: \(transientTimes)")
            }
            // The overview: 2,000 columns of the whole sound, loud at the bursts only.
            let waveform = try #require(made["waveform"] as? [String: Any])
            let high = try #require(waveform["max"] as? [Double])
            #expect(high.count == 2_000)
            #expect(waveform["start"] as? Double == 0)
            #expect(waveform["seconds"] as? Double == 2)
            #expect(waveform["framesPerColumn"] as? Double == 48)
            let loud = high.indices.filter { high[$0] > 0.5 }.map { Double($0) * 2 / 2_000 }
            #expect(loud.first.map { abs($0 - 0.25) < 0.002 } == true, "\(loud.prefix(3))")
            #expect(loud.allSatisfy { t in [0.25, 0.75, 1.25, 1.75].contains { t >= $0 - 0.002 && t < $0 + 0.06 } })
        }
    }

    @Test(.timeLimit(.minutes(1))) func optionsChangeThePatternAndAWindowRefinesTheWaveform() async throws {
        try await StudioHarness.with { studio in
            try Data(Self.bursts).write(to: studio.url("drums.wav"))
            let options =
                #""options": {"content": "transients", "gain": 6, "maxEventsPerSecond": 1, "band": {"low": 40, "high": 400}, "minimumGap": 0.1, "sensitivity": 0.7, "resolution": 0.5}"#
            let made = try await studio.object(
                "POST", "/api/audio/convert",
                json:
                    #"{"path": "pats/drums.wav", \#(options), "window": {"start": 0.25, "end": 0.26, "columns": 300}}"#)
            #expect(made["continuous"] as? Int == 0, "transients only")
            // The bursts 1 s apart (0.25 and 1.25 s) are in one second: one transient is left.
            #expect(made["transients"] as? Int == 1, "one in any one second")
            #expect(made["droppedForBudget"] as? Int == 3)
            let expected = try await Self.converted(
                studio.url("drums.wav"),
                [
                    "--transients-only", "--gain", "6", "--max-events-per-second", "1", "--band", "40-400",
                    "--min-gap", "0.1", "--sensitivity", "0.7", "--resolution", "0.5",
                ])
            #expect(made["ahapBytes"] as? Int == expected.count)
            // 10 ms is 480 frames: 30 columns of 16 frames (no column is narrower than the summary's pairs).
            let waveform = try #require(made["waveform"] as? [String: Any])
            #expect(waveform["start"] as? Double == 0.25)
            #expect(waveform["seconds"] as? Double == 0.01)
            #expect(waveform["framesPerColumn"] as? Double == 16)
            let high = try #require(waveform["max"] as? [Double])
            #expect(high.count == 30)
            // A 200 Hz burst: over 10 ms two periods, so columns near the peak reach 0.79 and some are below 0.3.
            #expect(high.max().map { $0 > 0.75 } == true && high.min().map { $0 < 0.3 } == true, "\(high)")
        }
    }

    @Test(.timeLimit(.minutes(1))) func everyBadMemberIsA400NamingIt() async throws {
        try await StudioHarness.with(files: ["junk.wav": "# not a sound at all"]) { studio in
            try Data(Self.bursts).write(to: studio.url("drums.wav"))
            let path = #""path": "pats/drums.wav""#
            let cases: [(String, Int, String)] = [
                ("{}", 400, #"the request has no \"path\""#),
                (#"{"path": 3}"#, 400, #"\"path\" must be a string"#),
                (
                    #"{\#(path), "options": {"gain": 61}}"#, 400,
                    #"\"options.gain\" must be a finite number from -60.0 to 60.0"#
                ),
                (
                    #"{\#(path), "options": {"gain": "loud"}}"#, 400, #"\"options.gain\" must be a number"#
                ),
                (
                    #"{\#(path), "options": {"sensitivity": 1.5}}"#, 400,
                    #"\"options.sensitivity\" must be a finite number from 0.0 to 1.0"#
                ),
                (
                    #"{\#(path), "options": {"resolution": -0.1}}"#, 400,
                    #"\"options.resolution\" must be a finite number from 0.0 to 1.0"#
                ),
                (
                    #"{\#(path), "options": {"minimumGap": 11}}"#, 400,
                    #"\"options.minimumGap\" must be a finite number from 0.0 to 10.0"#
                ),
                (
                    #"{\#(path), "options": {"content": "some"}}"#, 400,
                    #"\"options.content\" must be \"both\", \"transients\" or \"continuous\""#
                ),
                (
                    #"{\#(path), "options": {"band": {"low": 400, "high": 40}}}"#, 400,
                    #"\"options.band.high\" must be above \"options.band.low\""#
                ),
                (
                    #"{\#(path), "options": {"band": {"low": 40}}}"#, 400,
                    #"the request has no \"options.band.high\""#
                ),
                (
                    #"{\#(path), "options": {"band": {"low": 0, "high": 40}}}"#, 400,
                    #"\"options.band.low\" must be a finite number from 1.0 to 100000.0"#
                ),
                (
                    #"{\#(path), "options": {"maxEventsPerSecond": 0}}"#, 400,
                    #"\"options.maxEventsPerSecond\" must be a whole number from 1 to 1000"#
                ),
                (
                    #"{\#(path), "window": {"start": -1, "end": 1}}"#, 400,
                    #"\"window.start\" must be a finite number from 0 to 3600.0"#
                ),
                (
                    #"{\#(path), "window": {"start": 2, "end": 1}}"#, 400,
                    #"\"window.end\" must be a finite number from \"window.start\" to 3600.0"#
                ),
                (
                    #"{\#(path), "window": {"start": 0, "end": 1, "columns": 0}}"#, 400,
                    #"\"window.columns\" must be a whole number from 1 to 8192"#
                ),
                (
                    #"{"path": "pats/sharp-tap.ahap"}"#, 403,
                    "pats/sharp-tap.ahap: audio is read from .wav, .flac, .ogg, .opus and .mp3 files only"
                ),
                (#"{"path": "pats/gone.wav"}"#, 404, "pats/gone.wav: no such file"),
                (
                    #"{"path": "pats/../drums.wav"}"#, 403,
                    "pats/../drums.wav: '.', '..' and empty components are not allowed"
                ),
                (
                    #"{"path": "pats/junk.wav"}"#, 422,
                    ##"pats/junk.wav: not audio: the file starts with \"# no\", not RIFF, fLaC, OggS, ID3 or an MPEG frame"##
                ),
            ]
            for (body, status, message) in cases {
                let response = try await studio.call("POST", "/api/audio/convert", json: body)
                #expect(response.status == status, "\(body): \(response.text)")
                #expect(response.text == "{\"error\":\"\(message)\"}", "\(body)")
            }
            let fraction = try await studio.call(
                "POST", "/api/audio/convert", json: #"{\#(path), "options": {"maxEventsPerSecond": 2.5}}"#)
            #expect(fraction.status == 400)
            #expect(
                fraction.text == #"{"error":"\"options.maxEventsPerSecond\" must be a whole number from 1 to 1000"}"#)
            let notJSON = try await studio.call("POST", "/api/audio/convert", json: "{path")
            #expect(notJSON.status == 400)
        }
    }

    @Test(.timeLimit(.minutes(1))) func tooLargeOrTooLongAudioIsA413() async throws {
        try await StudioHarness.with { studio in
            // 601 s at 1 kHz: 1.2 MB, longer than the studio analyses.
            let long = WAV.encode(
                AudioClip(sampleRate: 1_000, channels: 1, samples: [Float](repeating: 0.1, count: 601_000)),
                sampleFormat: .s16)
            try Data(long).write(to: studio.url("long.wav"))
            let tooLong = try await studio.call("POST", "/api/audio/convert", json: #"{"path": "pats/long.wav"}"#)
            #expect(tooLong.status == 413)
            #expect(
                tooLong.text
                    == #"{"error":"pats/long.wav: 601.0 s of audio; the studio analyses at most 600 s (haptic convert reads any length)"}"#
            )
            // A sparse file one byte over 256 MiB: refused before it is read.
            let huge = studio.url("huge.wav")
            _ = FileManager.default.createFile(atPath: huge.path(percentEncoded: false), contents: Data("RIFF".utf8))
            let handle = try FileHandle(forWritingTo: huge)
            try handle.truncate(atOffset: UInt64(256 << 20) + 1)
            try handle.close()
            let message =
                #"{"error":"pats/huge.wav: 268435457 bytes; the studio opens audio files up to 256 MiB (haptic convert reads any size)"}"#
            let convert = try await studio.call("POST", "/api/audio/convert", json: #"{"path": "pats/huge.wav"}"#)
            #expect(convert.status == 413)
            #expect(convert.text == message)
            let file = try await studio.call("GET", "/api/audio/file?path=pats/huge.wav")
            #expect(file.status == 413)
            #expect(file.text == message)
        }
    }

    @Test(.timeLimit(.minutes(1))) func aSaveWritesHapticConvertsFileAndAsksBeforeReplacing() async throws {
        try await StudioHarness.with(files: ["sounds/keep.txt": "x"]) { studio in
            try Data(Self.bursts).write(to: studio.url("sounds/drums.wav"))
            let request = { (name: String, overwrite: Bool) in
                #"{"path": "pats/sounds/drums.wav", "name": "\#(name)", "options": {"content": "continuous"}, "overwrite": \#(overwrite)}"#
            }
            let saved = try await studio.call("POST", "/api/audio/save", json: request("drums.ahap", false))
            #expect(saved.status == 200, "\(saved.text)")
            let expected = try await Self.converted(studio.url("sounds/drums.wav"), ["--continuous-only"])
            let written = try [UInt8](Data(contentsOf: studio.url("sounds/drums.ahap")))
            #expect(written == expected, "the file haptic convert writes")
            let answer = try Self.json(saved)
            #expect(answer["path"] as? String == "pats/sounds/drums.ahap")
            #expect(answer["bytes"] as? Int == expected.count)
            #expect(answer["replaced"] as? Bool == false)
            let opened = try await studio.object("GET", "/api/pattern?path=pats/sounds/drums.ahap")
            #expect(opened["version"] as? String == answer["version"] as? String, "the version the pattern route gives")
            // Again: the file exists, so nothing is written without "overwrite".
            try Data("{\"Version\": 1, \"Pattern\": []}".utf8).write(to: studio.url("sounds/drums.ahap"))
            let again = try await studio.call("POST", "/api/audio/save", json: request("drums.ahap", false))
            #expect(again.status == 409)
            #expect(
                again.text
                    == #"{"error":"pats/sounds/drums.ahap exists; send \"overwrite\": true to replace it","path":"pats/sounds/drums.ahap"}"#
            )
            #expect(try String(contentsOf: studio.url("sounds/drums.ahap"), encoding: .utf8).count == 29)
            let replaced = try await studio.call("POST", "/api/audio/save", json: request("drums.ahap", true))
            #expect(replaced.status == 200)
            #expect(try Self.json(replaced)["replaced"] as? Bool == true)
            #expect(try [UInt8](Data(contentsOf: studio.url("sounds/drums.ahap"))) == expected)
            for (name, message) in [
                ("", #"\"name\" must not be empty"#),
                ("a/b.ahap", #"\"name\" must be a file name, without '/', '\\' or NUL"#),
                (".hidden.ahap", #"\"name\" must not start with '.'"#),
                ("drums.json", #"\"name\" must end in .ahap"#),
                (".ahap", #"\"name\" must not start with '.'"#),
            ] {
                let refused = try await studio.call("POST", "/api/audio/save", json: request(name, false))
                #expect(refused.status == 400, "\(name): \(refused.text)")
                #expect(refused.text == "{\"error\":\"\(message)\"}", "\(name)")
            }
            let listed = try await studio.object("GET", "/api/files")
            let paths = (listed["files"] as? [[String: Any]] ?? []).compactMap { $0["path"] as? String }
            #expect(
                paths.filter { $0.hasPrefix("pats/sounds/") } == ["pats/sounds/drums.ahap", "pats/sounds/drums.wav"])
            // With the sound: what `haptic convert --with-audio` writes beside the sound, an
            // AudioCustom event naming it, found by lint.
            let withSound =
                #"{"path": "pats/sounds/drums.wav", "name": "both.ahap", "options": {"content": "continuous"}, "withAudio": true}"#
            let both = try await studio.call("POST", "/api/audio/save", json: withSound)
            #expect(both.status == 200, "\(both.text)")
            let cli = try await Self.converted(
                studio.url("sounds/drums.wav"), ["--continuous-only", "--with-audio"], beside: true)
            let bytes = try [UInt8](Data(contentsOf: studio.url("sounds/both.ahap")))
            #expect(bytes == cli, "the file haptic convert --with-audio writes")
            #expect(String(decoding: bytes, as: UTF8.self).contains(#""EventWaveformPath": "drums.wav""#))
            let view = try await studio.object("GET", "/api/pattern?path=pats/sounds/both.ahap")
            let findings = (view["findings"] as? [[String: Any]] ?? []).compactMap { $0["code"] as? String }
            #expect(!findings.contains { $0.hasPrefix("waveform") }, "\(findings)")
        }
    }
}

/// Audio to haptics on the page, in headless Chromium: the sound's waveform beside the generated
/// pattern's lanes, an option that changes the events, playing both, and a save that writes what
/// `haptic convert` writes (asking before it replaces a file).
@Suite(.serialized) struct StudioAudioPageTests {
    @Test(.timeLimit(.minutes(2))) func openAudioChangeAnOptionPlayBothAndSave() async throws {
        try await StudioHarness.with(files: ["sounds/old.ahap": "{\"Version\": 1, \"Pattern\": []}"]) { studio in
            try Data(StudioAudioTests.bursts).write(to: studio.url("sounds/drums.wav"))
            let seen = try await DevTools.withPage { page in
                try await page.navigate(to: studio.studio.url + "#pats%2Fsounds%2Fdrums.wav")
                try await page.waitFor(
                    "document.body.dataset.ready === '1' && studio.state.mode === 'audio' && studio.state.sound !== null"
                )
                var seen: [String: any Sendable] = [:]
                seen["listedAsAudio"] =
                    try await page.evaluate(
                        "document.querySelector('#file-list li[data-path=\"pats/sounds/drums.wav\"]').classList.contains('audio')"
                    ) as? Bool
                seen["audioBar"] = try await page.evaluate("document.getElementById('audio-bar').hidden") as? Bool
                seen["columns"] = try await page.number(
                    "Number(document.getElementById('timeline').dataset.audioColumns)")
                // The sound's lane: drawn at a burst (0.26 s), empty in the silence between (0.55 s).
                let y =
                    "(studio.LANES.audio[0] + studio.LANES.audio[1]) / 2 - 0.3 * (studio.LANES.audio[1] - studio.LANES.audio[0]) / 2"
                seen["atBurst"] = try await StudioDesignerTests.pixel(page, "studio.x(0.26)", y)
                seen["inSilence"] = try await StudioDesignerTests.pixel(page, "studio.x(0.55)", y)
                let before = try await page.number("Number(document.body.dataset.audioEvents)") ?? -1
                seen["before"] = before
                seen["drawnBefore"] = try await page.number(
                    "Number(document.getElementById('timeline').dataset.eventsDrawn)")
                // Transients only, then at most one event a second: each change makes and draws the pattern again.
                _ = try await page.evaluate(
                    "(() => { const s = document.getElementById('o-content'); s.value = 'transients'; s.dispatchEvent(new Event('change')); })()"
                )
                try await page.waitFor("Number(document.body.dataset.audioEvents) === 4")
                _ = try await page.evaluate(
                    "(() => { const i = document.getElementById('o-cap'); i.value = '1'; i.dispatchEvent(new Event('input')); })()"
                )
                try await page.waitFor(
                    "Number(document.body.dataset.audioEvents) === 1 && !studio.state.analysis.inflight")
                seen["drawnAfter"] = try await page.number(
                    "Number(document.getElementById('timeline').dataset.eventsDrawn)")
                seen["counts"] = try await page.string("document.getElementById('audio-counts').textContent")
                // A/B: the sound and the haptics start together in the browser.
                try await page.click("#play-both")
                // The durations are read in the same turn as the condition: the sound lasts about a
                // second, and on a loaded machine it can end (and the page let go of its sources)
                // before a second request is evaluated.
                try await page.waitFor(
                    "document.body.dataset.audioPlaying === 'both' && studio.state.playhead && studio.state.audio && studio.state.alongside.length === 1"
                        + " && (window.playedDurations = JSON.stringify([studio.state.audio.buffer.duration, studio.state.alongside[0].buffer.duration].map(d => Math.round(d * 100) / 100)))"
                )
                seen["durations"] = try await page.string("window.playedDurations")
                try await page.click("#stop")
                // Save as mine.ahap; then again: the page asks before replacing it.
                _ = try await page.evaluate("document.getElementById('save-name').value = 'mine.ahap'")
                try await page.click("#save-audio")
                try await page.waitFor("document.body.dataset.audioSaved === 'pats/sounds/mine.ahap'")
                seen["listedAfterSave"] =
                    try await page.evaluate(
                        "studio.state.files.some(f => f.path === 'pats/sounds/mine.ahap')") as? Bool
                _ = try await page.evaluate("delete document.body.dataset.audioSaved")
                try Data("{}".utf8).write(to: studio.url("sounds/mine.ahap"))
                try await page.click("#save-audio")
                try await page.waitFor("document.body.dataset.audioConflict === 'pats/sounds/mine.ahap'")
                seen["asked"] = try await page.string("document.getElementById('banner-text').textContent")
                seen["untouched"] = try String(contentsOf: studio.url("sounds/mine.ahap"), encoding: .utf8)
                try await page.click("#banner-a")
                try await page.waitFor("document.body.dataset.audioSaved === 'pats/sounds/mine.ahap'")
                return seen
            }
            #expect(seen["listedAsAudio"] as? Bool == true)
            #expect(seen["audioBar"] as? Bool == false, "the audio bar shows")
            #expect((seen["columns"] as? Double ?? 0) > 500, "the overview is drawn: \(seen["columns"] ?? "")")
            let burst = seen["atBurst"] as? [Double] ?? []
            let silence = seen["inSilence"] as? [Double] ?? []
            #expect(burst.count == 4 && burst[0] > 150 && burst[1] > 150, "the sound's colour at a burst: \(burst)")
            #expect(silence.count == 4 && silence[0] < 60, "nothing drawn in the silence: \(silence)")
            let before = seen["before"] as? Double ?? 0
            #expect(before > 4, "transients and continuous events at first: \(before)")
            #expect(seen["drawnBefore"] as? Double == before, "every event drawn in the lanes")
            #expect(seen["drawnAfter"] as? Double == 1)
            #expect(seen["counts"] as? String == "1 transient, 0 continuous (3 over the cap left out)")
            let durations = seen["durations"] as? String ?? ""
            #expect(durations.hasPrefix("[2,"), "the sound (2 s) and the render: \(durations)")
            #expect(seen["listedAfterSave"] as? Bool == true)
            #expect(
                seen["asked"] as? String
                    == "pats/sounds/mine.ahap exists. Replace it with the pattern made from pats/sounds/drums.wav?")
            #expect(seen["untouched"] as? String == "{}", "nothing replaced before the user says so")
            let expected = try await StudioAudioTests.converted(
                studio.url("sounds/drums.wav"), ["--transients-only", "--max-events-per-second", "1"])
            #expect(try [UInt8](Data(contentsOf: studio.url("sounds/mine.ahap"))) == expected)
        }
    }
}
