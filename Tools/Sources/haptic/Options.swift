public import ArgumentParser
import Foundation
import HapticsEngine
import HapticsSynthesis

/// The flags that shape rendered audio, shared by every command that renders.
struct AudioOptions: ParsableArguments {
    @Option(help: "Sample rate in Hz: 44100, 48000 or 96000.")
    var sampleRate: Int = 48_000

    @Option(help: "Sample format of the WAV file: s16, s24 or f32.")
    var format: SampleFormat = .s16

    @Option(help: "1 for mono, 2 for stereo (AudioPan places audio events).")
    var channels: Int = 1

    @OptionGroup var voice: VoiceOption

    func validate() throws {
        guard AudioFormat.supportedSampleRates.contains(sampleRate) else {
            throw ValidationError("--sample-rate must be one of 44100, 48000, 96000 (got \(sampleRate))")
        }
        guard (1...2).contains(channels) else {
            throw ValidationError("--channels must be 1 or 2 (got \(channels))")
        }
    }

    var renderOptions: RenderOptions {
        RenderOptions(
            format: AudioFormat(sampleRate: sampleRate, channels: channels),
            sampleFormat: format,
            voicing: voice.voicing)
    }
}

/// ``AudioOptions`` without `--channels`, for commands that also play (`order replay`): there
/// `--channels` belongs to ``DeviceOptions`` and says how many channels the WAV file has too.
struct FileAudioOptions: ParsableArguments {
    @Option(help: "Sample rate in Hz: 44100, 48000 or 96000.")
    var sampleRate: Int = 48_000

    @Option(help: "Sample format of the WAV file: s16, s24 or f32.")
    var format: SampleFormat = .s16

    @OptionGroup var voice: VoiceOption

    func validate() throws {
        guard AudioFormat.supportedSampleRates.contains(sampleRate) else {
            throw ValidationError("--sample-rate must be one of 44100, 48000, 96000 (got \(sampleRate))")
        }
    }

    /// The render options for a file of `channels` channels (1 or 2).
    func renderOptions(channels: Int) -> RenderOptions {
        RenderOptions(
            format: AudioFormat(sampleRate: sampleRate, channels: channels), sampleFormat: format,
            voicing: voice.voicing)
    }
}

/// `--voice NAME`: how haptics become sound, shared by every command that renders.
struct VoiceOption: ParsableArguments {
    @Option(name: .customLong("voice"), help: ArgumentHelp("How haptics become sound.", valueName: "name"))
    var name: String = VoicingProfile.standard.name

    func validate() throws {
        guard VoicingProfile.named(name) != nil else {
            let names = VoicingProfile.all.map(\.name).joined(separator: ", ")
            throw ValidationError("unknown --voice '\(name)'; choose one of: \(names)")
        }
    }

    /// The profile named (validated, so never the fallback).
    var voicing: VoicingProfile { VoicingProfile.named(name) ?? .standard }
}

extension SampleFormat: @retroactive ExpressibleByArgument {}

/// `--waveforms DIR` (repeatable): more folders to look for AudioCustom waveforms in, after the
/// AHAP file's own folder. Shared by every command that reads patterns.
struct WaveformOptions: ParsableArguments {
    @Option(
        name: .customLong("waveforms"),
        help: ArgumentHelp(
            "Also look for AudioCustom waveforms in DIR (repeatable); paths may not leave it.", valueName: "dir"))
    var folders: [String] = []

    func validate() throws {
        for folder in folders {
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDirectory), isDirectory.boolValue
            else { throw ValidationError("--waveforms '\(folder)' is not a folder") }
        }
    }
}
