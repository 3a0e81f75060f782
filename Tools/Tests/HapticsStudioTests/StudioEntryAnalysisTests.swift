import Foundation
import HapticsCore
import HapticsReview
import HapticsStudio
import OrderedCollections
import Testing
import _ToolTestSupport

/// The analysis of an edit made per entry (``EntryAnalysis``) is the analysis of the edited text
/// made whole: the same pattern, the same findings in the same order (paths, lines, columns,
/// messages), the same effective curves and waveform. Random edit sequences (set, add, remove)
/// on generated patterns with transients, continuous events, curves and dynamic parameters that
/// hold events under audibility, out-of-range values, unknown keys and duplicate parameters, in
/// a pretty-printed file and a one-line one.
@Suite struct StudioEntryAnalysisTests {
    struct Generator {
        var random: SplitMix64

        mutating func below(_ n: Int) -> Int { Int(random.next() % UInt64(n)) }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
        mutating func time(_ limit: Double) -> Double { Double(below(Int(limit * 1000))) / 1000 }

        mutating func level() -> JSONValue {
            switch below(10) {
            case 0: .number(0.01)  // inaudible
            case 1: .number(1.05)  // overshoot
            case 2: .number(1.5)  // clamped
            case 3: .string("0.5")  // a number as a string
            default: .number(Double(below(1000)) / 1000)
            }
        }

        mutating func object(_ members: [(String, JSONValue)]) -> JSONValue {
            var out = OrderedDictionary<String, JSONValue>()
            for (key, value) in members { out[key] = value }
            return .object(out)
        }

        mutating func parameter(_ id: String) -> JSONValue {
            object([("ParameterID", .string(id)), ("ParameterValue", level())])
        }

        /// One `Pattern` entry.
        mutating func entry(duration: Double) -> JSONValue {
            let t = time(duration)
            var element: JSONValue
            switch below(10) {
            case 0..<4:
                var parameters = [parameter("HapticIntensity"), parameter("HapticSharpness")]
                if chance(10) { parameters.append(parameter("HapticIntensity")) }  // given twice
                var members: [(String, JSONValue)] = [
                    ("Time", .number(t)), ("EventType", .string("HapticTransient")),
                    ("EventParameters", .array(parameters)),
                ]
                if chance(5) { members.append(("EventDuration", .number(0.2))) }
                element = object([("Event", object(members))])
            case 4..<7:
                let length: Double = chance(5) ? 0 : chance(5) ? 40 : Double(below(3000)) / 1000
                var parameters = [parameter("HapticIntensity"), parameter("HapticSharpness")]
                if chance(20) { parameters.append(parameter("AttackTime")) }
                element = object([
                    (
                        "Event",
                        object([
                            ("Time", .number(t)), ("EventType", .string("HapticContinuous")),
                            ("EventDuration", .number(length)), ("EventParameters", .array(parameters)),
                        ])
                    )
                ])
            case 7..<9:
                var points: [JSONValue] = []
                var at = chance(10) ? 0.1 : 0.0
                for _ in 0..<(1 + below(5)) {
                    points.append(object([("Time", .number(at)), ("ParameterValue", level())]))
                    at += Double(below(800)) / 1000
                }
                if chance(10) { points.reverse() }
                let id = chance(70) ? "HapticIntensityControl" : "HapticSharpnessControl"
                element = object([
                    (
                        "ParameterCurve",
                        object([
                            ("ParameterID", .string(id)), ("Time", .number(t)),
                            ("ParameterCurveControlPoints", .array(points)),
                        ])
                    )
                ])
            default:
                element = object([
                    (
                        "Parameter",
                        object([
                            ("ParameterID", .string("HapticIntensityControl")), ("Time", .number(t)),
                            ("ParameterValue", level()),
                        ])
                    )
                ])
            }
            if chance(5), case .object(var members) = element {
                members["Note"] = .string("x")  // an unknown key
                element = .object(members)
            }
            if chance(3), case .object(var members) = element, case .object(var inner)? = members.values.first {
                inner["Time"] = .number(-1)  // an error
                members[members.keys[0]] = .object(inner)
                element = .object(members)
            }
            return element
        }
    }

