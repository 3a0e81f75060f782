import ArgumentParser
import Foundation
import HapticsAudioAnalysis
import HapticsCore
@_spi(Tooling) import HapticsEngine

/// The analysis options for audio input that `haptic convert` and `haptic play` share
/// (docs/audio-to-haptics.md); ignored for patterns.
struct AudioAnalysisOptions: ParsableArguments {
    @Option(help: ArgumentHelp("Audio input: decibels added before loudness becomes intensity.", valueName: "dB"))
    var gain: Double = AudioHapticsOptions().gain

    @Option(help: "Audio input: how closely curves follow the sound, 0...1 (1: every 10 ms).")
    var resolution: Double = AudioHapticsOptions().resolution

    @Option(help: "Audio input: how readily a change counts as an onset, 0...1.")
    var sensitivity: Double = AudioHapticsOptions().sensitivity

    @Flag(help: "Audio input: write transients only.")
    var transientsOnly = false

    @Flag(help: "Audio input: write continuous events only.")
    var continuousOnly = false

    @Option(help: ArgumentHelp("Audio input: the shortest gap between transients.", valueName: "seconds"))
    var minGap: Double = AudioHapticsOptions().minimumGap

    @Option(
        help: ArgumentHelp("Audio input: analyse only this band, e.g. 40-200 for music's low end.", valueName: "LO-HI"))
    var band: String?

    @Option(help: "Audio input: the most events in any one second.")
    var maxEventsPerSecond: Int = AudioHapticsOptions().maxEventsPerSecond

    /// The library's options, or the message naming the bad one.
    func options() throws(ValidationError) -> AudioHapticsOptions {
        var options = AudioHapticsOptions()
        options.gain = gain
        options.resolution = resolution
        options.sensitivity = sensitivity
        if transientsOnly, continuousOnly {
            throw ValidationError("--transients-only and --continuous-only exclude each other")
        }
        options.content = transientsOnly ? .transientsOnly : continuousOnly ? .continuousOnly : .both
        options.minimumGap = minGap
        if let band {
            let parts = band.split(separator: "-", omittingEmptySubsequences: false)
            guard parts.count == 2, let low = Double(parts[0]), let high = Double(parts[1]) else {
                throw ValidationError("--band must be LO-HI in Hz, e.g. 40-200 (got '\(band)')")
            }
            options.band = .init(low: low, high: high)
        }
        options.maxEventsPerSecond = maxEventsPerSecond
        if let problem = options.problem { throw ValidationError(problem) }
        return options
    }
}

/// `haptic convert`'s options for audio input: the analysis, and `--with-audio`.
struct AudioConvertOptions: ParsableArguments {
    @OptionGroup var analysis: AudioAnalysisOptions

    @Flag(help: "Audio input: add an AudioCustom event playing the source, so sound and haptics play together.")
    var withAudio = false

    /// The library's options, or the message naming the bad one.
    func options(input: String, output: String) throws(ValidationError) -> AudioHapticsOptions {
        var options = try analysis.options()
        if withAudio { options.audioPath = Self.relativePath(of: input, from: output) }
        return options
    }

    /// `input` as a path relative to the folder of `output` (AHAP resolves waveforms that way).
    static func relativePath(of input: String, from output: String) -> String {
        guard output != "-" else { return input }
        let target = URL(filePath: input).standardizedFileURL.pathComponents
        let base = URL(filePath: output).standardizedFileURL.deletingLastPathComponent().pathComponents
        var common = 0
        while common < min(target.count, base.count), target[common] == base[common] { common += 1 }
        let ups = [String](repeating: "..", count: base.count - common)
        return (ups + target[common...]).joined(separator: "/")
    }
}

enum AudioInput {
    static let extensions: Set<String> = ["wav", "wave", "flac", "ogg", "oga", "opus", "mp3"]

