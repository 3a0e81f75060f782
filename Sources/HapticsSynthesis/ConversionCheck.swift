public import HapticsCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How close a converted pattern sounds to its original: each side rendered by its own format's
/// semantics (mono, 48 kHz, standard voicing) and compared by their loudness envelopes, onsets,
/// emphases and overall level. An AHAP plays as Core Haptics plays it; a Meta/Lofelt clip as
/// Meta's and Lofelt's players play it (``ClipPlayback``), straight from the clip, not through
/// the mapping the conversion used, so a conversion that loses something shows it.
///
/// Both sides are rendered and measured block by block: memory grows with the envelopes (200
/// values a second), not with the audio.
///
/// ```swift
/// let check = try ConversionCheck(clip: clip, converted: clip.pattern)
/// print(check.envelopeCorrelation, check.maxOnsetShiftMilliseconds ?? 0, check.loudnessDifferenceDB)
/// ```
public struct ConversionCheck: Hashable, Sendable {
    /// Pearson correlation of the two amplitude envelopes (Hann-weighted RMS over ``window``,
    /// every ``hop``, the shorter padded with silence); 1 for identical shapes. Nil when either
    /// render is silent throughout.
    ///
    /// Each side's envelope sums the energy of its taps (transients, a clip's emphases) and of
    /// everything else (carriers, audio), each rendered on its own: where a tap plays on a
    /// carrier, the sum of the two waveforms is louder or quieter with the carrier's phase at the
    /// tap, which neither format defines (a continuous event starts its carrier at its own time,
    /// and a conversion that splits or joins carriers moves it). Rendered together, the same
    /// pattern with its carrier 1 or 2 ms earlier correlated at 0.95 and 0.92 with itself
    /// (ahap_rs bike.ahap). Onsets, emphases, loudness and length are measured on the mix.
    public var envelopeCorrelation: Double?
    /// How much the original's envelope varies: its standard deviation over its mean, across
    /// every window of the original's render. Nil when the original is silent throughout.
    public var originalEnvelopeSpread: Double?
    /// The 95th percentile of the level difference between the two envelopes, dB, over the
    /// windows where either is louder than -60 dBFS (a quieter window reads as -60 dBFS, so a
    /// window audible on one side only differs by its level above that). Nil when both are silent.
    public var envelopeLevelDifferenceDB: Double?
    /// Whether the converted envelope keeps the original's: correlation at least
    /// ``minimumCorrelation``, or, for a flat original (spread at most ``flatSpread``), every
    /// window but the 5 % farthest within ``flatLevelTolerance`` dB (``envelopeLevelDifferenceDB``).
    /// A correlation normalises away the level and measures only the shape; a flat envelope has
    /// almost no shape, so its correlation measures the ripple of the carrier (a pitch change, a
    /// restarted phase) rather than the conversion, and two renders within half a decibel of each
    /// other can correlate at 0.65. What can be lost from a flat envelope is its level and its
    /// length, which the level difference measures directly.
    public var envelopeKept: Bool
    /// Onsets (bursts after 10 ms of silence that reach ``onsetLevel`` within 10 ms) in each render.
    public var originalOnsets: Int
    public var convertedOnsets: Int
    /// The largest distance, in ms, from an original onset to the nearest converted burst (an
    /// onset under the rule read within ``phaseResolution``); nil when either has none.
    public var maxOnsetShiftMilliseconds: Double?
    /// Original onsets with no converted burst within ``onsetMatch`` (the rule read within
    /// ``phaseResolution``).
    public var onsetsLost: Int
    /// Converted onsets with no original burst within ``onsetMatch``, read the same way.
    public var onsetsAdded: Int
    /// Converted minus original RMS level, dB.
    public var loudnessDifferenceDB: Double
    /// Converted minus original audible length, ms: each render up to its last sample louder
    /// than -60 dBFS (the onsets' threshold). A release tail of silence (a carrier whose curve has
    /// already faded it out) is no length a user feels.
    public var lengthDifferenceMilliseconds: Double
    /// The original's emphases (a clip's emphases and impulses, an AHAP's transients).
    public var emphases: Int
    /// Those the converted render keeps: its peak within ``emphasisSpan`` of the emphasis is at
    /// most ``emphasisTolerance`` dB below the original's there.
    public var emphasesKept: Int