    /// `value` written with two-space indentation, or on one line.
    static func text(_ value: JSONValue, pretty: Bool, indent: String = "") -> String {
        guard pretty else { return value.jsonText }
        let inner = indent + "  "
        switch value {
        case .object(let members) where !members.isEmpty:
            return "{\n"
                + members.map {
                    inner + JSONValue.string($0.key).jsonText + ": " + text($0.value, pretty: true, indent: inner)
                }
                .joined(separator: ",\n") + "\n" + indent + "}"
        case .array(let items) where !items.isEmpty:
            return "[\n" + items.map { inner + text($0, pretty: true, indent: inner) }.joined(separator: ",\n") + "\n"
                + indent + "]"
        default:
            return value.jsonText
        }
    }

    /// A generated file: `count` entries over `duration` seconds, and an unknown key after them.
    static func file(seed: UInt64, count: Int, pretty: Bool) -> (bytes: [UInt8], generator: Generator) {
        var generator = Generator(random: SplitMix64(seed: seed))
        var entries: [JSONValue] = []
        for _ in 0..<count { entries.append(generator.entry(duration: 10)) }
        let top = generator.object([
            ("Version", .number(1)), ("Metadata", generator.object([("Project", .string("gen"))])),
            ("Pattern", .array(entries)), ("Extra", .number(1)),
        ])
        return (Array((text(top, pretty: pretty) + "\n").utf8), generator)
    }

