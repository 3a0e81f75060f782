public import HapticsCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How close a converted pattern sounds to its original: both rendered (mono, 48 kHz, standard
/// voicing) and compared by their loudness envelopes, onsets and overall level.
///
/// ```swift
/// let check = try ConversionCheck(original: pattern, converted: back)
/// print(check.envelopeCorrelation, check.maxOnsetShiftMilliseconds ?? 0, check.loudnessDifferenceDB)
/// ```
public struct ConversionCheck: Hashable, Sendable {
    /// Pearson correlation of the two amplitude envelopes (Hann-weighted RMS over ``window``,
    /// every ``hop``, the shorter padded with silence); 1 for identical shapes. Nil when either
    /// render is silent throughout.
    public var envelopeCorrelation: Double?
    /// Onsets (bursts after 10 ms of silence) in each render.
    public var originalOnsets: Int
    public var convertedOnsets: Int
    /// The largest distance, in ms, from an original onset to the nearest converted one; nil
    /// when either has none.
    public var maxOnsetShiftMilliseconds: Double?
    /// Converted minus original RMS level, dB.
    public var loudnessDifferenceDB: Double
    /// Converted minus original audible length, ms: each render up to its last sample louder
    /// than -60 dBFS (the onsets' threshold). A release tail of silence (a carrier whose curve has
    /// already faded it out) is no length a user feels.
    public var lengthDifferenceMilliseconds: Double

    /// The RMS window of the envelopes, seconds: longer than one period of the lowest carrier
    /// (70 Hz, 14.3 ms), so the envelope follows the amplitude, not the waveform. A 5 ms window,
    /// used before, held 0.35 to 1.4 cycles: its RMS rose and fell with the carrier's phase, and
    /// two renders with the same flat envelope correlated at 0.64 (BENCHMARKS.md, issue 13).
    public static let window = 0.020
    /// How often the envelope is sampled, seconds.
    public static let hop = 0.005

    /// - Throws: ``FrameRangeError`` when a time in either pattern cannot be a frame position.
    public init(original: HapticPattern, converted: HapticPattern, sampleRate: Int = 48_000) throws(FrameRangeError) {
        let format = AudioFormat(sampleRate: sampleRate, channels: 1)
        let a = try PatternRenderer.render(original, format: format)
        let b = try PatternRenderer.render(converted, format: format)
        let size = max(1, Int(Self.window * Double(sampleRate)))
        let hop = max(1, Int(Self.hop * Double(sampleRate)))
        let ea = Self.envelope(a, window: size, hop: hop)
        let eb = Self.envelope(b, window: size, hop: hop)
        let count = max(ea.count, eb.count)
        envelopeCorrelation = Self.correlation(
            ea + [Double](repeating: 0, count: count - ea.count), eb + [Double](repeating: 0, count: count - eb.count))
        let gap = sampleRate / 100
        let oa = AudioAnalysis.onsets(a, channels: 1, threshold: 1e-3, minGapFrames: gap)
        let ob = AudioAnalysis.onsets(b, channels: 1, threshold: 1e-3, minGapFrames: gap)
        originalOnsets = oa.count
        convertedOnsets = ob.count
        if oa.isEmpty || ob.isEmpty {
            maxOnsetShiftMilliseconds = nil
        } else {
            let shift = oa.map { onset in ob.map { abs($0 - onset) }.min() ?? 0 }.max() ?? 0
            maxOnsetShiftMilliseconds = Double(shift) * 1000 / Double(sampleRate)
        }
        loudnessDifferenceDB = AudioAnalysis.rmsDBFS(b) - AudioAnalysis.rmsDBFS(a)
        lengthDifferenceMilliseconds =
            Double(Self.audibleLength(b) - Self.audibleLength(a)) * 1000 / Double(sampleRate)
    }

    /// Samples up to and including the last one louder than -60 dBFS.
    static func audibleLength(_ samples: [Float]) -> Int {
        (samples.lastIndex { abs($0) > 1e-3 } ?? -1) + 1
    }

    /// Hann-weighted RMS of the `window` samples starting every `hop` samples.
    static func envelope(_ samples: [Float], window: Int, hop: Int) -> [Double] {
        let weights = (0..<window).map { 0.5 - 0.5 * cos(2 * Double.pi * (Double($0) + 0.5) / Double(window)) }
        return stride(from: 0, to: samples.count, by: hop).map { start in
            let end = min(samples.count, start + window)
            var sum = 0.0
            var weight = 0.0
            for i in start..<end {
                let x = Double(samples[i])
                sum += weights[i - start] * x * x
                weight += weights[i - start]
            }
            return weight > 0 ? (sum / weight).squareRoot() : 0
        }
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

    /// One line: `envelope correlation 0.998, onsets 3 -> 3 (largest shift 0.0 ms), loudness +0.1 dB, length +0 ms`.
    public var summary: String {
        let correlation = envelopeCorrelation.map { String(format3($0)) } ?? "n/a (silent)"
        let shift = maxOnsetShiftMilliseconds.map { ", largest shift \(format1($0)) ms" } ?? ""
        return
            "envelope correlation \(correlation), onsets \(originalOnsets) -> \(convertedOnsets)\(shift), loudness \(signed(loudnessDifferenceDB)) dB, length \(signed(lengthDifferenceMilliseconds)) ms"
    }
}

private func format3(_ x: Double) -> String { String(Double((x * 1000).rounded()) / 1000) }
private func format1(_ x: Double) -> String { String(Double((x * 10).rounded()) / 10) }
private func signed(_ x: Double) -> String {
    guard x.isFinite else { return "n/a" }
    let v = Double((x * 10).rounded()) / 10
    return v >= 0 ? "+\(v)" : "\(v)"
}
