// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "swift-haptics",
    platforms: [.macOS(.v15)],
    // What ships is a decision (docs/ARCHITECTURE.md): the libraries an app or tool imports, one small
    // testing product, and the CLI. The Cupcake Corner demo, the benchmarks and this repository's own
    // test machinery (Tests/_HapticsTestSupport) are targets, not products.
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
        .executable(name: "haptic", targets: ["haptic"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
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
                "HapticsCore", "HapticsSynthesis",
                .product(name: "HeapModule", package: "swift-collections"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // ALSA's C API; only HapticsALSA imports it.
        .systemLibrary(name: "CAlsa", pkgConfig: "alsa", providers: [.apt(["libasound2-dev"])]),
        .target(name: "HapticsALSA", dependencies: ["CAlsa", "HapticsEngine", "HapticsSynthesis"]),
        // The one place that chooses and opens the default output (HAPTIC_OUTPUT / HAPTIC_DEVICE / ALSA
        // "default"), and what needs it: the system feedback player and the UIKit-style generators.
        .target(
            name: "HapticsSystem",
            dependencies: ["HapticsALSA", "HapticsEngine", "HapticsSynthesis", "SensoryFeedback"]),
        // Shipped test doubles for users testing their own haptics code: a recording output and an
        // engine on a manual clock.
        .target(name: "HapticsTesting", dependencies: ["HapticsEngine", "HapticsSynthesis"]),
        // This repository's own test machinery (audio rig, headless browser, CPU load, PRNG): no product.
        .target(
            name: "_HapticsTestSupport",
            dependencies: [
                "HapticsEngine", "HapticsSynthesis",
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/_HapticsTestSupport"),
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
        .target(name: "AVFAudio"),
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
        // Issue 15: `haptic studio`, a local web app (Hummingbird 2 and its WebSocket upgrade; the page
        // in Web, embedded). Not a product: it is the CLI's, and its HTTP API is the page's, not an app's.
        .target(
            name: "HapticsStudio",
            dependencies: [
                "HapticsCore", "HapticsSynthesis", "HapticsEngine", "HapticsSystem", "HapticsReview",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ],
            resources: [.embedInCode("Web")]
        ),
        .executableTarget(
            name: "haptic",
            dependencies: [
                "HapticsCore", "HapticsSynthesis", "HapticsEngine", "HapticsALSA", "HapticsSystem", "SensoryFeedback",
                "CupcakeCorner", "OrderEndpoint", "HapticsReview", "HapticsStudio",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        // Counts allocations per thread (interposes malloc); linked into haptic-bench only.
        .target(name: "CMallocCounter"),
        // Real-time benchmarks (docs/timing.md): timer lateness, start latency, CPU, many players,
        // feedback latency, allocations per control sent.
        .executableTarget(
            name: "haptic-bench",
            dependencies: [
                "HapticsCore", "HapticsSynthesis", "HapticsEngine", "HapticsALSA", "SensoryFeedback", "HapticsStudio",
                "_HapticsTestSupport", "CMallocCounter",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "HapticsCoreTests",
            dependencies: [
                "HapticsCore", "_HapticsTestSupport",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
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
            dependencies: ["CoreHaptics", "HapticsEngine", "HapticsSynthesis", "HapticsTesting"]
        ),
        .testTarget(
            name: "SensoryFeedbackTests",
            dependencies: [
                "SensoryFeedback", "HapticsCore", "HapticsEngine", "HapticsSynthesis", "HapticsTesting",
            ]
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
            dependencies: ["OrderEndpoint", "CupcakeCorner", "SensoryFeedback"],
            exclude: ["fault-server.py"]
        ),
        .testTarget(
            name: "HapticCLITests",
            dependencies: ["haptic", "HapticsSynthesis", "CupcakeCorner", "_HapticsTestSupport"]),
        .testTarget(
            name: "HapticsStudioTests",
            dependencies: [
                "HapticsStudio", "HapticsCore", "HapticsEngine", "HapticsSynthesis", "HapticsSystem",
                "_HapticsTestSupport",
            ]
        ),
        .testTarget(
            name: "HapticsReviewTests",
            dependencies: [
                "HapticsReview", "HapticsCore", "HapticsSynthesis", "_HapticsTestSupport",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
    ]
)

// One settings loop: the same strict features for every target.
for target in package.targets
where target.type != .system && !["CMallocCounter", "CoreHapticsEnums", "CRenderKernels"].contains(target.name) {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .swiftLanguageMode(.v6),
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
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