    /// Whether `path` is audio: its first bytes say so, or its extension does (so a broken
    /// `song.wav` gets an audio error, not a JSON one).
    static func isAudio(_ path: String) -> Bool {
        if extensions.contains(URL(filePath: path).pathExtension.lowercased()) { return true }
        guard let handle = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? handle.close() }
        let head = (try? handle.read(upToCount: 4)) ?? Data()
        return AudioContainer.sniff(Array(head)) != nil
    }
}

extension HapticCommand.Convert {
    /// `haptic convert IN.wav|flac|ogg|opus|mp3 -o OUT`: analyse the sound, write its pattern.
    func runAudio() throws {
        if check { throw Terminal.failure("--check compares two patterns; it does not apply to audio input") }
        let options: AudioHapticsOptions
        do {
            options = try audio.options(input: input, output: output)
        } catch {
            throw Terminal.failure(error.message, status: 64)
        }
        let reader: AudioFileReader
        do {
            reader = try AudioFileReader(path: input)
        } catch {
            throw Terminal.failure("\(error)")
        }
        let summary: AudioHapticsSummary
        var conversion: PatternConversion
        if (target ?? .ahap) == .ahap {
            // Written while the sound is read: memory stays that of the analysis window.
            summary = try streamOut { write in try AudioHaptics.convert(reader, options: options, writingAHAP: write) }
            conversion = PatternConversion(PatternFile(path: input, pattern: HapticPattern()), to: .ahap)
        } else if target == .haptic {
            // The clip too: its amplitude envelope is written as the analysis makes it.
            var losses: [ConversionLoss] = []
            summary = try streamOut { write in
                try AudioHaptics.convert(reader, options: options, losses: &losses, writingClip: write)
            }
            conversion = PatternConversion(PatternFile(path: input, pattern: HapticPattern()), to: .haptic)
            conversion.losses = losses
        } else {
            // Android's waveform: its timings are written as they are made, its amplitudes after.
            var losses: [ConversionLoss] = []
            summary = try streamOut { write in
                try AudioHaptics.convert(
                    reader, options: options, kotlin: kotlin, losses: &losses, writingAndroid: write)
            }
            conversion = PatternConversion(PatternFile(path: input, pattern: HapticPattern()), to: .android)
            conversion.losses = losses
        }
        let transients = summary.transients
        let continuous = summary.continuousEvents
        let budget =
            summary.droppedForBudget > 0
            ? " (\(summary.droppedForBudget) over the events-per-second budget left out)" : ""
        if json {
            print(conversion.json(check: nil))
        } else {
            for loss in conversion.losses { Terminal.printError("\(input): lost: \(loss)") }
            if transients + continuous == 0 {
                Terminal.printError(
                    "\(input): no sound above \(Int(options.silenceThreshold)) dBFS: the pattern is empty")
            } else {
                Terminal.printError(
                    "\(input): \(transients) transients, \(continuous) continuous events from "
                        + String(format: "%.1f", summary.duration) + " s of audio\(budget)")
            }
        }
    }

    /// Runs `convert`, which writes the output as it goes through the function it is given: to
    /// standard output, or to a temporary file beside the output, moved over it only when
    /// complete (removed on any failure).
    private func streamOut(
        _ convert: ((UnsafeRawBufferPointer) throws -> Void) throws -> AudioHapticsSummary
    ) throws -> AudioHapticsSummary {
        let file: AtomicFile?
        do {
            file = output == "-" ? nil : try AtomicFile(replacing: output)
        } catch {
            throw Terminal.failure("cannot write '\(output)': \(error.errno)")
        }
        do {
            let summary = try convert { bytes in
                if let file { try file.write(bytes) } else { FileHandle.standardOutput.write(Data(bytes)) }
            }
            try file?.commit()
            return summary
        } catch let error as AudioDecodeError {
            file?.abandon()
            throw Terminal.failure("\(error)")
        } catch let error as SystemCallError {
            file?.abandon()
            throw Terminal.failure("cannot write '\(output)': \(error.errno)")
        }
    }
}
