// swift-tools-version: 6.1
import PackageDescription

// The libFuzzer targets (docs/reliability.md): a package of their own, because they link libFuzzer,
// which an ordinary build does not have. tools/fuzz builds them with -sanitize=fuzzer,address.
// CupcakeCorner is the tool's order model (Tools/Sources/CupcakeCorner, linked in): built here as a
// target of this package, its `package` API is the fuzzers' without being anybody else's.
let package = Package(
    name: "swift-haptics-fuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "swift-haptics", path: ".."),
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
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
    ]
)

func library(_ name: String) -> Target.Dependency { .product(name: name, package: "swift-haptics") }

for (name, dependencies): (String, [Target.Dependency]) in [
    ("fuzz-ahap", [library("HapticsCore"), library("HapticsSynthesis")]),
    ("fuzz-wav", [library("HapticsSynthesis")]),
    ("fuzz-order-script", ["CupcakeCorner", library("SensoryFeedback")]),
    ("fuzz-event-log", ["CupcakeCorner"]),
    ("fuzz-midi", [library("HapticsCore")]),
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
