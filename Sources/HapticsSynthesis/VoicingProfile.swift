#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How haptic events become sound: the carrier frequencies, the harmonic content, the click
/// length and the loudness curve. Chosen with `haptic render --voice NAME`.
///
/// Sharpness *s* (0...1) sets the carrier `lowestFrequency * (highestFrequency / lowestFrequency)^s`
/// and the harmonic mix `brightnessAtSoft + (brightnessAtSharp - brightnessAtSoft) * s`.
/// Intensity *i* sets the amplitude `peakLevel * i^intensityExponent`. See docs/voicing.md.
///
/// ```swift
/// let voice = VoicingProfile.named("pure") ?? .standard
/// print(voice.summary)
/// ```
public struct VoicingProfile: Hashable, Sendable {
    /// The name used on the command line.
    public var name: String
    /// One line for `--help` and `haptic voices`.
    public var summary: String
    /// Carrier frequency in Hz at sharpness 0.
    public var lowestFrequency: Double
    /// Carrier frequency in Hz at sharpness 1.
    public var highestFrequency: Double
    /// Partials in the harmonic wavetable, the fundamental included (1: a pure sine).
    public var harmonicCount: Int
    /// Partial *k* has amplitude `1 / k^harmonicRolloff` in the harmonic wavetable.
    public var harmonicRolloff: Double
    /// Share of the harmonics (over the pure fundamental) at sharpness 0.
    public var brightnessAtSoft: Float
    /// Share of the harmonics at sharpness 1.
    public var brightnessAtSharp: Float
    /// Length in seconds of a transient at sharpness 0 (sharper transients are shorter).
    public var longestTransient: Double
    /// Length in seconds of a transient at sharpness 1.
    public var shortestTransient: Double
    /// Amplitude (0...1 of full scale) of one event at intensity 1.
    public var peakLevel: Float
    /// Amplitude grows as `intensity^intensityExponent`.
    public var intensityExponent: Float
    /// Extra gain for transients: a 5-40 ms click never reaches its waveform's peak before it
    /// decays, so without it a full-strength tap would sound weaker than a buzz.
    public var transientGain: Float

    public init(
        name: String, summary: String, lowestFrequency: Double, highestFrequency: Double,
        harmonicCount: Int, harmonicRolloff: Double, brightnessAtSoft: Float, brightnessAtSharp: Float,
        longestTransient: Double, shortestTransient: Double, peakLevel: Float = 0.8,
        intensityExponent: Float = 2, transientGain: Float = 2
    ) {
        precondition(lowestFrequency > 0 && highestFrequency >= lowestFrequency && harmonicCount >= 1)
        self.name = name
        self.summary = summary
        self.lowestFrequency = lowestFrequency
        self.highestFrequency = highestFrequency
        self.harmonicCount = harmonicCount
        self.harmonicRolloff = harmonicRolloff
        self.brightnessAtSoft = brightnessAtSoft
        self.brightnessAtSharp = brightnessAtSharp
        self.longestTransient = longestTransient
        self.shortestTransient = shortestTransient
        self.peakLevel = peakLevel
        self.intensityExponent = intensityExponent
        self.transientGain = transientGain
    }

    /// The default voice, named "default": a 70-280 Hz fundamental with 15 harmonics, so that
    /// even laptop speakers (which roll off below about 200 Hz) play it clearly.
    public static let standard = VoicingProfile(
        name: "default",
        summary: "70-280 Hz buzz with harmonics up to 16x, audible on laptop speakers",
        lowestFrequency: 70, highestFrequency: 280, harmonicCount: 16, harmonicRolloff: 1,
        brightnessAtSoft: 0.6, brightnessAtSharp: 1, longestTransient: 0.040, shortestTransient: 0.010)

    /// "pure": a sine at the actuator's frequency (80-230 Hz), physically faithful; needs headphones
    /// or a subwoofer to be heard well.
    public static let pure = VoicingProfile(
        name: "pure",
        summary: "sine at the actuator frequency (80-230 Hz), physically faithful; use headphones",
        lowestFrequency: 80, highestFrequency: 230, harmonicCount: 1, harmonicRolloff: 1,
        brightnessAtSoft: 0, brightnessAtSharp: 0, longestTransient: 0.040, shortestTransient: 0.010)

    /// "bright": one octave up (140-560 Hz) with harmonics, for phone and tablet speakers.
    public static let bright = VoicingProfile(
        name: "bright",
        summary: "one octave up (140-560 Hz) with harmonics, for tiny phone or tablet speakers",
        lowestFrequency: 140, highestFrequency: 560, harmonicCount: 12, harmonicRolloff: 1,
        brightnessAtSoft: 0.5, brightnessAtSharp: 1, longestTransient: 0.030, shortestTransient: 0.008)

