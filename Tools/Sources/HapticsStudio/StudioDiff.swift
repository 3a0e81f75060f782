import HapticsReview

extension Studio.DiffResponse {
    /// `diff` as the page reads it: what changed, where on the timeline, in words.
    init(_ diff: PatternDiff, text: Studio.TextDiffResponse? = nil) {
        changes = diff.changes.map { change in
            Change(
                kind: change.kind.rawValue, element: change.element.rawValue, time: change.time,
                start: change.span.lowerBound, end: change.span.upperBound, beforeIndex: change.beforeIndex,
                afterIndex: change.afterIndex, line: change.line)
        }
        unchanged = diff.unchangedCount
        durationBefore = diff.durationBefore
        durationAfter = diff.durationAfter
        metadata = diff.metadataChanges.map(\.description)
        identical = diff.isEmpty
        self.text = text
    }

    /// The answer when a side does not decode: no changes, not identical.
    init(undecodable text: Studio.TextDiffResponse?) {
        changes = []
        identical = false
        self.text = text
    }
}
