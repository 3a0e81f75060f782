import Foundation
import Testing

/// `haptic convert IN -o OUT --check`: the original played by its own format's semantics against
/// the file written, read back and played by its own (docs/formats.md).
@Suite struct ConvertCheckReadBackTests {
    let scratch: ScratchFolder
    init() throws { scratch = try ScratchFolder() }

    /// A buzz whose emphasis at 0.5 s is louder than its breakpoint: the mapping holds the
    /// intensity control up and pauses the carrier for 21 ms (`emphasis-held`), which Meta's and
    /// Lofelt's players do not do, so the check cannot come out identical.
    static let buzz = """
        {"version": {"major": 1, "minor": 0, "patch": 0},
         "signals": {"continuous": {"envelopes": {"amplitude": [
           {"time": 0, "amplitude": 0}, {"time": 0.2, "amplitude": 0.5},
           {"time": 0.5, "amplitude": 0.3, "emphasis": {"amplitude": 0.9, "frequency": 0.6}},
           {"time": 0.8, "amplitude": 0.6}, {"time": 1, "amplitude": 0}],
           "frequency": [{"time": 0, "frequency": 0.2}, {"time": 1, "frequency": 0.8}]}}}}
        """

    /// Thirteen transients under an intensity curve and no carrier (Apple's Gravel's shape).
    static let taps: String = {
        let events = (0..<13).map { i in
            """
            {"Event": {"Time": \(Double(i) * 0.08), "EventType": "HapticTransient", "EventParameters": [
              {"ParameterID": "HapticIntensity", "ParameterValue": 1},
              {"ParameterID": "HapticSharpness", "ParameterValue": 0.5}]}}
            """
        }
        let curve = """
            {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [
              {"Time": 0, "ParameterValue": 1}, {"Time": 1, "ParameterValue": 0.3}]}}
            """
        return "{\"Version\": 1, \"Pattern\": [\((events + [curve]).joined(separator: ",\n"))]}"
    }()

    /// The `IN: check: ...` lines of a run's standard error.
    static func checkLines(_ result: Haptic.Result, _ input: String) -> [Substring] {
        result.stderr.split(separator: "\n").filter { $0.hasPrefix("\(input): check: ") }
    }

    /// The number after `label ` in `line`.
    static func figure(_ label: String, in line: Substring) -> Double? {
        guard let range = line.range(of: label + " ") else { return nil }
        let rest = line[range.upperBound...].prefix { "+-0123456789.".contains($0) }
        return Double(rest)
    }

