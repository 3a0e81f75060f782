import ArgumentParser
import Foundation
import HapticsALSA
import HapticsCore
import HapticsEngine
import HapticsSynthesis

extension HapticCommand {
    struct Play: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "play",
            abstract: "Play a pattern in real time through ALSA.",
            discussion: """
                Ctrl-C stops within a few milliseconds with a short fade (exit status 130), and within \
                100 ms whatever the device does. A device that takes no frames for 2 s (its sound \
                server stopped or hung) is reported as stalled and ends playback with exit status 1. \
                Without a usable audio device, play says why and writes the preview to a WAV file instead. \
                With --watch, every save of the file plays it again (or rewrites the preview); \
                errors are printed and watching goes on until Ctrl-C. \
                Audio (WAV, FLAC, Ogg Vorbis/Opus, MP3) plays beside the pattern `haptic convert` makes \
                of it (the audio options below): both mixed on an ordinary output; on a haptic device \
                (--device dualsense, or --channels with --haptic-channels) the sound on the channels the \
                actuators leave free and the haptics on the actuators.
                """)

        @Argument(help: "The AHAP file; or audio, played beside the haptics made from it.")
        var pattern: String

        @OptionGroup var device: DeviceOptions

        @Flag(help: "Start again at the end, until Ctrl-C.")
        var loop = false

        @Flag(help: "Play again every time the file is saved, until Ctrl-C.")
        var watch = false

        @Option(help: "Playback speed: 2 plays twice as fast (times scale, pitch does not).")
        var rate: Float = 1

        @Option(help: ArgumentHelp("Start this many seconds into the pattern.", valueName: "seconds"))
        var from: Double = 0

        @OptionGroup var voice: VoiceOption

        @Flag(help: "At the end, print underruns, CPU use and (after Ctrl-C) the stop latency on standard error.")
        var stats = false

        @OptionGroup var waveforms: WaveformOptions

        @OptionGroup(title: "Audio input (WAV, FLAC, Ogg Vorbis/Opus, MP3)") var audio: AudioAnalysisOptions

        func validate() throws {
            guard !(loop && watch) else { throw ValidationError("--loop and --watch cannot be combined") }
            guard rate > 0, rate.isFinite else { throw ValidationError("--rate must be above 0 (got \(rate))") }
            guard from >= 0, from.isFinite else {
                throw ValidationError("--from must be 0 or more seconds (got \(from))")
            }
            if AudioInput.isAudio(pattern) {
                // The sound plays at its own speed: only the pattern's times would change.
                guard rate == 1 else { throw ValidationError("--rate does not apply to audio input") }
                guard !watch else { throw ValidationError("--watch does not apply to audio input") }
            }
        }

        /// Why `--rate` cannot play `file` (the slowed pattern must be one a file could hold), or nil.
        func rateProblem(_ file: PatternFile) -> String? {
            // The rate as typed (1e-30), not the Float's binary value (1.0000000031710769e-30).
            let typed = Double(rate.description) ?? Double(rate)
            return file.pattern.rateProblem(typed, maxSeconds: AHAPLimits.default.maxDuration).map { "--" + $0 }
        }

        var options: LivePlayback.Options {
            .init(loop: loop, rate: rate, fromSeconds: from, voicing: voice.voicing)
        }

        func run() throws {
            // Real-time audio: this thread and every one started from here on (the engine's and
            // the ALSA plugin's) run at raised priority when allowed, so a busy machine cannot
            // starve the device.
            HapticEngine.raisePriority(to: -11)
            Interrupts.install()
            if watch { try PlayWatch(play: self).run() }
            _ = Terminal.processStart
            let isAudio = AudioInput.isAudio(pattern)
            // A sound's haptics are prepared as the analysis makes them (no whole pattern held),
            // unless --loop plays the sound again and again from memory.
            if isAudio && !loop { return try playSound() }
            let file = isAudio ? try audioFile() : try Terminal.load(pattern, waveforms: waveforms)
            Terminal.report(file.diagnostics, in: file.path)
            // A sound's haptics last as long as the sound, which may be hours: no pattern file's
            // limit applies to them (and --rate does not), as none does in Apple's players.
            if !isAudio, let problem = rateProblem(file) { throw Terminal.failure("\(file.path): \(problem)") }
            let voicing = voice.voicing
            var device = self.device
            // Audio input on a haptic device: the sound on the channels the actuators leave free.
            if isAudio { device.previewAudio = true }
            let output: ALSAOutput
            do {
                output = try device.open()
            } catch {
                // Asked for actuators: a preview file is no substitute.
                if device.wantsHaptics { throw Terminal.failure(error.description) }
                try Terminal.writePreview(
                    of: isAudio ? try withWholeSound(file) : file, voicing: voicing, because: error)
                return
            }
            var options = self.options
            options.audioOnPreviewOnly = isAudio
            if isAudio { options.maxPatternSeconds = .infinity }
            // A looped sound plays again from its start, so it is held whole (the preview's cap applies).
            let playing = isAudio ? try withWholeSound(file) : file
            try perform(LivePlayback(file: playing, output: output, options: options))
        }

        /// Plays `playback` until it ends or Ctrl-C; reports its statistics and how it ended.
        func perform(_ playback: LivePlayback) throws {
            let outcome = Interrupts.run(playback)
            Terminal.reportStatistics(playback.statistics, verbose: stats)
            switch outcome {
            case .finished: break
            case .interrupted: throw Interrupts.exitCode
            case .failed(let reason): throw Terminal.failure(reason)
            }
        }
    }

    struct Devices: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "devices", abstract: "List ALSA playback devices, their channels, and haptic ones.",
            discussion: """
                Each line: the name to pass to --device, the channels it takes ("4ch"; "any": a plugin \
                that converts; "?": busy, or not answering within a second), its description, and "[haptic: …]" on the \
                devices of a card that drives actuators (a DualSense over USB, by its USB id \
                054c:0ce6, or 054c:0df2 for the Edge). Play on those with --device dualsense. \
                The kernel's card list is read from /proc (HAPTIC_PROC_ROOT overrides it, for tests).
                """)

        func run() throws {
            let devices: [DeviceInfo]
            do {
                devices = try ALSADevices.list()
            } catch {
                throw Terminal.failure(error.description)
            }
            let cards = SoundCards.scan()
            if devices.isEmpty { Terminal.printError("no ALSA playback devices") }
            let width = devices.map(\.name.count).max() ?? 0
            let channels = Self.quietly { devices.map { ALSADevices.channels(of: $0.name).map(Self.describe) ?? "?" } }
            for (device, channels) in zip(devices, channels) {
                let summary = device.description.split(separator: "\n").joined(separator: " — ")
                var line = device.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                line += channels.padding(toLength: 7, withPad: " ", startingAt: 0) + "  " + summary
                if let card = cards.first(where: { $0.haptic != nil && SoundCards.names($0, device.name) }),
                    let kind = card.haptic
                {
                    line +=
                        "  [haptic: \(kind.name), actuators on channels \(Self.list(kind.channelMap.hapticChannels))]"
                }
                print(line)
            }
            for card in cards {
                guard let kind = card.haptic else { continue }
                let usb = card.usbID.map { " (USB \($0))" } ?? ""
                let channels = card.playbackChannels.map { ", \($0) channels" } ?? ""
                print(
                    "haptic: card \(card.index) '\(card.id)' is a \(kind.name)\(usb)\(channels): actuators on channels "
                        + "\(Self.list(kind.channelMap.hapticChannels)); play with --device \(kind.alias) "
                        + "(\(card.deviceName))")
            }
        }

        /// "2ch", "1-8ch", or "any" for a plugin that converts to whatever count it is given.
        static func describe(_ range: ClosedRange<Int>) -> String {
            if range.upperBound > 64 { return "any" }
            return range.lowerBound == range.upperBound
                ? "\(range.lowerBound)ch" : "\(range.lowerBound)-\(range.upperBound)ch"
        }

        /// Runs `body` with standard error sent to /dev/null: opening some plugins to ask for
        /// their channels (JACK's) prints from inside their libraries, past ALSA's error handler.
        static func quietly<T>(_ body: () -> T) -> T {
            let saved = dup(STDERR_FILENO)
            let null = open("/dev/null", O_WRONLY)
            if saved >= 0 && null >= 0 { dup2(null, STDERR_FILENO) }
            defer {
                if saved >= 0 {
                    dup2(saved, STDERR_FILENO)
                    close(saved)
                }
                if null >= 0 { close(null) }
            }
            return body()
        }

        static func list(_ channels: [Int]) -> String { channels.map(String.init).joined(separator: ",") }
    }
}

