// swift-tools-version: 6.1
import PackageDescription

// The `haptic` tool and what only it needs: the CLI, the studio (a local web app), the Cupcake Corner
// order flow and its HTTP endpoint, and haptic-bench. A package of its own, on top of the libraries
// in the root package, so that an app depending on a library never resolves the tool's server and
// client stack (swift-nio, Hummingbird, AsyncHTTPClient, BoringSSL). Build it with
// `swift build --package-path Tools` or tools/build-release.
let package = Package(
    name: "swift-haptics-tools",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "haptic", targets: ["haptic"])
    ],
    dependencies: [
        .package(name: "swift-haptics", path: ".."),
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
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
    ],
    targets: [
        // Issue 5: the Cupcake Corner order flow (model, session, store, log) behind `haptic order`.
        .target(
            name: "CupcakeCorner",
            dependencies: [
                .product(name: "HapticsCore", package: "swift-haptics"),
                .product(name: "HapticsEngine", package: "swift-haptics"),
                .product(name: "SensoryFeedback", package: "swift-haptics"),
                .product(name: "SystemPackage", package: "swift-system"),
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
        // in Web, embedded). Its HTTP API is the page's, not an app's.
        .target(
            name: "HapticsStudio",
            dependencies: [
                .product(name: "HapticsCore", package: "swift-haptics"),
                .product(name: "HapticsSynthesis", package: "swift-haptics"),
                .product(name: "HapticsEngine", package: "swift-haptics"),
                .product(name: "HapticsSystem", package: "swift-haptics"),
                .product(name: "HapticsReview", package: "swift-haptics"),
                .product(name: "HapticsAudioAnalysis", package: "swift-haptics"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOEmbedded", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            resources: [.embedInCode("Web")]
        ),
        .executableTarget(
            name: "haptic",
            dependencies: [
                "CupcakeCorner", "OrderEndpoint", "HapticsStudio",
                .product(name: "HapticsAudioAnalysis", package: "swift-haptics"),
                .product(name: "HapticsCore", package: "swift-haptics"),
                .product(name: "HapticsSynthesis", package: "swift-haptics"),
                .product(name: "HapticsEngine", package: "swift-haptics"),
                .product(name: "HapticsALSA", package: "swift-haptics"),
                .product(name: "HapticsSystem", package: "swift-haptics"),
                .product(name: "SensoryFeedback", package: "swift-haptics"),
                .product(name: "HapticsReview", package: "swift-haptics"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        // Counts allocations and bytes per thread (interposes malloc); linked into haptic-bench and
        // the studio tests only.
        .target(name: "CMallocCounter"),
        // Real-time benchmarks (docs/timing.md): timer lateness, start latency, CPU, many players,
        // feedback latency, allocations per control sent, the studio in Chromium.
        .executableTarget(
            name: "haptic-bench",
            dependencies: [
                "HapticsStudio", "_ToolTestSupport", "CMallocCounter",
                .product(name: "HapticsCore", package: "swift-haptics"),
                .product(name: "HapticsSynthesis", package: "swift-haptics"),
                .product(name: "HapticsEngine", package: "swift-haptics"),
                .product(name: "HapticsALSA", package: "swift-haptics"),
                .product(name: "SensoryFeedback", package: "swift-haptics"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),

        // The tool's test machinery: the DevTools client (Chromium over WebSocket), raw HTTP, busy
        // loops, and the root package's rig and fixtures (linked files: a nested package cannot use
        // the root's non-product target).
        .target(
            name: "_ToolTestSupport",
            dependencies: [
                .product(name: "HapticsEngine", package: "swift-haptics"),
                .product(name: "HapticsSynthesis", package: "swift-haptics"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            path: "Tests/_ToolTestSupport"),
        .testTarget(
            name: "CupcakeCornerTests",
            dependencies: [
                "CupcakeCorner",
                .product(name: "SensoryFeedback", package: "swift-haptics"),
                .product(name: "HapticsCore", package: "swift-haptics"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]
        ),
        .testTarget(
            name: "OrderEndpointTests",
            dependencies: [
                "OrderEndpoint", "CupcakeCorner", "_ToolTestSupport",
                .product(name: "SensoryFeedback", package: "swift-haptics"),
            ],
            exclude: ["fault-server.py"]
        ),
        .testTarget(
            name: "HapticCLITests",
            dependencies: [
                "haptic", "CupcakeCorner", "_ToolTestSupport",
                .product(name: "HapticsCore", package: "swift-haptics"),
                .product(name: "HapticsSynthesis", package: "swift-haptics"),
            ]
        ),
        .testTarget(
            name: "HapticsStudioTests",
            dependencies: [
                "HapticsStudio", "_ToolTestSupport", "CMallocCounter",
                .product(name: "HapticsCore", package: "swift-haptics"),
                .product(name: "HapticsEngine", package: "swift-haptics"),
                .product(name: "HapticsSynthesis", package: "swift-haptics"),
                .product(name: "HapticsSystem", package: "swift-haptics"),
                .product(name: "NIOCore", package: "swift-nio"),
            ]
        ),
    ]
)

// The root package's settings loop, for this package's Swift targets.
for target in package.targets where target.type != .system && target.name != "CMallocCounter" {
    target.swiftSettings =
        (target.swiftSettings ?? []) + [
            .swiftLanguageMode(.v6),
            .enableUpcomingFeature("ExistentialAny"),
            .enableUpcomingFeature("MemberImportVisibility"),
            .enableUpcomingFeature("InternalImportsByDefault"),
        ]
}
