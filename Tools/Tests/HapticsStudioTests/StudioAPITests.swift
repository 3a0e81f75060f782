import Foundation
import HapticsCore
import HapticsStudio
import HapticsSynthesis
import NIOCore
import Synchronization
import Testing
import _ToolTestSupport

/// The server's side of docs/studio.md: views, edits, saves and their conflicts, audio, git,
/// diffs, and the WebSocket's playhead and file-changed messages, checked on real files.
@Suite(.serialized) struct StudioAPITests {
    static let broken = """
        {
            "Version": 1.0,
            "Pattern": [
                { "Event": { "Time": 0.0, "EventType": "HapticTransient",
                             "EventParameters": [ { "ParameterID": "HapticIntensity", "ParameterValue": 1.5 } ] } },
                { "Event": { "Time": 0.2, "EventType": "HapticContinuous" } }
            ]
        }
        """

    @Test(.timeLimit(.minutes(1))) func aViewHasTheEventsTheEffectiveCurvesAndLocatedFindings() async throws {
        try await StudioHarness.with(files: ["broken.ahap": Self.broken]) { studio in
            let view = try await studio.object("GET", "/api/pattern?path=pats/rising-falling.ahap")
            let events = try #require(view["events"] as? [[String: Any]])
            #expect(events.count == 20)
            #expect(events.map { $0["time"] as? Double ?? -1 } == (0..<20).map { Double($0) / 10 })
            #expect(events[9]["intensity"] as? Double == 0.9, "Float 0.9 as JSON 0.9")
            #expect(events[0]["jsonPath"] as? String == "Pattern[0].Event")
            #expect(view["duration"] as? Double == 1.9)
            let effective = try #require(view["effective"] as? [String: [Double]])
            #expect(effective["times"]?.count == effective["intensity"]?.count)
            #expect((effective["times"]?.count ?? 0) > 380, "every 5 ms over 1.9 s, plus the events")
            // The same findings as `haptic lint`: the tutorial's first tap (intensity 0) is a note.
            let notes = (view["diagnostics"] as? [[String: Any]] ?? []).map {
                "\($0["severity"] ?? "")/\($0["code"] ?? "")@\($0["jsonPath"] ?? "")"
            }
            #expect(notes == ["note/inaudible-event@Pattern[0].Event"])
            // The render, as min and max per column: loudest at the intensity-1 tap (1.0 s).
            let waveform = try #require(view["waveform"] as? [String: Any])
            let high = try #require(waveform["max"] as? [Double])
            let seconds = try #require(waveform["seconds"] as? Double)
            #expect(high.count == 2_000)
            #expect(seconds > 1.9 && seconds < 2.1, "\(seconds)")
            let loudest = Double(high.indices.max { high[$0] < high[$1] } ?? 0) * seconds / Double(high.count)
            #expect(abs(loudest - 1.0) < 0.02, "loudest at \(loudest) s")
            let bytes = try Data(contentsOf: studio.url("rising-falling.ahap"))
            #expect(view["text"] == nil, "the text only when asked for")
            let withText = try await studio.object("GET", "/api/pattern?path=pats/rising-falling.ahap&text=1")
            #expect(withText["text"] as? String == String(decoding: bytes, as: UTF8.self))
            #expect((view["version"] as? String)?.hasSuffix("-\(bytes.count)") == true)

            let bad = try await studio.object("GET", "/api/pattern?path=pats/broken.ahap")
            let findings = try #require(bad["diagnostics"] as? [[String: Any]])
            let codes = findings.map {
                "\($0["severity"] ?? "")/\($0["code"] ?? "")@\($0["jsonPath"] ?? ""):\($0["line"] ?? "")"
            }
            #expect(
                codes.contains { $0.hasPrefix("error/") && $0.contains("@Pattern[1].Event") && $0.hasSuffix(":6") },
                "\(codes)")
            #expect(
                codes.contains { $0.hasPrefix("warning/") && $0.contains("Pattern[0].Event.EventParameters[0]") },
                "\(codes)")
            #expect(bad["ahap"] is NSNull, "a file with an error has no pattern to edit")
            #expect(
                findings.first { ($0["jsonPath"] as? String)?.hasPrefix("Pattern[1]") == true }?["element"] as? Double
                    == 1)
        }
    }

    @Test(.timeLimit(.minutes(1))) func anEditIsAnalysedAndAnEditWithAnErrorIsKept() async throws {
        try await StudioHarness.with { studio in
            let moved = """
                {"path": "pats/sharp-tap.ahap", "ahap": {"Version": 1, "Pattern": [
                  {"Event": {"Time": 0.25, "EventType": "HapticTransient", "EventParameters": [
                    {"ParameterID": "HapticIntensity", "ParameterValue": 0.5}]}}]}}
                """
            let view = try await studio.object("POST", "/api/analyze", json: moved)
            let event = try #require((view["events"] as? [[String: Any]])?.first)
            #expect(event["time"] as? Double == 0.25)
            #expect(event["intensity"] as? Double == 0.5)
            #expect(event["sharpness"] as? Double == 0.5, "the default")
            #expect(view["duration"] as? Double == 0.25)
            #expect(view["version"] as? String != nil, "the file on disk's version comes with every view")

            let broken = """
                {"path": "pats/sharp-tap.ahap", "ahap": {"Version": 1, "Pattern": [
                  {"Event": {"Time": 0.25, "EventType": "HapticBuzz"}}]}}
                """
            let bad = try await studio.object("POST", "/api/analyze", json: broken)
            let finding = try #require(
                (bad["diagnostics"] as? [[String: Any]])?.first { $0["severity"] as? String == "error" })
            #expect(finding["jsonPath"] as? String == "Pattern[0].Event.EventType")
            #expect(finding["line"] == nil, "an edit has no file lines")
            let kept = try #require(bad["ahap"] as? [String: Any])
            let type =
                ((kept["Pattern"] as? [[String: Any]])?.first?["Event"] as? [String: Any])?["EventType"] as? String
            #expect(type == "HapticBuzz", "the page keeps the edit it made")
        }
    }

    @Test(.timeLimit(.minutes(1))) func aSaveWritesTheProjectsAHAPAndAStaleSaveIsAConflict() async throws {
        try await StudioHarness.with { studio in
            let opened = try await studio.object("GET", "/api/pattern?path=pats/sharp-tap.ahap")
            let base = try #require(opened["version"] as? String)
            let edit = """
                {"Version": 1, "Metadata": {"Project": "Studio"}, "Pattern": [
                  {"Event": {"Time": 0.125, "EventType": "HapticTransient", "EventParameters": [
                    {"ParameterID": "HapticIntensity", "ParameterValue": 0.75}]}}]}
                """
            let saved = try await studio.object(
                "PUT", "/api/pattern?path=pats/sharp-tap.ahap",
                json: "{\"ahap\": \(edit), \"baseVersion\": \"\(base)\"}")
            let onDisk = try [UInt8](Data(contentsOf: studio.url("sharp-tap.ahap")))
            #expect(try AHAP.decode(onDisk).pattern == AHAP.decode(Array(edit.utf8)).pattern)
            // Only what differs was rewritten, in the file's layout: `1.0` stays as written.
            let text = String(decoding: onDisk, as: UTF8.self)
            #expect(
                text.hasPrefix(
                    "{\n    \"Version\": 1.0,\n    \"Metadata\": {\n        \"Project\": \"Studio\"\n    },"), "\(text)"
            )
            #expect(
                text.contains(
                    "\n                \"Time\": 0.125,\n                \"EventType\": \"HapticTransient\",\n"),
                "\(text)")
            #expect(saved["version"] as? String != base)

            // A second tab still holding the first version loses its save, visibly, and nothing is written.
            let stale = try await studio.call(
                "PUT", "/api/pattern?path=pats/sharp-tap.ahap",
                json: "{\"ahap\": {\"Version\": 1, \"Pattern\": []}, \"baseVersion\": \"\(base)\"}")
            #expect(stale.status == 409)
            let conflict = try #require(try JSONSerialization.jsonObject(with: Data(stale.body)) as? [String: String])
            #expect(conflict["version"] == saved["version"] as? String)
            #expect(conflict["text"] == String(decoding: onDisk, as: UTF8.self))
            #expect(conflict["error"]?.contains("changed on disk") == true)
            #expect(try [UInt8](Data(contentsOf: studio.url("sharp-tap.ahap"))) == onDisk)

            // An edit with an error is refused, and the file stays.
            let invalid = try await studio.call(
                "PUT", "/api/pattern?path=pats/sharp-tap.ahap",
                json:
                    "{\"ahap\": {\"Pattern\": [{\"Event\": {\"Time\": -1, \"EventType\": \"HapticTransient\"}}]}, \"baseVersion\": \"\(saved["version"] ?? "")\"}"
            )
            #expect(invalid.status == 422, "\(invalid.text)")
            #expect(invalid.text.contains("Pattern[0].Event.Time"))
            #expect(try [UInt8](Data(contentsOf: studio.url("sharp-tap.ahap"))) == onDisk)
        }
    }

    @Test(.timeLimit(.minutes(1))) func aHapticClipIsEditedAsAHAPAndSavedAsAClip() async throws {
        let clip =
            #"{"version": {"major": 1}, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 0.5}, {"time": 0.4, "amplitude": 0.5}]}}}}"#
        try await StudioHarness.with(files: ["buzz.haptic": clip]) { studio in
            let view = try await studio.object("GET", "/api/pattern?path=pats/buzz.haptic")
            #expect(view["format"] as? String == "haptic")
            let ahap = try #require(view["ahap"] as? [String: Any])
            #expect((view["duration"] as? Double).map { abs($0 - 0.4) < 0.01 } == true, "\(view["duration"] ?? "")")
            let body = try JSONSerialization.data(withJSONObject: ["ahap": ahap, "baseVersion": view["version"] ?? ""])
            let saved = try await studio.object(
                "PUT", "/api/pattern?path=pats/buzz.haptic", json: String(decoding: body, as: UTF8.self))
            #expect(saved["losses"] is [Any])
            // The file is still a clip (not AHAP), and reads back with the same envelope.
            let written = try [UInt8](Data(contentsOf: studio.url("buzz.haptic")))
            let decoded = try HapticClip.decode(written, file: "buzz.haptic")
            #expect(abs(decoded.clip.pattern.duration - 0.4) < 0.01)
            #expect(String(decoding: written, as: UTF8.self).contains("\"signals\""))
        }
    }

    @Test(.timeLimit(.minutes(1))) func renderGivesTheWAVThePatternSoundsLike() async throws {
        try await StudioHarness.with { studio in
            let response = try await studio.call(
                "POST", "/api/render", json: "{\"path\": \"pats/rising-falling.ahap\", \"rate\": 2}")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "audio/wav")
            let clip = try WAV.decode(response.body)
            #expect(clip.sampleRate == 48_000)
            // At rate 2 the taps come every 50 ms: the loud middle ones at 0.40-0.55 s.
            let onsets = Self.onsets(clip.samples, rate: 48_000, threshold: 0.05)
            #expect(onsets.count >= 15, "\(onsets)")
            for pair in zip(onsets, onsets.dropFirst()) { #expect(abs(pair.1 - pair.0 - 0.05) < 0.002, "\(onsets)") }
        }
    }

    @Test(.timeLimit(.minutes(1))) func gitAndDiffCompareWithTheLastCommit() async throws {
        try await StudioHarness.with { studio in
            try await studio.commit(["rising-falling.ahap"])
            var text = try String(contentsOf: studio.url("rising-falling.ahap"), encoding: .utf8)
            text = text.replacingOccurrences(of: "\"Time\": 0.5,", with: "\"Time\": 0.52,")
            try Data(text.utf8).write(to: studio.url("rising-falling.ahap"))
            let head = try await studio.object("GET", "/api/git?path=pats/rising-falling.ahap")
            #expect(head["version"] as? String == "HEAD")
            let committed = try #require(head["ahap"] as? [String: Any])
            let now = try #require(
                try await studio.object("GET", "/api/pattern?path=pats/rising-falling.ahap")["ahap"] as? [String: Any])
            let body = try JSONSerialization.data(withJSONObject: ["a": committed, "b": now])
            let diff = try await studio.object("POST", "/api/diff", json: String(decoding: body, as: UTF8.self))
            let changes = try #require(diff["changes"] as? [[String: Any]])
            #expect(changes.count == 1)
            #expect(changes.first?["kind"] as? String == "moved")
            #expect((changes.first?["line"] as? String)?.contains("0.5") == true, "\(changes)")
            #expect(diff["identical"] as? Bool == false)
            let uncommitted = try await studio.call("GET", "/api/git?path=pats/sharp-tap.ahap")
            #expect(uncommitted.status == 404)
            #expect(uncommitted.text.contains("no committed version"))
        }
    }

    @Test(.timeLimit(.minutes(1))) func aFileSavedByAnEditorIsAnnouncedOnTheSocket() async throws {
        try await StudioHarness.with { studio in
            _ = try await studio.object("GET", "/api/pattern?path=pats/sharp-tap.ahap")
            let edited = Data(
                try String(contentsOf: studio.url("sharp-tap.ahap"), encoding: .utf8)
                    .replacingOccurrences(of: "\"Time\": 0.0", with: "\"Time\": 0.1").utf8)
            let messages = try await Self.socket(studio, until: { $0.contains { $0["type"] as? String == "changed" } })
            {
                // An editor that writes a new file and renames it over the old one.
                let temporary = studio.url(".sharp-tap.ahap.swp")
                try edited.write(to: temporary)
                _ = rename(
                    temporary.path(percentEncoded: false), studio.url("sharp-tap.ahap").path(percentEncoded: false))
            }
            let changed = try #require(messages.first { $0["type"] as? String == "changed" })
            #expect(changed["path"] as? String == "pats/sharp-tap.ahap")
            #expect(changed["version"] as? String == "\(Self.version(edited))")
        }
    }

    /// The save's own write, seen by the watcher before the save returns (its inotify event can
    /// be handled at that moment), is not another program's change: the other tabs are told only
    /// that the studio saved it ("was saved in another tab"), never "changed on disk".
    @Test(.timeLimit(.minutes(1))) func aSaveTheWatcherSeesBeforeItReturnsIsToldAsTheStudios() async throws {
        try await StudioHarness.with { studio in
            let opened = try await studio.object("GET", "/api/pattern?path=pats/sharp-tap.ahap")
            let version = try #require(opened["version"] as? String)
            let announced = Mutex<[String]>([])
            studio.studio.afterSaveWrite { [studio = studio.studio] path in
                let messages = studio.checkWatcher(path)
                announced.withLock { $0 += messages }
            }
            let save = """
                {"baseVersion": "\(version)", "tab": "other", "edits": [{"index": 0, "element":
                  {"Event": {"Time": 0.05, "EventType": "HapticTransient", "EventParameters": [
                    {"ParameterID": "HapticIntensity", "ParameterValue": 0.5},
                    {"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]}}}]}
                """
            let messages = try await Self.socket(
                studio, until: { $0.contains { $0["type"] as? String == "changed" && $0["by"] != nil } }
            ) {
                let response = try await studio.call("PUT", "/api/pattern?path=pats/sharp-tap.ahap", json: save)
                #expect(response.status == 200, "\(response.text)")
            }
            #expect(announced.withLock { $0 } == [], "the watcher announced the save as a change on disk")
            let changed = messages.filter { $0["type"] as? String == "changed" }
            #expect(changed.count == 1 && changed.allSatisfy { $0["by"] as? String == "studio" }, "\(changed)")
        }
    }

    /// Issue 28: a page that opens the file while a tab saves it (its `GET /api/pattern` reads the
    /// file after the watcher learnt the save's version and before the write) does not make the
    /// watcher take the save's write for another program's: the saving tab is never told "changed
    /// on disk", the others are told once that the studio saved it, and another program's write
    /// after it is still announced as a change on disk.
    @Test(.timeLimit(.minutes(1))) func aPageOpeningTheFileDuringASaveLeavesItTheStudios() async throws {
        try await StudioHarness.with { studio in
            let opened = try await studio.object("GET", "/api/pattern?path=pats/sharp-tap.ahap")
            let version = try #require(opened["version"] as? String)
            let read = Mutex<String?>(nil)
            let announced = Mutex<[String]>([])
            studio.studio.beforeSaveWrite { [studio = studio.studio] path in
                let json = try? studio.patternJSON(path: path, withText: false)
                let view = json.flatMap { try? JSONSerialization.jsonObject(with: Data($0.readableBytesView)) }
                read.withLock { $0 = (view as? [String: Any])?["version"] as? String }
            }
            // The write's inotify event handled before the save returns.
            studio.studio.afterSaveWrite { [studio = studio.studio] path in
                let messages = studio.checkWatcher(path)
                announced.withLock { $0 += messages }
            }
            let save = """
                {"baseVersion": "\(version)", "tab": "saver", "edits": [{"index": 0, "element":
                  {"Event": {"Time": 0.05, "EventType": "HapticTransient", "EventParameters": [
                    {"ParameterID": "HapticIntensity", "ParameterValue": 0.5},
                    {"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]}}}]}
                """
            let saved = Mutex<String?>(nil)
            let outside = Mutex<String?>(nil)
            let messages = try await Self.socket(
                studio,
                until: { messages in
                    messages.contains {
                        $0["version"] as? String != nil && $0["version"] as? String == outside.withLock { $0 }
                    }
                }
            ) {
                let response = try await studio.call("PUT", "/api/pattern?path=pats/sharp-tap.ahap", json: save)
                #expect(response.status == 200, "\(response.text)")
                let object = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any]
                saved.withLock { $0 = object?["version"] as? String }
                // Then another program writes the file (a new file renamed over it).
                let edited = Data(
                    try String(contentsOf: studio.url("sharp-tap.ahap"), encoding: .utf8)
                        .replacingOccurrences(of: "0.05", with: "0.07").utf8)
                outside.withLock { $0 = Self.version(edited) }
                let temporary = studio.url(".sharp-tap.ahap.swp")
                try edited.write(to: temporary)
                _ = rename(
                    temporary.path(percentEncoded: false), studio.url("sharp-tap.ahap").path(percentEncoded: false))
            }
            #expect(read.withLock { $0 } == version, "the other page read the file before the write")
            #expect(announced.withLock { $0 } == [], "the watcher announced the save as a change on disk")
            let changed = messages.filter { $0["type"] as? String == "changed" }.map {
                [$0["version"] as? String ?? "", $0["by"] as? String ?? "-", $0["tab"] as? String ?? "-"]
            }
            let savedVersion = try #require(saved.withLock { $0 })
            let outsideVersion = try #require(outside.withLock { $0 })
            // Each told once (the save's message and the watcher's come in either order).
            #expect(
                changed.count == 2
                    && Set(changed) == [[savedVersion, "studio", "saver"], [outsideVersion, "-", "-"]],
                "\(changed)")
        }
    }

    /// Both ways an editor saves, each on the socket within half a second: inotify on the held
    /// folder reports it at once (a poll, or the once-a-second fallback, would be late).
    @Test(.timeLimit(.minutes(1))) func inPlaceWritesAndRenamesOverReachTheSocketWithinHalfASecond() async throws {
        try await StudioHarness.with { studio in
            _ = try await studio.object("GET", "/api/pattern?path=pats/sharp-tap.ahap")
            let file = studio.url("sharp-tap.ahap")
            let original = try String(contentsOf: file, encoding: .utf8)
            let inode = { () -> UInt64 in
                var status = stat()
                _ = stat(file.path(percentEncoded: false), &status)
                return UInt64(status.st_ino)
            }
            let before = inode()
            for (step, time) in ["0.1", "0.2"].enumerated() {
                let edited = Data(original.replacingOccurrences(of: "\"Time\": 0.0", with: "\"Time\": \(time)").utf8)
                let written = Mutex<ContinuousClock.Instant?>(nil)
                let messages = try await Self.socket(
                    studio, until: { $0.contains { $0["type"] as? String == "changed" } }
                ) {
                    if step == 0 {
                        // In place: the same file opened, truncated, written and closed.
                        let handle = try FileHandle(forWritingTo: file)
                        try handle.truncate(atOffset: 0)
                        try handle.write(contentsOf: edited)
                        try handle.close()
                    } else {
                        // A new file renamed over the old one.
                        let temporary = studio.url(".sharp-tap.ahap.new")
                        try edited.write(to: temporary)
                        _ = rename(temporary.path(percentEncoded: false), file.path(percentEncoded: false))
                    }
                    written.withLock { $0 = .now }
                }
                let arrived = ContinuousClock.now
                let changed = try #require(messages.first { $0["type"] as? String == "changed" }, "step \(step)")
                #expect(changed["version"] as? String == "\(Self.version(edited))", "step \(step)")
                let delay = arrived - (written.withLock { $0 } ?? arrived)
                #expect(delay < .milliseconds(500), "step \(step): announced \(delay) after the write")
                #expect((inode() == before) == (step == 0), "step \(step): in place keeps the inode, a rename does not")
            }
        }
    }

    /// Judged on a run in which the machine never stalled for 10 ms or more (`onAStillMachine`):
    /// the capture follows the wall clock, so a stall of the machine moves a tap against the
    /// engine's clock whatever the studio does; a fault of ours shows in every run.
    @Test(.timeLimit(.minutes(1))) func theEnginePlaysAndThePlayheadFollowsItsClock() async throws {
        let (messages, capture) = try await onAStillMachine(attempts: 4, stallsBelow: 10) {
            try await StudioHarness.with { studio in
                let messages = try await Self.socket(studio, until: { $0.last?["playing"] as? Bool == false }) {
                    let started = try await studio.object(
                        "POST", "/api/play", json: "{\"path\": \"pats/rising-falling.ahap\"}")
                    #expect(started["playing"] as? Bool == true)
                }
                studio.studio.playback.shutdown()
                return (messages, try WAV.decode([UInt8](Data(contentsOf: studio.capture))))
            }
        }
        let heads = messages.filter { $0["type"] as? String == "playhead" }
        let times = heads.compactMap { $0["time"] as? Double }
        // About every 16 ms over 1.9 s (about 120) alone; the whole suite in parallel (Chromium,
        // the race tests) starves the publishing task to about every 35 ms (54 seen in CI).
        #expect(times.count > 30, "about every 16 ms over 1.9 s: \(times.count)")
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 }, "the playhead only moves forward")
        #expect(times.last == 1.9)
        #expect(heads.last?["playing"] as? Bool == false)
        // Each message's pattern time is the engine clock's, minus where the play started (once
        // it has started: before that the head waits at 0).
        let moving = heads.filter { ($0["time"] as? Double ?? 0) > 0 && $0["playing"] as? Bool == true }
        let offsets = moving.map { ($0["engineTime"] as? Double ?? 0) - ($0["time"] as? Double ?? 0) }
        #expect(offsets.count > 25)
        #expect((offsets.max() ?? 0) - (offsets.min() ?? 1) < 1e-5, "one start time for every message")

        let onsets = Self.onsets(capture.samples, rate: capture.sampleRate, threshold: 0.01)
        #expect(onsets.count >= 17, "the engine played the taps of intensity 0.2 and up: \(onsets)")
        // Every tap lands where the playhead's start says: start + k × 0.1 s of engine time.
        let start = offsets.first ?? 0
        for onset in onsets {
            let k = ((onset - start) / 0.1).rounded()
            #expect(abs(onset - (start + k * 0.1)) < 0.002, "tap at \(onset) s, start at \(start) s")
        }
    }

    // MARK: - Helpers

    static func version(_ data: Data) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in data {
            hash ^= UInt64(byte)
            hash &*= 0x100_0000_01b3
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex + "-\(data.count)"
    }

    /// Onset times (seconds) where the signal first rises above `threshold` after 20 ms below it.
    static func onsets(_ samples: [Float], rate: Int, threshold: Float) -> [Double] {
        var out: [Double] = []
        var quiet = rate
        for (i, s) in samples.enumerated() {
            if abs(s) > threshold {
                if quiet >= rate / 50 { out.append(Double(i) / Double(rate)) }
                quiet = 0
            } else {
                quiet += 1
            }
        }
        return out
    }

    /// Opens the page's WebSocket, runs `action`, and collects messages until `until` holds (or 10 s).
    static func socket(
        _ studio: StudioHarness, until: @escaping @Sendable ([[String: any Sendable]]) -> Bool,
        action: @escaping @Sendable () async throws -> Void
    ) async throws -> [[String: any Sendable]] {
        let port = studio.port
        let headers = [("Host", "127.0.0.1:\(port)"), ("Origin", studio.origin), ("X-Studio-Token", studio.token)]
        // The upgrade's answer can come before the studio registers the socket; its first
        // message says it has, so what the action causes cannot be missed.
        let (socket, first) = try await onOwnThread { () throws -> (RawWebSocket, String?) in
            let socket = try RawWebSocket(port: port, headers: headers)
            return (socket, try socket.next())
        }
        #expect(first == #"{"type":"subscribed"}"#)
        try await action()
        return try await onOwnThread {
            var collected: [[String: any Sendable]] = []
            let deadline = ContinuousClock.now + .seconds(10)
            while ContinuousClock.now < deadline, let text = try socket.next() {
                guard let object = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
                    continue
                }
                collected.append(
                    object.mapValues { value -> any Sendable in
                        if let flag = value as? Bool, "\(type(of: value))".contains("Bool") { return flag }
                        if let number = value as? NSNumber { return number.doubleValue }
                        return "\(value)"
                    })
                if until(collected) { break }
            }
            return collected
        }
    }
}
