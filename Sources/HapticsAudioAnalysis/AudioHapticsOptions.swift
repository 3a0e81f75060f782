/// How ``AudioHaptics`` turns sound into a pattern: the knobs `haptic convert` offers for audio,
/// as one value a caller can store or send (it is `Codable`; every field has a default, so `{}`
/// decodes to ``init()``).
///
/// ```swift
/// var options = AudioHapticsOptions()
/// options.band = AudioHapticsOptions.Band(low: 40, high: 200)   // follow music's low end
/// options.content = .transientsOnly
/// ```
public struct AudioHapticsOptions: Codable, Hashable, Sendable {
    /// Which events to write.
    public enum Content: String, Codable, Hashable, Sendable, CaseIterable {
        /// Transients at onsets and continuous events for the loudness envelope.
        case both
        case transientsOnly = "transients"
        case continuousOnly = "continuous"
    }

    /// A frequency band in Hz.
    public struct Band: Codable, Hashable, Sendable {
        public var low: Double
        public var high: Double
        public init(low: Double, high: Double) {
            self.low = low
            self.high = high
        }
    }

    /// Decibels added to the sound before it is mapped to intensity (the envelope's gain).
    public var gain: Double = 0
    /// How closely curves follow the sound, 0...1: 1 keeps every 10 ms frame, 0 keeps only
    /// changes larger than 0.2 (the curve simplifier's tolerance is 0.2 × (1 − resolution)).
    public var resolution: Double = 0.75
    /// How readily a change in the sound counts as an onset, 0...1 (0.5: tuned on the benchmark's
    /// training pieces; higher finds softer onsets, and more false ones).
    public var sensitivity: Double = 0.5
    public var content: Content = .both
    /// The shortest time between two transients, seconds.
    public var minimumGap: Double = 0.03
    /// When set, onsets, loudness and sharpness are measured within this band only (e.g. 40–200 Hz
    /// for music's low end); otherwise onsets and loudness use the whole spectrum and sharpness
    /// the spectral centroid within ``sharpnessBand``.
    public var band: Band?
    /// The most events (transients and continuous) in any one second; the weakest transients go first.
    public var maxEventsPerSecond: Int = 30
    /// Sound quieter than this (dBFS, RMS over 46 ms, after ``gain``) is silence: no continuous
    /// events; a transient only where the sound is within 10 dB of it and its onset stands out
    /// more clearly than elsewhere.
    public var silenceThreshold: Double = -60
    /// When set, an AudioCustom event at time 0 plays this file (a path relative to the pattern),
    /// so the pattern plays the sound and its haptics together.
    public var audioPath: String?

    /// The band whose spectral centroid sets sharpness when ``band`` is not set (Hz).
    public static let sharpnessBand = Band(low: 50, high: 5_000)

    public init() {}

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = AudioHapticsOptions()
        gain = try c.decodeIfPresent(Double.self, forKey: .gain) ?? defaults.gain
        resolution = try c.decodeIfPresent(Double.self, forKey: .resolution) ?? defaults.resolution
        sensitivity = try c.decodeIfPresent(Double.self, forKey: .sensitivity) ?? defaults.sensitivity
        content = try c.decodeIfPresent(Content.self, forKey: .content) ?? defaults.content
        minimumGap = try c.decodeIfPresent(Double.self, forKey: .minimumGap) ?? defaults.minimumGap
        band = try c.decodeIfPresent(Band.self, forKey: .band)
        maxEventsPerSecond = try c.decodeIfPresent(Int.self, forKey: .maxEventsPerSecond) ?? defaults.maxEventsPerSecond
        silenceThreshold = try c.decodeIfPresent(Double.self, forKey: .silenceThreshold) ?? defaults.silenceThreshold
        audioPath = try c.decodeIfPresent(String.self, forKey: .audioPath)
    }

    /// The first option out of range, as a message, or nil when all are usable.
    public var problem: String? {
        if !gain.isFinite || abs(gain) > 60 { return "gain must be within -60...60 dB" }
        if !(0...1).contains(resolution) { return "resolution must be within 0...1" }
        if !(0...1).contains(sensitivity) { return "sensitivity must be within 0...1" }
        if !(0...10).contains(minimumGap) { return "the minimum gap must be within 0...10 s" }
        if maxEventsPerSecond < 1 { return "the events-per-second budget must be at least 1" }
        if !(-120...0).contains(silenceThreshold) { return "the silence threshold must be within -120...0 dBFS" }
        if let band, !(band.low > 0 && band.low < band.high && band.high.isFinite) {
            return "the band must be LOW-HIGH in Hz with 0 < LOW < HIGH"
        }
        return nil
    }
}
