/// A Standard MIDI File (format 0 or 1) read as the notes it plays, each with its time in
/// seconds from the tempo map.
///
/// What is read: the header (format, track count, division in ticks per quarter note or SMPTE
/// frames), every `MTrk` chunk (other chunks are skipped, as the SMF specification asks), channel
/// messages with running status, tempo changes (`FF 51`) and end of track (`FF 2F`). System
/// exclusive and other meta events are skipped. A note-on with velocity 0 is a note-off; a
/// note-on for a key that is already down ends the earlier note there; a note still down at the
/// end of its track ends with the track. Format 1 tempo changes apply to every track, wherever
/// they are written. Format 2 (independent sequences, no shared time line) is refused.
///
/// Bad input is a ``MIDIFileError`` naming the byte offset, never a crash: reading is one pass
/// over the bytes, and memory is bounded by ``MIDILimits``.
///
/// ```swift
/// let midi = try MIDIFile.decode(bytes)
/// for note in midi.tracks[0].notes { print(note.key, note.start, note.end) }
/// ```
public struct MIDIFile: Hashable, Sendable {
    /// 0 (one track) or 1 (simultaneous tracks).
    public var format: Int
    public var division: Division
    /// The `MTrk` chunks in file order.
    public var tracks: [Track]
    /// Every tempo change, in tick order (for equal ticks, file order: the last one is in force).
    public var tempoChanges: [TempoChange]

    /// How ticks become time.
    public enum Division: Hashable, Sendable {
        /// Ticks per quarter note; the tempo map gives a quarter note's length.
        case ticksPerQuarterNote(Int)
        /// SMPTE frames per second (24, 25, 29.97 or 30) and ticks per frame; tempo is ignored.
        case smpte(framesPerSecond: Double, ticksPerFrame: Int)
    }

    public struct Track: Hashable, Sendable {
        /// The notes in order of their start (for equal starts, the order of their note-ons).
        public var notes: [Note]
        /// The tick of the track's last event (its end of track).
        public var endTick: Int

        public init(notes: [Note] = [], endTick: Int = 0) {
            self.notes = notes
            self.endTick = endTick
        }
    }

    /// One note, from its note-on to its note-off.
    public struct Note: Hashable, Sendable {
        /// 0...15 (MIDI channel 1 is 0; General MIDI drums are on 9).
        public var channel: Int
        /// 0...127 (60 is middle C).
        public var key: Int
        /// The note-on velocity, 1...127.
        public var velocity: Int
        public var startTick: Int
        public var endTick: Int
        /// Seconds from the start of the file.
        public var start: Double
        public var end: Double

        public init(
            channel: Int, key: Int, velocity: Int, startTick: Int, endTick: Int, start: Double = 0, end: Double = 0
        ) {
            self.channel = channel
            self.key = key
            self.velocity = velocity
            self.startTick = startTick
            self.endTick = endTick
            self.start = start
            self.end = end
        }

        public var duration: Double { end - start }
    }

    public struct TempoChange: Hashable, Sendable {
        public var tick: Int
        /// Microseconds per quarter note (500,000 is 120 bpm, the default before the first change).
        public var microsecondsPerQuarterNote: Int

        public init(tick: Int, microsecondsPerQuarterNote: Int) {
            self.tick = tick
            self.microsecondsPerQuarterNote = microsecondsPerQuarterNote
        }
    }

    /// Whether `bytes` start as a Standard MIDI File does ("MThd").
    public static func isMIDI(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.starts(with: [0x4D, 0x54, 0x68, 0x64])
    }

    /// Reads a Standard MIDI File.
    public static func decode(_ bytes: [UInt8], limits: MIDILimits = .default) throws(MIDIFileError) -> MIDIFile {
        var reader = MIDIReader(bytes: bytes, limits: limits)
        return try reader.file()
    }

    /// Seconds from the start of the file at `tick`, from the division and the tempo map.
    public func seconds(atTick tick: Int) -> Double {
        TempoMap(division: division, changes: tempoChanges).seconds(atTick: tick)
    }
}

/// The bounds that keep a hostile MIDI file's cost in proportion to its size.
public struct MIDILimits: Hashable, Sendable {
    /// The largest file accepted, in bytes (16 MiB); callers should check the size before reading.
    public var maxFileBytes: Int
    /// The most notes kept, over all tracks (1,000,000).
    public var maxNotes: Int

