// swift-tools-version: 6.1
import PackageDescription

// The libraries, and only the libraries: what an app or another tool depends on. The `haptic` tool,
// the studio, the Cupcake Corner order flow and the benchmarks are a nested package (Tools/), the
// fuzzers another (Fuzz/), so depending on any product here resolves swift-collections and
// swift-system and nothing else (docs/ARCHITECTURE.md, "Two manifests").
let package = Package(
    name: "swift-haptics",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HapticsCore", targets: ["HapticsCore"]),
        .library(name: "HapticsSynthesis", targets: ["HapticsSynthesis"]),
        .library(name: "HapticsEngine", targets: ["HapticsEngine"]),
        .library(name: "HapticsALSA", targets: ["HapticsALSA"]),
        .library(name: "HapticsSystem", targets: ["HapticsSystem"]),
        .library(name: "HapticsReview", targets: ["HapticsReview"]),
        .library(name: "SensoryFeedback", targets: ["SensoryFeedback"]),
        .library(name: "CoreHaptics", targets: ["CoreHaptics"]),
        .library(name: "HapticsTesting", targets: ["HapticsTesting"]),
        .library(name: "HapticsAudioAnalysis", targets: ["HapticsAudioAnalysis"]),
        // Lint where iOS developers work: a build-tool plugin that lints a target's AHAP files at
        // build time, and `swift package lint-haptics`. Their tool is haptic-lint, on HapticsCore and
        // HapticsEngine only, so using them costs what the libraries cost.
        .plugin(name: "HapticsLintPlugin", targets: ["HapticsLintPlugin"]),
        .plugin(name: "HapticsLintCommand", targets: ["HapticsLintCommand"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
    ],
    targets: [
        .target(
            name: "HapticsCore",
            dependencies: [.product(name: "OrderedCollections", package: "swift-collections")]
        ),
        // The oscillators' inner loops in C: one source built for the baseline CPU and for AVX2,
        // chosen at run time (docs/ARCHITECTURE.md says why not Swift).
        .target(name: "CRenderKernels"),
        .target(name: "HapticsSynthesis", dependencies: ["HapticsCore", "CRenderKernels"]),
        .target(
            name: "HapticsEngine",
            dependencies: [
                "CoreHapticsEnums", "HapticsCore", "HapticsSynthesis",
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // ALSA's C API; only HapticsALSA imports it.
        .systemLibrary(name: "CAlsa", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .target(name: "HapticsALSA", dependencies: ["CAlsa", "HapticsEngine", "HapticsSynthesis"]),
        // Audio to haptics: decoding (WAV here, FLAC/Ogg/Opus/MP3 through libsndfile) and the onset
        // and loudness analysis that turns sound into a pattern. No engine, no ALSA.
        .systemLibrary(name: "CSndFile", pkgConfig: "sndfile", providers: [.apt(["libsndfile1-dev"])]),
        .target(
            name: "HapticsAudioAnalysis",
            dependencies: [
                "CSndFile", "HapticsCore", "HapticsSynthesis", .product(name: "SystemPackage", package: "swift-system"),
            ]),
        // The one place that chooses and opens the default output (HAPTIC_OUTPUT / HAPTIC_DEVICE / ALSA
        // "default"), and what needs it: the system feedback player and the UIKit-style generators.
        .target(
            name: "HapticsSystem",
            dependencies: ["HapticsALSA", "HapticsEngine", "HapticsSynthesis", "SensoryFeedback"]),
        // Shipped test doubles for users testing their own haptics code: a recording output and an
        // engine on a manual clock.
        .target(name: "HapticsTesting", dependencies: ["HapticsEngine", "HapticsSynthesis"]),
        .target(
            name: "HapticsReview",
            dependencies: [
                "HapticsCore", "HapticsSynthesis",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // Value-level feedback: presets (Patterns/feedback, embedded), triggers, a player on a given engine.
        // No ALSA: the default output is HapticsSystem's.
        .target(
            name: "SensoryFeedback", dependencies: ["HapticsCore", "HapticsEngine"],
            resources: [.embedInCode("Presets")]),
        // Core Haptics' two engine enums as Apple declares them: open C enums (docs/corehaptics.md).
        .target(name: "CoreHapticsEnums"),
        // A stand-in for AVFAudio's AVAudioSession (Linux only), so `import AVFAudio` or
        // `import AVFoundation` and session set-up in app code compile (docs/corehaptics.md). Apple's
        // platforms have the real ones. AVFoundation re-exports AVFAudio, as Apple's does.
        // Its AVAudioPlayer plays on a haptic engine, on the output CHHapticEngine uses.
        .target(
            name: "AVFAudio",
            dependencies: ["HapticsCore", "HapticsEngine", "HapticsSynthesis", "HapticsSystem"]),
        .target(name: "AVFoundation", dependencies: ["AVFAudio"]),
        // Apple's Core Haptics API on the engine: app code compiles unchanged.
        .target(
            name: "CoreHaptics",
            dependencies: [
                "CoreHapticsEnums", "HapticsCore", "HapticsSynthesis", "HapticsEngine", "HapticsSystem",
                .target(name: "AVFoundation", condition: .when(platforms: [.linux])),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // The linter alone (no argument parser): the plugins' tool and the pre-commit hook's.
        .executableTarget(name: "haptic-lint", dependencies: ["HapticsCore", "HapticsEngine"]),
        .plugin(name: "HapticsLintPlugin", capability: .buildTool(), dependencies: ["haptic-lint"]),
        .plugin(
            name: "HapticsLintCommand",
            capability: .command(
                intent: .custom(
                    verb: "lint-haptics", description: "Lint the package's .ahap and .haptic files with haptic-lint")),
            dependencies: ["haptic-lint"]),

        // This package's own test machinery (audio rig, stall watch, fixtures, headless Chromium, PRNG): no product.
        // Tools/Tests/_ToolTestSupport links these files in and adds the tool's own (DevTools, RawHTTP).
        .target(
            name: "_HapticsTestSupport", dependencies: ["HapticsEngine", "HapticsSynthesis"],
            path: "Tests/_HapticsTestSupport"),
        .testTarget(
            name: "HapticsCoreTests",
            dependencies: [
                "HapticsCore", "_HapticsTestSupport",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .testTarget(
            name: "HapticsAudioAnalysisTests",
            dependencies: [
                "HapticsAudioAnalysis", "HapticsCore", "HapticsSynthesis", "CSndFile", "_HapticsTestSupport",
            ]),
        .testTarget(
            name: "HapticsSynthesisTests", dependencies: ["HapticsCore", "HapticsSynthesis", "_HapticsTestSupport"]),
        .testTarget(
            name: "HapticsEngineTests",
            dependencies: [
                "HapticsCore", "HapticsEngine", "HapticsSynthesis", "HapticsTesting",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(
            name: "HapticsTestingTests",
            dependencies: ["HapticsTesting", "HapticsCore", "HapticsEngine", "HapticsSynthesis"]
        ),
        .testTarget(
            name: "HapticsSystemTests",
            dependencies: ["HapticsSystem", "SensoryFeedback", "HapticsEngine", "HapticsSynthesis"]),
        .testTarget(
            name: "HapticsALSATests",
            dependencies: ["HapticsALSA", "HapticsEngine", "HapticsSynthesis", "HapticsTesting", "_HapticsTestSupport"]
        ),
        .testTarget(
            name: "CoreHapticsTests",
            dependencies: ["CoreHaptics", "HapticsEngine", "HapticsSynthesis", "HapticsTesting", "_HapticsTestSupport"]
        ),
        .testTarget(
            name: "SensoryFeedbackTests",
            dependencies: [
                "SensoryFeedback", "HapticsCore", "HapticsEngine", "HapticsSynthesis", "HapticsTesting",
            ]
        ),
        // haptic-lint and the two plugins, end to end in a scratch package.
        .testTarget(name: "HapticsLintPluginTests", dependencies: ["_HapticsTestSupport"]),
        .testTarget(
            name: "HapticsReviewTests",
            dependencies: [
                "HapticsReview", "HapticsCore", "HapticsSynthesis", "_HapticsTestSupport",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
    ]
)

// One settings loop: the same strict features for every Swift target.
for target in package.targets
where target.type != .system && target.type != .plugin && !["CoreHapticsEnums", "CRenderKernels"].contains(target.name)
{
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .swiftLanguageMode(.v6),
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
