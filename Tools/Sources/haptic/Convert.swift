import ArgumentParser
import Foundation
import HapticsCore
@_spi(Tooling) import HapticsEngine
import HapticsSynthesis

extension HapticCommand {
    struct Convert: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "convert",
            abstract:
                "Convert a pattern between AHAP and Meta/Lofelt .haptic, saying what the conversion loses, or audio to a pattern.",
            discussion: """
                The target format is --to, else the output's extension (.ahap, .haptic). What the \
                conversion cannot carry over is printed on standard error, one line per kind of loss \
                (--json: as JSON on standard output). docs/formats.md has the mapping, and how a \
                MIDI file (.mid) becomes a pattern.
                """)

        enum Target: String, ExpressibleByArgument, CaseIterable {
            case ahap, haptic, android
        }

        @Argument(help: "The pattern to convert: AHAP or .haptic; or audio: WAV, FLAC, Ogg Vorbis/Opus, MP3.")
        var input: String

        @Option(name: [.short, .customLong("output")], help: "The file to write; - for standard output.")
        var output: String

        @Option(help: "The format to write: ahap, haptic or android (default: from the output's extension).")
        var to: Target?

        @Flag(help: "With --to android: write a Kotlin snippet instead of JSON.")
        var kotlin = false

        @Flag(
            help:
                "Render the original and the written file, each as its own format plays it, and print how close they are: envelope correlation, onsets, emphases, loudness."
        )
        var check = false

        @Flag(help: "Print the report of what was lost as JSON on standard output.")
        var json = false

        @OptionGroup(title: "MIDI input") var midi: MIDIConvertOptions

        @OptionGroup var waveforms: WaveformOptions

        @OptionGroup(title: "Audio input (WAV, FLAC, Ogg Vorbis/Opus, MP3)") var audio: AudioConvertOptions

        func validate() throws {
            guard target != nil else {
                throw ValidationError(
                    "cannot tell the format to write from '\(output)'; give --to ahap, --to haptic or --to android")
            }
            if kotlin, target != .android { throw ValidationError("--kotlin goes with --to android") }
            if json, output == "-" { throw ValidationError("--json prints on standard output; give -o FILE") }
            if midi.given, !MIDIInput.isMIDI(input) {
                throw ValidationError("--track and --channel are for MIDI input")
            }
        }

        /// Writes a conversion to `output` (standard output for `-`), atomically: every input
        /// kind (a pattern, MIDI, audio) ends here.
        func write(_ conversion: PatternConversion) throws {
            if output == "-" {
                FileHandle.standardOutput.write(Data(conversion.bytes))
                return
            }
            do {
                try writeAtomically(conversion.bytes, to: output)
            } catch {
                throw Terminal.failure("cannot write '\(output)': \(error.errno)")
            }
        }

        /// With `--check`: the original as its format plays it against the file written, read
        /// back from disk (standard output: from the bytes written) and played as its own format
        /// plays it, so what the user gets is what is measured.
        func measure(_ file: PatternFile, _ conversion: PatternConversion) throws -> ConversionCheck? {
            guard check else { return nil }
            let written: PatternConversion.Converted
            do {
                written = try conversion.readBack(from: output == "-" ? nil : output)
            } catch {
                throw Terminal.failure("cannot check '\(output)': \(error.description)")
            }
            return try Terminal.frames(in: input) { () throws(FrameRangeError) in
                try conversion.check(file, against: written)
            }
        }

        var target: Target? {
            if let to { return to }
            let ext = URL(filePath: output).pathExtension.lowercased()
            return Target(rawValue: ext)
        }

        func run() throws {
            if MIDIInput.isMIDI(input) { return try runMIDI() }
            if AudioInput.isAudio(input) { return try runAudio() }
            let file = try Terminal.load(input, waveforms: waveforms)
            Terminal.report(file.diagnostics, in: file.path)
            let conversion = PatternConversion(file, to: target ?? .ahap, kotlin: kotlin)
            try write(conversion)
            let measured = try measure(file, conversion)
            if json {
                print(conversion.json(check: measured))
            } else {
                for loss in conversion.losses { Terminal.printError("\(input): lost: \(loss)") }
                if let measured { Terminal.printError("\(input): check: \(measured.summary)") }
            }
        }
    }
}

/// One conversion: the bytes written and what they lose.
struct PatternConversion {
    var bytes: [UInt8]
    /// Android's waveform as the pattern it plays (for --check): Android's JSON and Kotlin have
    /// no reader here, so the effect written is played as it was built.
    var android: HapticPattern?
    var losses: [ConversionLoss]
    var from: String
    var to: String