    /// "actuator": what a voice-coil actuator renders (a DualSense's two, driven as channels 3-4
    /// of its USB audio device): a pure sine, no partials above it, from 55 Hz (a soft, deep
    /// rumble) to 320 Hz (a crisp tick, near the skin's most sensitive band). Transients keep the
    /// default lengths, so a pattern lasts as long on the actuator as in its audible preview.
    /// Sources and the reasoning: docs/actuators.md.
    public static let actuator = VoicingProfile(
        name: "actuator",
        summary: "sine at 55-320 Hz for voice-coil actuators (DualSense channels 3-4); felt, barely heard",
        lowestFrequency: 55, highestFrequency: 320, harmonicCount: 1, harmonicRolloff: 1,
        brightnessAtSoft: 0, brightnessAtSharp: 0, longestTransient: 0.040, shortestTransient: 0.010)

    /// Every named profile, the default first.
    public static let all: [VoicingProfile] = [.standard, .pure, .bright, .actuator]

    /// The profile called `name` (case-insensitive), or nil.
    public static func named(_ name: String) -> VoicingProfile? {
        let wanted = name.lowercased()
        return all.first { $0.name == wanted }
    }

    /// The carrier frequency in Hz at `sharpness` (0...1).
    public func frequency(sharpness: Float) -> Double {
        lowestFrequency * exp2(log2(highestFrequency / lowestFrequency) * Double(sharpness))
    }

    /// The harmonic share at `sharpness` (0...1).
    public func brightness(sharpness: Float) -> Float {
        brightnessAtSoft + (brightnessAtSharp - brightnessAtSoft) * sharpness
    }

    /// The amplitude of one event at `intensity` (0...1), before the limiter.
    public func amplitude(intensity: Float) -> Float {
        if intensity <= 0 { return 0 }
        // The default exponent is 2: square without calling pow (this runs every control update).
        if intensityExponent == 2 { return peakLevel * intensity * intensity }
        return peakLevel * Float(pow(Double(intensity), Double(intensityExponent)))
    }

    /// The length in seconds of a transient at `sharpness` (0...1).
    public func transientLength(sharpness: Float) -> Double {
        longestTransient + (shortestTransient - longestTransient) * Double(sharpness)
    }
}

/// A single-cycle wavetable pair: the fundamental (sine) and the harmonics above it, interleaved
/// as (sine, harmonics) pairs with one guard point so lookups never wrap.
@usableFromInline
struct Wavetable: Sendable {
    /// log2 of the number of points per cycle.
    @usableFromInline static let bits = 11
    @usableFromInline static let size = 1 << bits
    /// `2 * (size + 1)` floats: sine[i], harmonics[i], ...
    @usableFromInline let points: [Float]
    /// Peak of sine + harmonics (so `1 / (1 + b * (harmonicPeak - 1))` normalises the mix).
    @usableFromInline let harmonicPeak: Float
    /// One cycle of the sine at the table's points, computed once per process for every table.
    static let sineCycle = (0..<size).map { sin(2 * Double.pi * Double($0) / Double(size)) }

    init(harmonicCount: Int, rolloff: Double) {
        var points = [Float](repeating: 0, count: 2 * (Self.size + 1))
        var peak: Double = 0
        // k^rolloff once per partial, not once per point (the same divisions, so the same table).
        let divisors = (0...max(harmonicCount, 1)).map { pow(Double($0), rolloff) }
        // Partial k at point i is the sine at point k·i (mod size), the same angle reduced
        // exactly: no call to `sin` per partial and point (31,000 for the default voice, a sixth
        // of the instructions of a short render). docs/voicing.md gives the difference from the
        // direct formula.
        let mask = Self.size - 1
        let sine = Self.sineCycle
        for i in 0...Self.size {
            var harmonics = 0.0
            if harmonicCount > 1 {
                for k in 2...harmonicCount { harmonics += sine[(k &* i) & mask] / divisors[k] }
            }
            let fundamental = sine[i & mask]
            points[2 * i] = Float(fundamental)
            points[2 * i + 1] = Float(harmonics)
            peak = max(peak, abs(fundamental + harmonics))
        }
        self.points = points
        self.harmonicPeak = Float(max(peak, 1))
    }

    /// The gain that keeps `sine + brightness * harmonics` within -1...1 (approximately).
    @inlinable
    func normalization(brightness: Float) -> Float { 1 / (1 + brightness * (harmonicPeak - 1)) }
}
