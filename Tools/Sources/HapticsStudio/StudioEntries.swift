@_spi(Tooling) import HapticsCore
import OrderedCollections

/// A file version's analysis kept per `Pattern` entry, so that the analysis of an edit decodes
/// and lints again only the entries the edit changed (a drag on a 10-minute pattern changes one
/// of its 6,000), without making the edited text.
///
/// What it gives equals ``PatternView/analyze(_:path:waveformsBeside:)`` of the edited text: the
/// same pattern and the same findings, in the same order, with the same paths, lines and
/// messages. The parts that depend on more than one entry are put together again per edit:
/// entries after a change that adds or removes lines keep their findings with the lines moved;
/// removals renumber the entries after them; the `inaudible-event` notes are computed again for
/// the changed events, or for every event when a dynamic parameter or curve changed (their
/// messages only where the loudness changed); the pattern's length limit is checked again.
///
/// A file it cannot follow exactly (comments, findings between entries, AudioCustom events, a
/// file that does not decode) is analysed whole, as before: ``init(patch:base:)`` checks that
/// putting its parts together again gives the file's own analysis, and returns nil otherwise.
package final class EntryAnalysis: Sendable {
    let patch: SourcePatch
    /// The analysis of the file itself (the text the edits apply to).
    package let base: PatternView.Analysis
    let limits = AHAPLimits.default
    let version: Double?
    let metadata: OrderedDictionary<String, JSONValue>
    /// The offset of each line's first byte.
    let lineStarts: [Int]
    /// The file's characters counted, for columns in O(1) on lines of any length.
    let characters: CharacterCounts
    let hasBOM: Bool
    /// Each entry's bytes, where it starts, its element, its own findings, and (for an event)
    /// its loudest level and `inaudible-event` note.
    let spans: [Range<Int>]
    let starts: [SourceLocation]
    let elements: [PatternElement?]
    let groups: [[Diagnostic]]
    let loudest: [Float]
    let notes: [Diagnostic?]
    /// The findings before the first entry (the length limit's left out) and after the last,
    /// with the offset each is at.
    let before: [Diagnostic]
    let after: [(diagnostic: Diagnostic, offset: Int)]
    /// Where the `Pattern` array starts (the length limit's place).
    let patternLocation: SourceLocation
    let controls: ParameterTimelines

    package init?(patch: SourcePatch, base: PatternView.Analysis) {
        let bytes = patch.bytes
        guard let pattern = base.pattern, base.clips.isEmpty,
            !pattern.elements.contains(where: Self.isAudioCustom),
            !base.findings.contains(where: { $0.code == .comment || $0.location == nil }),
            patch.root.members.filter({ $0.key == "Pattern" }).count == 1, let member = patch.pattern,
            !member.elements.isEmpty, member.elements.count <= limits.maxEvents
        else { return nil }
        self.patch = patch
        self.base = base
        version = pattern.version
        metadata = pattern.metadata
        hasBOM = bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF
        var lines = [0]
        for (i, byte) in bytes.enumerated() where byte == 0x0A { lines.append(i + 1) }
        lineStarts = lines
        let counts = CharacterCounts(bytes)
        characters = counts
        spans = member.elements.map { $0.start..<$0.end }
        patternLocation = Self.location(of: member.start, counts: counts, lineStarts: lines, hasBOM: hasBOM)
        var starts: [SourceLocation] = []
        var elements: [PatternElement?] = []
        var groups: [[Diagnostic]] = []
        for (index, span) in spans.enumerated() {
            let start = Self.location(of: span.lowerBound, counts: counts, lineStarts: lines, hasBOM: hasBOM)
            guard let entry = AHAPEntries.decode(Array(bytes[span]), index: index, start: start, limits: limits)
            else { return nil }
            starts.append(start)
            elements.append(entry.element)
            groups.append(entry.diagnostics)
        }
        self.starts = starts
        self.elements = elements
        self.groups = groups
        controls = ParameterTimelines(pattern)
        var loudest = [Float](repeating: .infinity, count: spans.count)
        var notes: [Diagnostic?] = Array(repeating: nil, count: spans.count)
        for (index, element) in elements.enumerated() {
            guard case .event(let event)? = element else { continue }
            loudest[index] = AHAPEntries.loudest(of: event, under: controls)
            notes[index] = AHAPEntries.inaudibleNote(
                event, loudest: loudest[index], index: index, location: starts[index])
        }
        self.loudest = loudest
        self.notes = notes
        // The findings outside the entries: before the first, or after the last.
        let bom = hasBOM
        let ends = spans.map { Self.location(of: $0.upperBound - 1, counts: counts, lineStarts: lines, hasBOM: bom) }
        var before: [Diagnostic] = []
        var after: [(Diagnostic, Int)] = []
        for finding in base.findings {
            guard let at = finding.location else { return nil }
            if finding.code == .limitExceeded && finding.path == JSONPath([.key("Pattern")])
                && finding.message.hasPrefix("pattern lasts")
            {
                continue
            }
            if Self.precedes(at, starts[0]) {
                before.append(finding)
            } else if Self.precedes(ends[ends.count - 1], at) {
                // A message naming a line after the entries would have to move with them.
                guard finding.code != .duplicateKey else { return nil }
                after.append((finding, Self.offset(of: at, in: bytes, lineStarts: lines, hasBOM: hasBOM)))
            } else {
                // Inside an entry (it is that entry's), or between two (not followed: checked below).
                continue
            }
        }
        self.before = before
        self.after = after
        // The parts put together again must be the file's own analysis.
        guard let again = try? analysis(after: []), again.findings == base.findings, again.pattern == base.pattern
        else { return nil }
    }

    static func isAudioCustom(_ element: PatternElement?) -> Bool {
        if case .event(let event)? = element { event.type == .audioCustom } else { false }
    }

    static func isControl(_ element: PatternElement?) -> Bool {
        switch element {
        case .parameter?, .curve?: true
        default: false
        }
    }

    static func precedes(_ a: SourceLocation, _ b: SourceLocation) -> Bool {
        (a.line, a.column) < (b.line, b.column)
    }

    /// Characters as the JSON parser counts columns: UTF-8 bytes that start a character.
    static func characters(_ bytes: ArraySlice<UInt8>) -> Int {
        var count = 0
        for byte in bytes where byte & 0xC0 != 0x80 { count += 1 }
        return count
    }

    static func newlines<C: Sequence<UInt8>>(_ bytes: C) -> Int {
        var count = 0
        for byte in bytes where byte == 0x0A { count += 1 }
        return count
    }

    static func line(of offset: Int, lineStarts: [Int]) -> Int {
        // The last line that starts at or before `offset`.
        var low = 0
        var high = lineStarts.count
        while high - low > 1 {
            let mid = (low + high) / 2
            if lineStarts[mid] <= offset { low = mid } else { high = mid }
        }
        return low + 1
    }

    static func lineStart(_ line: Int, lineStarts: [Int], hasBOM: Bool) -> Int {
        line == 1 && hasBOM ? 3 : lineStarts[line - 1]
    }

    static func location(
        of offset: Int, counts: CharacterCounts, lineStarts: [Int], hasBOM: Bool
    ) -> SourceLocation {
        let line = line(of: offset, lineStarts: lineStarts)
        let start = lineStart(line, lineStarts: lineStarts, hasBOM: hasBOM)
        return SourceLocation(line: line, column: counts.characters(in: min(start, offset)..<offset) + 1)
    }

    static func offset(of location: SourceLocation, in bytes: [UInt8], lineStarts: [Int], hasBOM: Bool) -> Int {
        var i = lineStart(location.line, lineStarts: lineStarts, hasBOM: hasBOM)
        var column = 1
        while i < bytes.count && column < location.column {
            i += 1
            while i < bytes.count && bytes[i] & 0xC0 == 0x80 { i += 1 }
            column += 1
        }
        return i
    }

    /// One entry of the edited `Pattern`.
    struct Entry {
        var old: Int?
        var touched: Bool
        var start: SourceLocation
        var element: PatternElement?
        var diagnostics: [Diagnostic]
    }

    /// The analysis of the text `edits` make; nil when the edits are not ones this can follow
    /// (the caller then analyses the edited text whole).
    package func analysis(after edits: [SourcePatch.Edit]) throws(StudioError) -> PatternView.Analysis? {
        let bytes = patch.bytes
        guard let made = try patch.changes(for: edits) else { return nil }
        let changes = made.changes
        var size = bytes.count
        var lineDeltas = [0]
        lineDeltas.reserveCapacity(changes.count + 1)
        for change in changes {
            size += change.text.utf8.count - change.range.count
            lineDeltas.append(
                lineDeltas[lineDeltas.count - 1] + Self.newlines(change.text.utf8) - Self.newlines(bytes[change.range]))
        }
        guard size <= limits.maxFileBytes else { return nil }
        var removed = Set<Int>()
        for case .remove(let index) in edits { removed.insert(index) }
        guard spans.count - removed.count + made.added.count <= limits.maxEvents else { return nil }

        /// Where `offset` (not inside a change) is in the edited text, when `changes[..<k]` are
        /// the changes before it.
        func locate(_ offset: Int, _ k: Int) -> SourceLocation {
            let line = Self.line(of: offset, lineStarts: lineStarts)
            let start = Self.lineStart(line, lineStarts: lineStarts, hasBOM: hasBOM)
            guard k > 0, changes[k - 1].range.upperBound >= start else {
                return SourceLocation(
                    line: line + lineDeltas[k], column: characters.characters(in: min(start, offset)..<offset) + 1)
            }
            let change = changes[k - 1]
            let text = Array(change.text.utf8)
            let column: Int
            if let newline = text.lastIndex(of: 0x0A) {
                column = Self.characters(text[(newline + 1)...]) + 1
            } else {
                column = locate(change.range.lowerBound, k - 1).column + Self.characters(text[...])
            }
            return SourceLocation(
                line: line + lineDeltas[k], column: column + characters.characters(in: change.range.upperBound..<offset)
            )
        }

        var entries: [Entry] = []
        entries.reserveCapacity(spans.count + made.added.count)
        var k = 0
        for (index, span) in spans.enumerated() {
            while k < changes.count && changes[k].range.upperBound <= span.lowerBound { k += 1 }
            guard !removed.contains(index) else { continue }
            let newIndex = entries.count
            var inside = k
            while inside < changes.count && changes[inside].range.lowerBound < span.upperBound { inside += 1 }
            if inside > k {
                // Changed: its new text, decoded where it now is.
                var text: [UInt8] = []
                var at = span.lowerBound
                for change in changes[k..<inside] {
                    guard change.range.lowerBound >= at, change.range.upperBound <= span.upperBound else { return nil }
                    text.append(contentsOf: bytes[at..<change.range.lowerBound])
                    text.append(contentsOf: change.text.utf8)
                    at = change.range.upperBound
                }
                text.append(contentsOf: bytes[at..<span.upperBound])
                let start = locate(span.lowerBound, k)
                guard let entry = AHAPEntries.decode(text, index: newIndex, start: start, limits: limits),
                    !Self.isAudioCustom(entry.element)
                else { return nil }
                entries.append(
                    Entry(
                        old: index, touched: true, start: start, element: entry.element, diagnostics: entry.diagnostics
                    ))
                k = inside
                continue
            }
            let old = starts[index]
            let delta = lineDeltas[k]
            var start = SourceLocation(line: old.line + delta, column: old.column)
            let group = groups[index]
            if k > 0 && changes[k - 1].range.upperBound >= lineStarts[old.line - 1] {
                start = locate(span.lowerBound, k)
            }
            let namesLines = group.contains { $0.code == .duplicateKey || $0.code == .duplicateParameter }
            if start.column != old.column || (delta != 0 && namesLines) {
                // Moved along a line, or a message names a line: decoded again where it now is.
                guard
                    let entry = AHAPEntries.decode(
                        Array(bytes[span]), index: newIndex, start: start, limits: limits)
                else { return nil }
                entries.append(
                    Entry(
                        old: index, touched: true, start: start, element: entry.element, diagnostics: entry.diagnostics
                    ))
                continue
            }
            entries.append(
                Entry(
                    old: index, touched: false, start: start, element: elements[index],
                    diagnostics: Self.moved(group, lines: delta, from: index, to: newIndex)))
        }
        if !made.added.isEmpty {
            // The added entries are one insertion after the last entry, the last change.
            let insertion = changes.count - 1
            guard insertion >= 0,
                changes[insertion].range == spans[spans.count - 1].upperBound..<spans[spans.count - 1].upperBound
            else { return nil }
            let text = Array(changes[insertion].text.utf8)
            var at = locate(changes[insertion].range.lowerBound, insertion)
            var done = 0
            for place in made.added {
                for byte in text[done..<place.lowerBound] {
                    if byte == 0x0A {
                        at = SourceLocation(line: at.line + 1, column: 1)
                    } else if byte & 0xC0 != 0x80 {
                        at.column += 1
                    }
                }
                done = place.lowerBound
                guard
                    let entry = AHAPEntries.decode(
                        Array(text[place]), index: entries.count, start: at, limits: limits),
                    !Self.isAudioCustom(entry.element)
                else { return nil }
                entries.append(
                    Entry(old: nil, touched: true, start: at, element: entry.element, diagnostics: entry.diagnostics))
            }
        }

        // The pattern, and the rules across entries.
        var pattern = HapticPattern(version: version, metadata: metadata)
        pattern.elements.reserveCapacity(entries.count)
        var controlsChanged = false
        for entry in entries {
            if let element = entry.element { pattern.elements.append(element) }
            if entry.touched && (Self.isControl(entry.element) || Self.isControl(entry.old.map { elements[$0] } ?? nil))
            {
                controlsChanged = true
            }
        }
        for index in removed where Self.isControl(elements[index]) { controlsChanged = true }
        let controls = controlsChanged ? ParameterTimelines(pattern) : self.controls

        var findings = before
        findings.reserveCapacity(base.findings.count + 8)
        if let tooLong = AHAPEntries.durationFinding(pattern.duration, location: patternLocation, limits: limits) {
            let at = findings.firstIndex { Self.precedes(patternLocation, $0.location!) } ?? findings.count
            findings.insert(tooLong, at: at)
        }
        for (newIndex, entry) in entries.enumerated() {
            var note: Diagnostic? = nil
            if case .event(let event)? = entry.element {
                if let old = entry.old, !entry.touched,
                    !controlsChanged || AHAPEntries.loudest(of: event, under: controls) == loudest[old]
                {
                    note = notes[old].map {
                        Self.moved($0, lines: entry.start.line - starts[old].line, from: old, to: newIndex)
                    }
                } else {
                    let level = AHAPEntries.loudest(of: event, under: controls)
                    note = AHAPEntries.inaudibleNote(event, loudest: level, index: newIndex, location: entry.start)
                }
            }
            guard let note else {
                findings.append(contentsOf: entry.diagnostics)
                continue
            }
            let at =
                entry.diagnostics.firstIndex { Self.precedes(note.location!, $0.location!) } ?? entry.diagnostics.count
            findings.append(contentsOf: entry.diagnostics[..<at])
            findings.append(note)
            findings.append(contentsOf: entry.diagnostics[at...])
        }
        var j = 0
        for (finding, offset) in after {
            while j < changes.count && changes[j].range.upperBound <= offset { j += 1 }
            var moved = finding
            moved.location = locate(offset, j)
            findings.append(moved)
        }
        let failed = findings.contains { $0.severity == .error }
        return PatternView.Analysis(pattern: failed ? nil : pattern, findings: findings)
    }

    /// Findings of the entry that was `Pattern[old]`, now `Pattern[new]` and `lines` lower.
    static func moved(_ findings: [Diagnostic], lines: Int, from old: Int, to new: Int) -> [Diagnostic] {
        guard lines != 0 || old != new else { return findings }
        return findings.map { moved($0, lines: lines, from: old, to: new) }
    }

    static func moved(_ finding: Diagnostic, lines: Int, from old: Int, to new: Int) -> Diagnostic {
        guard lines != 0 || old != new else { return finding }
        var finding = finding
        if let at = finding.location { finding.location = SourceLocation(line: at.line + lines, column: at.column) }
        if old != new, finding.path.components.count >= 2, case .index(old) = finding.path.components[1] {
            finding.path.components[1] = .index(new)
        }
        return finding
    }
}

