import HapticsCore

/// Two versions of a pattern overlaid on one timeline, with their differences highlighted.
///
/// A is drawn in blue (hollow transient heads, wider stems), B in orange (filled heads) on the
/// same axes; each change from `diff` is a tinted band over the time it affects (green added,
/// red removed, amber moved, purple re-parameterised or changed) with a symbol above it
/// (`+`, `−`, `→`, `Δ`) and the change's text as a tooltip. The waveform strip overlays both
/// renderings.
///
/// ```swift
/// let diff = PatternDiff.compare(old.pattern, new.pattern)
/// let svg = DiffPlot.svg(a: old, b: new, diff: diff)
/// ```
///
/// - Complexity: as `TimelinePlot.svg` for each side, plus O(changes).
public enum DiffPlot {
    /// Draws the overlay of `a` and `b` as an SVG document, highlighting `diff`'s changes.
    public static func svg(a: PlotInput, b: PlotInput, diff: PatternDiff, width: Int = 960, height: Int = 440) -> String
    {
        var legend: [LegendItem] = [
            LegendItem(swatch: .stem(Palette.sideA), label: "A: \(shortened(a.title))"),
            LegendItem(swatch: .stem(Palette.sideB), label: "B: \(shortened(b.title))"),
            LegendItem(swatch: .line(Palette.sideA, dashed: false), label: "A effective intensity"),
            LegendItem(swatch: .line(Palette.sideB, dashed: false), label: "B effective intensity"),
        ]
        for (kind, label, color) in bandStyles where diff.changes.contains(where: { kind.contains($0.kind) }) {
            legend.append(LegendItem(swatch: .band(color), label: label))
        }
        let duration = max(a.extent, b.extent)
        var canvas = PlotCanvas(width: width, height: height, duration: duration, legend: legend)
        let title = "\(a.title) → \(b.title)"
        let description = diff.isEmpty ? "No differences." : diff.text
        canvas.begin(title: title, description: description)
        canvas.drawAxes(
            rightAxis: TimelinePlot.usesOffsetControls(a.pattern) || TimelinePlot.usesOffsetControls(b.pattern))
        canvas.drawLegend()
        let symbols = drawBands(&canvas, diff)
        canvas.drawContinuous(a.pattern, color: Palette.sideA)
        canvas.drawContinuous(b.pattern, color: Palette.sideB)
        canvas.drawEffective(a.effective, intensityColor: Palette.sideA, sharpnessColor: Palette.sideA, opacity: 0.8)
        canvas.drawEffective(b.effective, intensityColor: Palette.sideB, sharpnessColor: Palette.sideB, opacity: 0.8)
        canvas.drawTransients(a.pattern, color: Palette.sideA, width: 3, headRadius: 5, hollow: true)
        canvas.drawTransients(b.pattern, color: Palette.sideB, width: 1.5, headRadius: 3)
        canvas.drawControls(a.pattern, color: Palette.sideA)
        canvas.drawControls(b.pattern, color: Palette.sideB)
        canvas.drawWaveform(a.samples, sampleRate: a.sampleRate, color: Palette.sideA, opacity: 0.5)
        canvas.drawWaveform(b.samples, sampleRate: b.sampleRate, color: Palette.sideB, opacity: 0.5)
        canvas.out += symbols
        if diff.isEmpty {
            canvas.text(
                "No differences", x: canvas.layout.right - 8, y: canvas.layout.mainTop + 18, size: 13,
                anchor: "end", fill: Palette.muted, cls: "no-differences")
        }
        canvas.end()
        return canvas.out
    }

    private static let bandStyles: [(Set<PatternDiff.ChangeKind>, String, Color)] = [
        ([.added], "added", Palette.added),
        ([.removed], "removed", Palette.removed),
        ([.moved], "moved", Palette.moved),
        ([.reparameterised, .movedAndReparameterised], "changed", Palette.changed),
    ]

    private static func style(_ kind: PatternDiff.ChangeKind) -> (name: String, symbol: String, color: Color) {
        switch kind {
        case .added: ("added", "+", Palette.added)
        case .removed: ("removed", "−", Palette.removed)
        case .moved: ("moved", "→", Palette.moved)
        case .reparameterised, .movedAndReparameterised: ("changed", "Δ", Palette.changed)
        }
    }

    private static func shortened(_ title: String) -> String {
        title.count > 40 ? String(title.prefix(39)) + "…" : title
    }

    /// One tinted band per change. Returns the change symbols, to be drawn on top of everything
    /// (each skipped where it would overlap the previous one).
    private static func drawBands(_ canvas: inout PlotCanvas, _ diff: PatternDiff) -> String {
        guard !diff.changes.isEmpty else { return "" }
        var symbols = "<g class=\"change-symbols\">\n"
        let l = canvas.layout
        canvas.out += "<g class=\"changes\">\n"
        var lastSymbolX = -Double.infinity
        for change in diff.changes {
            let (name, symbol, color) = style(change.kind)
            let span = change.span
            var x0 = l.x(span.lowerBound)
            var x1 = l.x(span.upperBound)
            if x1 - x0 < 8 {
                let middle = (x0 + x1) / 2
                x0 = middle - 4
                x1 = middle + 4
            }
            let n = PlotCanvas.n
            canvas.out += "<g class=\"change \(name)\"><title>\(Markup.escape(change.line))</title>"
            canvas.out +=
                "<rect x=\"\(n(x0))\" y=\"\(n(l.mainTop))\" width=\"\(n(x1 - x0))\" height=\"\(n(l.mainBottom - l.mainTop))\""
            canvas.out +=
                " fill=\"\(color.hex)\" fill-opacity=\"0.13\" stroke=\"\(color.hex)\" stroke-opacity=\"0.55\" stroke-width=\"1\"/>"
            if change.kind == .moved || change.kind == .movedAndReparameterised, let from = change.before?.time,
                let to = change.after?.time
            {
                let y = l.mainTop + 26
                let xa = l.x(from)
                let xb = l.x(to)
                canvas.out +=
                    "<line x1=\"\(n(xa))\" y1=\"\(n(y))\" x2=\"\(n(xb))\" y2=\"\(n(y))\" stroke=\"\(color.hex)\" stroke-width=\"2\"/>"
                let dir = xb >= xa ? 1.0 : -1.0
                canvas.out +=
                    "<path d=\"M\(n(xb)),\(n(y))L\(n(xb - 6 * dir)),\(n(y - 4))L\(n(xb - 6 * dir)),\(n(y + 4))Z\" fill=\"\(color.hex)\"/>"
            }
            let symbolX = (x0 + x1) / 2
            if symbolX - lastSymbolX >= 16 {
                symbols += "<text x=\"\(n(symbolX))\" y=\"\(n(l.mainTop + 14))\" font-size=\"14\" font-weight=\"700\""
                symbols += " text-anchor=\"middle\" fill=\"\(color.hex)\" stroke=\"#ffffff\" stroke-width=\"3\""
                symbols += " paint-order=\"stroke\">\(symbol)</text>\n"
                lastSymbolX = symbolX
            }
            canvas.out += "</g>\n"
        }
        canvas.out += "</g>\n"
        return symbols + "</g>\n"
    }
}
