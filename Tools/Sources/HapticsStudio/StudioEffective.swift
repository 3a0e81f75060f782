package import HapticsCore
package import HapticsReview
import Synchronization

/// The effective curves of an edit: the file's own samples of the window on screen, kept per
/// window, with only the stretch the edits changed sampled again. A drag's move with a 10-minute
/// pattern on screen changes a fraction of a second of its 26,000 samples; sampling the whole
/// window again was the largest part of the answer (BENCHMARKS.md, issue 28, "An edit's answer
/// on the server").
extension Studio {
    /// The effective curves of `window` for `edited`, the file's pattern `original` (at
    /// `version`) with edits: equal to `PatternView.effectiveSamples(edited, window: window)`.
    func editedEffective(
        path: String, version: String, window: Window, edited: HapticPattern, original: HapticPattern?
    ) -> AnalyzeResponse.Effective {
        guard let original, case let change = PatternView.effectiveChange(from: original, to: edited),
            change != .everywhere
        else { return PatternView.effectiveSamples(edited, window: window) }
        let key = "\(path)\n\(version)\n\(window.start)\n\(window.end)"
        let base: [EffectiveSample]
        if let kept = cache.effective.withLock({ $0.first { $0.key == key }?.samples }) {
            base = kept
        } else {
            base = PatternView.windowSamples(original, window: window)
            cache.effective.withLock { list in
                list.removeAll { $0.key == key }
                list.append((key, base))
                if list.count > 4 { list.removeFirst() }
            }
        }
        guard case .within(let stretch) = change else { return PatternView.effective(base, window: window) }
        return PatternView.effective(
            PatternView.windowSamples(edited, window: window, base: base, changed: stretch), window: window)
    }
}

extension PatternView {
    /// Where the effective curves of a pattern changed by edits can differ from its own.
    package enum EffectiveChange: Equatable, Sendable {
        /// The same elements.
        case unchanged
        /// Only events changed, each (before and after) from its time to its end inside this stretch.
        case within(ClosedRange<Double>)
        /// A dynamic parameter or curve changed, or the pattern's length (the grid of samples).
        case everywhere
    }

    /// What changed between `original` and `edited` for their effective curves: the elements
    /// between the two's common start and common end.
    package static func effectiveChange(from original: HapticPattern, to edited: HapticPattern) -> EffectiveChange {
        let (a, b) = (original.elements, edited.elements)
        let shorter = min(a.count, b.count)
        var prefix = 0
        while prefix < shorter && a[prefix] == b[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < shorter - prefix && a[a.count - 1 - suffix] == b[b.count - 1 - suffix] { suffix += 1 }
        if prefix == a.count && prefix == b.count { return .unchanged }
        guard original.duration == edited.duration else { return .everywhere }
        var lower = Double.infinity
        var upper = -Double.infinity
        for element in a[prefix..<(a.count - suffix)] + b[prefix..<(b.count - suffix)] {
            guard case .event(let event) = element else { return .everywhere }
            lower = min(lower, event.time)
            upper = max(upper, event.time + (event.duration ?? 0))
        }
        guard lower <= upper else { return .unchanged }
        return .within(lower...upper)
    }

    /// ``windowSamples(_:window:)`` of `pattern` from `base`, the window's samples of a pattern
    /// of the same length, controls and events outside `changed`: `base` with the samples in
    /// `changed` made again. Outside it, the sampled times (the grid, each event's start and end)
    /// and the events sounding at each are the same.
    package static func windowSamples(
        _ pattern: HapticPattern, window: Studio.Window, base: [EffectiveSample], changed: ClosedRange<Double>
    ) -> [EffectiveSample] {
        let duration = pattern.duration
        let stretch = sampledStretch(window, duration: duration)
        let lower = max(changed.lowerBound, stretch.lowerBound)
        let upper = min(changed.upperBound, stretch.upperBound)
        guard lower <= upper else { return base }
        let part = EffectiveTimeline.samples(
            for: sounding(pattern, from: lower, through: upper), from: lower, through: upper, until: duration)
        func firstIndex(_ isAfter: (EffectiveSample) -> Bool) -> Int {
            var (low, high) = (0, base.count)
            while low < high {
                let mid = (low + high) / 2
                if isAfter(base[mid]) { high = mid } else { low = mid + 1 }
            }
            return low
        }
        var out = base
        out.replaceSubrange(firstIndex { $0.time >= lower }..<firstIndex { $0.time > upper }, with: part)
        return out
    }
}
