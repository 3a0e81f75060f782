import ArgumentParser
import Foundation
import HapticsCore
import HapticsStudio

extension Bench {
    /// The studio's per-entry analysis (``EntryAnalysis``) on a file written on one line, as
    /// exporters and minifiers write them: every location on it is a column of that one line.
    struct StudioEntries: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "studio-entries",
            abstract: "The studio's per-entry analysis of a one-line file: made on opening, then one nudge.")

        @Option(help: "Transients on the line (4,904 is the 1 MB file of issue 28).") var events = 4_904
        @Option(help: "Runs of each; the median is printed.") var repeats = 5

        func run() throws {
            func entry(_ i: Int, time: Double) -> String {
                let intensity = i % 7 == 3 ? "1.5" : String(format: "%.4f", Double(i * 37 % 10_000) / 10_000)
                return
                    #"{"Event":{"Time":\#(time),"EventType":"HapticTransient","EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":\#(intensity)},{"ParameterID":"HapticSharpness","ParameterValue":0.5}]},"Note":"x\#(i)"}"#
            }
            let parts = (0..<events).map { entry($0, time: Double($0 * 42) / 1000) }
            let bytes = Array(
                (#"{"Version":1.0,"Metadata":{"Project":"gen"},"Pattern":["# + parts.joined(separator: ",") + "]}")
                    .utf8)
            let patch = try SourcePatch(bytes)
            let base = PatternView.analyze(bytes, path: "one-line.ahap")
            // A drag's nudge of the middle event's time, 10 ms later.
            let index = events / 2
            let nudge = try JSONValue(parsing: Array(entry(index, time: Double(index * 42) / 1000 + 0.01).utf8))
            let edit = SourcePatch.Edit.set(index: index, element: nudge)

            let clock = ContinuousClock()
            var made: [Duration] = []
            var nudged: [Duration] = []
            for _ in 0..<repeats {
                var analysis: EntryAnalysis?
                made.append(clock.measure { analysis = EntryAnalysis(patch: patch, base: base) })
                guard let analysis else { throw ValidationError("the file is not analysed per entry") }
                var edited: PatternView.Analysis?
                nudged.append(clock.measure { edited = try? analysis.analysis(after: [edit]) })
                guard edited?.pattern != nil else { throw ValidationError("the nudge was not analysed per entry") }
            }
            func median(_ values: [Duration]) -> Double {
                let sorted = values.sorted()
                let middle = sorted[sorted.count / 2].components
                return Double(middle.seconds) * 1e3 + Double(middle.attoseconds) * 1e-15
            }
            print(
                String(
                    format:
                        "studio-entries: %d events on one line (%d bytes): made in %.1f ms, a nudge in %.1f ms (median of %d)",
                    events, bytes.count, median(made), median(nudged), repeats))
        }
    }
}
