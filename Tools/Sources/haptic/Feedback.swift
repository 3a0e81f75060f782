public import ArgumentParser
import Foundation
import HapticsCore
import HapticsEngine
import HapticsSynthesis
import SensoryFeedback

extension HapticCommand {
    struct Feedback: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "feedback",
            abstract: "Hear a system feedback (SwiftUI's SensoryFeedback, UIKit's generators).",
            discussion: """
                NAME is one of the names `haptic feedback --list` prints (SwiftUI spellings such as \
                levelChange work too). `impact` takes --weight or --flexibility and --intensity. \
                The presets approximate Apple's; see docs/feedback.md.
                """)

        @Argument(help: "The feedback to play.")
        var name: String?

        @Flag(help: "List every feedback with a one-line description.")
        var list = false

        @Option(help: "Impact weight: light, medium or heavy.")
        var weight: SensoryFeedback.Weight?

        @Option(help: "Impact flexibility: rigid, solid or soft.")
        var flexibility: SensoryFeedback.Flexibility?

        @Option(help: ArgumentHelp("Impact intensity, 0 to 1.", valueName: "x"))
        var intensity: Double?

        @Option(
            name: [.short, .customLong("output")], help: "Write a WAV file instead of playing; - for standard output.")
        var output: String?

        @OptionGroup var device: DeviceOptions

        /// Every name the command accepts, presets first.
        static var names: [String] {
            [
                "success", "warning", "error", "selection", "increase", "decrease", "start", "stop", "alignment",
                "level-change", "path-complete", "impact",
            ] + FeedbackPreset.all.map(\.name).filter { $0.hasPrefix("impact-") }
        }

        func validate() throws {
            if list {
                guard name == nil else { throw ValidationError("--list takes no NAME") }
                return
            }
            guard let name else { throw ValidationError("missing NAME; see haptic feedback --list") }
            guard let canonical = Self.canonical(name) else {
                var message = "unknown feedback '\(name)'"
                if let guess = Self.suggestion(for: name) { message += "; did you mean '\(guess)'?" }
                throw ValidationError(message + " (see haptic feedback --list)")
            }
            if weight != nil, flexibility != nil {
                throw ValidationError("--weight and --flexibility cannot be used together")
            }
            if !canonical.hasPrefix("impact"), weight != nil || flexibility != nil || intensity != nil {
                throw ValidationError("--weight, --flexibility and --intensity apply to impacts only")
            }
            if canonical.hasPrefix("impact-"), weight != nil || flexibility != nil {
                throw ValidationError("\(canonical) already names its weight or flexibility")
            }
            if let intensity, !(0...1).contains(intensity) {
                throw ValidationError("--intensity must be 0 to 1 (got \(intensity))")
            }
        }

        func run() throws {
            if list {
                let rows = FeedbackPreset.all.map { ($0.name, $0.summary) }
                let width = rows.map(\.0.count).max() ?? 0
                for (name, summary) in rows {
                    print(name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + summary)
                }
                return
            }
            let feedback = self.feedback
            var pattern = feedback.preset.pattern
            if feedback.intensity < 1 {
                // What FeedbackPlayer sends live: the intensity control, from the start.
                pattern.elements.insert(
                    .parameter(DynamicParameter(.hapticIntensityControl, value: Float(feedback.intensity))), at: 0)
            }
            let file = PatternFile(path: "\(feedback.presetName).ahap", pattern: pattern)
            if let output {
                do {
                    try WAVFileRender.render(file, to: output, options: RenderOptions())
                } catch {
                    throw Terminal.failure(error.description)
                }
                return
            }
            let alsa: any AudioOutput
            do {
                alsa = try device.open()
            } catch {
                if device.wantsHaptics { throw Terminal.failure(error.description) }
                try Terminal.writePreview(of: file, voicing: .standard, because: error)
                return
            }
            let playback = try LivePlayback(file: file, output: alsa, options: .init())
            switch Interrupts.run(playback) {
            case .finished: break
            case .interrupted: throw Interrupts.exitCode
            case .failed(let reason): throw Terminal.failure(reason)
            }
        }

        var feedback: SensoryFeedback {
            let canonical = Self.canonical(name ?? "") ?? "impact"
            let preset = SensoryFeedback(presetName: canonical == "impact" ? "impact-medium" : canonical) ?? .impact
            switch preset {
            case .impactWeight(let weight, _):
                if flexibility == nil { return .impact(weight: self.weight ?? weight, intensity: intensity ?? 1) }
            case .impactFlexibility(let flexibility, _):
                return .impact(flexibility: flexibility, intensity: intensity ?? 1)
            default: return preset
            }
            if let flexibility { return .impact(flexibility: flexibility, intensity: intensity ?? 1) }
            return .impact(weight: weight ?? .medium, intensity: intensity ?? 1)
        }

        /// `levelChange`, `LEVEL_CHANGE` and `level-change` all name the same feedback.
        static func canonical(_ name: String) -> String? {
            let folded = name.lowercased().filter(\.isLetter)
            return names.first { $0.filter(\.isLetter) == folded }
        }

        static func suggestion(for name: String) -> String? {
            let scored = names.map { ($0, editDistance(Array(name.lowercased()), Array($0))) }
            guard let best = scored.min(by: { $0.1 < $1.1 }), best.1 <= max(2, name.count / 3) else { return nil }
            return best.0
        }

        static func editDistance(_ a: [Character], _ b: [Character]) -> Int {
            var previous = Array(0...b.count)
            for i in 1...max(a.count, 1) where !a.isEmpty {
                var current = [i] + Array(repeating: 0, count: b.count)
                for j in 1...max(b.count, 1) where !b.isEmpty {
                    current[j] = min(
                        previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
                }
                previous = current
            }
            return a.isEmpty ? b.count : previous[b.count]
        }
    }
}

extension SensoryFeedback.Weight: @retroactive ExpressibleByArgument {}
extension SensoryFeedback.Flexibility: @retroactive ExpressibleByArgument {}
