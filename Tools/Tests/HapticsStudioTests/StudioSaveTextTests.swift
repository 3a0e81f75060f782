import Foundation
import HapticsCore
import HapticsStudio
import Testing
import _ToolTestSupport

/// A save changes only what was edited: the file's own text with the edited values replaced at
/// their bytes, added entries in the file's style, everything else byte for byte.
@Suite struct StudioSaveTextTests {
    /// A one-line AHAP file like the 1.3 MB corpus file that a save used to turn into 81,700
    /// lines: `count` transients written `1.0`-style, every seventh with intensity 1.5 (out of
    /// range, clamped when played), and an unknown key.
    static func oneLine(count: Int) -> String {
        var random = SplitMix64(seed: 28)
        var parts: [String] = []
        parts.reserveCapacity(count)
        for i in 0..<count {
            let intensity = i % 7 == 3 ? "1.5" : String(format: "%.4f", Double(random.next() % 10_000) / 10_000)
            let sharpness = String(format: "%.4f", Double(random.next() % 10_000) / 10_000)
            parts.append(
                #"{"Event":{"Time":\#(Double(i * 42) / 1000),"EventType":"HapticTransient","EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":\#(intensity)},{"ParameterID":"HapticSharpness","ParameterValue":\#(sharpness)}]},"Note":"x\#(i)"}"#
            )
        }
        return #"{"Version":1.0,"Metadata":{"Project":"gen"},"Pattern":["# + parts.joined(separator: ",") + "]}"
    }

    static let pretty = """
        {
          "Version": 1.0,
          // the designer's note
          "Pattern": [
            {
              "Event": {
                "Time": 0.0,
                "EventType": "HapticTransient",
                "EventParameters": [
                  { "ParameterID": "HapticIntensity", "ParameterValue": 1.0 },
                  { "ParameterID": "HapticSharpness", "ParameterValue": 0.5 }
                ]
              }
            },
            {
              "Event": {
                "Time": 0.25,
                "EventType": "HapticContinuous",
                "EventDuration": 0.5,
                "EventParameters": [
                  { "ParameterID": "HapticIntensity", "ParameterValue": 2.0 }
                ]
              }
            }
          ]
        }

        """

    /// The one stretch where two texts differ (after their common start and end).
    static func difference(_ a: [UInt8], _ b: [UInt8]) -> (String, String) {
        var p = 0
        while p < a.count && p < b.count && a[p] == b[p] { p += 1 }
        var s = 0
        while s < a.count - p && s < b.count - p && a[a.count - 1 - s] == b[b.count - 1 - s] { s += 1 }
        return (
            String(decoding: a[p..<a.count - s], as: UTF8.self), String(decoding: b[p..<b.count - s], as: UTF8.self)
        )
    }

    /// `Pattern[index]` of the patch's text, with `old` replaced by `new` in its one-line JSON.
    static func element(_ patch: SourcePatch, _ index: Int, _ old: String, _ new: String) throws -> JSONValue {
        guard case .array(let entries) = try JSONValue(parsing: Array(Self.patternJSON(patch).utf8)) else {
            throw CocoaError(.coderInvalidValue)
        }
        let text = entries[index].jsonText
        #expect(text.contains(old), "\(text)")
        return try JSONValue(parsing: Array(text.replacingOccurrences(of: old, with: new).utf8))
    }

    /// The text of the value of `Pattern`.
    static func patternJSON(_ patch: SourcePatch) -> String {
        let text = patch.value.jsonText
        let start = text.range(of: "\"Pattern\": ")!.upperBound
        return String(text[start...].dropLast())
    }

    @Test func oneNudgeInAOneLineFileChangesOneNumber() throws {
        let text = Array(Self.oneLine(count: 4_904).utf8)
        #expect(text.count > 1_000_000, "like the 1.3 MB corpus file: \(text.count) bytes")
        let patch = try SourcePatch(text)
        let nudged = try Self.element(patch, 2_000, "\"Time\": 84,", "\"Time\": 84.01,")
        let saved = try patch.applying(edits: [.set(index: 2_000, element: nudged)])
        #expect(saved.count == text.count + 1)
        let (before, after) = Self.difference(text, saved)
        #expect(before == "" && after == "1", "84.0 became 84.01: only that byte is new (\(before) -> \(after))")
        #expect(!saved.contains(0x0A), "still one line")
        // The out-of-range values the user did not touch are still in the text.
        let count = { (bytes: [UInt8]) in String(decoding: bytes, as: UTF8.self).components(separatedBy: ":1.5}").count
        }
        #expect(count(saved) == count(text))
        #expect(count(text) > 600)
    }

