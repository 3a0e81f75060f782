public import HapticsCore

/// One sample of a pattern's effective parameters: what the actuator would be told at `time`,
/// after dynamic parameters and parameter curves have been applied.
public struct EffectiveSample: Hashable, Sendable {
    /// Seconds from the start of the pattern.
    public var time: Double
    /// Effective haptic intensity, 0...1.
    public var intensity: Float
    /// Effective haptic sharpness, 0...1.
    public var sharpness: Float

    public init(time: Double, intensity: Float, sharpness: Float) {
        self.time = time
        self.intensity = intensity
        self.sharpness = sharpness
    }
}

/// Everything a timeline plot shows about one pattern.
///
/// The plot does no evaluation or synthesis itself: the caller supplies the effective parameter
/// values (for example from `ParameterTimeline`, every 5 ms) and the rendered waveform.
///
/// ```swift
/// let input = PlotInput(title: "Boing", pattern: pattern, effective: timeline, samples: mono, sampleRate: 48_000)
/// let svg = TimelinePlot.svg(input)
/// ```
public struct PlotInput: Sendable {
    /// Shown above the plot; usually the file name.
    public var title: String
    /// The pattern: events, dynamic parameters, curves with their control points.
    public var pattern: HapticPattern
    /// Effective intensity and sharpness over time, ascending in time. May be empty.
    public var effective: [EffectiveSample]
    /// The rendered waveform, mono, in -1...1. May be empty. For a long render, its outline: each
    /// stretch of frames as its lowest and highest sample, at a `sampleRate` lowered to match.
    public var samples: [Float]
    /// Frames per second of `samples`.
    public var sampleRate: Int
    /// The audio preview, mono at `previewSampleRate`: the render, or its first part for a long one.
    public var preview: [Float]
    /// Frames per second of `preview`.
    public var previewSampleRate: Int

    /// A plot input; `preview` defaults to `samples` (the whole render as the audio preview).
    public init(
        title: String, pattern: HapticPattern, effective: [EffectiveSample] = [], samples: [Float] = [],
        sampleRate: Int = 48_000, preview: [Float]? = nil, previewSampleRate: Int? = nil
    ) {
        self.title = title
        self.pattern = pattern
        self.effective = effective
        self.samples = samples
        self.sampleRate = max(1, sampleRate)
        self.preview = preview ?? samples
        self.previewSampleRate = max(1, previewSampleRate ?? sampleRate)
    }

    /// Seconds of rendered audio (all of it, not just the preview).
    public var renderedSeconds: Double { Double(samples.count) / Double(sampleRate) }

    /// Seconds of audio in the preview.
    public var previewSeconds: Double { Double(preview.count) / Double(previewSampleRate) }

    /// The span the time axis must cover: the pattern's events, curves and dynamic parameters,
    /// the effective samples and the rendered audio, whichever ends last. A control point later
    /// than the longest pattern (`AHAPLimits.maxDuration`) marks a value held for good (Apple's
    /// exports write `Float.greatestFiniteMagnitude`): the axis ends at the curve's point before it.
    public var extent: Double {
        let longest = AHAPLimits.default.maxDuration
        var end = pattern.duration
        for element in pattern.elements {
            switch element {
            case .event(let e): end = max(end, e.time + (e.duration ?? 0))
            case .parameter(let p): end = max(end, p.time)
            case .curve(let c):
                let last = c.controlPoints.last { c.time + $0.time <= longest }
                end = max(end, c.time + (last?.time ?? 0))
            }
        }
        if let last = effective.last { end = max(end, last.time) }
        end = max(end, Double(samples.count) / Double(sampleRate))
        return end
    }
}
