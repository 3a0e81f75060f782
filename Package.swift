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
        .library(name: "OrderEndpoint", targets: ["OrderEndpoint"]),
        .executable(name: "haptic", targets: ["haptic"]),
        .executable(name: "haptic-bench", targets: ["haptic-bench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
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
        // Apple's Core Haptics API on the engine: app code compiles unchanged.
        .target(
            name: "CoreHaptics",
            dependencies: [
                "HapticsCore", "HapticsSynthesis", "HapticsEngine", "HapticsALSA",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // Issue 5: the Cupcake Corner order flow (model, session, store, log) behind `haptic order`.
        .target(
            name: "CupcakeCorner",
            dependencies: [
                "HapticsCore", "SensoryFeedback", .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // Issue 11: orders over HTTP(S) with AsyncHTTPClient (docs/ARCHITECTURE.md says why), store
        // first, then send; the outbox. Its own module, so CupcakeCorner (and its fuzz build) stays
        // free of SwiftNIO.
        .target(
            name: "OrderEndpoint",
            dependencies: [
                "CupcakeCorner",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        .executableTarget(
            name: "haptic",
            dependencies: [
                "HapticsCore", "HapticsSynthesis", "HapticsEngine", "HapticsALSA", "SensoryFeedback", "CupcakeCorner",
                "OrderEndpoint", "HapticsReview",
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
        .testTarget(
            name: "CupcakeCornerTests",
            dependencies: [
                "CupcakeCorner", "SensoryFeedback", "HapticsCore",
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(
            name: "OrderEndpointTests",
            dependencies: ["OrderEndpoint", "CupcakeCorner", "SensoryFeedback", "HapticsTestSupport"],
            exclude: ["fault-server.py"]
        ),
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
for target in package.targets where target.type != .system {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .swiftLanguageMode(.v6),
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
        ]
}

// Fuzz targets (issue 11), only when tools/fuzz asks for them (HAPTICS_FUZZ=1): they link
// libFuzzer, which an ordinary build does not have. See docs/reliability.md.
if Context.environment["HAPTICS_FUZZ"] == "1" {
    package.targets.append(
        .target(name: "FuzzSupport", path: "Fuzz/Sources/FuzzSupport", swiftSettings: [.swiftLanguageMode(.v6)]))
    for (name, dependencies) in [
        ("fuzz-ahap", ["HapticsCore", "HapticsSynthesis"]),
        ("fuzz-wav", ["HapticsSynthesis"]),
        ("fuzz-order-script", ["CupcakeCorner", "SensoryFeedback"]),
        ("fuzz-event-log", ["CupcakeCorner"]),
    ] {
        package.targets.append(
            .executableTarget(
                name: name, dependencies: ["FuzzSupport"] + dependencies.map { .target(name: $0) },
                path: "Fuzz/Sources/\(name)",
                swiftSettings: [.swiftLanguageMode(.v6)]))
        package.products.append(.executable(name: name, targets: [name]))
    }
}
