import Foundation
import HapticsCore
import HapticsReview
import HapticsSynthesis
import Testing

@Suite struct TimelinePlotTests {
    typealias S = Support

    /// Transients at 0.25 s (intensity 1, sharpness 0) and 0.5 s (intensity 0.5, sharpness 1);
    /// a continuous event to 1.0 s, so the time axis spans exactly 1 s.
    static let known = PlotInput(
        title: "Known scale",
        pattern: HapticPattern(elements: [
            S.transient(0.25, 1, 0),
            S.transient(0.5, 0.5, 1),
            S.continuous(0.6, 0.4, 0.7, 0.5),
            .curve(
                ParameterCurve(
                    .hapticIntensityControl, time: 0.6,
                    controlPoints: [.init(time: 0, value: 1), .init(time: 0.2, value: 0.4), .init(time: 0.4, value: 1)])
            ),
        ]),
        effective: stride(from: 0.0, through: 1.0, by: 0.005).map {
            EffectiveSample(time: $0, intensity: $0 < 0.6 ? 0 : 0.7, sharpness: $0 < 0.6 ? 0 : 0.5)
        },
        samples: (0..<8_000).map { Float(sin(Double($0) * 0.3)) * 0.5 },
        sampleRate: 8_000)

    @Test func transientsSitAtTheirTimeWithHeightsByIntensityAndColourBySharpness() throws {
        let svg = TimelinePlot.svg(Self.known)
        // 960 px wide: the axis runs from x = 56 to 904, so 1 s is 848 px.
        #expect(try S.captures(#"class="stem" x1="([-0-9.]+)""#, in: svg) == ["268", "480"])
        let bottoms = try S.captures(#"class="stem" x1="[-0-9.]+" y1="([-0-9.]+)""#, in: svg).compactMap(Double.init)
        let tops = try S.captures(#"class="stem" [^>]* y2="([-0-9.]+)""#, in: svg).compactMap(Double.init)
        #expect(bottoms.count == 2 && tops.count == 2)
        let loud = bottoms[0] - tops[0]
        let quiet = bottoms[1] - tops[1]
        #expect(abs(quiet - loud / 2) <= 0.1, "the 0.5-intensity stem is half as tall")
        // Sharpness 0 is the dull blue, sharpness 1 the sharp orange.
        #expect(try S.captures(#"class="stem" [^>]* stroke="(#[0-9a-f]{6})""#, in: svg) == ["#3b5bdb", "#e8590c"])
        #expect(svg.contains("<title>Transient at 0.250 s · intensity 1 · sharpness 0</title>"))
    }

    @Test func hasLabelledAxesLegendAndEveryLayer() throws {
        let svg = TimelinePlot.svg(Self.known)
        #expect(
            try S.captures(#"class="x-tick"[^>]*>([^<]*)<"#, in: svg)
                == ["0.0", "0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7", "0.8", "0.9", "1.0"])
        #expect(try S.captures(#"class="x-title"[^>]*>([^<]*)<"#, in: svg) == ["time (s)"])
        #expect(
            try S.captures(#"class="y-tick"[^>]*>([^<]*)<"#, in: svg) == ["0", "0.25", "0.5", "0.75", "1", "+1", "−1"])
        let legend = try S.captures(#"class="legend-label"[^>]*>([^<]*)<"#, in: svg)
        #expect(
            legend == [
                "transient (height = intensity)", "continuous + envelope", "sharpness 0 → 1", "effective intensity",
                "effective sharpness", "curve control point", "waveform (min/max)",
            ])
        #expect(svg.components(separatedBy: "class=\"control-point\"").count - 1 == 3)
        #expect(svg.contains("class=\"effective-intensity\""))
        #expect(svg.contains("class=\"effective-sharpness\""))
        #expect(svg.contains("class=\"envelope\""))
        #expect(svg.contains("class=\"waveform\""))
        // Intensity multiplies, so no offset axis is needed.
        #expect(!svg.contains("y2-tick"))
    }

    @Test func offsetControlsGetARightHandAxis() throws {
        var input = Self.known
        input.pattern.elements.append(.parameter(DynamicParameter(.hapticSharpnessControl, value: -0.5, time: 0.3)))
        let svg = TimelinePlot.svg(input)
        #expect(try S.captures(#"class="y2-tick"[^>]*>([^<]*)<"#, in: svg) == ["−1", "−0.5", "0", "0.5", "1"])
        #expect(svg.contains("class=\"dynamic-parameter\""))
        #expect(try S.captures(#"class="legend-label"[^>]*>([^<]*)<"#, in: svg).contains("dynamic parameter"))
    }

    @Test func isWellFormedXMLEvenWithHostileTitles() throws {
        var input = Self.known
        input.title = "<script>alert(1)</script> & \"quotes\" 'too'"
        input.pattern.elements.append(
            .event(HapticEvent(time: 0.1, type: .audioCustom, waveformPath: "x\"/><script>alert(3)</script>.wav")))
        let svg = TimelinePlot.svg(input)
        let parsed = S.parseXML(svg)
        #expect(parsed.error == nil)
        #expect(parsed.elements.first == "svg")
        #expect(!parsed.elements.contains("script"))
        #expect(svg.contains("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot; &#39;too&#39;"))
    }

    @Test(arguments: [0.05, 0.37, 1.0, 3.0, 17.5, 95.0, 600.0])
    func timeTickLabelsNeverOverlap(duration: Double) throws {
        let input = PlotInput(title: "t", pattern: HapticPattern(elements: [S.continuous(0, duration)]))
        let svg = TimelinePlot.svg(input)
        let xs = try S.captures(#"class="x-tick" x="([-0-9.]+)""#, in: svg).compactMap(Double.init)
        let labels = try S.captures(#"class="x-tick"[^>]*>([^<]*)<"#, in: svg)
        #expect(xs.count >= 3, "at least three ticks")
        let widest = Double(labels.map(\.count).max() ?? 0) * 7.2
        for (x0, x1) in zip(xs, xs.dropFirst()) { #expect(x1 - x0 >= widest + 8) }
        // Steps are 1, 2 or 5 times a power of ten.
        let step = (Double(labels[1]) ?? 0) - (Double(labels[0]) ?? 0)
        let mantissa = step / pow(10, floor(log10(step)))
        #expect([1, 2, 5].contains { abs(mantissa - $0) < 1e-6 })
    }

    @Test func aPointHeldForGoodDoesNotStretchTheTimeAxis() throws {
        // Apple's exports end a curve with a point at Float.greatestFiniteMagnitude seconds (its
        // value held for good): the axis ends at the curve's point before it, as the render does.
        let held = Double(Float.greatestFiniteMagnitude)
        let input = PlotInput(
            title: "held",
            pattern: HapticPattern(elements: [
                S.continuous(0, 1.5),
                .curve(
                    ParameterCurve(
                        .hapticIntensityControl, time: 0,
                        controlPoints: [
                            .init(time: 0, value: 1), .init(time: 1.5, value: 0.5), .init(time: held, value: 1),
                        ])),
            ]))
        #expect(input.extent == 1.5)
        let svg = TimelinePlot.svg(input)
        #expect(S.parseXML(svg).error == nil)
        let labels = try S.captures(#"class="x-tick"[^>]*>([^<]*)<"#, in: svg).compactMap(Double.init)
        #expect(labels.count >= 3)
        #expect((labels.max() ?? 0) <= 1.5)
        // The curve's line stops at the axis's end: its two points on the axis, none past it.
        #expect(svg.components(separatedBy: "class=\"control-point\"").count - 1 == 2)
    }

    @Test func anAbsurdlyLongAxisStillPlots() throws {
        // Labels past Int64's range print in exponent form; the fixed-decimals label must not trap.
        let svg = TimelinePlot.svg(
            PlotInput(title: "long", pattern: HapticPattern(elements: [S.continuous(0, 1.5e19)])))
        #expect(S.parseXML(svg).error == nil)
        #expect(svg.contains("e+19"))
    }

    @Test func tenMinutePatternStaysUnderOneMegabyte() throws {
        // A transient every 10 ms and a continuous event every second for ten minutes.
        var elements: [PatternElement] = []
        for i in 0..<60_000 { elements.append(S.transient(Double(i) * 0.01, Float(i % 10) / 10, Float(i % 7) / 7)) }
        for i in 0..<600 { elements.append(S.continuous(Double(i), 0.5, 0.5, 0.5)) }
        let effective = (0..<120_000).map {
            EffectiveSample(time: Double($0) * 0.005, intensity: Float($0 % 100) / 100, sharpness: 0.5)
        }
        let samples = [Float](repeating: 0.25, count: 600 * 2_000)
        let input = PlotInput(
            title: "Ten minutes", pattern: HapticPattern(elements: elements), effective: effective, samples: samples,
            sampleRate: 2_000)
        let svg = TimelinePlot.svg(input)
        #expect(svg.utf8.count < 1_000_000)
        #expect(S.parseXML(svg).error == nil)
        // One merged stem per pixel column at most.
        #expect(svg.components(separatedBy: "class=\"stem\"").count - 1 <= 848)
    }

    @Test func realFixturePlotsEveryHeartbeat() throws {
        let pattern = try S.loadAHAP("ahap/Heartbeat.ahap")
        let input = PlotInput(
            title: "Heartbeat.ahap", pattern: pattern,
            samples: try PatternRenderer.render(pattern, format: AudioFormat(sampleRate: 48_000)), sampleRate: 48_000)
        let svg = TimelinePlot.svg(input)
        #expect(S.parseXML(svg).error == nil)
        let transients = pattern.events.filter { $0.type == .hapticTransient }
        #expect(transients.count == 4)
        // 13 ms apart is still more than a pixel, so every transient gets its own stem.
        #expect(svg.components(separatedBy: "class=\"stem\"").count - 1 == transients.count)
    }
}