    /// The level a burst must reach within 10 ms of leaving silence to count as an onset: -48 dBFS.
    public static let onsetLevel: Float = 0.004
    /// How far the carrier's phase moves what the onset rule reads, seconds: half a period of the
    /// lowest carrier (70 Hz). Silence ends at the first sample above -60 dBFS, which is a peak
    /// of the waveform, so where a burst rises slowly from silence that sample comes up to half a
    /// period earlier or later with the carrier's phase (a carrier that restarts after a held
    /// emphasis has another phase than the player's one carrier). So a silence of 9.7 ms on one
    /// side is 10.3 ms on the other, or a rise of 9 ms is 14 ms, and an onset is counted on one
    /// side only though the envelopes agree within 1 dB. An onset is lost (or added) only when the
    /// other side has no burst near it even read this much more loosely: 10 ms of silence less,
    /// 10 ms more to rise (the rise is read in 5 ms hops).
    public static let phaseResolution = 1.0 / 140
    /// How near a burst on the other side must be to match an onset, seconds: the 10 ms an onset
    /// may move plus ``phaseResolution``.
    public static let onsetMatch = 0.010 + phaseResolution

    /// The RMS window of the envelopes, seconds: two periods of the lowest carrier (70 Hz), so
    /// the envelope follows the amplitude, not the waveform. A Hann window of length T is null at
    /// every multiple of 1/T past its main lobe (2/T on): at T = 2/70 s every harmonic of the
    /// 70 Hz carrier (and of its square) falls on a null, so the envelope does not depend on the
    /// carrier's phase. A 20 ms window, used before, put 70 Hz inside its main lobe: a carrier at
    /// sharpness 0 rippled 8 % with its phase, and two renders of one flat envelope whose carriers
    /// started at different times correlated at 0.85. A 5 ms window, before that, correlated at
    /// 0.64 (BENCHMARKS.md, issue 13).
    public static let window = 2.0 / 70
    /// How often the envelope is sampled, seconds.
    public static let hop = 0.005
    /// The envelope correlation at which a converted envelope keeps the original's shape.
    public static let minimumCorrelation = 0.9
    /// The largest spread (standard deviation over mean) of an envelope judged flat: 10 %, about
    /// +-0.8 dB. Its variations are then under the level tolerance below, so the shape a correlation
    /// would judge is no shape a user feels; an envelope with a silence, a fade or a step in it
    /// spreads far more (a buzz with 5 % of silence before it: 23 %). A silence of 1 % of the
    /// length or less still reads as flat; it is an onset the onset rule names (10 ms or more).
    public static let flatSpread = 0.10
    /// How far a flat envelope's level may move, dB, at the 95th percentile of its windows: 1 dB,
    /// under the smallest vibration-intensity difference people tell apart (median difference
    /// thresholds of 0.20 to 0.58 of the level, 1.6 to 4.0 dB, in "Vibrotactile difference
    /// thresholds: effects of vibration frequency, vibration magnitude, contact area, and body
    /// location"), and twice the carrier's ripple between two renders of one flat level.
    public static let flatLevelTolerance = 1.0
    /// How long after an emphasis its peak is looked for, seconds (a transient's click).
    public static let emphasisSpan = 0.020
    /// How much quieter an emphasis may come out and still count as kept, dB.
    public static let emphasisTolerance = 6.0

    /// Two Core Haptics patterns (AHAP to AHAP, or to Android's waveform as a pattern).
    ///
    /// - Throws: ``FrameRangeError`` when a time in either pattern cannot be a frame position.
    public init(original: HapticPattern, converted: HapticPattern, sampleRate: Int = 48_000) throws(FrameRangeError) {
        try self.init(
            original: [original], converted: [converted],
            emphasisTimes: Self.transientTimes(original), sampleRate: sampleRate)
    }

