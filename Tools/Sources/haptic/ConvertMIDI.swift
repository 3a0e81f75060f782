import ArgumentParser
import Foundation
import HapticsCore
@_spi(Tooling) import HapticsEngine
import HapticsSynthesis

/// `haptic convert`'s options for MIDI input (docs/formats.md); refused for other input.
struct MIDIConvertOptions: ParsableArguments {
    @Option(help: ArgumentHelp("MIDI input: only this track, counted from 1.", valueName: "N"))
    var track: Int?

    @Option(help: ArgumentHelp("MIDI input: only this channel, 1-16 (10: General MIDI drums).", valueName: "N"))
    var channel: Int?

    func validate() throws {
        if let track, track < 1 { throw ValidationError("--track counts from 1 (got \(track))") }
        if let channel, !(1...16).contains(channel) {
            throw ValidationError("--channel is 1 to 16 (got \(channel))")
        }
    }

    var given: Bool { track != nil || channel != nil }
}

enum MIDIInput {
    static let extensions: Set<String> = ["mid", "midi", "smf", "kar"]

    /// Whether `path` is a MIDI file: its first bytes say so ("MThd"), or its extension does (so a
    /// broken `groove.mid` gets a MIDI error, not a JSON one).
    static func isMIDI(_ path: String) -> Bool {
        if extensions.contains(URL(filePath: path).pathExtension.lowercased()) { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        return MIDIFile.isMIDI((try? handle.read(upToCount: 4)) ?? Data())
    }
}

extension HapticCommand.Convert {
    /// `haptic convert IN.mid -o OUT`: note-ons become transients, held notes continuous events.
    func runMIDI() throws {
        let limits = MIDILimits.default
        let bytes: [UInt8]
        do {
            bytes = try PatternFile.readFile(
                input, limit: limits.maxFileBytes, what: "MIDI file", file: input, at: .root)
        } catch {
            throw Terminal.failure(located: error.description)
        }
        let song: MIDIFile
        do {
            song = try MIDIFile.decode(bytes, limits: limits)
        } catch {
            throw Terminal.failure(located: "\(input): error[midi-\(error.kind.rawValue)]: \(error)")
        }
        if let track = midi.track, track > song.tracks.count {
            throw Terminal.failure("\(input) has \(song.tracks.count) tracks; there is no track \(track)", status: 64)
        }
        let options = MIDIHapticsOptions(track: midi.track, channel: midi.channel)
        let result = song.hapticPattern(options)
        guard result.notes > 0 else { throw Terminal.failure("\(input): \(Self.noNotes(in: song, options))") }
        let file = PatternFile(path: input, pattern: result.pattern)
        var conversion = PatternConversion(file, to: target ?? .ahap, kotlin: kotlin)
        conversion.from = "midi"
        try write(conversion)
        let measured = try measure(file, conversion)
        if json {
            print(conversion.json(check: measured))
            return
        }
        if result.droppedNotes > 0 {
            Terminal.printError(
                "\(input): lost: \(result.droppedNotes) notes after an hour or past \(AHAPLimits.default.maxEvents) events"
            )
        }
        if result.shortenedHeldNotes > 0 {
            Terminal.printError(
                "\(input): lost: \(result.shortenedHeldNotes) held notes cut to 30 s (Core Haptics' longest continuous event)"
            )
        }
        for loss in conversion.losses { Terminal.printError("\(input): lost: \(loss)") }
        if let measured { Terminal.printError("\(input): check: \(measured.summary)") }
        let events = result.pattern.events
        let transients = events.count { $0.type == .hapticTransient }
        let continuous = events.count { $0.type == .hapticContinuous }
        Terminal.printError(
            "\(input): \(transients) transients, \(continuous) continuous events from \(result.notes) notes")
    }

    /// Why the selection has no notes, and where the notes are.
    static func noNotes(in midi: MIDIFile, _ options: MIDIHapticsOptions) -> String {
        let all = midi.tracks.flatMap(\.notes)
        guard !all.isEmpty else { return "the file has no notes" }
        let channels = Set(all.map { $0.channel + 1 }).sorted().map(String.init).joined(separator: ", ")
        let tracks = midi.tracks.indices.filter { !midi.tracks[$0].notes.isEmpty }.map { String($0 + 1) }
            .joined(separator: ", ")
        var selection: [String] = []
        if let track = options.track { selection.append("track \(track)") }
        if let channel = options.channel { selection.append("channel \(channel)") }
        return "no notes on \(selection.joined(separator: ", ")) (notes are on tracks \(tracks); channels \(channels))"
    }
}