    @Test func aClipToAHAPIsCheckedAgainstTheClipAsItsPlayersPlayIt() async throws {
        let input = try scratch.write("buzz.haptic", Self.buzz)
        let output = scratch.path("buzz.ahap")
        let result = try await Haptic.run(["convert", input, "-o", output, "--check"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = Self.checkLines(result, input)
        try #require(lines.count == 1, "\(result.stderr)")
        let line = lines[0]
        #expect(line.contains("onsets 1 -> 1"), "\(line)")
        #expect(line.contains("emphases 1 of 1 kept"), "\(line)")
        // The clip played as its players play it is not the mapping played back: the held
        // emphasis shows, if only just, under the line's three decimals since the taps and the
        // carrier are measured apart (0.9996; `jsonReportsTheEmphasesKept` reads it unrounded).
        let correlation = try #require(Self.figure("envelope correlation", in: line), "\(line)")
        #expect(correlation >= 0.9, "\(line)")
        #expect(result.stderr.contains("\(input): lost: emphasis-held"), "\(result.stderr)")
    }

    @Test func tapsUnderACurveToHapticKeepEveryTapInTheClipReadBack() async throws {
        let input = try scratch.write("taps.ahap", Self.taps)
        let output = scratch.path("taps.haptic")
        let result = try await Haptic.run(["convert", input, "-o", output, "--check"])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(Self.checkLines(result, input).first, "\(result.stderr)")
        #expect(line.contains("onsets 13 -> 13"), "\(line)")
        #expect(line.contains("emphases 13 of 13 kept"), "\(line)")
        let loudness = try #require(Self.figure("loudness", in: line), "\(line)")
        #expect(abs(loudness) <= 1.5, "\(line)")
    }

    @Test func standardOutputIsCheckedAsTheFileWouldBe() async throws {
        let input = try scratch.write("buzz.haptic", Self.buzz)
        let file = try await Haptic.run(["convert", input, "-o", scratch.path("buzz.ahap"), "--check"])
        let piped = try await Haptic.run(["convert", input, "-o", "-", "--to", "ahap", "--check"])
        #expect(file.status == 0 && piped.status == 0, "\(file.stderr)\(piped.stderr)")
        #expect(piped.stdout == Array(try Data(contentsOf: URL(filePath: scratch.path("buzz.ahap")))))
        #expect(Self.checkLines(piped, input) == Self.checkLines(file, input), "\(piped.stderr)")
        #expect(Self.checkLines(piped, input).count == 1, "\(piped.stderr)")
    }

    @Test func jsonReportsTheEmphasesKept() async throws {
        let input = try scratch.write("buzz.haptic", Self.buzz)
        let result = try await Haptic.run(["convert", input, "-o", scratch.path("buzz.ahap"), "--check", "--json"])
        #expect(result.status == 0, "\(result.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout)) as? [String: Any]
        let check = try #require(json?["check"] as? [String: Any], "\(result.output)")
        #expect(check["emphases"] as? Int == 1 && check["emphasesKept"] as? Int == 1, "\(check)")
        let correlation = try #require(check["envelopeCorrelation"] as? Double, "\(check)")
        #expect(correlation >= 0.9 && correlation < 0.99999, "\(check)")
    }

    @Test func aClipToHapticIsCheckedClipAgainstClip() async throws {
        let input = try scratch.write("buzz.haptic", Self.buzz)
        let result = try await Haptic.run(["convert", input, "-o", scratch.path("copy.haptic"), "--check"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(
            Self.checkLines(result, input) == [
                "\(input): check: envelope correlation 1.0, onsets 1 -> 1, largest shift 0.0 ms, emphases 1 of 1 kept, loudness +0.0 dB, length +0.0 ms"
            ], "\(result.stderr)")
    }

    /// A legal clip of 60,000 breakpoints (an emphasis on every tenth) writes about 21 MB of
    /// AHAP, more than an input may be (16 MiB): the check still reads it back.
    @Test func aClipWhoseAHAPIsLargerThanAnInputMayBeIsChecked() async throws {
        let count = 60_000
        let points = (0..<count).map { i in
            let emphasis = i % 10 == 5 ? #", "emphasis": {"amplitude": 1, "frequency": 0.5}"# : ""
            return #"{"time": \#(Double(i) * 0.001), "amplitude": \#(i % 2 == 0 ? 0.3 : 0.6)\#(emphasis)}"#
        }
        let clip = """
            {"version": {"major": 1, "minor": 0, "patch": 0}, "signals": {"continuous": {"envelopes": {
              "amplitude": [\(points.joined(separator: ","))]}}}}
            """
        let input = try scratch.write("big.haptic", clip)
        let output = scratch.path("big.ahap")
        let result = try await Haptic.run(["convert", input, "-o", output, "--check"], killAfter: 600)
        #expect(result.status == 0, "\(result.stderr.prefix(500))")
        let size = try FileManager.default.attributesOfItem(atPath: output)[.size] as? Int ?? 0
        #expect(size > 16 << 20, "\(size) bytes")
        let line = try #require(Self.checkLines(result, input).first, "\(result.stderr.prefix(500))")
        #expect(line.contains("emphases 6000 of 6000 kept"), "\(line)")
    }

    @Test func aClipToAndroidIsCheckedAgainstTheClip() async throws {
        let input = try scratch.write("buzz.haptic", Self.buzz)
        let result = try await Haptic.run([
            "convert", input, "-o", scratch.path("buzz.json"), "--to", "android", "--check",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(Self.checkLines(result, input).first, "\(result.stderr)")
        let correlation = try #require(Self.figure("envelope correlation", in: line), "\(line)")
        #expect(correlation >= 0.5, "\(line)")
        #expect(line.contains("of 1 kept"), "\(line)")
    }
}
