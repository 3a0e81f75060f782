// swift-tools-version: 6.1
import PackageDescription

// The day-50 haptics code of 100 Days of SwiftUI, compiled unchanged against swift-haptics'
// CoreHaptics. Run with HAPTIC_OUTPUT=/tmp/day50.wav to capture what it plays.
let package = Package(
    name: "Day50",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "swift-haptics", path: "../..")],
    targets: [
        .executableTarget(
            name: "Day50",
            dependencies: [.product(name: "CoreHaptics", package: "swift-haptics")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        )
    ]
)