    /// A Meta/Lofelt clip as its players play it, against what it was converted to, played as
    /// Core Haptics plays it.
    public init(clip: HapticClip, converted: HapticPattern, sampleRate: Int = 48_000) throws(FrameRangeError) {
        let layers = ClipPlayback.layers(clip)
        try self.init(
            original: [layers.continuous, layers.emphases].compactMap { $0 }, converted: [converted],
            emphasisTimes: ClipPlayback.emphasisTimes(clip), sampleRate: sampleRate)
    }

    /// A Core Haptics pattern against the clip it was converted to, played as Meta's and
    /// Lofelt's players play it.
    public init(original: HapticPattern, clip: HapticClip, sampleRate: Int = 48_000) throws(FrameRangeError) {
        let layers = ClipPlayback.layers(clip)
        try self.init(
            original: [original], converted: [layers.continuous, layers.emphases].compactMap { $0 },
            emphasisTimes: Self.transientTimes(original), sampleRate: sampleRate)
    }

    /// A Meta/Lofelt clip against the clip it was converted to (`.haptic` to `.haptic`), both
    /// played as Meta's and Lofelt's players play them.
    public init(clip: HapticClip, converted: HapticClip, sampleRate: Int = 48_000) throws(FrameRangeError) {
        let (a, b) = (ClipPlayback.layers(clip), ClipPlayback.layers(converted))
        try self.init(
            original: [a.continuous, a.emphases].compactMap { $0 },
            converted: [b.continuous, b.emphases].compactMap { $0 },
            emphasisTimes: ClipPlayback.emphasisTimes(clip), sampleRate: sampleRate)
    }

    static func transientTimes(_ pattern: HapticPattern) -> [Double] {
        pattern.events.filter { $0.type == .hapticTransient }.map(\.time).sorted()
    }

    /// Each side is the mix of its layers, each rendered on its own (its own controls).
    init(original: [HapticPattern], converted: [HapticPattern], emphasisTimes: [Double], sampleRate: Int)
        throws(FrameRangeError)
    {
        let format = AudioFormat(sampleRate: sampleRate, channels: 1)
        var a = try Meter(layers: original, format: format)
        var b = try Meter(layers: converted, format: format)
        a.run()
        b.run()
        let judged = Self.judge(original: a.envelope, converted: b.envelope)
        envelopeCorrelation = judged.correlation
        originalEnvelopeSpread = judged.spread
        envelopeLevelDifferenceDB = judged.levelDifference
        envelopeKept = judged.kept
        originalOnsets = a.onsets.count
        convertedOnsets = b.onsets.count
        if a.onsets.isEmpty || b.bursts.isEmpty {
            maxOnsetShiftMilliseconds = nil
        } else {
            maxOnsetShiftMilliseconds = Double(Self.largestShift(a.onsets, b.bursts)) * 1000 / Double(sampleRate)
        }
        let match = Int(Self.onsetMatch * Double(sampleRate))
        onsetsLost = Self.unmatched(a.onsets, b.bursts, within: match)
        onsetsAdded = Self.unmatched(b.onsets, a.bursts, within: match)
        loudnessDifferenceDB = b.rmsDBFS - a.rmsDBFS
        lengthDifferenceMilliseconds = Double(b.audibleLength - a.audibleLength) * 1000 / Double(sampleRate)
        emphases = emphasisTimes.count
        let span = max(1, Int((Self.emphasisSpan / Self.hop).rounded(.up)))
        let tolerance = Float(pow(10, -Self.emphasisTolerance / 20))
        let (pa, pb) = (a.peaks, b.peaks)
        func peak(_ peaks: [Float], from first: Int) -> Float {
            guard first < peaks.count else { return 0 }
            return peaks[max(0, first)..<min(peaks.count, first + span + 1)].max() ?? 0
        }
        emphasesKept =
            emphasisTimes.filter { t in
                let first = Int(t / Self.hop)
                return peak(pb, from: first) >= peak(pa, from: first) * tolerance
            }.count
    }

