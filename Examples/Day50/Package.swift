// swift-tools-version: 6.1
import PackageDescription

// App code compiled against swift-haptics' CoreHaptics: the day-50 haptics code of 100 Days of
// SwiftUI, unchanged, and AppCode (written for this project in the style of real apps: handlers
// capturing `self`, a Decodable event subclass, audio session, async start/stop, JSONSerialization
// dictionaries, a restart), built twice from the same files: Swift 5 mode (AppCode5) and Swift 6
// mode (AppCode6, whose files link to AppCode5's). Run with HAPTIC_OUTPUT=/tmp/x.wav to capture
// what they play.
let package = Package(
    name: "Day50",
    platforms: [.macOS(.v15)],
    dependencies: [.package(name: "swift-haptics", path: "../..")],
    targets: [
        .executableTarget(
            name: "Day50",
            dependencies: [.product(name: "CoreHaptics", package: "swift-haptics")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
        .executableTarget(
            name: "AppCode5",
            dependencies: [.product(name: "CoreHaptics", package: "swift-haptics")],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        .executableTarget(
            name: "AppCode6",
            dependencies: [.product(name: "CoreHaptics", package: "swift-haptics")],
            swiftSettings: [.swiftLanguageMode(.v6)]
        ),
    ]
)
