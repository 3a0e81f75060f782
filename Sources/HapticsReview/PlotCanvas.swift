import HapticsCore

/// Where things go in a timeline plot: a main panel (values 0...1 against time) above a waveform strip,
/// sharing one time axis.
///
/// Fixed margins: 56 px left and right (room for the value axes), so at the default 960 px width
/// the time axis runs from x = 56 to x = 904.
struct PlotLayout {
    static let marginLeft = 56.0
    static let marginRight = 56.0
    static let titleBaseline = 26.0
    static let legendTop = 40.0
    static let legendRowHeight = 20.0
    static let stripHeight = 60.0

    let width: Double
    let height: Double
    let duration: Double
    let legendRows: Int

    var left: Double { Self.marginLeft }
    var right: Double { width - Self.marginRight }
    var plotWidth: Double { right - left }
    var mainTop: Double { Self.legendTop + Double(legendRows) * Self.legendRowHeight + 12 }
    var stripBottom: Double { height - 44 }
    var stripTop: Double { stripBottom - Self.stripHeight }
    var mainBottom: Double { stripTop - 26 }
    var stripMiddle: Double { (stripTop + stripBottom) / 2 }

    /// The x of `time` seconds.
    func x(_ time: Double) -> Double { left + time / duration * plotWidth }
    /// The y of a value on the main panel's 0...1 scale.
    func y(_ value: Double) -> Double { mainBottom - max(0, min(1, value)) * (mainBottom - mainTop) }
    /// The y of a waveform sample (-1...1) in the strip.
    func stripY(_ sample: Float) -> Double {
        stripMiddle - Double(max(-1, min(1, sample))) * (Self.stripHeight / 2)
    }
}

/// A legend entry: a swatch and a label.
struct LegendItem {
    enum Swatch {
        case stem(Color)
        case bar(Color)
        case line(Color, dashed: Bool)
        case dot(Color)
        case diamond(Color)
        case area(Color)
        case band(Color)
        case sharpnessRamp
    }

    var swatch: Swatch
    var label: String

    /// Generous width estimate (12 px sans-serif averages under 7.2 px per character).
    var width: Double {
        let swatchWidth: Double =
            if case .sharpnessRamp = swatch { 60 } else { 22 }
        return swatchWidth + 6 + Double(label.count) * 7.2 + 18
    }
}

/// An SVG document under construction, with the drawing routines both plots share.
struct PlotCanvas {
    var layout: PlotLayout
    var out = ""
    var legend: [LegendItem]

    static let fontFamily = "system-ui, -apple-system, Segoe UI, Roboto, Helvetica, Arial, sans-serif"

    /// Lays out a plot of `width`×`height` covering `duration` seconds with `legend` wrapped into rows.
    init(width: Int, height: Int, duration: Double, legend: [LegendItem]) {
        let width = Double(max(width, 320))
        var rows = 1
        var x = PlotLayout.marginLeft
        for item in legend {
            if x + item.width > width - 16 && x > PlotLayout.marginLeft {
                rows += 1
                x = PlotLayout.marginLeft
            }
            x += item.width
        }
        let minimumHeight =
            PlotLayout.legendTop + Double(rows) * PlotLayout.legendRowHeight + 12 + 120 + 26
            + PlotLayout.stripHeight + 44
        layout = PlotLayout(
            width: width, height: max(Double(height), minimumHeight), duration: max(duration, 0.1),
            legendRows: rows)
        self.legend = legend
    }

    static func n(_ v: Double) -> String { Markup.number(v, decimals: 1) }

    // MARK: Document

    mutating func begin(title: String, description: String) {
        let w = Self.n(layout.width)
        let h = Self.n(layout.height)
        out += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(w)\" height=\"\(h)\" viewBox=\"0 0 \(w) \(h)\""
        out += " role=\"img\" aria-label=\"\(Markup.escape(title))\" font-family=\"\(Self.fontFamily)\""
        out += " font-size=\"12\">\n"
        out += "<title>\(Markup.escape(title))</title>\n<desc>\(Markup.escape(description))</desc>\n"
        out += "<rect class=\"background\" x=\"0\" y=\"0\" width=\"\(w)\" height=\"\(h)\" fill=\"#ffffff\"/>\n"
        // The title, cut to fit the width (bold 16 px: under 9.6 px per character).
        let maxCharacters = max(8, Int((layout.width - layout.left - 16) / 9.6))
        var shown = title
        if shown.count > maxCharacters { shown = String(shown.prefix(maxCharacters - 1)) + "…" }
        text(shown, x: layout.left, y: PlotLayout.titleBaseline, size: 16, weight: "600", cls: "plot-title")
    }