    /// How many onsets of `a` have none of `b` within `limit` frames (both ascending).
    static func unmatched(_ a: [Int], _ b: [Int], within limit: Int) -> Int {
        var j = 0
        var count = 0
        for onset in a {
            while j + 1 < b.count, abs(b[j + 1] - onset) <= abs(b[j] - onset) { j += 1 }
            if b.isEmpty || abs(b[j] - onset) > limit { count += 1 }
        }
        return count
    }

    /// The largest distance from an onset of `a` to the nearest of `b` (both ascending).
    static func largestShift(_ a: [Int], _ b: [Int]) -> Int {
        var j = 0
        var largest = 0
        for onset in a {
            while j + 1 < b.count, abs(b[j + 1] - onset) <= abs(b[j] - onset) { j += 1 }
            largest = max(largest, abs(b[j] - onset))
        }
        return largest
    }

    /// Renders one side block by block and keeps only what the comparison needs.
    struct Meter: ~Copyable {
        /// One render and what its frames count for.
        final class Source {
            var renderer: PatternRenderer
            /// Part of the mix: what a user hears, where onsets, peaks, loudness and length are read.
            let heard: Bool
            /// Part of the envelope, by its energy.
            let measured: Bool

            init(_ pattern: HapticPattern, format: AudioFormat, heard: Bool, measured: Bool) throws(FrameRangeError) {
                renderer = try PatternRenderer(pattern: pattern, format: format)
                self.heard = heard
                self.measured = measured
            }
        }

        /// Each layer, heard; its envelope from its taps and the rest rendered apart (``parts(of:)``).
        let sources: [Source]
        let window: Int
        let hopFrames: Int
        let weights: [Double]
        var envelope: [Double] = []
        /// The largest absolute sample in each hop.
        var peaks: [Float] = []
        var onsets: [Int] = []
        /// Onsets under the rule read within ``ConversionCheck/phaseResolution`` (a superset of
        /// `onsets`): what an onset on the other side is matched against.
        var bursts: [Int] = []
        /// Where silence ended (the first sample above -60 dBFS after at least the loose gap),
        /// and how long it had lasted, frames.
        var candidates: [(frame: Int, gap: Int)] = []
        var rmsDBFS = -Double.infinity
        var audibleLength = 0

        init(layers: [HapticPattern], format: AudioFormat) throws(FrameRangeError) {
            var sources: [Source] = []
            for layer in layers {
                let parts = Self.parts(of: layer)
                sources.append(try Source(layer, format: format, heard: true, measured: parts.count == 1))
                if parts.count > 1 {
                    for part in parts { sources.append(try Source(part, format: format, heard: false, measured: true)) }
                }
            }
            self.sources = sources
            window = max(1, Int(ConversionCheck.window * Double(format.sampleRate)))
            hopFrames = max(1, Int(ConversionCheck.hop * Double(format.sampleRate)))
            let n = window
            weights = (0..<n).map { 0.5 - 0.5 * cos(2 * Double.pi * (Double($0) + 0.5) / Double(n)) }
        }

        /// A pattern's taps (transients) and everything else, each with every control of the
        /// pattern, to be rendered apart; the pattern alone when it has only one of the two.
        static func parts(of pattern: HapticPattern) -> [HapticPattern] {
            func isTap(_ element: PatternElement) -> Bool? {
                if case .event(let event) = element { event.type == .hapticTransient } else { nil }
            }
            var taps = pattern
            var rest = pattern
            taps.elements = pattern.elements.filter { isTap($0) != false }
            rest.elements = pattern.elements.filter { isTap($0) != true }
            return taps.events.isEmpty || rest.events.isEmpty ? [pattern] : [taps, rest]
        }

