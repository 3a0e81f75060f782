// swift-tools-version: 6.1
import PackageDescription

// The libFuzzer targets (docs/reliability.md): a package of their own, because they link libFuzzer,
// which an ordinary build does not have. tools/fuzz builds them with -sanitize=fuzzer,address.
// CupcakeCorner is the tool's order model (Tools/Sources/CupcakeCorner, linked in): built here as a
// target of this package, its `package` API is the fuzzers' without being anybody else's. The
// same goes for HapticsStudio (Tools/Sources/HapticsStudio, linked in), whose router fuzz-studio
// drives in-process; its dependencies are the Tools package's, at the same versions.
let package = Package(
    name: "swift-haptics-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-haptics", path: ".."),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/apple/swift-http-types", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swiftlang/swift-subprocess", from: "1.0.2"),
    ],
    targets: [
        .target(name: "FuzzSupport"),
        .target(
            name: "CupcakeCorner",
            dependencies: [
                .product(name: "HapticsCore", package: "swift-haptics"),
                .product(name: "HapticsEngine", package: "swift-haptics"),
                .product(name: "SensoryFeedback", package: "swift-haptics"),
                .product(name: "SystemPackage", package: "swift-system"),
            ]),
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
                .product(name: "OrderedCollections", package: "swift-collections"),
                .product(name: "Subprocess", package: "swift-subprocess"),
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            resources: [.embedInCode("Web")]),
    ]
)

func library(_ name: String) -> Target.Dependency { .product(name: name, package: "swift-haptics") }

for (name, dependencies): (String, [Target.Dependency]) in [
    ("fuzz-ahap", [library("HapticsCore"), library("HapticsSynthesis")]),
    ("fuzz-wav", [library("HapticsSynthesis")]),
    ("fuzz-audio", [library("HapticsAudioAnalysis"), library("HapticsCore")]),
    ("fuzz-order-script", ["CupcakeCorner", library("SensoryFeedback")]),
    ("fuzz-event-log", ["CupcakeCorner"]),
    ("fuzz-midi", [library("HapticsCore")]),
    ("fuzz-clip", [library("HapticsCore"), library("HapticsSynthesis")]),
    (
        "fuzz-studio",
        [
            "HapticsStudio", library("HapticsEngine"), .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HTTPTypes", package: "swift-http-types"), .product(name: "NIOCore", package: "swift-nio"),
        ]
    ),
] {
    package.targets.append(.executableTarget(name: name, dependencies: ["FuzzSupport"] + dependencies))
}

// The same strict features as the other two manifests.
for target in package.targets {
    target.swiftSettings = [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
        .enableUpcomingFeature("InternalImportsByDefault"),
    ]
}
