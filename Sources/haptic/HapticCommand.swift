import ArgumentParser

/// `haptic`: hear, check and review Core Haptics patterns on Linux.
@main
struct HapticCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "haptic",
        abstract: "Hear, check and review Core Haptics (AHAP) patterns on Linux.",
        version: "0.1.0",
        subcommands: [
            Play.self, Render.self, Lint.self, Info.self, Plot.self, Review.self, Diff.self, Convert.self, Devices.self,
            Feedback.self, OrderFlow.self, StudioCommand.self,
        ]
    )
}
