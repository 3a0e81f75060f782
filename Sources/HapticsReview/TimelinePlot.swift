import HapticsCore

/// A pattern's timeline as an SVG image, for design review.
///
/// The main panel shows, against time in seconds:
/// - each transient as a stem whose height is its intensity and whose colour is its sharpness
///   (blue = dull/round, orange = sharp/crisp);
/// - each continuous event as a bar (height = intensity) with its envelope drawn inside;
///   audio events as grey bars along the foot;
/// - the effective intensity (solid) and sharpness (dashed) after dynamic parameters and curves;
/// - parameter-curve control points (dots) and dynamic parameters (diamonds); offset controls
///   (sharpness and the others, -1...1) are read against the right-hand axis.
///
/// A strip beneath shows the rendered waveform's envelope (minimum and maximum per pixel column).
///
/// ```swift
/// let svg = TimelinePlot.svg(PlotInput(title: "Heartbeats.ahap", pattern: pattern,
///                                      effective: timeline, samples: mono, sampleRate: 48_000))
/// ```
///
/// The output is a standalone, well-formed SVG document (no external references, no `id`s, so
/// several plots can be inlined in one HTML page). With the default margins the time axis runs
/// from x = 56 to x = `width` − 56.
///
/// - Complexity: O(events + curve points + effective samples + waveform samples) time; output size
///   is bounded by the plot width (markers, lines and the waveform are reduced per pixel column),
///   so a 10-minute pattern stays well under 1 MB.
public enum TimelinePlot {
    /// Draws `input` as an SVG document of `width`×`height` pixels (the height grows if the legend
    /// needs more rows).
    public static func svg(_ input: PlotInput, width: Int = 960, height: Int = 420) -> String {
        let pattern = input.pattern
        var legend: [LegendItem] = [
            LegendItem(swatch: .stem(Palette.sharpness(0.5)), label: "transient (height = intensity)"),
            LegendItem(swatch: .bar(Palette.sharpness(0.5)), label: "continuous + envelope"),
            LegendItem(swatch: .sharpnessRamp, label: "sharpness 0 → 1"),
            LegendItem(swatch: .line(Palette.intensityLine, dashed: false), label: "effective intensity"),
            LegendItem(swatch: .line(Palette.sharpnessLine, dashed: true), label: "effective sharpness"),
            LegendItem(swatch: .dot(Palette.intensityLine), label: "curve control point"),
        ]
        if !pattern.dynamicParameters.isEmpty {
            legend.append(LegendItem(swatch: .diamond(Palette.intensityLine), label: "dynamic parameter"))
        }
        if pattern.events.contains(where: { !$0.type.isHaptic }) {
            legend.append(LegendItem(swatch: .bar(Palette.audio), label: "audio event"))
        }
        legend.append(LegendItem(swatch: .area(Palette.waveform), label: "waveform (min/max)"))

        var canvas = PlotCanvas(width: width, height: height, duration: input.extent, legend: legend)
        canvas.begin(title: input.title, description: summary(of: input))
        canvas.drawAxes(rightAxis: usesOffsetControls(pattern))
        canvas.drawLegend()
        canvas.drawContinuous(pattern)
        canvas.drawEffective(input.effective)
        canvas.drawTransients(pattern)
        canvas.drawControls(pattern)
        canvas.drawWaveform(input.samples, sampleRate: input.sampleRate)
        canvas.end()
        return canvas.out
    }

    static func usesOffsetControls(_ pattern: HapticPattern) -> Bool {
        pattern.parameterCurves.contains { !$0.id.isMultiplicative }
            || pattern.dynamicParameters.contains { !$0.id.isMultiplicative }
    }

    static func summary(of input: PlotInput) -> String {
        let stats = EventStatistics(input.pattern)
        return "Timeline of \(input.title): \(Markup.seconds(input.pattern.duration)), "
            + "\(stats.transientCount) transient(s), \(stats.continuousCount) continuous event(s), "
            + "\(stats.audioCount) audio event(s), \(stats.curveCount) curve(s)."
    }
}
