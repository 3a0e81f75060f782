import Foundation
import HapticsSynthesis
import Testing
import _HapticsTestSupport

/// The day-50 tutorial code (Examples/Day50), built as its own package against this one and run
/// with HAPTIC_OUTPUT: what it plays must be 19 audible taps 100 ms apart, rising then falling.
///
/// tools/test builds the example before `swift test`, so the build here is an up-to-date check;
/// run alone, the first build takes a few minutes. Serialized: each test builds into the one
/// Examples/Day50 build folder, and two builds of a stale folder at once failed there.
@Suite(.serialized) struct Day50Tests {
    static func run(_ arguments: [String], environment: [String: String] = [:]) throws -> (Int32, String) {
        let result = try TestProcess.run(
            URL(filePath: "/usr/bin/env"), arguments,
            environment: ProcessInfo.processInfo.environment.merging(environment) { $1 }, mergingErrors: true)
        return (result.status, result.output)
    }

    /// Runs `executable` with `HAPTIC_OUTPUT` set to a fresh WAV file and decodes what it played.
    /// A capture's timeline is the wall clock's, so a stall of the machine moves a tap (120 ms at
    /// load 12 moved one): the capture is judged from a run in which the machine never stalled
    /// for 10 ms or more (`onAStillMachine`); a fault of ours shows in every run.
    static func capture(_ executable: String) async throws -> AudioClip {
        try await onAStillMachine(stallsBelow: 10) {
            let name = URL(filePath: executable).lastPathComponent
            let wav = FileManager.default.temporaryDirectory.appending(path: "\(name)-\(UUID().uuidString).wav")
            defer { try? FileManager.default.removeItem(at: wav) }
            let (status, output) = try await onOwnThread {
                try Self.run([executable], environment: ["HAPTIC_OUTPUT": wav.path(percentEncoded: false)])
            }
            try #require(status == 0, "\(name) failed: \(output)")
            #expect(output == "")
            return try WAV.decode([UInt8](try Data(contentsOf: wav)))
        }
    }

    @Test func tutorialCodePlaysRisingThenFallingTaps() async throws {
        let package = packageRoot.appending(path: "Examples/Day50").path(percentEncoded: false)
        let (built, log) = try Self.run(["swift", "build", "--package-path", package])
        try #require(built == 0, "swift build of Examples/Day50 failed:\n\(log)")
        let clip = try await Self.capture(package + "/.build/debug/Day50")
        let rate = clip.sampleRate
        let onsets = AudioAnalysis.onsets(
            clip.samples, channels: clip.channels, threshold: 1e-3, minGapFrames: rate / 50)
        try #require(onsets.count == 19, "onsets at \(onsets)")
        for (a, b) in zip(onsets, onsets.dropFirst()) {
            // Within 0.2 ms: a soft tap crosses the onset threshold a few samples later than a loud one.
            #expect(abs(b - a - rate / 10) <= rate / 5_000, "taps \(a) and \(b) are not 100 ms apart")
        }
        let peaks = onsets.map { AudioAnalysis.peak(Array(clip.samples[$0..<min(clip.samples.count, $0 + rate / 50)])) }
        let top = try #require(peaks.indices.max { peaks[$0] < peaks[$1] })
        #expect(top == 9, "the loudest tap is the tenth (intensity 1 at 1.0 s); peaks \(peaks)")
        for i in 1..<top { #expect(peaks[i] > peaks[i - 1], "rising: tap \(i) louder than tap \(i - 1)") }
        for i in (top + 1)..<peaks.count {
            #expect(peaks[i] < peaks[i - 1], "falling: tap \(i) softer than tap \(i - 1)")
        }
    }

    /// App code written for the project in the style of real apps (Examples/Day50/Sources/AppCode5,
    /// built in Swift 5 mode and, from the same files, in Swift 6 mode as AppCode6): both play four
    /// taps through HAPTIC_OUTPUT: three decoded taps 100 ms apart, softer each time, then after a
    /// stop and a start of the engine one more, appended to the same file.
    @Test(arguments: ["AppCode5", "AppCode6"])
    func appCodePlaysInBothLanguageModes(_ product: String) async throws {
        let package = packageRoot.appending(path: "Examples/Day50").path(percentEncoded: false)
        let (built, log) = try Self.run(["swift", "build", "--package-path", package, "--product", product])
        try #require(built == 0, "swift build of \(product) failed:\n\(log)")
        let clip = try await Self.capture(package + "/.build/debug/" + product)
        let rate = clip.sampleRate
        let onsets = AudioAnalysis.onsets(
            clip.samples, channels: clip.channels, threshold: 1e-3, minGapFrames: rate / 50)
        try #require(onsets.count == 4, "onsets at \(onsets)")
        for (a, b) in zip(onsets.prefix(3), onsets.prefix(3).dropFirst()) {
            #expect(abs(b - a - rate / 10) <= rate / 5_000, "taps \(a) and \(b) are not 100 ms apart")
        }
        let peaks = onsets.map { AudioAnalysis.peak(Array(clip.samples[$0..<min(clip.samples.count, $0 + rate / 50)])) }
        #expect(peaks[0] > peaks[1] && peaks[1] > peaks[2], "decoded taps soften: \(peaks)")
        #expect(abs(peaks[3] - peaks[0]) < 0.05 * peaks[0], "the tap after the restart is as loud as the first")
    }
}