        /// Renders the next frames of every source: their sum into `mix` (heard) and the sum of
        /// their squares into `energy` (measured); returns how many frames the longest rendered.
        func add(to mix: inout [Float], energy: inout [Double], scratch: inout [Float]) -> Int {
            var frames = 0
            for source in sources {
                let n = scratch.withUnsafeMutableBufferPointer { source.renderer.render(into: $0) }
                if source.heard { for i in 0..<n { mix[i] += scratch[i] } }
                if source.measured { for i in 0..<n { energy[i] += Double(scratch[i]) * Double(scratch[i]) } }
                frames = max(frames, n)
            }
            return frames
        }

        mutating func run() {
            let block = 4_096
            var mix = [Float](repeating: 0, count: block)
            var energy = [Double](repeating: 0, count: block)
            var scratch = [Float](repeating: 0, count: block)
            // The energies some window still needs, from frame `base` on.
            var pending: [Double] = []
            var base = 0
            var nextStart = 0
            var total = 0
            var sum = 0.0
            var lastLoud = Int.min
            // 10 ms of silence before an onset; read loosely, less half a carrier period.
            let looseGap = max(
                1, hopFrames * 2 - Int(ConversionCheck.phaseResolution * Double(hopFrames) / ConversionCheck.hop))
            while true {
                for i in 0..<block {
                    mix[i] = 0
                    energy[i] = 0
                }
                let frames = add(to: &mix, energy: &energy, scratch: &scratch)
                if frames == 0 { break }
                for i in 0..<frames {
                    let x = mix[i]
                    let frame = total + i
                    sum += Double(x) * Double(x)
                    let magnitude = abs(x)
                    let hopIndex = frame / hopFrames
                    if hopIndex >= peaks.count { peaks.append(0) }
                    if magnitude > peaks[hopIndex] { peaks[hopIndex] = magnitude }
                    if magnitude > 1e-3 {
                        audibleLength = frame + 1
                        if lastLoud == Int.min {
                            candidates.append((frame, Int.max))
                        } else if frame - lastLoud - 1 >= looseGap {
                            candidates.append((frame, frame - lastLoud - 1))
                        }
                        lastLoud = frame
                    }
                }
                pending += energy[0..<frames]
                total += frames
                while nextStart + window <= total {
                    envelope.append(value(pending, from: nextStart - base, count: window))
                    nextStart += hopFrames
                }
                if nextStart - base > 65_536 {
                    pending.removeFirst(nextStart - base)
                    base = nextStart
                }
            }
            while nextStart < total {
                envelope.append(value(pending, from: nextStart - base, count: total - nextStart))
                nextStart += hopFrames
            }
            rmsDBFS = total > 0 ? 10 * log10(sum / Double(total)) : -.infinity
            // A burst is felt as an onset when it rises from silence to -48 dBFS within 10 ms (the
            // quietest tap does); a fade-in from silence (a curve ramping up from 0) crosses
            // -60 dBFS wherever the renderer's carrier and ramp happen to put it, so it is not
            // compared as an onset.
            func rises(_ onset: Int, within hops: Int) -> Bool {
                let first = onset / hopFrames
                let last = min(peaks.count, first + hops + 1)
                return peaks[first..<last].contains { $0 >= ConversionCheck.onsetLevel }
            }
            let gap = hopFrames * 2
            onsets = candidates.filter { $0.gap >= gap && rises($0.frame, within: 2) }.map(\.frame)
            bursts = candidates.filter { rises($0.frame, within: 4) }.map(\.frame)
        }

        /// Hann-weighted RMS of `count` frames from `start`, from their energies.
        func value(_ energies: [Double], from start: Int, count: Int) -> Double {
            var sum = 0.0
            var weight = 0.0
            for i in 0..<count {
                sum += weights[i] * energies[start + i]
                weight += weights[i]
            }
            return weight > 0 ? (sum / weight).squareRoot() : 0
        }
    }

