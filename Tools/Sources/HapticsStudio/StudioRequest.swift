import HapticsCore

/// The checks every API input passes before it is used (docs/studio.md, "API"): a member of the
/// wrong JSON type (``Studio/describe(_:in:)``), a number outside what the studio can act on, is a
/// 400 naming the member, never a default silently taken or a crash later.
extension Studio {
    /// The string member `key` (required).
    static func text(_ body: JSONValue, _ key: String) throws(StudioError) -> String {
        guard let value = try member(body, key).string else { throw .badRequest("\"\(key)\" must be a string") }
        return value
    }

    /// `value` (the member `key`) when present: a time a play may start or end at.
    static func seconds(_ value: Double?, _ key: String) throws(StudioError) -> Double? {
        guard let value else { return nil }
        guard seconds.contains(value) else {
            throw .badRequest("\"\(key)\" must be a finite number from \(seconds.lowerBound) to \(seconds.upperBound)")
        }
        return value
    }

    /// The range of pattern seconds a play may start or end at: the longest pattern the studio opens.
    static var seconds: ClosedRange<Double> { 0...AHAPLimits.default.maxDuration }
}

extension Studio {
    /// The most continuous haptic events a pattern the studio analyses may have sounding at once:
    /// the voices its engine has (`Synthesizer`'s default), so nothing a pattern could make heard
    /// is refused. The effective curves cost the samples times the events sounding at each, so
    /// this keeps a view of the largest legal pattern (100,000 events) to a bounded time, where
    /// 100,000 overlapping events took 22.8 s and 500 MB (issue 32).
    static let maxSoundingAtOnce = 512

    /// Refuses (413) a pattern with more than ``maxSoundingAtOnce`` continuous haptic events
    /// sounding at one time, saying when: to analyse, play (`/api/play`) or render (`/api/render`).
    ///
    /// - Complexity: O(*n* log *n*) in the events.
    static func checkAnalysable(_ pattern: HapticPattern) throws(StudioError) {
        var edges: [(time: Double, step: Int)] = []
        for event in pattern.events where event.type == .hapticContinuous {
            guard let duration = event.duration, duration > 0 else { continue }
            edges.append((event.time, 1))
            edges.append((event.time + duration, -1))
        }
        guard edges.count / 2 > maxSoundingAtOnce else { return }
        // Ends before starts at the same time: an event that ends as another starts is not overlapping.
        edges.sort { $0.time != $1.time ? $0.time < $1.time : $0.step < $1.step }
        var sounding = 0
        var most = (count: 0, time: 0.0)
        for edge in edges {
            sounding += edge.step
            if sounding > most.count { most = (sounding, edge.time) }
        }
        guard most.count > maxSoundingAtOnce else { return }
        throw StudioError(
            413,
            "this pattern has \(most.count) continuous events sounding at once (at \(most.time) s); the studio "
                + "analyses, plays and renders patterns with at most \(maxSoundingAtOnce) (what its engine can voice); haptic lint "
                + "reads it")
    }
}