    /// Compares the per-entry analysis of `edits` with the whole analysis of the edited text.
    static func compare(
        _ entries: EntryAnalysis, _ patch: SourcePatch, _ edits: [SourcePatch.Edit], render: Bool,
        _ context: String
    ) throws {
        let text = try patch.applying(edits: edits)
        let whole = PatternView.analyze(text, path: "gen.ahap")
        guard let part = try entries.analysis(after: edits) else {
            Issue.record("\(context): the edits were not analysed per entry")
            return
        }
        #expect(part.pattern == whole.pattern, "\(context): pattern")
        #expect(part.findings.count == whole.findings.count, "\(context): count of findings")
        let shared = min(part.findings.count, whole.findings.count)
        if let first = (0..<shared).first(where: { part.findings[$0] != whole.findings[$0] }) {
            Issue.record(
                "\(context): finding \(first): \(part.findings[first].formatted(file: nil)) != \(whole.findings[first].formatted(file: nil))"
            )
        }
        guard let mine = part.pattern, let theirs = whole.pattern else { return }
        #expect(mine.duration == theirs.duration)
        #expect(mine.events.count == theirs.events.count && mine.parameterCurves.count == theirs.parameterCurves.count)
        // The effective curves of a stretch depend only on the controls and the events there.
        #expect(
            EffectiveTimeline.samples(for: theirs, from: 2, through: 7)
                == EffectiveTimeline.samples(
                    for: PatternView.sounding(theirs, from: 2, through: 7), from: 2, through: 7, until: theirs.duration)
        )
        let window = Studio.Window(start: 2, end: 7, columns: 200)
        #expect(
            PatternView.effectiveSamples(mine, window: window) == PatternView.effectiveSamples(theirs, window: window),
            "\(context): effective samples")
        if render {
            let a = PatternView.columns(mine, window: window)
            let b = PatternView.columns(theirs, window: window)
            #expect(a.low == b.low && a.high == b.high, "\(context): waveform columns")
        }
    }

    /// `entry` with its element's `Time` moved by `shift` (not below 0).
    static func nudged(_ entry: JSONValue, by shift: Double) -> JSONValue? {
        guard case .object(var members) = entry, let key = members.keys.first,
            case .object(var inner)? = members[key], case .number(let time)? = inner["Time"]
        else { return nil }
        inner["Time"] = JSONValue.number(max(0, time + shift))
        members[key] = JSONValue.object(inner)
        return JSONValue.object(members)
    }

    @Test(arguments: [true, false])
    func randomEditsAnalysePerEntryAsTheWholeText(pretty: Bool) async throws {
        for seed in UInt64(1)...30 {
            var (bytes, generator) = Self.file(seed: seed, count: 40 + Int(seed % 7) * 5, pretty: pretty)
            let patch = try SourcePatch(bytes)
            let base = PatternView.analyze(bytes, path: "gen.ahap")
            guard base.pattern != nil else { continue }  // the generator made an error: not followed
            guard let entries = EntryAnalysis(patch: patch, base: base) else {
                Issue.record("seed \(seed): the file is not analysed per entry")
                continue
            }
            guard case .object(let top) = patch.value, case .array(let original)? = top["Pattern"] else {
                throw CocoaError.generic
            }
            var edits: [SourcePatch.Edit] = []
            var removed = Set<Int>()
            for step in 0..<12 {
                let live = original.indices.filter { !removed.contains($0) }
                switch generator.below(10) {
                case 0..<6:
                    let index = live[generator.below(live.count)]
                    let shift = Double(generator.below(200)) / 1000 - 0.1
                    var element = generator.entry(duration: 10)
                    // Mostly a nudge of the entry's time, as a drag makes.
                    if generator.chance(60), let nudged = Self.nudged(original[index], by: shift) { element = nudged }
                    edits.append(.set(index: index, element: element))
                case 6..<8 where live.count > 2:
                    let index = live[generator.below(live.count)]
                    removed.insert(index)
                    edits.removeAll { if case .set(index, _) = $0 { true } else { false } }
                    edits.append(.remove(index: index))
                default:
                    edits.append(.add(element: generator.entry(duration: 10)))
                }
                try Self.compare(
                    entries, patch, edits, render: step == 11, "seed \(seed), pretty \(pretty), step \(step)")
                // Seconds of analysis in all: the pool's few threads go to the other suites'
                // servers between steps.
                await Task.yield()
            }
        }
    }

    /// Columns counted from the checkpoints are the characters counted one by one: over a long
    /// line of one-, two-, three- and four-byte characters, for ranges that start and end on
    /// either side of the 64-byte checkpoints, and at the ends of the file.
    @Test func columnsFromCheckpointsAreCharactersCountedOneByOne() {
        var random = SplitMix64(seed: 64)
        let pieces = ["a", "é", "→", "𝄞", "\"", "7"]
        var text = ""
        for _ in 0..<5_000 { text += pieces[Int(random.next() % UInt64(pieces.count))] }
        let bytes = Array(text.utf8)
        let counts = CharacterCounts(bytes)
        func naive(_ range: Range<Int>) -> Int { bytes[range].count { $0 & 0xC0 != 0x80 } }
        #expect(counts.characters(in: 0..<bytes.count) == text.count)
        var checked = 0
        for lower in [0, 1, 63, 64, 65, 127, 128, 4_000, bytes.count - 1, bytes.count] {
            for upper in [lower, lower + 1, lower + 63, lower + 64, lower + 200, bytes.count] where upper <= bytes.count
            {
                #expect(counts.characters(in: lower..<upper) == naive(lower..<upper), "\(lower)..<\(upper)")
                checked += 1
            }
        }
        for _ in 0..<500 {
            let a = Int(random.next() % UInt64(bytes.count + 1))
            let b = Int(random.next() % UInt64(bytes.count + 1))
            #expect(counts.characters(in: min(a, b)..<max(a, b)) == naive(min(a, b)..<max(a, b)))
        }
        #expect(checked > 50)
        #expect(CharacterCounts([]).characters(in: 0..<0) == 0)
        let exact = Array(repeating: UInt8(ascii: "x"), count: 128)
        #expect(CharacterCounts(exact).characters(in: 0..<128) == 128)
    }

    /// An edit that adds lines moves the findings after it; one that changes a curve changes
    /// which events are held under audibility (notes of events far from the edit).
    @Test func linesAndNotesFollowTheEdit() throws {
        let text = """
            {
              "Version": 1,
              "Pattern": [
                {"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}]}},
                {"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 1, "ParameterValue": 0.01}},
                {"Event": {"Time": 2, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1.5}]}},
                {"Event": {"Time": 3, "EventType": "HapticTransient", "Note": 1}}
              ]
            }

            """
        let bytes = Array(text.utf8)
        let patch = try SourcePatch(bytes)
        let base = PatternView.analyze(bytes, path: "t.ahap")
        let entries = try #require(EntryAnalysis(patch: patch, base: base))
        // Two of the findings are notes that the parameter holds the events at 2 and 3 s inaudible.
        #expect(base.findings.filter { $0.code == .inaudibleEvent }.count == 2)
        let multiline = try JSONValue(
            parsing: Array(
                #"{"Event": {"Time": 0, "EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 0.5}], "Extra": {"a": [1,\#n2]}}}"#
                    .utf8))
        let loud = try JSONValue(
            parsing: Array(
                #"{"Parameter": {"ParameterID": "HapticIntensityControl", "Time": 1, "ParameterValue": 1}}"#.utf8))
        for edits: [SourcePatch.Edit] in [
            [.set(index: 0, element: multiline)], [.set(index: 1, element: loud)], [.remove(index: 1)],
            [.remove(index: 0), .add(element: multiline)],
        ] {
            try Self.compare(entries, patch, edits, render: false, "\(edits)")
        }
    }
}

extension CocoaError {
    static var generic: CocoaError { CocoaError(.coderInvalidValue) }
}
