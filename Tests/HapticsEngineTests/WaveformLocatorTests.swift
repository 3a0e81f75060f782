import Foundation
import HapticsCore
import Testing

@testable import HapticsEngine

/// The line and column of a waveform finding: told for every event, and from one parse of the
/// file, so a file naming thousands of missing waveforms is read as fast as any other.
@Suite struct WaveformLocatorTests {
    /// One AudioCustom event a line, each naming a waveform that is not there.
    static func lines(_ count: Int) -> [String] {
        [#"{"Version": 1, "Pattern": ["#]
            + (0..<count).map { i in
                #"  {"Event": {"Time": \#(Double(i) / 100), "EventType": "AudioCustom", "EventWaveformPath": "w\#(i).wav"}}"#
                    + (i + 1 < count ? "," : "")
            } + ["]}"]
    }

    /// Where event `i`'s waveform name starts: its line (1-based) and its opening quote's column.
    static func place(of i: Int, in lines: [String]) -> HapticsCore.SourceLocation {
        let line = lines[i + 1]
        let quote = line.firstRange(of: "\"w\(i).wav\"")!.lowerBound
        return HapticsCore.SourceLocation(line: i + 2, column: line.distance(from: line.startIndex, to: quote) + 1)
    }

    /// 20,000 missing waveforms (a 1.9 MB file): one warning each at its own line and column.
    /// Parsing the file again for each finding took minutes here; the limit is far above one parse.
    @Test(.timeLimit(.minutes(1))) func everyMissingWaveformIsPlacedFromOneParse() throws {
        let count = 20_000
        let lines = Self.lines(count)
        let path = FileManager.default.temporaryDirectory.appending(path: "many-\(UUID().uuidString).ahap").path
        try lines.joined(separator: "\n").write(toFile: path, atomically: false, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let (findings, file) = PatternFile.inspect(path, missingWaveforms: .skip)
        #expect(file != nil)
        let missing = findings.filter { $0.code == .waveformNotFound }
        #expect(missing.count == count)
        for (i, finding) in missing.enumerated() where i % 997 == 0 || i == count - 1 {
            #expect(finding.path == JSONPath.root.key("Pattern").index(i).key("Event").key("EventWaveformPath"))
            #expect(finding.location == Self.place(of: i, in: lines), "event \(i)")
        }
    }

    /// An element that is not an event with a waveform, one past the end, or text that is not
    /// JSON: no place, and no trap.
    @Test func noPlaceWhereThereIsNoWaveformPath() {
        let lines = Self.lines(2)
        var locator = PatternFile.WaveformLocator(text: Array(lines.joined(separator: "\n").utf8))
        #expect(locator.location(ofElement: 1) == Self.place(of: 1, in: lines))
        #expect(locator.location(ofElement: 0) == Self.place(of: 0, in: lines))
        #expect(locator.location(ofElement: 2) == nil)
        var curve = PatternFile.WaveformLocator(
            text: Array(#"{"Pattern": [{"ParameterCurve": {"ParameterID": "HapticIntensityControl"}}]}"#.utf8))
        #expect(curve.location(ofElement: 0) == nil)
        var garbage = PatternFile.WaveformLocator(text: Array("not json".utf8))
        #expect(garbage.location(ofElement: 0) == nil)
        var none = PatternFile.WaveformLocator(text: nil)
        #expect(none.location(ofElement: 0) == nil)
    }
}