    public init(maxFileBytes: Int = 16 << 20, maxNotes: Int = 1_000_000) {
        self.maxFileBytes = maxFileBytes
        self.maxNotes = maxNotes
    }

    public static let `default` = MIDILimits()
}

/// Why a MIDI file cannot be read: what is wrong and the byte offset where it was found.
/// Prints as `MESSAGE (byte N)`.
public struct MIDIFileError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: String, Hashable, Sendable {
        /// The file does not start with an `MThd` chunk.
        case notMIDI = "not-midi"
        /// Format 2, or a format number SMF does not define.
        case unsupportedFormat = "unsupported-format"
        /// The file or a chunk ends inside something it declared.
        case truncated
        /// A field holds a value SMF does not allow (a chunk length, a division, a tempo, a track count).
        case invalidValue = "invalid-value"
        /// An event that cannot be read (no status, a bad data byte, a status not allowed in a file).
        case invalidEvent = "invalid-event"
        /// More than ``MIDILimits`` allows.
        case limitExceeded = "limit-exceeded"
    }

    public var kind: Kind
    /// Where in the file, from 0.
    public var offset: Int
    public var message: String

    public init(_ kind: Kind, at offset: Int, _ message: String) {
        self.kind = kind
        self.offset = offset
        self.message = message
    }

    public var description: String { "\(message) (byte \(offset))" }
}

/// Tick to seconds: a list of segments, each starting at a tempo change.
struct TempoMap {
    /// (tick, seconds at that tick, seconds per tick from there on), ascending ticks.
    private var segments: [(tick: Int, seconds: Double, perTick: Double)]

    init(division: MIDIFile.Division, changes: [MIDIFile.TempoChange]) {
        switch division {
        case .smpte(let fps, let ticksPerFrame):
            segments = [(0, 0, 1 / (fps * Double(ticksPerFrame)))]
        case .ticksPerQuarterNote(let ticks):
            let quarter = Double(ticks)
            var segments: [(tick: Int, seconds: Double, perTick: Double)] = [(0, 0, 0.5 / quarter)]
            for change in changes {
                let last = segments[segments.count - 1]
                let perTick = Double(change.microsecondsPerQuarterNote) / 1_000_000 / quarter
                if change.tick == last.tick {
                    segments[segments.count - 1].perTick = perTick
                } else {
                    let seconds = last.seconds + Double(change.tick - last.tick) * last.perTick
                    segments.append((change.tick, seconds, perTick))
                }
            }
            self.segments = segments
        }
    }

    func seconds(atTick tick: Int) -> Double {
        // The last segment starting at or before `tick`.
        var low = 0
        var high = segments.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if segments[mid].tick <= tick { low = mid } else { high = mid - 1 }
        }
        let s = segments[low]
        return s.seconds + Double(tick - s.tick) * s.perTick
    }
}

/// One pass over the bytes of a Standard MIDI File.
struct MIDIReader {
    let bytes: [UInt8]
    let limits: MIDILimits
    var noteCount = 0

    init(bytes: [UInt8], limits: MIDILimits) {
        self.bytes = bytes
        self.limits = limits
    }

    func uint32(at offset: Int) -> Int {
        Int(bytes[offset]) << 24 | Int(bytes[offset + 1]) << 16 | Int(bytes[offset + 2]) << 8 | Int(bytes[offset + 3])
    }

    func uint16(at offset: Int) -> Int { Int(bytes[offset]) << 8 | Int(bytes[offset + 1]) }

