public import HapticsCore
public import OrderedCollections

/// Counts and ranges that summarise a pattern for a reviewer.
///
/// ```swift
/// let stats = EventStatistics(pattern)
/// print(stats.transientCount, stats.closestTransientSpacing ?? 0)  // 12 0.013
/// ```
///
/// - Complexity: O(n log n) in the number of events (transients are sorted to find the spacing).
public struct EventStatistics: Hashable, Sendable {
    /// The pattern's duration in seconds (end of the last event).
    public var duration: Double
    /// All events.
    public var eventCount: Int
    /// `HapticTransient` events.
    public var transientCount: Int
    /// `HapticContinuous` events.
    public var continuousCount: Int
    /// `AudioContinuous` and `AudioCustom` events.
    public var audioCount: Int
    /// Summed length of the `HapticContinuous` events, in seconds.
    public var continuousSeconds: Double
    /// `ParameterCurve` elements.
    public var curveCount: Int
    /// Control points over all curves.
    public var controlPointCount: Int
    /// `Parameter` elements.
    public var dynamicParameterCount: Int
    /// The highest `HapticIntensity` of any haptic event (defaults included), nil without haptic events.
    public var peakIntensity: Float?
    /// The lowest and highest `HapticSharpness` of the haptic events, nil without haptic events.
    public var sharpnessRange: ClosedRange<Float>?
    /// The smallest gap between two consecutive transients, in seconds; nil with fewer than two.
    public var closestTransientSpacing: Double?

    public init(_ pattern: HapticPattern) {
        let events = pattern.events
        duration = pattern.duration
        eventCount = events.count
        transientCount = events.count { $0.type == .hapticTransient }
        continuousCount = events.count { $0.type == .hapticContinuous }
        audioCount = events.count { !$0.type.isHaptic }
        continuousSeconds = events.filter { $0.type == .hapticContinuous }.reduce(0) { $0 + max(0, $1.duration ?? 0) }
        let curves = pattern.parameterCurves
        curveCount = curves.count
        controlPointCount = curves.reduce(0) { $0 + $1.controlPoints.count }
        dynamicParameterCount = pattern.dynamicParameters.count
        let haptic = events.filter { $0.type.isHaptic }
        peakIntensity = haptic.map { $0.value(of: .hapticIntensity) }.max()
        let sharpness = haptic.map { $0.value(of: .hapticSharpness) }
        if let lo = sharpness.min(), let hi = sharpness.max() { sharpnessRange = lo...hi }
        let times = events.filter { $0.type == .hapticTransient }.map(\.time).sorted()
        closestTransientSpacing = zip(times, times.dropFirst()).map { $1 - $0 }.min()
    }
}

/// A lint finding together with the file it is about.
public struct ReviewFinding: Hashable, Sendable, CustomStringConvertible {
    /// The file, as the reviewer should see it (usually the path given on the command line).
    public var file: String
    public var diagnostic: Diagnostic

    public init(file: String, _ diagnostic: Diagnostic) {
        self.file = file
        self.diagnostic = diagnostic
    }

    /// `file:line:column` (or just `file` without a location).
    public var place: String {
        guard let location = diagnostic.location else { return file }
        return "\(file):\(location.line):\(location.column)"
    }

    /// `file:line:column: severity: message [code] (at JSON path)`.
    public var description: String {
        "\(place): \(diagnostic.severity.rawValue): \(diagnostic.message) [\(diagnostic.code)] (at \(diagnostic.path))"
    }
}

/// One item on the review page: a pattern file, a feedback preset or an order log.
public struct ReviewEntry: Sendable {
    /// What the entry came from; shown as a badge.
    public enum Kind: String, CaseIterable, Hashable, Sendable {
        case pattern
        case preset
        case orderLog = "order log"
    }

    /// The heading, e.g. the file name or preset name.
    public var title: String
    /// Where it came from, e.g. `Patterns/success.ahap`.
    public var path: String
    public var kind: Kind
    /// The timeline plot, an SVG document as `TimelinePlot.svg` returns it. Inserted verbatim.
    public var plotSVG: String
    /// The rendered preview as a complete WAV file; embedded as a data: URI. Empty for no preview.
    public var wavBytes: [UInt8]
    /// Length of the render (or the pattern) in seconds.
    public var durationSeconds: Double
    /// Seconds of audio in the preview when it holds only the start of a longer render (the page
    /// says so); nil when the preview is the whole render.
    public var previewSeconds: Double?
    public var statistics: EventStatistics
    /// Lint findings, in the order to show them.
    public var findings: [ReviewFinding]
    /// The pattern's `Metadata`.
    public var metadata: OrderedDictionary<String, JSONValue>

    /// An entry from ready-made parts.
    public init(
        title: String, path: String, kind: Kind, plotSVG: String, wavBytes: [UInt8], durationSeconds: Double,
        statistics: EventStatistics, findings: [ReviewFinding], metadata: OrderedDictionary<String, JSONValue>
    ) {
        self.title = title
        self.path = path
        self.kind = kind
        self.plotSVG = plotSVG
        self.wavBytes = wavBytes
        self.durationSeconds = durationSeconds
        self.statistics = statistics
        self.findings = findings
        self.metadata = metadata
    }

    /// An entry for `plot`'s pattern: draws the plot with `TimelinePlot`, takes statistics and
    /// metadata from the pattern, the duration from the rendered samples (or the pattern when there
    /// are none), and attributes `findings` to `path`.
    ///
    /// ```swift
    /// let entry = ReviewEntry(path: "Boing.ahap", kind: .pattern, plot: input, wavBytes: wav, findings: lint)
    /// ```
    public init(path: String, kind: Kind, plot: PlotInput, wavBytes: [UInt8], findings: [Diagnostic]) {
        let rendered = Double(plot.samples.count) / Double(plot.sampleRate)
        self.init(
            title: plot.title, path: path, kind: kind, plotSVG: TimelinePlot.svg(plot), wavBytes: wavBytes,
            durationSeconds: plot.samples.isEmpty ? plot.pattern.duration : rendered,
            statistics: EventStatistics(plot.pattern), findings: findings.map { ReviewFinding(file: path, $0) },
            metadata: plot.pattern.metadata)
        if !wavBytes.isEmpty && plot.previewSeconds < plot.renderedSeconds {
            previewSeconds = plot.previewSeconds
        }
    }
}
