import ArgumentParser
import CupcakeCorner
import Foundation
import HapticsEngine
import SensoryFeedback

extension HapticCommand.OrderFlow {
    struct Replay: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "replay",
            abstract: "Play a session's feedback again, at the times it was logged.",
            discussion: """
                Prints the timeline. With -o, renders it to a WAV file instead, each feedback on its \
                exact sample. A line of the log that cannot be read is reported with its line number \
                and skipped; the rest plays.
                """)

        @Argument(help: "The session's event log.")
        var log: String

        @Option(help: "Playback speed: 2 plays the session twice as fast.")
        var speed: Double = 1

        @Option(
            name: [.short, .customLong("output")],
            help: "Render to this WAV file (- for standard output) instead of playing.")
        var output: String?

        @Flag(help: "Print how often each feedback played, instead of the timeline.")
        var summary = false

        @OptionGroup var device: DeviceOptions
        @OptionGroup var audio: FileAudioOptions

        func validate() throws {
            guard speed > 0, speed.isFinite else { throw ValidationError("--speed must be above 0 (got \(speed))") }
            if output != nil, let channels = device.channelCount, !(1...2).contains(channels) {
                throw ValidationError("--channels must be 1 or 2 for a WAV file (got \(channels))")
            }
        }

        func run() throws {
            let read: EventLogReader.Result
            do {
                read = try EventLogReader.read(path: log)
            } catch {
                throw Terminal.failure(error.description)
            }
            for problem in read.problems { Terminal.printError(problem) }
            let timeline = FeedbackTimeline(events: read.events)
            // Checked before any time is divided by it: a replay is played or rendered in real time.
            let span = (timeline.cues.last?.time ?? 0) / speed
            guard span <= Self.longestReplay else {
                throw Terminal.failure(
                    "--speed \(speed) would make the replay of \(log) last \(String(format: "%.3g", span)) s; the longest is "
                        + "\(Int(Self.longestReplay)) s (one day)")
            }
            // With -o -, standard output carries the WAV: the timeline goes to standard error.
            let toStandardError = output == "-"
            let show = { (line: String) in toStandardError ? Terminal.printError(line) : printLine(line) }
            if summary {
                show(Self.summary(timeline, speed: speed))
            }
            if let output {
                if !summary { for cue in timeline.cues { show(Self.line(cue, speed: speed)) } }
                let pattern = timeline.pattern(speed: speed, preset: { $0.pattern })
                do {
                    try WAVFileRender.render(
                        PatternFile(path: log, pattern: pattern), to: output,
                        options: audio.renderOptions(channels: device.channelCount ?? 1))
                } catch {
                    throw Terminal.failure(error.description)
                }
                return
            }
            let sink = try EngineFeedbackSink.make(device: device)
            let start = ContinuousClock.now
            for cue in timeline.cues {
                let due = start + .microseconds(Int64((cue.time / speed * 1e6).rounded()))
                let wait = due - .now
                if wait > .zero {
                    Thread.sleep(
                        forTimeInterval: Double(wait.components.seconds) + Double(wait.components.attoseconds) * 1e-18)
                }
                sink.play(cue.feedback)
                if !summary { show(Self.line(cue, speed: speed)) }
            }
            sink.finish()
        }

        /// The longest replay, in seconds, at any `--speed`.
        static let longestReplay = 86_400.0

        static func line(_ cue: FeedbackTimeline.Cue, speed: Double) -> String {
            let event = cue.event
            var change = event.change
            if let old = event.old, let new = event.new {
                change += " \(old) → \(new)"
            } else if let new = event.new {
                change += " \(new)"
            }
            let name = cue.feedback.description
            return String(format: "%9.3f s  ", cue.time / speed)
                + name.padding(toLength: max(10, name.count), withPad: " ", startingAt: 0)
                + " " + change
        }

        static func summary(_ timeline: FeedbackTimeline, speed: Double) -> String {
            var counts: [String: Int] = [:]
            for cue in timeline.cues { counts[cue.feedback.description, default: 0] += 1 }
            let span = (timeline.cues.last?.time ?? 0) / speed
            var lines = [
                "\(timeline.cues.count) feedback\(timeline.cues.count == 1 ? "" : "s") over \(String(format: "%.3f", span)) s"
            ]
            for (name, count) in counts.sorted(by: { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }) {
                lines.append("  \(name.padding(toLength: 12, withPad: " ", startingAt: 0)) \(count)")
            }
            return lines.joined(separator: "\n")
        }
    }
}
