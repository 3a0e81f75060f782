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

    /// The spacing of the regular samples when sampling from 0 to `end` with `step`: `step`, made
    /// coarser for long patterns so that about ``maximumSamples`` regular samples are made.
    public static func spacing(until end: Double, step: Double = defaultStep) -> Double {
        max(step, max(0, end) / Double(maximumSamples), 1e-4)
    }

    /// Samples `pattern` from 0 to `end` (default: the pattern's duration) every `step` seconds
    /// (made coarser for long patterns, ``spacing(until:step:)``), plus at each haptic event's
    /// start and end so edges and transients are exact. Ascending in time.
    ///
    /// With `start` and `last`, only the samples of that computation whose times lie in
    /// `start...last` are made (the same times and values), so a view of a stretch of a long
    /// pattern costs that stretch only.
    ///
    /// ```swift
    /// let onScreen = EffectiveTimeline.samples(for: pattern, from: 120, through: 130)
    /// ```
    ///
    /// - Complexity: O(*s* · *a* + *n* log *n*) for *s* samples made, *n* events and at most *a*
    ///   continuous events sounding at once.
    public static func samples(
        for pattern: HapticPattern, from start: Double = 0, through last: Double = .infinity, until end: Double? = nil,
        step: Double = defaultStep
    ) -> [EffectiveSample] {
        let until = max(0, end ?? pattern.duration)
        let spacing = Self.spacing(until: until, step: step)
        let haptic = pattern.events.filter(\.type.isHaptic)
        let controls = ParameterTimelines(pattern)
        let neutral = HapticEvent(time: 0, type: .hapticContinuous, duration: 0)
        func inRange(_ t: Double) -> Bool { t >= start && t <= last }

        var times: [Double] = []
        let regular = Int((until / spacing).rounded(.down))
        // The regular samples i × spacing inside start...last, computed as the whole sampling computes them.
        var firstRegular = 0
        if start > 0 { firstRegular = min(regular + 1, max(0, Int((start / spacing).rounded(.down)))) }
        while firstRegular > 0, Double(firstRegular - 1) * spacing >= start { firstRegular -= 1 }
        while firstRegular <= regular, Double(firstRegular) * spacing < start { firstRegular += 1 }
        var i = firstRegular
        while i <= regular, Double(i) * spacing <= last {
            times.append(Double(i) * spacing)
            i += 1
        }
        if Double(regular) * spacing < until, inRange(until) { times.append(until) }
        for event in haptic where event.time <= until {
            if inRange(event.time) { times.append(event.time) }
            if event.type == .hapticContinuous, let d = event.duration, event.time + d <= until,
                inRange(event.time + d)
            {
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
    /// Renders are streamed in blocks; up to this many frames the plot keeps every sample, beyond
    /// it the waveform's outline (about 200 000 values), so memory is bounded whatever the length.
    public static let maximumWaveformFrames = 1 << 22

    /// The audio preview keeps the first `previewSeconds` of the render (all of it by default).
    ///
    /// - Throws: ``FrameRangeError`` when a time in the pattern cannot be a frame position.
    /// - Complexity: O(rendered frames + effective samples) time; memory O(preview + 200 000).
    public static func rendering(
        title: String, pattern: HapticPattern, clips: [String: AudioClip] = [:], voicing: VoicingProfile = .standard,
        sampleRate: Int = 48_000, previewSeconds: Double = .infinity
    ) throws(FrameRangeError) -> PlotInput {
        let format = AudioFormat(sampleRate: sampleRate, channels: 1)
        var renderer = try PatternRenderer(pattern: pattern, format: format, voicing: voicing, clips: clips)
        let total = renderer.frameCount
        let previewFrames = Int(min(Double(total), max(0, previewSeconds) * Double(sampleRate)))
        var preview: [Float] = []
        preview.reserveCapacity(previewFrames)
        // Each stretch of `stretch` frames becomes its minimum and maximum: two samples at
        // 2 × rate / stretch per second, a divisor of 2 × rate so the waveform keeps its length.
        var stretch = 1
        if total > maximumWaveformFrames {
            let twice = 2 * sampleRate
            stretch = Int((total + 99_999) / 100_000)
            while stretch < twice && twice % stretch != 0 { stretch += 1 }
            stretch = min(stretch, twice)
        }
        var waveform: [Float] = []
        waveform.reserveCapacity(stretch == 1 ? Int(total) : 2 * Int(total / Int64(stretch) + 1))
        var low = Float.infinity, high = -Float.infinity, inStretch = 0
        var block = [Float](repeating: 0, count: 8_192)
        block.withUnsafeMutableBufferPointer { block in
            while case let count = renderer.render(into: block), count > 0 {
                let rendered = UnsafeBufferPointer(rebasing: block[..<count])
                if preview.count < previewFrames {
                    preview.append(contentsOf: rendered.prefix(previewFrames - preview.count))
                }
                guard stretch > 1 else {
                    waveform.append(contentsOf: rendered)
                    continue
                }
                for sample in rendered {
                    low = min(low, sample)
                    high = max(high, sample)
                    inStretch += 1
                    if inStretch == stretch {
                        waveform.append(low)
                        waveform.append(high)
                        low = .infinity
                        high = -.infinity
                        inStretch = 0
                    }
                }
            }
        }
        if inStretch > 0 {
            waveform.append(low)
            waveform.append(high)
        }
        let waveformRate = stretch == 1 ? sampleRate : 2 * sampleRate / stretch
        let end = max(pattern.duration, Double(total) / Double(sampleRate))
        return PlotInput(
            title: title, pattern: pattern, effective: EffectiveTimeline.samples(for: pattern, until: end),
            samples: waveform, sampleRate: waveformRate, preview: preview, previewSampleRate: sampleRate)
    }

    /// The audio preview as a complete 16-bit mono WAV file.
    public var wavBytes: [UInt8] {
        WAV.encode(AudioClip(sampleRate: previewSampleRate, channels: 1, samples: preview), sampleFormat: .s16)
    }
}
