// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "swift-haptics",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HapticsCore", targets: ["HapticsCore"]),
        .library(name: "HapticsSynthesis", targets: ["HapticsSynthesis"]),
        .library(name: "HapticsEngine", targets: ["HapticsEngine"]),
        .library(name: "HapticsALSA", targets: ["HapticsALSA"]),
        .library(name: "HapticsTestSupport", targets: ["HapticsTestSupport"]),
        .library(name: "HapticsReview", targets: ["HapticsReview"]),
        .library(name: "SensoryFeedback", targets: ["SensoryFeedback"]),
        .library(name: "CoreHaptics", targets: ["CoreHaptics"]),
        .library(name: "CupcakeCorner", targets: ["CupcakeCorner"]),
        .executable(name: "haptic", targets: ["haptic"]),
        .executable(name: "haptic-bench", targets: ["haptic-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
    ],
    targets: [
        .target(
            name: "HapticsCore",
            dependencies: [.product(name: "OrderedCollections", package: "swift-collections")]
        ),
        .target(name: "HapticsSynthesis", dependencies: ["HapticsCore"]),
        .target(
            name: "HapticsEngine",
            dependencies: [
                "HapticsCore", "HapticsSynthesis",
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),
        // ALSA's C API; only HapticsALSA imports it.
        .systemLibrary(name: "CAlsa", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .target(name: "HapticsALSA", dependencies: ["CAlsa", "HapticsEngine", "HapticsSynthesis"]),
        // Test support: a recording AudioOutput (test double), headless Chromium, a seeded generator,
        // BusyLoops (a CPU load for timing tests and haptic-bench).
        .target(name: "HapticsTestSupport", dependencies: ["HapticsEngine", "HapticsSynthesis"]),
        .target(
            name: "HapticsReview",
            dependencies: [
                "HapticsCore", "HapticsSynthesis",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .target(
            name: "SensoryFeedback", dependencies: ["HapticsCore", "HapticsSynthesis", "HapticsEngine", "HapticsALSA"]),
        // Core Haptics' two engine enums as Apple declares them: open C enums (docs/corehaptics.md).
        .target(name: "CoreHapticsEnums"),
        // Apple's Core Haptics API on the engine: app code compiles unchanged.
        .target(
            name: "CoreHaptics",
            dependencies: [
                "CoreHapticsEnums", "HapticsCore", "HapticsSynthesis", "HapticsEngine", "HapticsALSA",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // Issue 5: the Cupcake Corner order flow (model, session, store, log) behind `haptic order`.
        .target(name: "CupcakeCorner", dependencies: ["HapticsCore", "SensoryFeedback"]),
        .executableTarget(
            name: "haptic",
            dependencies: [
                "HapticsCore", "HapticsSynthesis", "HapticsEngine", "HapticsALSA", "SensoryFeedback", "CupcakeCorner",
                "HapticsReview",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // Real-time benchmarks (docs/timing.md): timer lateness, start latency, CPU, many players,
        // feedback latency.
        .executableTarget(
            name: "haptic-bench",
            dependencies: [
                "HapticsCore", "HapticsSynthesis", "HapticsEngine", "HapticsALSA", "SensoryFeedback",
                "HapticsTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "HapticsCoreTests",
            dependencies: [
                "HapticsCore", "HapticsTestSupport", .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .testTarget(
            name: "HapticsSynthesisTests", dependencies: ["HapticsCore", "HapticsSynthesis", "HapticsTestSupport"]),
        .testTarget(
            name: "HapticsEngineTests",
            dependencies: ["HapticsCore", "HapticsEngine", "HapticsSynthesis", "HapticsTestSupport"]
        ),
        .testTarget(
            name: "HapticsALSATests",
            dependencies: ["HapticsALSA", "HapticsEngine", "HapticsSynthesis", "HapticsTestSupport"]
        ),
        .testTarget(
            name: "CoreHapticsTests",
            dependencies: ["CoreHaptics", "HapticsEngine", "HapticsSynthesis", "HapticsTestSupport"]
        ),
        .testTarget(
            name: "SensoryFeedbackTests",
            dependencies: ["SensoryFeedback", "HapticsCore", "HapticsEngine", "HapticsSynthesis", "HapticsTestSupport"]
        ),
        .testTarget(name: "CupcakeCornerTests", dependencies: ["CupcakeCorner", "SensoryFeedback", "HapticsCore"]),
        .testTarget(
            name: "HapticCLITests", dependencies: ["haptic", "HapticsSynthesis", "CupcakeCorner", "HapticsTestSupport"]),
        .testTarget(
            name: "HapticsReviewTests",
            dependencies: [
                "HapticsReview", "HapticsCore", "HapticsSynthesis", "HapticsTestSupport",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
    ]
)

// One settings loop: the same strict features for every target.
for target in package.targets where target.type != .system && target.name != "CoreHapticsEnums" {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .swiftLanguageMode(.v6),
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
        ]
}
