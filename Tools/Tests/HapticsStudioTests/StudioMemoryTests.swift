import CMallocCounter
import Foundation
import HapticsCore
import HapticsStudio
import NIOCore
import Testing
import _ToolTestSupport

/// Opening a large file (issue 28): the memory `GET /api/pattern` takes, counted by the
/// allocator (CMallocCounter), and the bytes of its answer, which are JSONEncoder's.
@Suite struct StudioMemoryTests {
    /// A legal pattern mostly of parameter curves, 1,000 control points each (the kind of file
    /// that took a gigabyte to open at 9.8 MB), over `curves` seconds: about 62 kB a curve.
    static func curves(_ curves: Int) -> String {
        var entries: [String] = []
        for c in 0..<curves {
            let t = Double(c / 2)
            if c % 2 == 0 {
                entries.append(
                    #"  {"Event": {"Time": \#(t), "EventType": "HapticContinuous", "EventDuration": 1.0, "#
                        + #""EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.7}]}}"#)
            }
            let id = c % 2 == 0 ? "HapticIntensityControl" : "HapticSharpnessControl"
            let points = (0..<1_000).map { i in
                #"{"Time": \#(Double(i) / 1000), "ParameterValue": \#(Double((i * 37 + c) % 100) / 200 + 0.25)}"#
            }
            entries.append(
                #"  {"ParameterCurve": {"ParameterID": "\#(id)", "Time": \#(t), "ParameterCurveControlPoints": ["#
                    + "\n    " + points.joined(separator: ",\n    ") + "]}}")
        }
        return #"{"Version": 1.0, "Metadata": {"Project": "memory"}, "Pattern": [\#n"#
            + entries.joined(separator: ",\n") + "\n]}\n"
    }

    /// What `body` allocated at its peak, beyond what was allocated when it started, run on a
    /// thread of its own so that nothing else the test process does is counted.
    static func peakBytes<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> (Int, T) {
        try await withCheckedThrowingContinuation { continuation in
            Thread {
                haptics_thread_reset_peak()
                let before = haptics_thread_live_bytes()
                do {
                    let result = try body()
                    continuation.resume(returning: (haptics_thread_peak_bytes() - before, result))
                } catch {
                    continuation.resume(throwing: error)
                }
            }.start()
        }
    }

    /// A 1.5 MB file of curves: the answer is written without a tree of the file, so opening it
    /// takes a few times the file (at most 16 times here), where JSONEncoder's boxes of every
    /// value, its text, a Data, a String and the response's copy took many times more
    /// (BENCHMARKS.md, "Opening a large file").
    @Test(.timeLimit(.minutes(3))) func openingALargeFileTakesAFewTimesItsSize() async throws {
        let text = Self.curves(32)
        try await StudioHarness.with(files: ["curves.ahap": text]) { studio in
            let (peak, json) = try await Self.peakBytes {
                try studio.studio.patternJSON(path: studio.path("curves.ahap"), withText: false)
            }
            let body = try #require(
                try JSONSerialization.jsonObject(with: Data(json.readableBytesView)) as? [String: Any])
            let curves = try #require(body["curves"] as? [[String: Any]])
            #expect(curves.count == 32)
            #expect((curves.first?["points"] as? [Any])?.count == 1_000)
            let file = text.utf8.count
            #expect(peak < 16 * file, "opening a \(file)-byte file took \(peak) bytes at its peak")
        }
    }

