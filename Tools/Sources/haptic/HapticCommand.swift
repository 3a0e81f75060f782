import ArgumentParser

/// `haptic`: hear, check and review Core Haptics patterns on Linux.
///
/// Every command names itself (`commandName:`). Without it ArgumentParser derives the name from
/// `String(describing: Self.self)` for every command on every start, and each such call makes
/// Swift's runtime scan the binary's whole conformance table (BENCHMARKS.md, issue 12, has the
/// cost).
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