    mutating func end() { out += "</svg>\n" }

    mutating func text(
        _ string: String, x: Double, y: Double, size: Int = 12, anchor: String = "start",
        fill: Color = Palette.text, weight: String? = nil, cls: String? = nil, rotate: Bool = false
    ) {
        out += "<text"
        if let cls { out += " class=\"\(cls)\"" }
        out += " x=\"\(Self.n(x))\" y=\"\(Self.n(y))\" font-size=\"\(size)\" fill=\"\(fill.hex)\""
        if anchor != "start" { out += " text-anchor=\"\(anchor)\"" }
        if let weight { out += " font-weight=\"\(weight)\"" }
        if rotate { out += " transform=\"rotate(-90 \(Self.n(x)) \(Self.n(y)))\"" }
        out += ">\(Markup.escape(string))</text>\n"
    }

    // MARK: Axes and legend

    /// Picks the time tick step: the smallest of 1, 2, 5 × 10ⁿ whose labels stay at least 16 px apart.
    static func tickStep(duration: Double, plotWidth: Double) -> (step: Double, decimals: Int) {
        for exponent in -3...6 {
            var power = 1.0
            if exponent >= 0 {
                for _ in 0..<exponent { power *= 10 }
            } else {
                for _ in 0..<(-exponent) { power /= 10 }
            }
            for multiple in [1.0, 2.0, 5.0] {
                let step = multiple * power
                let decimals = max(0, -exponent)
                let widest = Markup.fixed(duration, decimals).count + 1
                let pixels = step / duration * plotWidth
                if pixels >= max(48, Double(widest) * 7.2 + 16) { return (step, decimals) }
            }
        }
        return (duration, 0)
    }

    mutating func drawAxes(rightAxis: Bool) {
        let l = layout
        out += "<g class=\"axes\">\n"
        // Value grid and labels, 0...1 in quarters.
        for quarter in 0...4 {
            let v = Double(quarter) / 4
            let y = l.y(v)
            out += "<line x1=\"\(Self.n(l.left))\" y1=\"\(Self.n(y))\" x2=\"\(Self.n(l.right))\" y2=\"\(Self.n(y))\""
            out += " stroke=\"\(Palette.grid.hex)\" stroke-width=\"1\"/>\n"
            text(
                Markup.number(v, decimals: 2), x: l.left - 8, y: y + 4, anchor: "end", fill: Palette.muted,
                cls: "y-tick")
            if rightAxis {
                text(
                    Markup.number(v * 2 - 1, decimals: 1).replacingMinus, x: l.right + 8, y: y + 4,
                    fill: Palette.muted, cls: "y2-tick")
            }
        }
        text(
            "intensity · sharpness", x: 16, y: (l.mainTop + l.mainBottom) / 2, anchor: "middle",
            fill: Palette.muted, cls: "y-title", rotate: true)
        if rightAxis {
            text(
                "control offset", x: l.width - 10, y: (l.mainTop + l.mainBottom) / 2, anchor: "middle",
                fill: Palette.muted, cls: "y2-title", rotate: true)
        }
        // Time grid through both panels, tick labels under the strip.
        let (step, decimals) = Self.tickStep(duration: l.duration, plotWidth: l.plotWidth)
        var index = 0
        while Double(index) * step <= l.duration * (1 + 1e-9) {
            let t = Double(index) * step
            let x = l.x(t)
            for (top, bottom) in [(l.mainTop, l.mainBottom), (l.stripTop, l.stripBottom)] {
                out += "<line x1=\"\(Self.n(x))\" y1=\"\(Self.n(top))\" x2=\"\(Self.n(x))\" y2=\"\(Self.n(bottom))\""
                out += " stroke=\"\(Palette.grid.hex)\" stroke-width=\"1\"/>\n"
            }
            text(
                Markup.fixed(t, decimals), x: x, y: l.stripBottom + 17, anchor: "middle", fill: Palette.muted,
                cls: "x-tick")
            index += 1
        }
        text(
            "time (s)", x: (l.left + l.right) / 2, y: l.height - 8, anchor: "middle", fill: Palette.muted,
            cls: "x-title")
        // Frames and the waveform strip's labels.
        for (top, bottom) in [(l.mainTop, l.mainBottom), (l.stripTop, l.stripBottom)] {
            out += "<rect x=\"\(Self.n(l.left))\" y=\"\(Self.n(top))\" width=\"\(Self.n(l.plotWidth))\""
            out +=
                " height=\"\(Self.n(bottom - top))\" fill=\"none\" stroke=\"\(Palette.axis.hex)\" stroke-width=\"1\"/>\n"
        }
        out += "<line x1=\"\(Self.n(l.left))\" y1=\"\(Self.n(l.stripMiddle))\" x2=\"\(Self.n(l.right))\""
        out += " y2=\"\(Self.n(l.stripMiddle))\" stroke=\"\(Palette.grid.hex)\" stroke-width=\"1\"/>\n"
        text("rendered waveform", x: l.left, y: l.stripTop - 8, size: 11, fill: Palette.muted, cls: "strip-title")
        text("+1", x: l.left - 8, y: l.stripTop + 10, size: 11, anchor: "end", fill: Palette.muted, cls: "y-tick")
        text("−1", x: l.left - 8, y: l.stripBottom, size: 11, anchor: "end", fill: Palette.muted, cls: "y-tick")
        out += "</g>\n"
    }