    @Test func anEditOfAnOutOfRangeEventKeepsItsUntouchedValues() throws {
        let text = Array(Self.oneLine(count: 10).utf8)
        let patch = try SourcePatch(text)
        // Event 3 has intensity 1.5; the page moves it (and shows 1.5 as it is in the file).
        let moved = try Self.element(patch, 3, "\"Time\": 0.126,", "\"Time\": 0.2,")
        let saved = String(decoding: try patch.applying(edits: [.set(index: 3, element: moved)]), as: UTF8.self)
        #expect(
            saved.contains(
                #"{"Event":{"Time":0.2,"EventType":"HapticTransient","EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1.5}"#
            ))
        #expect(saved.contains(#""Note":"x3""#), "unknown keys stay")
    }

    @Test func aPrettyFileKeepsItsLayoutCommentsAndNumbers() throws {
        let text = Array(Self.pretty.utf8)
        let patch = try SourcePatch(text)
        let louder = try Self.element(patch, 0, "\"ParameterValue\": 0.5", "\"ParameterValue\": 0.75")
        let saved = try patch.applying(edits: [.set(index: 0, element: louder)])
        let (before, after) = Self.difference(text, saved)
        #expect(before == "" && after == "7", "0.5 became 0.75: \(before) -> \(after)")
        #expect(String(decoding: saved, as: UTF8.self).contains("// the designer's note"))
        #expect(
            String(decoding: saved, as: UTF8.self).contains("\"ParameterValue\": 2.0"), "the out-of-range 2.0 stays")
    }

    @Test func anAddedEventIsWrittenInTheFilesStyleAndARemovedOneLeavesNoTrace() throws {
        let text = Array(Self.pretty.utf8)
        let patch = try SourcePatch(text)
        let added = try JSONValue(
            parsing: Array(
                #"{"Event": {"EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.8}], "EventType": "HapticTransient", "Time": 1}}"#
                    .utf8))
        let saved = String(decoding: try patch.applying(edits: [.add(element: added)]), as: UTF8.self)
        let inserted = [
            ",", "    {", "      \"Event\": {", "        \"Time\": 1,", "        \"EventType\": \"HapticTransient\",",
            "        \"EventParameters\": [",
            "          { \"ParameterID\": \"HapticIntensity\", \"ParameterValue\": 0.8 }",
            "        ]", "      }", "    }",
        ].joined(separator: "\n")
        #expect(saved.contains(inserted), "\(saved)")
        #expect(saved.replacingOccurrences(of: inserted, with: "") == Self.pretty, "nothing else changed")
        _ = try AHAP.decode(Array(saved.utf8))

        let removed = String(decoding: try patch.applying(edits: [.remove(index: 0)]), as: UTF8.self)
        let kept = Self.pretty.components(separatedBy: "\n")
        let lines = removed.components(separatedBy: "\n")
        #expect(lines.count == kept.count - 10, "the event's 10 lines go, nothing else:\n\(removed)")
        #expect(lines.first { $0.contains("\"Time\": 0.25") } != nil)
        _ = try AHAP.decode(Array(removed.utf8))
    }

    @Test func theWholeValueIsSavedByChangingOnlyWhatDiffers() throws {
        let text = Array(Self.pretty.utf8)
        let patch = try SourcePatch(text)
        // What an older page or a script sends: the whole pattern, as a JSON writer would.
        let shorter = patch.value.jsonText.replacingOccurrences(
            of: "\"EventDuration\": 0.5", with: "\"EventDuration\": 0.4")
        let whole = try JSONValue(parsing: Array(shorter.utf8))
        let saved = try patch.applying(whole)
        let (before, after) = Self.difference(text, saved)
        #expect(before == "5" && after == "4")
    }
}