    init(_ file: PatternFile, to target: HapticCommand.Convert.Target, kotlin: Bool = false) {
        from = file.format
        self.to = target.rawValue
        var losses: [ConversionLoss] = []
        switch target {
        case .ahap:
            if let clip = file.clip { losses = clip.ahapLosses }
            bytes = AHAP.encode(file.pattern)
        case .haptic:
            let clip = file.clip ?? HapticClip(pattern: file.pattern, losses: &losses)
            bytes = HapticClip.encode(clip)
        case .android:
            let effect = AndroidVibration(file.pattern)
            losses = AndroidVibration.losses(of: file.pattern, as: effect)
            bytes = Array((kotlin ? effect.kotlin : effect.json).utf8)
            android = effect.pattern
        }
        self.losses = losses
    }

    /// What was written, to be played by its own format's semantics.
    enum Converted {
        /// An AHAP, or Android's waveform as the pattern it plays: Core Haptics' semantics.
        case pattern(HapticPattern)
        /// A Meta/Lofelt clip: Meta's and Lofelt's players' semantics.
        case clip(HapticClip)
    }

    /// The file written, read back from `path` (nil: from `bytes`) by its own format's reader.
    ///
    /// - Throws: `AHAPError` naming `path` when it cannot be read or no longer decodes.
    func readBack(from path: String?) throws(AHAPError) -> Converted {
        if let android { return .pattern(android) }
        let name = path ?? "standard output"
        // The file just written may be larger than an input may be: a legal hour-long clip
        // becomes about 50 MB of AHAP. The size limit guards against hostile input, not this.
        var limits = AHAPLimits.default
        limits.maxFileBytes = max(limits.maxFileBytes, bytes.count)
        let written =
            try path.map { (path) throws(AHAPError) in
                try PatternFile.readFile(path, limit: limits.maxFileBytes, what: "\(to) file", file: path, at: .root)
            } ?? bytes
        if to == "haptic" { return .clip(try HapticClip.decode(written, file: name, limits: limits).clip) }
        return .pattern(try AHAP.decode(written, file: name, limits: limits).pattern)
    }

    /// The original as its format plays it against the written file as its format plays it,
    /// each rendered independently (docs/formats.md).
    func check(_ file: PatternFile, against converted: Converted) throws(FrameRangeError) -> ConversionCheck {
        switch (file.clip, converted) {
        case (let clip?, .pattern(let pattern)): try ConversionCheck(clip: clip, converted: pattern)
        case (let clip?, .clip(let back)): try ConversionCheck(clip: clip, converted: back)
        case (nil, .pattern(let pattern)): try ConversionCheck(original: file.pattern, converted: pattern)
        case (nil, .clip(let back)): try ConversionCheck(original: file.pattern, clip: back)
        }
    }

    func json(check: ConversionCheck?) -> String {
        struct Check: Encodable {
            var envelopeCorrelation: Double?
            var originalEnvelopeSpread: Double?
            var envelopeLevelDifferenceDB: Double?
            var envelopeKept: Bool
            var originalOnsets: Int
            var convertedOnsets: Int
            var maxOnsetShiftMilliseconds: Double?
            var onsetsLost: Int
            var onsetsAdded: Int
            var loudnessDifferenceDB: Double?
            var lengthDifferenceMilliseconds: Double
            var emphases: Int
            var emphasesKept: Int
        }
        struct Report: Encodable {
            struct Loss: Encodable {
                var kind: String
                var count: Int
                var message: String
            }
            var from: String
            var to: String
            var losses: [Loss]
            var check: Check?
        }
        let measured = check.map {
            Check(
                envelopeCorrelation: $0.envelopeCorrelation, originalEnvelopeSpread: $0.originalEnvelopeSpread,
                envelopeLevelDifferenceDB: $0.envelopeLevelDifferenceDB, envelopeKept: $0.envelopeKept,
                originalOnsets: $0.originalOnsets,
                convertedOnsets: $0.convertedOnsets, maxOnsetShiftMilliseconds: $0.maxOnsetShiftMilliseconds,
                onsetsLost: $0.onsetsLost, onsetsAdded: $0.onsetsAdded,
                loudnessDifferenceDB: $0.loudnessDifferenceDB.isFinite ? $0.loudnessDifferenceDB : nil,
                lengthDifferenceMilliseconds: $0.lengthDifferenceMilliseconds, emphases: $0.emphases,
                emphasesKept: $0.emphasesKept)
        }
        let report = Report(
            from: from, to: to, losses: losses.map { .init(kind: $0.kind, count: $0.count, message: $0.message) },
            check: measured)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(report)) ?? Data(), as: UTF8.self)
    }
}
