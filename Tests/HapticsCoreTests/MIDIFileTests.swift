import Foundation
import HapticsCore
import Testing
import _HapticsTestSupport

/// A Standard MIDI File written byte by byte, so each test says exactly what the file holds.
struct MIDIWriter {
    static func quantity(_ value: Int) -> [UInt8] {
        var out: [UInt8] = [UInt8(value & 0x7F)]
        var rest = value >> 7
        while rest > 0 {
            out.insert(UInt8(0x80 | rest & 0x7F), at: 0)
            rest >>= 7
        }
        return out
    }

    static func header(format: Int = 1, tracks: Int, division: Int = 480) -> [UInt8] {
        Array("MThd".utf8) + [0, 0, 0, 6, 0, UInt8(format), UInt8(tracks >> 8), UInt8(tracks & 0xFF)]
            + [UInt8(division >> 8 & 0xFF), UInt8(division & 0xFF)]
    }

    /// A track from (delta ticks, event bytes), ended by an end-of-track event.
    static func track(_ events: [(Int, [UInt8])], end: Bool = true) -> [UInt8] {
        var body: [UInt8] = []
        for (delta, bytes) in events { body += quantity(delta) + bytes }
        if end { body += [0, 0xFF, 0x2F, 0] }
        let n = body.count
        return Array("MTrk".utf8) + [UInt8(n >> 24), UInt8(n >> 16 & 0xFF), UInt8(n >> 8 & 0xFF), UInt8(n & 0xFF)]
            + body
    }

    static func tempo(_ microseconds: Int) -> [UInt8] {
        [0xFF, 0x51, 0x03, UInt8(microseconds >> 16), UInt8(microseconds >> 8 & 0xFF), UInt8(microseconds & 0xFF)]
    }
}

@Suite struct MIDIFileTests {
    typealias W = MIDIWriter

    /// 120 bpm, then 60 bpm from tick 960, written in the first track; notes in the second with
    /// running status (one 0x90, then data bytes only) and a note-on of velocity 0 as note-off.
    static let tempoChange: [UInt8] =
        W.header(tracks: 2)
        + W.track([(0, W.tempo(500_000)), (960, W.tempo(1_000_000))])
        + W.track([
            (0, [0x90, 60, 100]), (240, [60, 0]),  // 0 s, held 0.25 s
            (240, [62, 80]), (240, [62, 0]),  // 0.5 s
            (720, [64, 127]), (480, [64, 0]),  // tick 1440: 1.0 s + 480 ticks at 60 bpm = 2.0 s
            (0, [0xF0, 0x03, 0x43, 0x12, 0xF7]),  // system exclusive, skipped
            (480, [0x80, 65, 0]),  // a note-off for a key not down: ignored
        ])

    @Test func tempoChangesInTheFirstTrackTimeEveryTrack() throws {
        let midi = try MIDIFile.decode(Self.tempoChange)
        #expect(midi.format == 1)
        #expect(midi.tracks.count == 2)
        #expect(midi.tracks[1].notes.map(\.start) == [0, 0.5, 2.0])
        #expect(midi.tracks[1].notes.map(\.end) == [0.25, 0.75, 3.0])
        #expect(midi.tracks[1].notes.map(\.velocity) == [100, 80, 127])
        let pattern = midi.hapticPattern().pattern
        #expect(pattern.events.filter { $0.type == .hapticTransient }.map(\.time) == [0, 0.5, 2.0])
    }

    @Test func velocityIsIntensityAndChordsAddInPower() throws {
        let bytes =
            W.header(format: 0, tracks: 1)
            + W.track([
                (0, [0x90, 60, 127]), (0, [0x80, 60, 0]),
                (480, [0x90, 60, 64]), (0, [0x80, 60, 0]),
                (480, [0x90, 60, 32]), (0, [0x80, 60, 0]),
                // A chord of four at velocity 64, its notes 10 ms apart at most (a strum).
                (480, [0x90, 48, 64]), (4, [52, 64]), (4, [55, 64]), (1, [60, 64]),
                (10, [0x80, 48, 0]), (0, [52, 0]), (0, [55, 0]), (0, [60, 0]),
            ])
        let transients = try MIDIFile.decode(bytes).hapticPattern().pattern.events
        #expect(transients.map(\.time) == [0, 0.5, 1.0, 1.5])
        #expect(transients.map { $0.value(of: .hapticIntensity) } == [1, 0.5039, 0.252, 0.7127])
        #expect(transients.allSatisfy { $0.type == .hapticTransient })
    }