/// How many characters (UTF-8 bytes that start one, as the JSON parser counts columns) a file
/// has before each offset, kept at every 64th byte: a column is a lookup and at most 63 bytes
/// counted, where counting from the line's start made every location on a one-line file of
/// thousands of entries cost the line's length (BENCHMARKS.md, "A one-line file's columns").
package struct CharacterCounts: Sendable {
    private let bytes: [UInt8]
    /// `checkpoints[i]`: the characters in `bytes[..<(i * 64)]`.
    private let checkpoints: [Int]

    package init(_ bytes: [UInt8]) {
        self.bytes = bytes
        var checkpoints = [Int]()
        checkpoints.reserveCapacity(bytes.count / 64 + 1)
        var count = 0
        bytes.withUnsafeBufferPointer { buffer in
            for (i, byte) in buffer.enumerated() {
                if i & 63 == 0 { checkpoints.append(count) }
                if byte & 0xC0 != 0x80 { count += 1 }
            }
        }
        if bytes.count & 63 == 0 { checkpoints.append(count) }
        self.checkpoints = checkpoints
    }

    /// The characters in `bytes[..<offset]`.
    package func characters(before offset: Int) -> Int {
        let base = offset & ~63
        var count = checkpoints[base >> 6]
        bytes.withUnsafeBufferPointer { buffer in
            for i in base..<offset where buffer[i] & 0xC0 != 0x80 { count += 1 }
        }
        return count
    }

    /// The characters in `bytes[range]`.
    package func characters(in range: Range<Int>) -> Int {
        characters(before: range.upperBound) - characters(before: range.lowerBound)
    }
}