    /// The envelope figures of two renders' envelopes (one value per ``hop``), the shorter padded
    /// with silence, and the rule of ``envelopeKept``.
    static func judge(original a: [Double], converted b: [Double]) -> (
        correlation: Double?, spread: Double?, levelDifference: Double?, kept: Bool
    ) {
        let count = max(a.count, b.count)
        let correlation = Self.correlation(
            a + [Double](repeating: 0, count: count - a.count), b + [Double](repeating: 0, count: count - b.count))
        let spread = Self.spread(a)
        let levelDifference = Self.levelDifference(a, b)
        var kept = false
        if let correlation, correlation >= minimumCorrelation {
            kept = true
        } else if let spread, spread <= flatSpread, let levelDifference {
            kept = levelDifference <= flatLevelTolerance
        }
        return (correlation, spread, levelDifference, kept)
    }

    /// Standard deviation over mean; nil for a silent envelope.
    static func spread(_ x: [Double]) -> Double? {
        let n = Double(x.count)
        let mean = x.reduce(0, +) / n
        guard x.count > 0, mean > 0 else { return nil }
        let variance = x.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / n
        return variance.squareRoot() / mean
    }

    /// The 95th percentile (nearest rank) of |20 log10(b / a)| over the windows where either side is
    /// above -60 dBFS, each read as at least -60 dBFS; the shorter side padded with silence.
    static func levelDifference(_ a: [Double], _ b: [Double]) -> Double? {
        let floor = 1e-3
        var differences: [Double] = []
        for i in 0..<max(a.count, b.count) {
            let x = i < a.count ? a[i] : 0
            let y = i < b.count ? b[i] : 0
            guard x > floor || y > floor else { continue }
            differences.append(abs(20 * log10(max(y, floor) / max(x, floor))))
        }
        guard !differences.isEmpty else { return nil }
        differences.sort()
        let rank = Int((0.95 * Double(differences.count)).rounded(.up))
        return differences[max(0, rank - 1)]
    }

    static func correlation(_ x: [Double], _ y: [Double]) -> Double? {
        let n = Double(x.count)
        guard n > 1 else { return nil }
        let mx = x.reduce(0, +) / n
        let my = y.reduce(0, +) / n
        var sxy = 0.0
        var sxx = 0.0
        var syy = 0.0
        for (a, b) in zip(x, y) {
            sxy += (a - mx) * (b - my)
            sxx += (a - mx) * (a - mx)
            syy += (b - my) * (b - my)
        }
        guard sxx > 0, syy > 0 else { return nil }
        return sxy / (sxx * syy).squareRoot()
    }

    /// One line: `envelope correlation 0.998, onsets 3 -> 3 (largest shift 0.0 ms), emphases 2 of 2 kept, loudness +0.1 dB, length +0 ms`.
    public var summary: String {
        var correlation = envelopeCorrelation.map { String(format3($0)) } ?? "n/a (silent)"
        // A flat original is judged by its level (envelopeKept): say which way it went.
        if let spread = originalEnvelopeSpread, spread <= Self.flatSpread, let level = envelopeLevelDifferenceDB,
            (envelopeCorrelation ?? 0) < Self.minimumCorrelation
        {
            correlation += " (flat: level within \(format1(level)) dB, \(envelopeKept ? "kept" : "not kept"))"
        }
        let shift = maxOnsetShiftMilliseconds.map { ", largest shift \(format1($0)) ms" } ?? ""
        let matched =
            onsetsLost == 0 && onsetsAdded == 0 && originalOnsets == convertedOnsets
            ? "" : " (\(onsetsLost) lost, \(onsetsAdded) added)"
        return
            "envelope correlation \(correlation), onsets \(originalOnsets) -> \(convertedOnsets)\(matched)\(shift), emphases \(emphasesKept) of \(emphases) kept, loudness \(signed(loudnessDifferenceDB)) dB, length \(signed(lengthDifferenceMilliseconds)) ms"
    }
}

private func format3(_ x: Double) -> String { String(Double((x * 1000).rounded()) / 1000) }
private func format1(_ x: Double) -> String { String(Double((x * 10).rounded()) / 10) }
private func signed(_ x: Double) -> String {
    guard x.isFinite else { return "n/a" }
    let v = Double((x * 10).rounded()) / 10 + 0  // -0.0 prints as +0.0, not +-0.0
    return v >= 0 ? "+\(v)" : "\(v)"
}
