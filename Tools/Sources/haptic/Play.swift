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
                errors are printed and watching goes on until Ctrl-C.
                """)

        @Argument(help: "The AHAP file.")
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

        func validate() throws {
            guard !(loop && watch) else { throw ValidationError("--loop and --watch cannot be combined") }
            guard rate > 0, rate.isFinite else { throw ValidationError("--rate must be above 0 (got \(rate))") }
            guard from >= 0, from.isFinite else {
                throw ValidationError("--from must be 0 or more seconds (got \(from))")
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
            let file = try Terminal.load(pattern, waveforms: waveforms)
            Terminal.report(file.diagnostics, in: file.path)
            if let problem = rateProblem(file) { throw Terminal.failure("\(file.path): \(problem)") }
            let voicing = voice.voicing
            let output: ALSAOutput
            do {
                output = try device.open()
            } catch {
                try Terminal.writePreview(of: file, voicing: voicing, because: error)
                return
            }
            let playback = try LivePlayback(file: file, output: output, options: options)
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
        static let configuration = CommandConfiguration(commandName: "devices", abstract: "List ALSA playback devices.")

        func run() throws {
            let devices: [DeviceInfo]
            do {
                devices = try ALSADevices.list()
            } catch {
                throw Terminal.failure(error.description)
            }
            if devices.isEmpty { Terminal.printError("no ALSA playback devices") }
            let width = devices.map(\.name.count).max() ?? 0
            for device in devices {
                let summary = device.description.split(separator: "\n").joined(separator: " — ")
                print(device.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + summary)
            }
        }
    }
}

/// Where real-time audio goes.
struct DeviceOptions: ParsableArguments {
    @Option(help: "ALSA playback device (see `haptic devices`).")
    var device: String = ProcessInfo.processInfo.environment["HAPTIC_DEVICE"] ?? "default"

    @Option(
        help: ArgumentHelp(
            "Output latency in milliseconds. Below 10 ms the device is checked first: a latency it cannot keep "
                + "(PulseAudio at 2-4 ms plays in slow motion) is said so, and raised.", valueName: "ms"))
    var latency: Int = 20

    @Flag(help: "Keep --latency even when the device cannot keep up with it (only say so).")
    var latencyStrict = false

    func validate() throws {
        guard (2...2_000).contains(latency) else {
            throw ValidationError("--latency must be 2 to 2000 ms (got \(latency))")
        }
    }

    /// Opens the device; a latency it cannot keep is said once and raised (unless --latency-strict).
    func open() throws(AudioOutputError) -> ALSAOutput {
        let (output, finding) = try LatencyProbe.open(
            .init(device: device, latencyMilliseconds: latency), strict: latencyStrict)
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