/// Where real-time audio goes: the device, its latency, and on a haptic device (a DualSense) or
/// any multichannel device, which channels carry the haptic signal. Shared by every command that
/// plays (play, feedback, order, order replay).
struct DeviceOptions: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "ALSA playback device (see `haptic devices`); `dualsense`: a DualSense's actuators, over USB.",
            valueName: "name"))
    var device: String = ProcessInfo.processInfo.environment["HAPTIC_DEVICE"] ?? "default"

    @Option(
        help: ArgumentHelp(
            "Output latency in milliseconds. Below 10 ms the device is checked first: a latency it cannot keep "
                + "(PulseAudio at 2-4 ms plays in slow motion) is said so, and raised.", valueName: "ms"))
    var latency: Int = 20

    @Flag(help: "Keep --latency even when the device cannot keep up with it (only say so).")
    var latencyStrict = false

    @Option(
        name: .customLong("channels"),
        help: ArgumentHelp(
            "The output's channels: 1 or 2, or a multichannel device's count with --haptic-channels.",
            valueName: "n"))
    var channelCount: Int?

    @Option(
        help: ArgumentHelp(
            "Device channels (from 1) that drive actuators, e.g. 3,4; needs --channels. The haptic signal is "
                + "voiced for actuators (--voice voices the preview); every other channel is silent.",
            valueName: "list"))
    var hapticChannels: String?

    @Flag(help: "On a haptic device, also play the audible render on the channels the actuators leave free (1-2).")
    var previewAudio = false

    func validate() throws {
        guard (2...2_000).contains(latency) else {
            throw ValidationError("--latency must be 2 to 2000 ms (got \(latency))")
        }
        if let channelCount, !(1...AudioFormat.maxChannels).contains(channelCount) {
            throw ValidationError("--channels must be 1 to \(AudioFormat.maxChannels) (got \(channelCount))")
        }
        _ = try requestedMap()
    }

    /// The map `--channels` and `--haptic-channels` ask for (nil: none asked).
    func requestedMap() throws -> ChannelMap? {
        guard let hapticChannels else {
            if let channelCount, channelCount > 2 {
                throw ValidationError(
                    "--channels \(channelCount) needs --haptic-channels: which channels drive the actuators (e.g. 3,4)")
            }
            return nil
        }
        guard let channelCount else {
            throw ValidationError("--haptic-channels needs --channels: how many channels the device has (e.g. 4)")
        }
        do {
            return try ChannelMap(parsing: "\(channelCount):\(hapticChannels)").withPreview(previewAudio)
        } catch {
            throw ValidationError("--haptic-channels \(hapticChannels): \(error)")
        }
    }

    /// The device to open and its channel map: `dualsense` (or a haptic card's PCM) brings the
    /// card's map, which --channels and --haptic-channels override.
    func resolved() throws(AudioOutputError) -> (device: String, map: ChannelMap?) {
        var (name, map) = try SoundCards.resolve(device)
        if let requested = try? requestedMap() { map = requested }
        return (name, map?.withPreview(previewAudio))
    }

    /// Whether the user asked for actuators: a haptic device or a channel map. Then a device
    /// that cannot play is an error, never a fallback to a preview or to silence.
    var wantsHaptics: Bool {
        hapticChannels != nil || HapticDevice.known.contains { $0.alias == device.lowercased() }
            || ((try? SoundCards.resolve(device))?.map != nil)
    }

    /// Opens the device; a latency it cannot keep is said once and raised (unless --latency-strict).
    func open() throws(AudioOutputError) -> ALSAOutput {
        let (name, map) = try resolved()
        let format = AudioFormat(channels: map == nil ? min(channelCount ?? 1, 2) : 1)
        let (output, finding) = try LatencyProbe.open(
            .init(device: name, format: format, latencyMilliseconds: latency, channelMap: map),
            strict: latencyStrict)
        if let finding { Terminal.printError("haptic: \(finding.message(strict: latencyStrict))") }
        return output
    }
}

