import Foundation
import HapticsCore
import HapticsReview
import OrderedCollections
import Synchronization

/// `PatternDiff` as the page's JSON: what changed, where on the timeline, in words.
enum StudioDiff {
    static func json(_ diff: PatternDiff) -> JSONValue {
        .object([
            "changes": .array(
                diff.changes.map { change in
                    .object([
                        "kind": .string(change.kind.rawValue), "element": .string(change.element.rawValue),
                        "time": .number(change.time), "start": .number(change.span.lowerBound),
                        "end": .number(change.span.upperBound),
                        "beforeIndex": change.beforeIndex.map { .number(Double($0)) } ?? .null,
                        "afterIndex": change.afterIndex.map { .number(Double($0)) } ?? .null,
                        "line": .string(change.line),
                    ])
                }),
            "unchanged": .number(Double(diff.unchangedCount)),
            "durationBefore": .number(diff.durationBefore), "durationAfter": .number(diff.durationAfter),
            "metadata": .array(diff.metadataChanges.map { .string($0.description) }),
            "identical": .bool(diff.isEmpty),
        ])
    }
}
