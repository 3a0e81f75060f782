internal import HapticsCore

// The presets are Patterns/feedback/*.ahap, embedded by SwiftPM (`resources: [.embedInCode("Presets")]`,
// Sources/SensoryFeedback/Presets is a link to that folder): one copy of the data, no generated Swift.

extension FeedbackPreset {
    /// Every preset, decoded once, in the order `haptic feedback --list` prints them.
    public static let all: [FeedbackPreset] = embedded.map { FeedbackPreset(name: $0.name, bytes: $0.bytes) }

    /// The embedded files, by preset name. PresetTests checks that every file in Patterns/feedback is here.
    private static let embedded: [(name: String, bytes: [UInt8])] = [
        ("success", PackageResources.success_ahap),
        ("warning", PackageResources.warning_ahap),
        ("error", PackageResources.error_ahap),
        ("selection", PackageResources.selection_ahap),
        ("increase", PackageResources.increase_ahap),
        ("decrease", PackageResources.decrease_ahap),
        ("start", PackageResources.start_ahap),
        ("stop", PackageResources.stop_ahap),
        ("alignment", PackageResources.alignment_ahap),
        ("level-change", PackageResources.level_change_ahap),
        ("path-complete", PackageResources.path_complete_ahap),
        ("impact-light", PackageResources.impact_light_ahap),
        ("impact-medium", PackageResources.impact_medium_ahap),
        ("impact-heavy", PackageResources.impact_heavy_ahap),
        ("impact-rigid", PackageResources.impact_rigid_ahap),
        ("impact-solid", PackageResources.impact_solid_ahap),
        ("impact-soft", PackageResources.impact_soft_ahap),
    ]
}
