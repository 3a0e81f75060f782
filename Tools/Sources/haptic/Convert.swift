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
                "Render the original and the converted pattern and print how close they are: envelope correlation, onsets, loudness."
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

        /// With `--check`: the original and the converted pattern rendered and compared.
        func measure(_ file: PatternFile, _ conversion: PatternConversion) throws -> ConversionCheck? {
            guard check else { return nil }
            return try Terminal.frames(in: input) { () throws(FrameRangeError) in
                try ConversionCheck(original: file.pattern, converted: conversion.converted)
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
    /// The written pattern as it plays (for --check).
    var converted: HapticPattern
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
            converted = file.pattern
        case .haptic:
            let clip = file.clip ?? HapticClip(pattern: file.pattern, losses: &losses)
            bytes = HapticClip.encode(clip)
            converted = clip.pattern
        case .android:
            let effect = AndroidVibration(file.pattern)
            losses = AndroidVibration.losses(of: file.pattern, as: effect)
            bytes = Array((kotlin ? effect.kotlin : effect.json).utf8)
            converted = effect.pattern
        }
        self.losses = losses
    }

    func json(check: ConversionCheck?) -> String {
        struct Check: Encodable {
            var envelopeCorrelation: Double?
            var originalOnsets: Int
            var convertedOnsets: Int
            var maxOnsetShiftMilliseconds: Double?
            var loudnessDifferenceDB: Double?
            var lengthDifferenceMilliseconds: Double
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
                envelopeCorrelation: $0.envelopeCorrelation, originalOnsets: $0.originalOnsets,
                convertedOnsets: $0.convertedOnsets, maxOnsetShiftMilliseconds: $0.maxOnsetShiftMilliseconds,
                loudnessDifferenceDB: $0.loudnessDifferenceDB.isFinite ? $0.loudnessDifferenceDB : nil,
                lengthDifferenceMilliseconds: $0.lengthDifferenceMilliseconds)
        }
        let report = Report(
            from: from, to: to, losses: losses.map { .init(kind: $0.kind, count: $0.count, message: $0.message) },
            check: measured)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(report)) ?? Data(), as: UTF8.self)
    }
}
