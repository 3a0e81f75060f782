package import HapticsCore
package import SensoryFeedback

/// A session's feedback in time order, ready to play again.
package struct FeedbackTimeline: Sendable {
    /// One feedback at its time, with what caused it.
    package struct Cue: Hashable, Sendable {
        /// Seconds since the session started.
        package var time: Double
        package var feedback: SensoryFeedback
        /// The log event that played it.
        package var event: OrderEvent
    }

    /// The cues, sorted by time.
    package var cues: [Cue]

    /// The cues of the events that played feedback.
    package init(events: [OrderEvent]) {
        cues = events.compactMap { event in
            event.feedback.flatMap { SensoryFeedback($0) }.map { Cue(time: event.t, feedback: $0, event: event) }
        }.sorted { $0.time < $1.time }
    }

    /// One pattern holding every cue's preset at `time / speed`: the whole session rendered
    /// in one pass, each preset on its exact sample.
    ///
    /// Events, dynamic parameters and parameter curves of each preset are shifted by the cue's
    /// offset. (A preset's dynamic parameters then act on the events playing at that moment.)
    ///
    /// - Complexity: O(total elements of the presets used), one preset lookup per cue.
    package func pattern(speed: Double = 1, preset: (SensoryFeedback) -> HapticPattern) -> HapticPattern {
        var elements: [PatternElement] = []
        var cache: [SensoryFeedback: HapticPattern] = [:]
        for cue in cues {
            let offset = cue.time / speed
            let source: HapticPattern
            if let cached = cache[cue.feedback] {
                source = cached
            } else {
                source = preset(cue.feedback)
                cache[cue.feedback] = source
            }
            for element in source.elements {
                elements.append(element.shifted(by: offset))
            }
        }
        return HapticPattern(version: 1, elements: elements)
    }
}
