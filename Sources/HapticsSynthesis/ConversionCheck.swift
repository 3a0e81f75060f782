public import HapticsCore

/// How close a converted pattern sounds to its original: both rendered (mono, 48 kHz, standard
/// voicing) and compared by their loudness envelopes, onsets and overall level.
///
/// ```swift
/// let check = ConversionCheck(original: pattern, converted: back)
/// print(check.envelopeCorrelation, check.maxOnsetShiftMilliseconds ?? 0, check.loudnessDifferenceDB)
/// ```
public struct ConversionCheck: Hashable, Sendable {
    /// Pearson correlation of the two RMS envelopes (5 ms windows, the shorter padded with
    /// silence); 1 for identical shapes. Nil when either render is silent throughout.
    public var envelopeCorrelation: Double?
    /// Onsets (bursts after 10 ms of silence) in each render.
    public var originalOnsets: Int
    public var convertedOnsets: Int
    /// The largest distance, in ms, from an original onset to the nearest converted one; nil
    /// when either has none.
    public var maxOnsetShiftMilliseconds: Double?
    /// Converted minus original RMS level, dB.
    public var loudnessDifferenceDB: Double
    /// Converted minus original rendered length, ms.
    public var lengthDifferenceMilliseconds: Double

    /// The RMS window of the envelopes, seconds.
    public static let window = 0.005

    public init(original: HapticPattern, converted: HapticPattern, sampleRate: Int = 48_000) {
        let format = AudioFormat(sampleRate: sampleRate, channels: 1)
        let a = PatternRenderer.render(original, format: format)
        let b = PatternRenderer.render(converted, format: format)
        let size = max(1, Int(Self.window * Double(sampleRate)))
        let ea = Self.envelope(a, window: size)
        let eb = Self.envelope(b, window: size)
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
        lengthDifferenceMilliseconds = Double(b.count - a.count) * 1000 / Double(sampleRate)
    }

    /// RMS of each `window`-sample block.
    static func envelope(_ samples: [Float], window: Int) -> [Double] {
        stride(from: 0, to: samples.count, by: window).map { start in
            let block = samples[start..<min(samples.count, start + window)]
            let sum = block.reduce(0.0) { $0 + Double($1) * Double($1) }
            return (sum / Double(block.count)).squareRoot()
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
