import Foundation
import Testing

/// `haptic convert groove.mid -o groove.ahap`, with MIDI files written byte by byte here.
@Suite struct ConvertMIDITests {
    let scratch: ScratchFolder
    init() throws { scratch = try ScratchFolder() }

    static func quantity(_ value: Int) -> [UInt8] {
        var out: [UInt8] = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 {
            out.insert(UInt8(0x80 | rest & 0x7F), at: 0)
            rest >>= 7
        }
        return out
    }

    static func header(format: Int = 1, tracks: Int) -> [UInt8] {
        Array("MThd".utf8) + [0, 0, 0, 6, 0, UInt8(format), 0, UInt8(tracks), 0x01, 0xE0]  // 480 ticks a beat
    }

    static func track(_ events: [(Int, [UInt8])]) -> [UInt8] {
        var body: [UInt8] = []
        for (delta, bytes) in events { body += quantity(delta) + bytes }
        body += [0, 0xFF, 0x2F, 0]
        return Array("MTrk".utf8) + [0, 0, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
    }

    /// Track 1: 120 bpm, 60 bpm from tick 960. Track 2: piano on channel 1 (a note held 1 s at
    /// tick 1440 = 2.0 s) and channel 2. Track 3: a kick and a hi-hat on channel 10 at 1.0 s.
    static let groove: [UInt8] =
        header(tracks: 3)
        + track([(0, [0xFF, 0x51, 3, 0x07, 0xA1, 0x20]), (960, [0xFF, 0x51, 3, 0x0F, 0x42, 0x40])])
        + track([
            (0, [0x90, 60, 127]), (120, [60, 0]),
            (360, [0x91, 67, 64]), (120, [0x81, 67, 0]),
            (840, [0x90, 72, 100]), (480, [0x80, 72, 0]),
        ])
        + track([(960, [0x99, 36, 127]), (0, [42, 127]), (60, [0x89, 36, 0]), (0, [42, 0])])

    /// Each event's time, type, intensity and sharpness, from the AHAP written.
    func events(_ path: String) throws -> [[String: Any]] {
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(filePath: path)))
        let pattern = try #require((json as? [String: Any])?["Pattern"] as? [[String: Any]])
        return pattern.compactMap { $0["Event"] as? [String: Any] }
    }

    func summary(_ event: [String: Any]) -> String {
        let parameters = (event["EventParameters"] as? [[String: Any]] ?? []).map {
            "\($0["ParameterID"] ?? "")=\($0["ParameterValue"] ?? "")"
        }
        return "\(event["Time"] ?? "") \(event["EventType"] ?? "") \(parameters.joined(separator: " "))"
            + (event["EventDuration"].map { " for \($0)" } ?? "")
    }

    @Test func notesBecomeTransientsAtTheirTimesTempoChangesIncluded() async throws {
        let input = try scratch.write("groove.mid", Self.groove)
        let output = scratch.path("groove.ahap")
        let result = try await Haptic.run(["convert", input, "-o", output])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "\(input): 4 transients, 1 continuous events from 5 notes\n")
        #expect(
            try events(output).map(summary) == [
                "0 HapticTransient HapticIntensity=1 HapticSharpness=0.4286",
                "0.5 HapticTransient HapticIntensity=0.5039 HapticSharpness=0.5119",
                "1 HapticTransient HapticIntensity=1 HapticSharpness=0.525",
                "2 HapticTransient HapticIntensity=0.7874 HapticSharpness=0.5714",
                "2 HapticContinuous HapticIntensity=0.4724 HapticSharpness=0.5714 for 1",
            ])
    }

    @Test func trackAndChannelChooseTheNotes() async throws {
        let input = try scratch.write("groove.mid", Self.groove)
        let output = scratch.path("drums.ahap")
        let drums = try await Haptic.run(["convert", input, "-o", output, "--channel", "10"])
        #expect(drums.status == 0, "\(drums.stderr)")
        // Kick (0.1) and hi-hat (0.95) at full velocity add in power: sharpness is their mean.
        #expect(try events(output).map(summary) == ["1 HapticTransient HapticIntensity=1 HapticSharpness=0.525"])
        let piano = try await Haptic.run(["convert", input, "-o", output, "--track", "2", "--channel", "2"])
        #expect(piano.status == 0, "\(piano.stderr)")
        #expect(
            try events(output).map(summary) == ["0.5 HapticTransient HapticIntensity=0.5039 HapticSharpness=0.5119"])
    }

    @Test func theOtherTargetsWork() async throws {
        let input = try scratch.write("groove.mid", Self.groove)
        let clip = try await Haptic.run(["convert", input, "-o", scratch.path("groove.haptic")])
        #expect(clip.status == 0, "\(clip.stderr)")
        #expect(try await Haptic.run(["info", scratch.path("groove.haptic")]).status == 0)
        let android = try await Haptic.run([
            "convert", input, "-o", scratch.path("groove.json"), "--to", "android", "--json",
        ])
        #expect(android.status == 0, "\(android.stderr)")
        #expect(android.output.contains("\"from\" : \"midi\""), "\(android.output)")
        // Sniffed by its first bytes whatever its name.
        let unnamed = try scratch.write("groove.bin", Self.groove)
        #expect(try await Haptic.run(["convert", unnamed, "-o", scratch.path("x.ahap")]).status == 0)
    }

    @Test(
        arguments: [
            (
                Array("{\"Pattern\": []}".utf8),
                "error[midi-not-midi]: not a MIDI file: it does not start with \"MThd\" (byte 0)"
            ),
            (
                header(tracks: 2) + track([]),
                "error[midi-truncated]: the header declares 2 tracks; the file ends after 1 (byte 26)"
            ),
            (
                header(format: 2, tracks: 1) + track([]),
                "error[midi-unsupported-format]: format 2 (independent sequences) is not supported; save the file as format 0 or 1 (byte 8)"
            ),
            (header(tracks: 0), "error[midi-invalid-value]: the header declares 0 tracks (byte 10)"),
            (
                header(tracks: 1) + Array("MTrk".utf8) + [0x7F, 0xFF, 0xFF, 0xFF, 0],
                "error[midi-truncated]: the chunk declares 2147483647 bytes but 1 remain in the file (byte 18)"
            ),
            (
                header(tracks: 1) + track([(0, [0x90, 60, 0xF0])]),
                "error[midi-invalid-event]: track 1: byte 0xF0 where a data byte (below 0x80) belongs (byte 25)"
            ),
        ] as [([UInt8], String)])
    func badFilesAreOneLineAndStatusOne(bytes: [UInt8], message: String) async throws {
        let input = try scratch.write("bad.mid", bytes)
        let result = try await Haptic.run(["convert", input, "-o", scratch.path("bad.ahap")], killAfter: 30)
        #expect(result.status == 1)
        #expect(result.stderr == "\(input): \(message)\n")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("bad.ahap")))
    }

    @Test func aSelectionWithoutNotesSaysWhereTheNotesAre() async throws {
        let input = try scratch.write("groove.mid", Self.groove)
        let output = scratch.path("x.ahap")
        let none = try await Haptic.run(["convert", input, "-o", output, "--channel", "3"])
        #expect(none.status == 1)
        #expect(
            none.stderr == "haptic: \(input): no notes on channel 3 (notes are on tracks 2, 3; channels 1, 2, 10)\n")
        let noTrack = try await Haptic.run(["convert", input, "-o", output, "--track", "4"])
        #expect(noTrack.status == 64)
        #expect(noTrack.stderr == "haptic: \(input) has 3 tracks; there is no track 4\n")
        let badChannel = try await Haptic.run(["convert", input, "-o", output, "--channel", "17"])
        #expect(badChannel.status == 64)
        #expect(badChannel.stderr.contains("--channel is 1 to 16 (got 17)"))
        let ahap = try scratch.write(
            "tap.ahap", #"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#)
        let notMIDI = try await Haptic.run(["convert", ahap, "-o", output, "--track", "1"])
        #expect(notMIDI.status == 64)
        #expect(notMIDI.stderr.contains("--track and --channel are for MIDI input"))
    }
}