extension Terminal {
    /// Prints the underrun count when there were any, and with `verbose` (`--stats`) one line of
    /// `key=value` figures: underruns, process CPU time and share, and after Ctrl-C where the
    /// listener was and how long until the fade had been heard.
    static func reportStatistics(_ statistics: LivePlayback.Statistics, verbose: Bool) {
        if !verbose {
            if statistics.underruns > 0 { printError("haptic: \(statistics.underruns) underruns (the device ran dry)") }
            return
        }
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        let cpu =
            Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
            + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
        let wall = Double(DispatchTime.now().uptimeNanoseconds - processStart) / 1e9
        var line = "haptic: stats: underruns=\(statistics.underruns) frames=\(statistics.framesWritten)"
        line += String(format: " cpu-seconds=%.3f wall-seconds=%.3f cpu-percent=%.2f", cpu, wall, 100 * cpu / wall)
        if let heard = statistics.interruptHeardFrame, let latency = statistics.stopLatencyMilliseconds {
            line += " interrupt-heard-frame=\(heard)"
            if let start = statistics.iterationStartFrame { line += " interrupt-pattern-frame=\(heard - start)" }
            line += String(format: " stop-latency-ms=%.1f", latency)
        }
        printError(line)
    }

    /// Roughly when the process started (the first use of this value), for the wall time in `--stats`.
    static let processStart = DispatchTime.now().uptimeNanoseconds

    /// Without a device: says why in one line, renders the preview to a WAV file and prints its path.
    static func writePreview(of file: PatternFile, voicing: VoicingProfile, because error: AudioOutputError) throws {
        // A device that is there but does not answer is a fault to report, not a missing device.
        if error.code == .deviceStalled { throw failure(error.description) }
        let folder = FileManager.default.temporaryDirectory.appending(path: "haptic-preview")
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let name = URL(filePath: file.path).deletingPathExtension().lastPathComponent
        let destination = folder.appending(path: "\(name).wav").path(percentEncoded: false)
        printError("haptic: no usable audio device (\(error)); writing the preview to a WAV file instead")
        do {
            try WAVFileRender.render(file, to: destination, options: RenderOptions(voicing: voicing))
        } catch {
            throw failure(error.description)
        }
        print(destination)
    }
}
