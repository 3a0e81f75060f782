import Foundation
import Testing

/// Bad input of every kind: a clear message naming the file, exit status 1, never a crash
/// (a signal) or a hang.
@Suite struct BadInputTests {
    let scratch: ScratchFolder
    init() throws { scratch = try ScratchFolder() }

    static let cases: [(name: String, bytes: [UInt8], says: String)] = [
        ("empty", [], "empty"),
        ("truncated", Array(#"{"Version":1,"Pattern":[{"Event":{"Time":0,"#.utf8), "line 1"),
        ("garbage", (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) }, "error"),
        ("top-level-array", Array(#"[{"Event":{"Time":0,"EventType":"HapticTransient"}}]"#.utf8), "object"),
        (
            "invalid-utf8",
            Array(#"{"Version":1,"Metadata":{"Project":""#.utf8) + [0xC3, 0x28] + Array(#""},"Pattern":[]}"#.utf8),
            "UTF-8"
        ),
        (
            "huge-number", Array(#"{"Pattern":[{"Event":{"Time":1e999,"EventType":"HapticTransient"}}]}"#.utf8),
            "Pattern[0].Event.Time"
        ),
        (
            "negative-time", Array(#"{"Pattern":[{"Event":{"Time":-1e308,"EventType":"HapticTransient"}}]}"#.utf8),
            "Pattern[0].Event.Time"
        ),
        ("deep-nesting", Array(repeating: UInt8(ascii: "["), count: 200_000), "nest"),
        (
            "string-time", Array(#"{"Pattern":[{"Event":{"Time":"soon","EventType":"HapticTransient"}}]}"#.utf8),
            "Pattern[0].Event.Time"
        ),
        (
            "continuous-without-duration",
            Array(#"{"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous"}}]}"#.utf8), "Pattern[0].Event"
        ),
    ]

    @Test(arguments: cases.map(\.name))
    func renderRefusesWithAClearMessage(name: String) async throws {
        let entry = Self.cases.first { $0.name == name }!
        let file = try scratch.write("\(name).ahap", entry.bytes)
        let result = try await Haptic.run(["render", file, "-o", scratch.path("out.wav")])
        #expect(result.status == 1, "\(name): \(result.stderr)")
        #expect(result.stderr.contains("\(name).ahap"), "\(result.stderr)")
        #expect(result.stderr.contains("error"), "\(result.stderr)")
        #expect(result.stderr.localizedCaseInsensitiveContains(entry.says), "\(name): \(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("out.wav")))
    }

    @Test(arguments: cases.map(\.name))
    func lintReportsEveryBadFileWithoutCrashing(name: String) async throws {
        let entry = Self.cases.first { $0.name == name }!
        let file = try scratch.write("\(name).ahap", entry.bytes)
        let result = try await Haptic.run(["lint", file])
        #expect(result.status == 1, "\(name): \(result.stderr)")
        #expect(result.output.hasPrefix("\(file):"), "\(result.output)")
        #expect(result.output.contains(": error["))
    }

    @Test func twoHundredThousandEventsHitTheDocumentedLimit() async throws {
        let event = #"{"Event":{"Time":0.5,"EventType":"HapticTransient"}}"#
        let text = #"{"Version":1,"Pattern":["# + Array(repeating: event, count: 200_000).joined(separator: ",") + "]}"
        let file = try scratch.write("many.ahap", text)
        let result = try await Haptic.run(["render", file, "-o", scratch.path("out.wav")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("many.ahap"))
        #expect(result.stderr.contains("100000"), "\(result.stderr)")
    }

    @Test func aWaveformOutsideThePatternsFolderIsRefused() async throws {
        try scratch.write("secret.wav", [UInt8](repeating: 0, count: 64))
        let file = try scratch.write(
            "inner/escape.ahap",
            #"{"Pattern":[{"Event":{"Time":0,"EventType":"AudioCustom","EventWaveformPath":"../secret.wav"}}]}"#)
        let result = try await Haptic.run(["render", file, "-o", scratch.path("out.wav")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("Pattern[0].Event.EventWaveformPath"), "\(result.stderr)")
        #expect(result.stderr.contains("outside"), "\(result.stderr)")
    }

    @Test func anAbsoluteWaveformPathIsRefused() async throws {
        let file = try scratch.write(
            "abs.ahap",
            #"{"Pattern":[{"Event":{"Time":0,"EventType":"AudioCustom","EventWaveformPath":"/etc/passwd"}}]}"#)
        let result = try await Haptic.run(["render", file, "-o", scratch.path("out.wav")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("absolute"), "\(result.stderr)")
    }

    @Test func aWaveformThatIsNotAWAVIsRefused() async throws {
        try scratch.write("sound/click.wav", Array("this is not audio".utf8))
        let file = try scratch.write(
            "notwav.ahap",
            #"{"Pattern":[{"Event":{"Time":0,"EventType":"AudioCustom","EventWaveformPath":"sound/click.wav"}}]}"#)
        let result = try await Haptic.run(["render", file, "-o", scratch.path("out.wav")])
        #expect(result.status == 1)
        #expect(result.stderr.contains("Pattern[0].Event.EventWaveformPath"), "\(result.stderr)")
        #expect(result.stderr.contains("not a usable WAV"), "\(result.stderr)")
    }
}