    @Test func sharpnessFromPitchAndDrumKind() throws {
        let bytes =
            W.header(format: 0, tracks: 1)
            + W.track([
                (0, [0x90, 24, 100]), (10, [0x80, 24, 0]),
                (470, [0x90, 60, 100]), (10, [0x80, 60, 0]),
                (470, [0x99, 36, 100]), (10, [0x89, 36, 0]),  // channel 10: kick
                (470, [0x99, 38, 100]), (10, [0x89, 38, 0]),  // snare
                (470, [0x99, 42, 100]), (10, [0x89, 42, 0]),  // closed hi-hat
            ])
        let events = try MIDIFile.decode(bytes).hapticPattern().pattern.events
        #expect(events.map { $0.value(of: .hapticSharpness) } == [0, 0.4286, 0.1, 0.8, 0.95])
    }

    @Test func heldNotesBecomeDecayingContinuousEventsDrumsDoNot() throws {
        let bytes =
            W.header(format: 0, tracks: 1)
            + W.track([
                (0, [0x90, 60, 127]), (960, [0x80, 60, 0]),  // held 1 s
                (0, [0x99, 49, 127]), (960, [0x89, 49, 0]),  // a crash held 1 s: a transient only
            ])
        let pattern = try MIDIFile.decode(bytes).hapticPattern().pattern
        let continuous = pattern.events.filter { $0.type == .hapticContinuous }
        #expect(continuous.count == 1)
        #expect(continuous.first?.time == 0)
        #expect(continuous.first?.duration == 1)
        #expect(continuous.first?.value(of: .hapticIntensity) == 0.6)
        #expect(pattern.events.filter { $0.type == .hapticTransient }.map(\.time) == [0, 1])
        let curves = pattern.parameterCurves
        #expect(curves.count == 1)
        guard let curve = curves.first else { return }
        #expect(curve.id == .hapticIntensityControl)
        #expect(curve.controlPoints.count <= 16)
        #expect(curve.controlPoints.first?.value == 1)
        // Falls to floor + (1 - floor)·e^(-t/τ) by 5 ms before the crash, then 1 at the crash.
        let beforeCrash = curve.controlPoints[curve.controlPoints.count - 2]
        #expect(abs(beforeCrash.time - 0.995) < 1e-9)
        #expect(abs(Double(beforeCrash.value) - (0.25 + 0.75 * exp(-0.995 / 0.8))) < 1e-3)
        #expect(curve.controlPoints.last?.time == 1)
        #expect(curve.controlPoints.last?.value == 1)
        #expect(
            zip(curve.controlPoints.dropLast(), curve.controlPoints.dropLast().dropFirst()).allSatisfy {
                $0.value > $1.value
            })
    }

    @Test func aLongHeldNoteKeepsEveryCurveWithinSixteenPoints() throws {
        let bytes =
            W.header(format: 0, tracks: 1, division: 480)
            + W.track([(0, [0x90, 60, 127]), (480 * 2 * 20, [0x80, 60, 0])])  // 20 s
        let pattern = try MIDIFile.decode(bytes).hapticPattern().pattern
        #expect(pattern.parameterCurves.count == 1)
        #expect(pattern.parameterCurves.allSatisfy { $0.controlPoints.count <= 16 })
        #expect(pattern.events.filter { $0.type == .hapticContinuous }.map(\.duration) == [20])
    }

    @Test func trackAndChannelFilters() throws {
        let bytes =
            W.header(tracks: 3)
            + W.track([(0, W.tempo(500_000))])
            + W.track([(0, [0x90, 60, 100]), (10, [0x80, 60, 0]), (470, [0x91, 60, 100]), (10, [0x81, 60, 0])])
            + W.track([(960, [0x99, 36, 100]), (10, [0x89, 36, 0])])
        let midi = try MIDIFile.decode(bytes)
        func times(_ options: MIDIHapticsOptions) -> [Double] { midi.hapticPattern(options).pattern.events.map(\.time) }
        #expect(times(.init()) == [0, 0.5, 1.0])
        #expect(times(.init(track: 2)) == [0, 0.5])
        #expect(times(.init(track: 3)) == [1.0])
        #expect(times(.init(channel: 2)) == [0.5])
        #expect(times(.init(channel: 10)) == [1.0])
        #expect(times(.init(track: 2, channel: 10)) == [])
    }

    @Test func smpteDivisionIgnoresTempo() throws {
        // 25 frames a second, 40 ticks a frame: 1,000 ticks a second.
        let division = Int(UInt8(bitPattern: -25)) << 8 | 40
        let bytes =
            W.header(format: 0, tracks: 1, division: division)
            + W.track([(0, W.tempo(1_000_000)), (1500, [0x90, 60, 100]), (250, [0x80, 60, 0])])
        let midi = try MIDIFile.decode(bytes)
        #expect(midi.division == .smpte(framesPerSecond: 25, ticksPerFrame: 40))
        #expect(midi.tracks[0].notes.map(\.start) == [1.5])
        #expect(midi.tracks[0].notes.map(\.end) == [1.75])
    }

    /// Each bad file: the exact message and byte offset.
    @Test(
        arguments: [
            (Array("RIFF....".utf8), "not a MIDI file: it does not start with \"MThd\" (byte 0)"),
            (Array("MThd".utf8) + [0, 0], "the file ends inside its header (byte 4)"),
            (Array("MThd".utf8) + [0, 0, 0, 6, 0, 1], "the header chunk declares 6 bytes but 2 follow (byte 4)"),
            (
                W.header(format: 2, tracks: 1) + W.track([]),
                "format 2 (independent sequences) is not supported; save the file as format 0 or 1 (byte 8)"
            ),
            (W.header(tracks: 0), "the header declares 0 tracks (byte 10)"),
            (W.header(format: 0, tracks: 2), "a format 0 file has one track; the header declares 2 (byte 10)"),
            (W.header(tracks: 1, division: 0), "division of 0 ticks per quarter note (byte 12)"),
            (W.header(tracks: 2) + W.track([]), "the header declares 2 tracks; the file ends after 1 (byte 26)"),
            (
                W.header(tracks: 1) + Array("MTrk".utf8) + [0xFF, 0xFF, 0xFF, 0xFF, 0, 0xFF, 0x2F, 0],
                "the chunk declares 4294967295 bytes but 4 remain in the file (byte 18)"
            ),
            (W.header(tracks: 1) + W.track([(0x0FFF_FFFF, [0x90, 60, 100])]), nil),  // the longest delta time
            (W.header(tracks: 1) + W.track([(0, [0x90, 60, 100])], end: false), nil),  // no end of track: tolerated
            (
                W.header(tracks: 1) + Array("MTrk".utf8) + [0, 0, 0, 5, 0xFF, 0xFF, 0xFF, 0xFF, 0x7F],
                "a delta time longer than 4 bytes in track 1 (byte 22)"
            ),
            (
                W.header(tracks: 1) + W.track([(0, [60, 100])]),
                "track 1: data byte 0x3C with no status byte before it (byte 23)"
            ),
            (
                W.header(tracks: 1) + W.track([(0, [0x90, 60, 0x90])]),
                "track 1: byte 0x90 where a data byte (below 0x80) belongs (byte 25)"
            ),
            (
                W.header(tracks: 1) + W.track([(0, [0xF3, 1])]),
                "track 1: status byte 0xF3 cannot appear in a MIDI file (byte 23)"
            ),
            (
                W.header(tracks: 1) + W.track([(0, [0xFF, 0x01, 0x8F, 0xFF, 0xFF, 0x7F])]),
                "track 1: a meta event declares 33554431 bytes but 4 remain in the track (byte 23)"
            ),
            (
                W.header(tracks: 1) + W.track([(0, [0xFF, 0x51, 0x02, 0x07, 0xA1])]),
                "track 1: a tempo event of 2 bytes (SMF: 3) (byte 23)"
            ),
            (
                W.header(tracks: 1) + Array("MTrk".utf8) + [0, 0, 0, 2, 0, 0x90],
                "track 1 ends inside a channel event (byte 23)"
            ),
        ] as [([UInt8], String?)])
    func badFilesSayWhatAndWhere(bytes: [UInt8], message: String?) {
        do {
            let midi = try MIDIFile.decode(bytes)
            #expect(message == nil, "decoded \(midi.tracks.map(\.notes.count)) notes; expected: \(message ?? "")")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func tooManyNotesIsAnErrorNotUnboundedMemory() {
        var events: [(Int, [UInt8])] = []
        for _ in 0..<20 { events += [(1, [0x90, 60, 100]), (1, [0x80, 60, 0])] }
        let bytes = W.header(tracks: 1) + W.track(events)
        #expect(throws: MIDIFileError(.limitExceeded, at: 103, "more than 10 notes (MIDILimits.maxNotes)")) {
            try MIDIFile.decode(bytes, limits: MIDILimits(maxNotes: 10))
        }
    }

    /// 20,000 mutations of a valid file (bytes flipped, cut, lengths changed): each decodes or
    /// throws, and the pattern it makes stays within Core Haptics' limits.
    @Test func mutatedFilesDecodeOrThrow() {
        var random = SplitMix64(seed: 30)
        let valid = Self.tempoChange
        for _ in 0..<20_000 {
            var bytes = valid
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                switch Int.random(in: 0..<3, using: &random) {
                case 0:
                    bytes[Int.random(in: 0..<bytes.count, using: &random)] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.removeLast(Int.random(in: 0..<bytes.count, using: &random))
                default:
                    bytes.insert(
                        UInt8.random(in: 0...255, using: &random), at: Int.random(in: 0...bytes.count, using: &random))
                }
                if bytes.isEmpty { bytes = [0] }
            }
            guard let midi = try? MIDIFile.decode(bytes) else { continue }
            let pattern = midi.hapticPattern().pattern
            #expect(pattern.events.count <= AHAPLimits.default.maxEvents)
            #expect(pattern.parameterCurves.allSatisfy { $0.controlPoints.count <= 16 })
        }
    }
}