    mutating func drawLegend() {
        out += "<g class=\"legend\">\n"
        var x = layout.left
        var y = PlotLayout.legendTop + 10
        for item in legend {
            if x + item.width > layout.width - 16 && x > layout.left {
                x = layout.left
                y += PlotLayout.legendRowHeight
            }
            let n = Self.n
            out += "<g class=\"legend-item\">"
            var swatchWidth = 22.0
            switch item.swatch {
            case .stem(let c):
                out += "<line x1=\"\(n(x + 11))\" y1=\"\(n(y + 6))\" x2=\"\(n(x + 11))\" y2=\"\(n(y - 6))\""
                out +=
                    " stroke=\"\(c.hex)\" stroke-width=\"2\"/><circle cx=\"\(n(x + 11))\" cy=\"\(n(y - 6))\" r=\"3\" fill=\"\(c.hex)\"/>"
            case .bar(let c):
                out += "<rect x=\"\(n(x))\" y=\"\(n(y - 6))\" width=\"22\" height=\"12\" fill=\"\(c.hex)\""
                out += " fill-opacity=\"0.35\" stroke=\"\(c.hex)\"/>"
            case .line(let c, let dashed):
                out += "<line x1=\"\(n(x))\" y1=\"\(n(y))\" x2=\"\(n(x + 22))\" y2=\"\(n(y))\" stroke=\"\(c.hex)\""
                out += " stroke-width=\"2\"\(dashed ? " stroke-dasharray=\"5 3\"" : "")/>"
            case .dot(let c):
                out +=
                    "<circle cx=\"\(n(x + 11))\" cy=\"\(n(y))\" r=\"4\" fill=\"\(c.hex)\" stroke=\"#ffffff\" stroke-width=\"1.5\"/>"
            case .diamond(let c):
                out +=
                    "<path d=\"M\(n(x + 11)),\(n(y - 5))L\(n(x + 16)),\(n(y))L\(n(x + 11)),\(n(y + 5))L\(n(x + 6)),\(n(y))Z\""
                out += " fill=\"\(c.hex)\"/>"
            case .area(let c):
                out +=
                    "<rect x=\"\(n(x))\" y=\"\(n(y - 5))\" width=\"22\" height=\"10\" fill=\"\(c.hex)\" fill-opacity=\"0.7\"/>"
            case .band(let c):
                out += "<rect x=\"\(n(x))\" y=\"\(n(y - 7))\" width=\"22\" height=\"14\" fill=\"\(c.hex)\""
                out += " fill-opacity=\"0.18\" stroke=\"\(c.hex)\" stroke-width=\"1.5\"/>"
            case .sharpnessRamp:
                swatchWidth = 60
                for step in 0..<5 {
                    let c = Palette.sharpness(Float(step) / 4)
                    out +=
                        "<rect x=\"\(n(x + Double(step) * 12))\" y=\"\(n(y - 6))\" width=\"12\" height=\"12\" fill=\"\(c.hex)\"/>"
                }
            }
            out +=
                "<text class=\"legend-label\" x=\"\(n(x + swatchWidth + 6))\" y=\"\(n(y + 4))\" fill=\"\(Palette.text.hex)\">"
            out += "\(Markup.escape(item.label))</text></g>\n"
            x += item.width
        }
        out += "</g>\n"
    }

    // MARK: Pattern elements

    /// Draws each transient as a stem (height = intensity) with a head coloured by sharpness,
    /// or in `color` when given. Transients sharing a pixel column merge into one stem showing the
    /// loudest, so the output stays bounded by the plot width.
    mutating func drawTransients(
        _ pattern: HapticPattern, color: Color? = nil, width: Double = 2, headRadius: Double = 3.5, hollow: Bool = false
    ) {
        let transients = pattern.events.filter { $0.type == .hapticTransient }
            .enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
            .map(\.element)
        guard !transients.isEmpty else { return }
        out += "<g class=\"transients\">\n"
        var i = 0
        while i < transients.count {
            let column = Int(layout.x(transients[i].time).rounded(.down))
            var j = i + 1
            var loudest = transients[i]
            while j < transients.count && Int(layout.x(transients[j].time).rounded(.down)) == column {
                if transients[j].value(of: .hapticIntensity) > loudest.value(of: .hapticIntensity) {
                    loudest = transients[j]
                }
                j += 1
            }
            let intensity = loudest.value(of: .hapticIntensity)
            let sharpness = loudest.value(of: .hapticSharpness)
            let c = color ?? Palette.sharpness(sharpness)
            let x = Self.n(layout.x(loudest.time))
            let top = layout.y(Double(intensity))
            let tip: String
            if j - i == 1 {
                tip =
                    "Transient at \(Markup.seconds(loudest.time)) · intensity \(Markup.value(intensity)) · sharpness \(Markup.value(sharpness))"
            } else {
                tip =
                    "\(j - i) transients \(Markup.seconds(transients[i].time))–\(Markup.seconds(transients[j - 1].time)) · loudest intensity \(Markup.value(intensity))"
            }
            out += "<g class=\"transient\"><title>\(Markup.escape(tip))</title>"
            out +=
                "<line class=\"stem\" x1=\"\(x)\" y1=\"\(Self.n(layout.mainBottom))\" x2=\"\(x)\" y2=\"\(Self.n(top))\""
            out += " stroke=\"\(c.hex)\" stroke-width=\"\(Self.n(width))\"/>"
            out += "<circle cx=\"\(x)\" cy=\"\(Self.n(top))\" r=\"\(Self.n(headRadius))\""
            out += hollow ? " fill=\"#ffffff\" stroke=\"\(c.hex)\" stroke-width=\"2\"/>" : " fill=\"\(c.hex)\"/>"
            out += "</g>\n"
            i = j
        }
        out += "</g>\n"
    }

    /// Draws continuous haptic events as bars (height = intensity) with their envelope
    /// (attack, decay or release) as a denser shape inside; audio events as grey bars at the foot.
    mutating func drawContinuous(_ pattern: HapticPattern, color: Color? = nil) {
        let events = pattern.events.filter { $0.type != .hapticTransient }
            .enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
            .map(\.element)
        guard !events.isEmpty else { return }
        out += "<g class=\"continuous-events\">\n"
        var lastNarrowColumn = Int.min
        for event in events {
            let duration = max(0, event.duration ?? 0)
            let x0 = layout.x(event.time)
            var x1 = layout.x(event.time + duration)
            let column = Int(x0.rounded(.down))
            if x1 - x0 < 2 {
                // Sub-pixel events in one column would only overdraw each other.
                if column == lastNarrowColumn { continue }
                lastNarrowColumn = column
                x1 = x0 + 2
            }
            if event.type == .hapticContinuous {
                drawContinuousBar(event, x0: x0, x1: x1, color: color)
            } else {
                drawAudioBar(event, x0: x0, x1: max(x1, x0 + 6), color: color)
            }
        }
        out += "</g>\n"
    }

    private mutating func drawContinuousBar(_ event: HapticEvent, x0: Double, x1: Double, color: Color?) {
        let intensity = Double(event.value(of: .hapticIntensity))
        let sharpness = event.value(of: .hapticSharpness)
        let c = color ?? Palette.sharpness(sharpness)
        let duration = max(0, event.duration ?? 0)
        let top = layout.y(intensity)
        let bottom = layout.mainBottom
        let tip =
            "HapticContinuous \(Markup.seconds(event.time))–\(Markup.seconds(event.time + duration))"
            + " · intensity \(Markup.value(Float(intensity))) · sharpness \(Markup.value(sharpness))"
        out += "<g class=\"continuous\"><title>\(Markup.escape(tip))</title>"
        out += "<rect class=\"bar\" x=\"\(Self.n(x0))\" y=\"\(Self.n(top))\" width=\"\(Self.n(x1 - x0))\""
        out += " height=\"\(Self.n(bottom - top))\" fill=\"\(c.hex)\" fill-opacity=\"0.12\" stroke=\"\(c.hex)\""
        out += " stroke-opacity=\"0.6\" stroke-width=\"1\"/>"
        // Envelope: attack up to the intensity, then hold and release (sustained) or decay (not sustained).
        let t0 = event.time
        let t1 = t0 + duration
        let attack = min(Double(event.value(of: .attackTime)), duration)
        var points: [(Double, Double)] = [(t0, 0), (t0 + attack, intensity)]
        if event.value(of: .sustained) >= 0.5 {
            let release = min(Double(event.value(of: .releaseTime)), duration - attack)
            points += [(t1 - release, intensity), (t1, 0)]
        } else {
            let decay = Double(event.value(of: .decayTime))
            let end = decay > 0 ? min(t1, t0 + attack + decay) : t1
            points += [(end, 0), (t1, 0)]
        }
        out += "<path class=\"envelope\" d=\""
        for (k, p) in points.enumerated() {
            let x = duration > 0 ? layout.x(p.0) : (k < 2 ? x0 : x1)
            out += "\(k == 0 ? "M" : "L")\(Self.n(x)),\(Self.n(layout.y(p.1)))"
        }
        out += "Z\" fill=\"\(c.hex)\" fill-opacity=\"0.45\" stroke=\"\(c.hex)\" stroke-width=\"1.5\"/></g>\n"
    }

    private mutating func drawAudioBar(_ event: HapticEvent, x0: Double, x1: Double, color: Color?) {
        let c = color ?? Palette.audio
        var tip = "\(event.type.rawValue) at \(Markup.seconds(event.time))"
        if let d = event.duration { tip += " for \(Markup.seconds(d))" }
        if let path = event.waveformPath { tip += " · \(path)" }
        tip += " · volume \(Markup.value(event.value(of: .audioVolume)))"
        out += "<g class=\"audio\"><title>\(Markup.escape(tip))</title>"
        out +=
            "<rect x=\"\(Self.n(x0))\" y=\"\(Self.n(layout.mainBottom - 10))\" width=\"\(Self.n(x1 - x0))\" height=\"8\""
        out += " rx=\"2\" fill=\"\(c.hex)\" fill-opacity=\"0.55\" stroke=\"\(c.hex)\"/></g>\n"
    }

    /// Maps a control value onto the 0...1 panel: multipliers as they are, offsets (-1...1) halfway up.
    static func plotted(_ value: Float, _ id: DynamicParameterID) -> Double {
        id.isMultiplicative ? Double(value) : (Double(value) + 1) / 2
    }

    static func controlColor(_ id: DynamicParameterID) -> Color {
        switch id {
        case .hapticIntensityControl: Palette.intensityLine
        case .hapticSharpnessControl: Palette.sharpnessLine
        default: Palette.otherControl
        }
    }

    /// Draws parameter curves (control points as dots joined by thin dotted lines) and dynamic
    /// parameters (diamonds).
    mutating func drawControls(_ pattern: HapticPattern, color: Color? = nil) {
        let curves = pattern.parameterCurves
        let parameters = pattern.dynamicParameters
        guard !curves.isEmpty || !parameters.isEmpty else { return }
        out += "<g class=\"controls\">\n"
        for curve in curves {
            let c = color ?? Self.controlColor(curve.id)
            var lastColumn = Int.min
            var points: [(x: Double, y: Double, time: Double, value: Float)] = []
            var previous: (time: Double, value: Float)?
            for (k, point) in curve.controlPoints.enumerated() {
                let t = curve.time + point.time
                if t > layout.duration {
                    // A point past the axis (a value held for good, `PlotInput.extent`): the line
                    // stops at the axis's end, at the value the control has there.
                    var value = point.value
                    if let p = previous, t > p.time {
                        value = p.value + Float((layout.duration - p.time) / (t - p.time)) * (point.value - p.value)
                    }
                    let x = layout.x(layout.duration)
                    if Int(x.rounded(.down)) != lastColumn {
                        points.append((x, layout.y(Self.plotted(value, curve.id)), layout.duration, value))
                    }
                    break
                }
                previous = (t, point.value)
                let x = layout.x(t)
                let column = Int(x.rounded(.down))
                if column == lastColumn && k != curve.controlPoints.count - 1 { continue }
                lastColumn = column
                points.append((x, layout.y(Self.plotted(point.value, curve.id)), t, point.value))
            }
            guard !points.isEmpty else { continue }
            out +=
                "<g class=\"curve\"><title>\(Markup.escape("ParameterCurve \(curve.id.rawValue) at \(Markup.seconds(curve.time)), \(curve.controlPoints.count) control points"))</title>"
            out += "<path d=\""
            for (k, p) in points.enumerated() { out += "\(k == 0 ? "M" : "L")\(Self.n(p.x)),\(Self.n(p.y))" }
            out += "\" fill=\"none\" stroke=\"\(c.hex)\" stroke-width=\"1.25\" stroke-dasharray=\"2 3\"/>"
            for p in points {
                out += "<circle class=\"control-point\" cx=\"\(Self.n(p.x))\" cy=\"\(Self.n(p.y))\" r=\"4\""
                out += " fill=\"\(c.hex)\" stroke=\"#ffffff\" stroke-width=\"1.5\"><title>"
                out += Markup.escape("\(curve.id.rawValue) = \(Markup.value(p.value)) at \(Markup.seconds(p.time))")
                out += "</title></circle>"
            }
            out += "</g>\n"
        }
        for parameter in parameters {
            let c = color ?? Self.controlColor(parameter.id)
            let x = layout.x(parameter.time)
            let y = layout.y(Self.plotted(parameter.value, parameter.id))
            out += "<path class=\"dynamic-parameter\" d=\"M\(Self.n(x)),\(Self.n(y - 6))L\(Self.n(x + 6)),\(Self.n(y))"
            out +=
                "L\(Self.n(x)),\(Self.n(y + 6))L\(Self.n(x - 6)),\(Self.n(y))Z\" fill=\"\(c.hex)\" stroke=\"#ffffff\""
            out += " stroke-width=\"1\"><title>"
            out += Markup.escape(
                "\(parameter.id.rawValue) = \(Markup.value(parameter.value)) at \(Markup.seconds(parameter.time))")
            out += "</title></path>\n"
        }
        out += "</g>\n"
    }

    /// Draws the effective intensity (solid) and sharpness (dashed) as lines, reduced to the
    /// extremes of each pixel column so long patterns stay small.
    mutating func drawEffective(
        _ samples: [EffectiveSample], intensityColor: Color = Palette.intensityLine,
        sharpnessColor: Color = Palette.sharpnessLine, opacity: Double = 1
    ) {
        guard !samples.isEmpty else { return }
        out += "<g class=\"effective\">\n"
        for (name, value, c, dashed) in [
            ("effective-intensity", \EffectiveSample.intensity, intensityColor, false),
            ("effective-sharpness", \EffectiveSample.sharpness, sharpnessColor, true),
        ] {
            out += "<path class=\"\(name)\" d=\""
            var first = true
            var column = Int.min
            var lo = 0
            var hi = 0
            func emit(_ out: inout String, _ index: Int) {
                let s = samples[index]
                out += "\(first ? "M" : "L")\(Self.n(layout.x(s.time))),\(Self.n(layout.y(Double(s[keyPath: value]))))"
                first = false
            }
            func flush(_ out: inout String) {
                guard column != Int.min else { return }
                emit(&out, min(lo, hi))
                if lo != hi { emit(&out, max(lo, hi)) }
            }
            for index in samples.indices {
                let c = Int(layout.x(samples[index].time).rounded(.down))
                if c != column {
                    flush(&out)
                    column = c
                    lo = index
                    hi = index
                } else {
                    let v = samples[index][keyPath: value]
                    if v < samples[lo][keyPath: value] { lo = index }
                    if v > samples[hi][keyPath: value] { hi = index }
                }
            }
            flush(&out)
            out += "\" fill=\"none\" stroke=\"\(c.hex)\" stroke-width=\"2\" stroke-linejoin=\"round\""
            if dashed { out += " stroke-dasharray=\"6 3\"" }
            if opacity < 1 { out += " stroke-opacity=\"\(Self.n(opacity))\"" }
            out += "/>\n"
        }
        out += "</g>\n"
    }

    /// Draws the waveform's envelope (minimum and maximum per pixel column) in the strip.
    ///
    /// - Complexity: O(samples) time, O(plot width) output.
    mutating func drawWaveform(
        _ samples: [Float], sampleRate: Int, color: Color = Palette.waveform, opacity: Double = 0.85
    ) {
        guard !samples.isEmpty else { return }
        let columns = max(1, Int(layout.plotWidth.rounded(.down)))
        var upper: [Float] = []
        var lower: [Float] = []
        upper.reserveCapacity(columns)
        lower.reserveCapacity(columns)
        let secondsPerColumn = layout.duration / Double(columns)
        samples.withUnsafeBufferPointer { buffer in
            for column in 0..<columns {
                let start = Int((Double(column) * secondsPerColumn * Double(sampleRate)).rounded(.down))
                guard start < buffer.count else { break }
                let end = min(
                    buffer.count,
                    max(start + 1, Int((Double(column + 1) * secondsPerColumn * Double(sampleRate)).rounded(.down))))
                var lo = buffer[start]
                var hi = lo
                for i in (start + 1)..<end {
                    let v = buffer[i]
                    lo = min(lo, v)
                    hi = max(hi, v)
                }
                upper.append(hi)
                lower.append(lo)
            }
        }
        let step = layout.plotWidth / Double(columns)
        // Interior points of flat runs add nothing to the outline: skip them.
        func needed(_ values: [Float], _ k: Int) -> Bool {
            k == 0 || k == values.count - 1 || values[k] != values[k - 1] || values[k] != values[k + 1]
        }
        out += "<path class=\"waveform\" d=\""
        for k in upper.indices where needed(upper, k) {
            out +=
                "\(k == 0 ? "M" : "L")\(Self.n(layout.left + (Double(k) + 0.5) * step)),\(Self.n(layout.stripY(upper[k]) - 0.5))"
        }
        for k in lower.indices.reversed() where needed(lower, k) {
            out += "L\(Self.n(layout.left + (Double(k) + 0.5) * step)),\(Self.n(layout.stripY(lower[k]) + 0.5))"
        }
        out += "Z\" fill=\"\(color.hex)\" fill-opacity=\"\(Self.n(opacity))\" stroke=\"none\"/>\n"
    }
}

extension String {
    /// Typographic minus for negative axis labels.
    fileprivate var replacingMinus: String { hasPrefix("-") ? "−" + dropFirst() : self }
}