    mutating func file() throws(MIDIFileError) -> MIDIFile {
        guard bytes.count <= limits.maxFileBytes else {
            throw MIDIFileError(
                .limitExceeded, at: 0, "the file is \(bytes.count) bytes; the limit is \(limits.maxFileBytes)")
        }
        guard MIDIFile.isMIDI(bytes) else {
            throw MIDIFileError(.notMIDI, at: 0, "not a MIDI file: it does not start with \"MThd\"")
        }
        guard bytes.count >= 8 else { throw MIDIFileError(.truncated, at: 4, "the file ends inside its header") }
        let headerLength = uint32(at: 4)
        guard headerLength >= 6 else {
            throw MIDIFileError(.invalidValue, at: 4, "the header chunk is \(headerLength) bytes long; SMF needs 6")
        }
        guard headerLength <= bytes.count - 8 else {
            throw MIDIFileError(
                .truncated, at: 4,
                "the header chunk declares \(headerLength) bytes but \(bytes.count - 8) follow")
        }
        let format = uint16(at: 8)
        let declaredTracks = uint16(at: 10)
        let rawDivision = uint16(at: 12)
        switch format {
        case 0, 1: break
        case 2:
            throw MIDIFileError(
                .unsupportedFormat, at: 8,
                "format 2 (independent sequences) is not supported; save the file as format 0 or 1")
        default:
            throw MIDIFileError(.unsupportedFormat, at: 8, "format \(format) is not a MIDI file format (0, 1 or 2)")
        }
        guard declaredTracks > 0 else { throw MIDIFileError(.invalidValue, at: 10, "the header declares 0 tracks") }
        if format == 0, declaredTracks != 1 {
            throw MIDIFileError(
                .invalidValue, at: 10, "a format 0 file has one track; the header declares \(declaredTracks)")
        }
        let division: MIDIFile.Division
        if rawDivision & 0x8000 != 0 {
            let frames = -Int(Int8(bitPattern: UInt8(rawDivision >> 8)))
            let ticksPerFrame = rawDivision & 0xFF
            let fps: Double
            switch frames {
            case 24, 25, 30: fps = Double(frames)
            case 29: fps = 30_000.0 / 1001.0
            default:
                throw MIDIFileError(
                    .invalidValue, at: 12, "SMPTE division of \(frames) frames a second; SMF allows 24, 25, 29 or 30")
            }
            guard ticksPerFrame > 0 else {
                throw MIDIFileError(.invalidValue, at: 13, "SMPTE division of 0 ticks a frame")
            }
            division = .smpte(framesPerSecond: fps, ticksPerFrame: ticksPerFrame)
        } else {
            guard rawDivision > 0 else {
                throw MIDIFileError(.invalidValue, at: 12, "division of 0 ticks per quarter note")
            }
            division = .ticksPerQuarterNote(rawDivision)
        }

        var tracks: [MIDIFile.Track] = []
        var tempo: [(change: MIDIFile.TempoChange, track: Int, order: Int)] = []
        var position = 8 + headerLength
        while tracks.count < declaredTracks {
            guard position < bytes.count else {
                throw MIDIFileError(
                    .truncated, at: position,
                    "the header declares \(declaredTracks) tracks; the file ends after \(tracks.count)")
            }
            guard bytes.count - position >= 8 else {
                throw MIDIFileError(.truncated, at: position, "the file ends inside a chunk header")
            }
            let length = uint32(at: position + 4)
            let body = position + 8
            guard length <= bytes.count - body else {
                throw MIDIFileError(
                    .truncated, at: position + 4,
                    "the chunk declares \(length) bytes but \(bytes.count - body) remain in the file")
            }
            if bytes[position..<position + 4].elementsEqual([0x4D, 0x54, 0x72, 0x6B]) {  // "MTrk"
                let number = tracks.count
                let track = try self.track(from: body, to: body + length, number: number + 1) {
                    tempo.append(($0, number, tempo.count))
                }
                tracks.append(track)
            }
            position = body + length
        }
        // Tempo changes apply to every track: in tick order, equal ticks in file order.
        tempo.sort { ($0.change.tick, $0.order) < ($1.change.tick, $1.order) }
        let changes = tempo.map(\.change)
        let map = TempoMap(division: division, changes: changes)
        for t in tracks.indices {
            for n in tracks[t].notes.indices {
                tracks[t].notes[n].start = map.seconds(atTick: tracks[t].notes[n].startTick)
                tracks[t].notes[n].end = map.seconds(atTick: tracks[t].notes[n].endTick)
            }
        }
        return MIDIFile(format: format, division: division, tracks: tracks, tempoChanges: changes)
    }

    /// A variable-length quantity at `position` (at most 4 bytes, as SMF allows), not past `end`.
    func quantity(at position: inout Int, end: Int, track: Int, what: String) throws(MIDIFileError) -> Int {
        let start = position
        var value = 0
        for _ in 0..<4 {
            guard position < end else {
                throw MIDIFileError(.truncated, at: start, "track \(track) ends inside a \(what)")
            }
            let byte = bytes[position]
            position += 1
            value = value << 7 | Int(byte & 0x7F)
            if byte & 0x80 == 0 { return value }
        }
        throw MIDIFileError(.invalidValue, at: start, "a \(what) longer than 4 bytes in track \(track)")
    }

