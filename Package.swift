// swift-tools-version: 6.1
import PackageDescription

let package = Package(
    name: "swift-haptics",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "HapticsCore", targets: ["HapticsCore"]),
        .library(name: "HapticsSynthesis", targets: ["HapticsSynthesis"]),
        .library(name: "HapticsReview", targets: ["HapticsReview"]),
        .executable(name: "haptic", targets: ["haptic"]),
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
            name: "HapticsReview",
            dependencies: [
                "HapticsCore", "HapticsSynthesis",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
        .executableTarget(
            name: "haptic",
            dependencies: [
                "HapticsCore", "HapticsSynthesis",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(name: "HapticsCoreTests", dependencies: ["HapticsCore"]),
        .testTarget(
            name: "HapticsReviewTests",
            dependencies: [
                "HapticsReview", "HapticsCore",
                .product(name: "OrderedCollections", package: "swift-collections"),
            ]
        ),
    ]
)

// One settings loop: the same strict features for every target.
for target in package.targets where target.type != .system {
    target.swiftSettings = (target.swiftSettings ?? []) + [
        .swiftLanguageMode(.v6),
        .enableUpcomingFeature("ExistentialAny"),
        .enableUpcomingFeature("MemberImportVisibility"),
    ]
}
