public import HapticsCore
public import HapticsSynthesis

/// Effective intensity and sharpness over time, after dynamic parameters and parameter curves.
///
/// Definition, at each time `t`:
/// - the events *sounding* at `t` are the `HapticContinuous` events with `Time ≤ t < Time + EventDuration`
///   and the `HapticTransient` events with `Time == t` (a transient is an instant: the sampler
///   always includes every transient's own time, so none falls between two steps);
/// - if any sound, the effective intensity is the highest of their intensities as modulated by
///   `HapticIntensityControl` at `t` (`ParameterTimelines.value(of:for:at:)`), and the effective
///   sharpness is that same event's sharpness offset by `HapticSharpnessControl` at `t`;
/// - if none sound, nothing is felt: the intensity is 0 and the sharpness is what an event with
///   the default sharpness (0.5) would get from the sharpness control at `t`.
///
/// ```swift
/// let samples = EffectiveTimeline.samples(for: pattern)   // every 5 ms, plus each event edge
/// ```
public enum EffectiveTimeline {
    /// The spacing of the samples for short patterns, in seconds.
    public static let defaultStep = 0.005
    /// Longer patterns are sampled more coarsely so that no more than about this many regular samples are made.
    public static let maximumSamples = 20_000

    /// Samples `pattern` from 0 to `end` (default: the pattern's duration) every `step` seconds
    /// (made coarser for long patterns), plus at each haptic event's start and end so edges and
    /// transients are exact. Ascending in time.
    ///
    /// - Complexity: O(*s* · *a* + *n* log *n*) for *s* samples, *n* events and at most *a*
    ///   continuous events sounding at once.
    public static func samples(for pattern: HapticPattern, until end: Double? = nil, step: Double = defaultStep)
        -> [EffectiveSample]
    {
        let until = max(0, end ?? pattern.duration)
        let spacing = max(step, until / Double(maximumSamples), 1e-4)
        let haptic = pattern.events.filter(\.type.isHaptic)
        let controls = ParameterTimelines(pattern)
        let neutral = HapticEvent(time: 0, type: .hapticContinuous, duration: 0)

        var times: [Double] = []
        let regular = Int((until / spacing).rounded(.down))
        times.reserveCapacity(regular + 2 + haptic.count * 2)
        for i in 0...regular { times.append(Double(i) * spacing) }
        if times.last.map({ $0 < until }) ?? true { times.append(until) }
        for event in haptic where event.time <= until {
            times.append(event.time)
            if event.type == .hapticContinuous, let d = event.duration, event.time + d <= until {
                times.append(event.time + d)
            }
        }
        times.sort()

        let continuous = haptic.filter { $0.type == .hapticContinuous && ($0.duration ?? 0) > 0 }
            .sorted { $0.time < $1.time }
        let transients = haptic.filter { $0.type == .hapticTransient }.sorted { $0.time < $1.time }
        var nextContinuous = 0
        var nextTransient = 0
        var active: [HapticEvent] = []
        var out: [EffectiveSample] = []
        out.reserveCapacity(times.count)
        var previous = -Double.infinity
        for t in times where t != previous {
            previous = t
            while nextContinuous < continuous.count, continuous[nextContinuous].time <= t {
                active.append(continuous[nextContinuous])
                nextContinuous += 1
            }
            active.removeAll { $0.time + ($0.duration ?? 0) <= t }
            while nextTransient < transients.count, transients[nextTransient].time < t { nextTransient += 1 }
            var best: (intensity: Float, event: HapticEvent)?
            func consider(_ event: HapticEvent) {
                let intensity = controls.value(of: .hapticIntensity, for: event, at: t)
                if best == nil || intensity > best!.intensity { best = (intensity, event) }
            }
            for event in active { consider(event) }
            var index = nextTransient
            while index < transients.count, transients[index].time == t {
                consider(transients[index])
                index += 1
            }
            if let best {
                out.append(
                    EffectiveSample(
                        time: t, intensity: best.intensity,
                        sharpness: controls.value(of: .hapticSharpness, for: best.event, at: t)))
            } else {
                out.append(
                    EffectiveSample(
                        time: t, intensity: 0, sharpness: controls.value(of: .hapticSharpness, for: neutral, at: t)))
            }
        }
        return out
    }
}

extension PlotInput {
    /// Everything a plot of `pattern` needs, computed: the effective samples
    /// (``EffectiveTimeline``) and the waveform rendered in mono at `sampleRate` with `voicing`.
    ///
    /// ```swift
    /// let input = PlotInput.rendering(title: "Boing.ahap", pattern: file.pattern, clips: file.clips)
    /// let svg = TimelinePlot.svg(input)
    /// ```
    ///
    /// - Complexity: O(rendered frames + effective samples).
    public static func rendering(
        title: String, pattern: HapticPattern, clips: [String: AudioClip] = [:], voicing: VoicingProfile = .standard,
        sampleRate: Int = 48_000
    ) -> PlotInput {
        let format = AudioFormat(sampleRate: sampleRate, channels: 1)
        let samples = PatternRenderer.render(pattern, format: format, voicing: voicing, clips: clips)
        let end = max(pattern.duration, Double(samples.count) / Double(sampleRate))
        return PlotInput(
            title: title, pattern: pattern, effective: EffectiveTimeline.samples(for: pattern, until: end),
            samples: samples, sampleRate: sampleRate)
    }

    /// The rendered waveform as a complete 16-bit mono WAV file, for an audio preview.
    public var wavBytes: [UInt8] {
        WAV.encode(AudioClip(sampleRate: sampleRate, channels: 1, samples: samples), sampleFormat: .s16)
    }
}