    /// The view's JSON, written directly, is JSONEncoder's to the byte: for the repository's
    /// patterns and for members no pattern has (escapes, keys past ASCII and in mixed case,
    /// numbers of every size, the file's text).
    @Test func theViewIsJSONEncodersBytes() throws {
        let folder = TestFiles.packageRoot.appending(path: "Patterns")
        let files = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
            .compactMap { $0 as? URL }.filter { ["ahap", "haptic"].contains($0.pathExtension) }
        #expect(files.count > 10)
        for url in files {
            let bytes = Array(try Data(contentsOf: url))
            let analysis = PatternView.analyze(bytes, path: url.lastPathComponent)
            let source = try? JSONValue(parsing: bytes)
            let view = PatternView.make(
                path: url.lastPathComponent, file: ("v", String(decoding: bytes, as: UTF8.self)), analysis: analysis,
                source: url.pathExtension == "ahap" ? source : nil, locatesLines: true, milliseconds: 1.5)
            #expect(
                String(buffer: Studio.viewJSON(view)) == Studio.jsonText(view), "\(url.lastPathComponent)")
        }
        let odd = #"""
            {"Version": 1.0, "Metadata": {"b": "\u0001\b\t\n\f\r\u001f \" \\ / é 😀 \u2028", "B": 1e-7, "a1": -0.0,
             "a10": 123456789012345678, "a9": [true, false, null, {}, []], "é": 1, "e\u0301x": 2, "e\u0301": 4, "f": 3,
             "Z": {"y": 1, "_": 2, "~": 3}},
             "Pattern": [{"Event": {"Time": 0.1, "EventType": "HapticTransient", "Unknown": {"k": "v"}}}]}
            """#
        let bytes = Array(odd.utf8)
        var view = PatternView.make(
            path: "pats/odd \"name\".ahap", file: ("v", odd), analysis: PatternView.analyze(bytes, path: "odd.ahap"),
            source: try JSONValue(parsing: bytes), locatesLines: true, milliseconds: 0.1)
        #expect(String(buffer: Studio.viewJSON(view)) == Studio.jsonText(view))
        view.version = nil
        view.text = nil
        view.diagnostics = nil
        view.effective.times = [0, 1e300, .leastNonzeroMagnitude, 0.30000000000000004, 1e16, 1e15]
        #expect(String(buffer: Studio.viewJSON(view)) == Studio.jsonText(view))
        // A number JSONEncoder refuses: the whole answer is JSONEncoder's (`{}`).
        view.waveform.min = [.infinity]
        #expect(String(buffer: Studio.viewJSON(view)) == Studio.jsonText(view))
    }

    /// `ahap` written from the file's text an entry at a time is the file's value as the parser
    /// reads it, written by JSONEncoder: duplicate keys (the last value, at the first place),
    /// comments and trailing commas, the repository's patterns.
    @Test func theFilesValueWrittenAnEntryAtATimeIsJSONEncodersBytes() throws {
        var texts = [
            #"""
            // a comment
            {"Pattern": [{"Event": {"Time": 5, "EventType": "HapticTransient"}}], "Version": 1,
             "Metadata": {"a": 1, "a": [2, {"x": "\u00e9\n"}]},
             "Pattern": [ /* c */ {"Event": {"Time": 0.5, "EventType": "HapticTransient", "Time": 0.25}},
               {"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0,
                 "ParameterCurveControlPoints": [{"Time": 0, "ParameterValue": 1e-3},
                 {"Time": 1, "ParameterValue": 1.5},]}} , ],
             "zz": "\u00e9 / \"", "Metadata": {"b": 2}, "é": null, "e\u0301": true, "B": {}}
            """#,
            #"{"Version": 1.0, "Pattern": []}"#,
            #"{"Version": 1.0, "Pattern": 3}"#,
            #"[{"Pattern": [1, 2]}]"#,
            Self.curves(3),
        ]
        let folder = TestFiles.packageRoot.appending(path: "Patterns")
        for case let url as URL in try #require(
            FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil))
        where url.pathExtension == "ahap" {
            texts.append(String(decoding: try Data(contentsOf: url), as: UTF8.self))
        }
        for text in texts {
            let bytes = Array(text.utf8)
            let patch = try SourcePatch(bytes)
            var view = PatternView.make(
                path: "pats/x.ahap", file: ("v", nil), analysis: PatternView.analyze(bytes, path: "x.ahap"),
                source: .null, locatesLines: true, milliseconds: 2)
            let written = String(buffer: Studio.viewJSON(view, document: patch))
            view.ahap = AnyJSON(try JSONValue(parsing: bytes))
            #expect(written == Studio.jsonText(view), "\(text.prefix(80))")
        }
    }
}