    mutating func track(
        from start: Int, to end: Int, number: Int, tempo: (MIDIFile.TempoChange) -> Void
    ) throws(MIDIFileError) -> MIDIFile.Track {
        var notes: [MIDIFile.Note] = []
        // The note down on each channel and key, as an index into `notes`, or -1.
        var down = [Int](repeating: -1, count: 16 * 128)
        var position = start
        var tick = 0
        var running: UInt8?
        func release(_ slot: Int, at tick: Int) {
            if down[slot] >= 0 {
                notes[down[slot]].endTick = tick
                down[slot] = -1
            }
        }
        events: while position < end {
            tick += try quantity(at: &position, end: end, track: number, what: "delta time")
            guard position < end else {
                throw MIDIFileError(
                    .truncated, at: position, "track \(number) ends after a delta time, before its event")
            }
            let eventStart = position
            var status = bytes[position]
            if status & 0x80 != 0 {
                position += 1
                if status < 0xF0 { running = status }
            } else {
                guard let running else {
                    throw MIDIFileError(
                        .invalidEvent, at: position,
                        "track \(number): data byte 0x\(hex(status)) with no status byte before it")
                }
                status = running
            }
            switch status {
            case 0xFF:
                guard position < end else {
                    throw MIDIFileError(.truncated, at: eventStart, "track \(number) ends inside a meta event")
                }
                let type = bytes[position]
                position += 1
                let length = try quantity(at: &position, end: end, track: number, what: "meta event length")
                guard length <= end - position else {
                    throw MIDIFileError(
                        .truncated, at: eventStart,
                        "track \(number): a meta event declares \(length) bytes but \(end - position) remain in the track"
                    )
                }
                if type == 0x2F { break events }
                if type == 0x51 {
                    guard length == 3 else {
                        throw MIDIFileError(
                            .invalidValue, at: eventStart, "track \(number): a tempo event of \(length) bytes (SMF: 3)")
                    }
                    let micros = Int(bytes[position]) << 16 | Int(bytes[position + 1]) << 8 | Int(bytes[position + 2])
                    guard micros > 0 else {
                        throw MIDIFileError(.invalidValue, at: eventStart, "track \(number): a tempo of 0 µs a beat")
                    }
                    tempo(MIDIFile.TempoChange(tick: tick, microsecondsPerQuarterNote: micros))
                }
                position += length
            case 0xF0, 0xF7:
                let length = try quantity(at: &position, end: end, track: number, what: "system exclusive length")
                guard length <= end - position else {
                    throw MIDIFileError(
                        .truncated, at: eventStart,
                        "track \(number): a system exclusive event declares \(length) bytes but \(end - position) remain in the track"
                    )
                }
                position += length
            case 0xF1...0xFE:
                throw MIDIFileError(
                    .invalidEvent, at: eventStart,
                    "track \(number): status byte 0x\(hex(status)) cannot appear in a MIDI file")
            default:
                let kind = status & 0xF0
                let count = kind == 0xC0 || kind == 0xD0 ? 1 : 2
                guard end - position >= count else {
                    throw MIDIFileError(.truncated, at: eventStart, "track \(number) ends inside a channel event")
                }
                for i in 0..<count where bytes[position + i] & 0x80 != 0 {
                    throw MIDIFileError(
                        .invalidEvent, at: position + i,
                        "track \(number): byte 0x\(hex(bytes[position + i])) where a data byte (below 0x80) belongs")
                }
                let channel = Int(status & 0x0F)
                if kind == 0x80 || kind == 0x90 {
                    let key = Int(bytes[position])
                    let velocity = Int(bytes[position + 1])
                    let slot = channel << 7 | key
                    release(slot, at: tick)
                    if kind == 0x90, velocity > 0 {
                        guard noteCount < limits.maxNotes else {
                            throw MIDIFileError(
                                .limitExceeded, at: eventStart,
                                "more than \(limits.maxNotes) notes (MIDILimits.maxNotes)")
                        }
                        noteCount += 1
                        down[slot] = notes.count
                        notes.append(
                            MIDIFile.Note(
                                channel: channel, key: key, velocity: velocity, startTick: tick, endTick: tick))
                    }
                }
                position += count
            }
        }
        for slot in down.indices { release(slot, at: tick) }
        return MIDIFile.Track(notes: notes, endTick: tick)
    }
}

private func hex(_ byte: UInt8) -> String {
    let digits = Array("0123456789ABCDEF")
    return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
}
