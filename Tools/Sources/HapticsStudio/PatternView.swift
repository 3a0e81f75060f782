import Foundation
package import HapticsCore
import HapticsEngine
package import HapticsReview
package import HapticsSynthesis
import OrderedCollections

/// What the page draws for one pattern: the pattern as the project's AHAP writer writes it, its
/// events and curves with their places in the JSON, the effective intensity and sharpness, and
/// every lint finding. docs/studio.md ("API") is the contract; change both together.
package enum PatternView {
    /// A pattern that decoded, or the findings that say why it did not.
    package struct Analysis: Sendable {
        package var pattern: HapticPattern?
        package var findings: [Diagnostic]
        /// The AudioCustom events' audio, by `EventWaveformPath` (what `render` plays).
        package var clips: [String: AudioClip] = [:]
    }

    /// Decodes and lints `bytes` as the file at `path` would be (AHAP, or a `.haptic` clip by its
    /// name), collecting every finding instead of stopping at the first error.
    ///
    /// With `waveformsBeside` (where the file was found), AudioCustom events' waveforms are
    /// loaded from its folder as `render` loads them, but through the studio's held folders
    /// (``StudioFiles/read(_:beside:limit:)``), and a missing or refused one is an error finding,
    /// with the code `lint` gives it.
    package static func analyze(
        _ bytes: [UInt8], path: String, waveformsBeside place: StudioFiles.Place? = nil
    ) -> Analysis {
        var analysis: Analysis
        do {
            let document = try PatternFile.decode(bytes, path: path)
            analysis = Analysis(pattern: document.pattern, findings: document.diagnostics)
        } catch {
            return Analysis(pattern: nil, findings: error.diagnostics.isEmpty ? [error.diagnostic] : error.diagnostics)
        }
        guard let place, let pattern = analysis.pattern else { return analysis }
        (analysis.clips, analysis.findings) = waveforms(
            of: pattern, at: place, findings: analysis.findings,
            text: PatternFile.isHapticClip(path: path, bytes: bytes) ? nil : bytes)
        return analysis
    }

    /// The waveforms `pattern`'s AudioCustom events name, read beside `place`; each one that
    /// cannot be had adds an error finding at its event's `EventWaveformPath` (with its line and
    /// column when `text`, the AHAP file's bytes, is given).
    package static func waveforms(
        of pattern: HapticPattern, at place: StudioFiles.Place, findings: [Diagnostic] = [], text: [UInt8]? = nil
    ) -> (clips: [String: AudioClip], findings: [Diagnostic]) {
        var clips: [String: AudioClip] = [:]
        var findings = findings
        var failed: Set<String> = []
        var locator = PatternFile.WaveformLocator(text: text)
        let folder = PatternFile.folder(of: place.realPath)
        for (index, element) in pattern.elements.enumerated() {
            guard case .event(let event) = element, event.type == .audioCustom, let waveform = event.waveformPath,
                clips[waveform] == nil, !failed.contains(waveform)
            else { continue }
            let at = JSONPath.root.key("Pattern").index(index).key("Event").key("EventWaveformPath")
            func fail(_ code: Diagnostic.Code, _ message: String) {
                failed.insert(waveform)
                findings.append(
                    Diagnostic(.error, code: code, message, at: at, location: locator.location(ofElement: index)))
            }
            if waveform.hasPrefix("/") {
                fail(
                    .waveformPath,
                    "EventWaveformPath '\(waveform)' is absolute; give a path relative to the AHAP file's folder")
                continue
            }
            let bytes: [UInt8]
            do throws(StudioFiles.ReferenceFailure) {
                bytes = try place.files.read(waveform, beside: place, limit: PatternFile.maxWaveformBytes)
            } catch {
                switch error {
                case .notFound: fail(.waveformNotFound, "waveform '\(waveform)' not found (looked in \(folder))")
                case .refused(let why): fail(.waveformPath, "EventWaveformPath '\(waveform)' \(why); refused")
                case .tooLarge(let size):
                    fail(
                        .fileTooLarge,
                        "waveform '\(waveform)' is \(size) bytes; the limit is \(PatternFile.maxWaveformBytes) bytes")
                case .unreadable(let why): fail(.waveformUnreadable, "waveform '\(waveform)' \(why)")
                }
                continue
            }
            switch PatternFile.decodeWaveform(bytes, named: waveform) {
            case .clip(let clip): clips[waveform] = clip
            case .notDecoded(let message): fail(.waveformNotDecoded, message)
            case .unreadable(let message): fail(.waveformUnreadable, message)
            }
        }
        return (clips, findings)
    }

    /// The view of `analysis`. `ahap` is what the page edits: `source`, the file's own JSON, when
    /// given (null when the caller writes it: ``Studio/viewJSON(_:document:)``); else the writer's
    /// output of the decoded pattern, or (when it did not decode) `fallback`, the JSON the page
    /// sent, so an edit that broke the pattern is shown with its findings rather than lost.
    package static func make(
        path: String, file: (version: String, text: String?)?, analysis: Analysis, fallback: JSONValue? = nil,
        source: JSONValue? = nil, locatesLines: Bool, milliseconds: Double, window: Studio.Window? = nil,
        knownFindings: String? = nil,
        waveform: Columns? = nil
    ) -> Studio.PatternViewResponse {
        let (findings, key) = findingsList(analysis, locatesLines: locatesLines)
        var view = Studio.PatternViewResponse(
            path: path, format: StudioFiles.format(of: path), version: file?.version,
            // The file's text is asked for (`text=1`): for a 1,000-event file it is half a megabyte
            // the page does not need to draw or edit.
            text: file?.text, ahap: AnyJSON(fallback ?? .null), duration: 0, metadata: AnyJSON(.object([:])),
            events: [], parameters: [], curves: [], effective: .init(times: [], intensity: [], sharpness: []),
            waveform: .init(start: 0, seconds: 0, min: [], max: [], truncated: false), findingsKey: key,
            // A drag rarely changes the findings: the page says which it has, and gets them only
            // when they changed (a 564-finding list is 100 kB).
            diagnostics: key != knownFindings ? findings.map(AnyJSON.init) : nil,
            analyzeMilliseconds: (milliseconds * 1000).rounded() / 1000)
        if let pattern = analysis.pattern {
            // The file's own JSON, when the caller has it, rather than a second tree of the same.
            view.ahap = AnyJSON(source ?? (try? JSONValue(parsing: AHAP.encode(pattern))) ?? .null)
            view.duration = pattern.duration
            view.metadata = AnyJSON(.object(pattern.metadata))
            (view.events, view.parameters, view.curves) = elements(of: pattern)
            view.effective = effectiveSamples(pattern, window: window)
            view.waveform = (waveform ?? columns(pattern, clips: analysis.clips, window: window)).waveform
        }
        return view
    }

    /// A finding as linted, with the time of its element: what its JSON is made from.
    package struct RawFinding: Hashable, Sendable {
        var diagnostic: Diagnostic
        var time: Double?
    }

    static func rawFindings(_ analysis: Analysis) -> [RawFinding] {
        analysis.findings.map { diagnostic in
            let index = elementIndex(diagnostic.path)
            return RawFinding(
                diagnostic: diagnostic,
                time: index.flatMap { i in
                    analysis.pattern.flatMap { i < $0.elements.count ? $0.elements[i].time : nil }
                })
        }
    }

    /// The findings as the page lists them, and the key that names that list.
    static func findingsList(_ analysis: Analysis, locatesLines: Bool) -> (list: [JSONValue], key: String) {
        let list = analysis.findings.map { finding(for: $0, in: analysis.pattern, locatesLines: locatesLines) }
        return (list, StudioFiles.version(of: Array(JSONValue.array(list).jsonText.utf8)))
    }

    /// Events, dynamic parameters and curves, each with its index in `Pattern` and its JSON path.
    static func elements(of pattern: HapticPattern) -> (
        events: [Studio.PatternViewResponse.Event], parameters: [Studio.PatternViewResponse.Parameter],
        curves: [Studio.PatternViewResponse.Curve]
    ) {
        var events: [Studio.PatternViewResponse.Event] = []
        var parameters: [Studio.PatternViewResponse.Parameter] = []
        var curves: [Studio.PatternViewResponse.Curve] = []
        for (index, element) in pattern.elements.enumerated() {
            switch element {
            case .event(let event):
                events.append(
                    .init(
                        index: index, type: kind(of: event.type), time: event.time,
                        duration: event.type.requiresDuration ? event.duration ?? 0 : 0,
                        intensity: decimal(event.value(of: intensity(for: event.type))),
                        sharpness: decimal(event.value(of: .hapticSharpness)), jsonPath: "Pattern[\(index)].Event"))
            case .parameter(let parameter):
                parameters.append(
                    .init(
                        index: index, parameter: parameter.id.rawValue, time: parameter.time,
                        value: decimal(parameter.value), jsonPath: "Pattern[\(index)].Parameter"))
            case .curve(let curve):
                curves.append(
                    .init(
                        index: index, parameter: curve.id.rawValue, time: curve.time,
                        points: curve.controlPoints.map { .init(time: curve.time + $0.time, value: decimal($0.value)) },
                        jsonPath: "Pattern[\(index)].ParameterCurve"))
            }
        }
        return (events, parameters, curves)
    }

    /// A `Float` as the decimal it was written as (0.9, not 0.8999999761581421).
    static func decimal(_ value: Float) -> Double { Double(value.description) ?? Double(value) }

    static func kind(of type: EventType) -> String {
        switch type {
        case .hapticTransient: "transient"
        case .hapticContinuous: "continuous"
        case .audioContinuous: "audioContinuous"
        case .audioCustom: "audioCustom"
        }
    }

    static func intensity(for type: EventType) -> EventParameterID {
        type.isHaptic ? .hapticIntensity : .audioVolume
    }

    /// The effective intensity and sharpness (after curves and dynamic parameters), as three
    /// parallel arrays rounded to what a screen can show.
    package static func effectiveSamples(_ pattern: HapticPattern, window: Studio.Window? = nil)
        -> Studio.AnalyzeResponse
        .Effective
    {
        guard let window else { return effective(EffectiveTimeline.samples(for: pattern), window: nil) }
        return effective(windowSamples(pattern, window: window), window: window)
    }

    /// The stretch ``windowSamples(_:window:)`` samples for `window` of a pattern of `duration`
    /// seconds: the window and a grid step either side.
    package static func sampledStretch(_ window: Studio.Window, duration: Double) -> ClosedRange<Double> {
        let step = EffectiveTimeline.spacing(until: duration)
        return (min(window.start, duration) - step)...(window.end + step)
    }

    /// The effective samples ``effectiveSamples(_:window:)`` makes `window`'s from: the stretch
    /// on screen (and a grid step either side), the same samples the whole pattern's sampling
    /// has there.
    package static func windowSamples(_ pattern: HapticPattern, window: Studio.Window) -> [EffectiveSample] {
        let duration = pattern.duration
        let stretch = sampledStretch(window, duration: duration)
        return EffectiveTimeline.samples(
            for: sounding(pattern, from: stretch.lowerBound, through: stretch.upperBound), from: stretch.lowerBound,
            through: stretch.upperBound, until: duration)
    }

    /// `samples` (of the whole pattern, or ``windowSamples(_:window:)`` of `window`) as the page
    /// draws them.
    package static func effective(_ samples: [EffectiveSample], window: Studio.Window?)
        -> Studio.AnalyzeResponse
        .Effective
    {
        var samples = samples
        if let window {
            // The samples inside the window and one either side, so the lines reach its edges.
            let first = max(0, (samples.firstIndex { $0.time >= window.start } ?? samples.count) - 1)
            let last = min(samples.count, (samples.firstIndex { $0.time > window.end } ?? samples.count) + 1)
            samples = first < last ? Array(samples[first..<last]) : []
            // More samples than the screen has pixels: per pixel column, the first and last and
            // those with the least and most intensity and sharpness, in time order, so the lines
            // keep their shape (a 10-minute pattern is 120,000 samples).
            let columns = max(1, window.columns ?? 2_000)
            if samples.count > 6 * columns, window.end > window.start {
                var kept: [EffectiveSample] = []
                kept.reserveCapacity(6 * columns + 2)
                var i = 0
                let width = (window.end - window.start) / Double(columns)
                while i < samples.count {
                    let column = ((samples[i].time - window.start) / width).rounded(.down)
                    var j = i
                    var picks: Set<Int> = [i]
                    var (lo, hi, slo, shi) = (i, i, i, i)
                    while j < samples.count && ((samples[j].time - window.start) / width).rounded(.down) == column {
                        if samples[j].intensity < samples[lo].intensity { lo = j }
                        if samples[j].intensity > samples[hi].intensity { hi = j }
                        if samples[j].sharpness < samples[slo].sharpness { slo = j }
                        if samples[j].sharpness > samples[shi].sharpness { shi = j }
                        j += 1
                    }
                    picks.formUnion([lo, hi, slo, shi, j - 1])
                    for k in picks.sorted() { kept.append(samples[k]) }
                    i = j
                }
                samples = kept
            }
        }
        func rounded(_ value: Double, _ scale: Double) -> Double { (value * scale).rounded() / scale }
        return .init(
            times: samples.map { rounded($0.time, 1e6) },
            intensity: samples.map { rounded(Double($0.intensity), 1e4) },
            sharpness: samples.map { rounded(Double($0.sharpness), 1e4) })
    }

    /// The dynamic parameters and curves of `pattern`, and the events that sound between `from`
    /// and `through`: what its effective curves there depend on (a 10-minute pattern's 6,000
    /// events are not sorted again for each edit).
    package static func sounding(_ pattern: HapticPattern, from: Double, through: Double) -> HapticPattern {
        var out = pattern
        out.elements = pattern.elements.filter { element in
            guard case .event(let event) = element else { return true }
            return event.time <= through && event.time + (event.duration ?? 0) >= from
        }
        return out
    }

    /// Columns of the rendered waveform the page draws (as `haptic plot` draws it).
    static let waveformColumns = 2_000
    /// Longest stretch rendered for one drawing (its first seconds, when a window is longer); the
    /// page says when it is cut. A window anywhere in a longer pattern is rendered: the cost is
    /// the stretch's, not where it lies (``render(_:clips:from:to:columns:)``).
    static let waveformSeconds = 300.0

    /// Min and max columns of a stretch of a render.
    package struct Columns: Sendable {
        package var start: Double
        package var seconds: Double
        package var low: [Float]
        package var high: [Float]
        package var truncated: Bool

        /// The columns as the page draws them, rounded to what a screen can show.
        package var waveform: Studio.AnalyzeResponse.Waveform {
            func rounded(_ values: [Float]) -> [Double] {
                values.map { $0.isFinite ? (Double($0) * 1000).rounded() / 1000 : 0 }
            }
            return .init(start: start, seconds: seconds, min: rounded(low), max: rounded(high), truncated: truncated)
        }
    }

    /// The pattern rendered (default voice, 48 kHz, AudioCustom clips included) as the minimum
    /// and maximum of each of up to ``waveformColumns`` equal stretches: of the whole pattern, or
    /// of `window` only (so the drawing refines as the page zooms in), at most
    /// ``waveformSeconds`` of either from its start.
    package static func columns(
        _ pattern: HapticPattern, clips: [String: AudioClip] = [:], window: Studio.Window? = nil
    )
        -> Columns
    {
        // The render's length, release tails and clips included (preparing it renders nothing).
        var length = 0.0
        if let renderer = try? PatternRenderer(
            pattern: pattern, format: AudioFormat(sampleRate: 48_000, channels: 1), clips: clips)
        {
            length = Double(renderer.frameCount) / 48_000
        }
        let start = max(0, min(window?.start ?? 0, length))
        let wanted = max(start, min(window?.end ?? length, length))
        let end = min(wanted, start + waveformSeconds)
        let count = window?.columns.map { max(1, min($0, 8_192)) } ?? waveformColumns
        var out = render(pattern, clips: clips, from: start, to: end, columns: count)
        out.truncated = wanted > end
        return out
    }

    /// `columns` min/max columns of the render between `from` and `to` seconds. Only the events
    /// that sound there are rendered, with every parameter and curve (a curve holds its last
    /// value, a parameter its own, until another takes over), from two seconds before the
    /// stretch or the first of those events' starts, but not more than ten seconds before it
    /// (``PatternRenderer/init(pattern:format:voicing:clips:offset:)``: a longer event joins in
    /// progress, at its level there): the cost is that of the stretch, not of the pattern before
    /// it.
    static func render(
        _ pattern: HapticPattern, clips: [String: AudioClip], from: Double, to: Double, columns: Int
    ) -> Columns {
        let rate = 48_000.0
        let empty = Columns(start: from, seconds: 0, low: [], high: [], truncated: false)
        var start = max(0, from - 2)
        var kept = pattern
        kept.elements = pattern.elements.filter { element in
            guard case .event(let event) = element else { return true }
            // An event sounds for its duration, its clip and then its release (under a second).
            let length = (event.duration ?? 0) + (event.waveformPath.flatMap { clips[$0]?.duration } ?? 0) + 1
            guard event.time <= to && event.time + length >= from else { return false }
            start = max(0, min(start, event.time))
            return true
        }
        start = max(start, from - 10)
        // The frames before `from` (the lead-in) are rendered, not measured.
        let lead = Int(((from - start) * rate).rounded())
        let frames = Int(((to - from) * rate).rounded(.up))
        guard frames > 0, columns > 0,
            var renderer = try? PatternRenderer(
                pattern: kept, format: AudioFormat(sampleRate: 48_000, channels: 1), clips: clips, offset: start)
        else { return empty }
        let count = min(columns, frames)
        var low = [Float](repeating: 0, count: count)
        var high = [Float](repeating: 0, count: count)
        var block = [Float](repeating: 0, count: 8_192)
        // Column c holds the frames from ceil(c * frames / count) on: found once per column and
        // block, not divided out per frame.
        func columnStart(_ c: Int) -> Int { (c * frames + count - 1) / count }
        var skipped = 0
        var done = 0
        var column = 0
        block.withUnsafeMutableBufferPointer { block in
            while skipped < lead {
                let n = renderer.render(
                    into: UnsafeMutableBufferPointer(rebasing: block[..<min(block.count, lead - skipped)]))
                guard n > 0 else { return }
                skipped += n
            }
            while done < frames {
                let n = renderer.render(
                    into: UnsafeMutableBufferPointer(rebasing: block[..<min(block.count, frames - done)]))
                guard n > 0 else { break }
                var i = 0
                while i < n {
                    let end = min(n, columnStart(column + 1) - done)
                    let (least, most) = Self.extremes(UnsafeBufferPointer(rebasing: block[i..<end]))
                    low[column] = min(low[column], least)
                    high[column] = max(high[column], most)
                    i = end
                    if done + i == columnStart(column + 1) { column += 1 }
                }
                done += n
            }
        }
        return Columns(start: from, seconds: Double(frames) / rate, low: low, high: high, truncated: false)
    }

    /// The least and the greatest of `values` (0 and 0 when empty), eight lanes at a time.
    static func extremes(_ values: UnsafeBufferPointer<Float>) -> (Float, Float) {
        var low = SIMD8<Float>(repeating: 0)
        var high = SIMD8<Float>(repeating: 0)
        var i = 0
        if let base = values.baseAddress {
            while i + 8 <= values.count {
                let v = UnsafeRawPointer(base + i).loadUnaligned(as: SIMD8<Float>.self)
                low = pointwiseMin(low, v)
                high = pointwiseMax(high, v)
                i += 8
            }
        }
        var least = low.min()
        var most = high.max()
        while i < values.count {
            least = min(least, values[i])
            most = max(most, values[i])
            i += 1
        }
        return (least, most)
    }

    /// A finding as the page lists it; `time` is where on the timeline its element starts.
    static func finding(for diagnostic: Diagnostic, in pattern: HapticPattern?, locatesLines: Bool) -> JSONValue {
        var out: OrderedDictionary<String, JSONValue> = [
            "severity": .string(diagnostic.severity.rawValue), "code": .string(diagnostic.code.rawValue),
            "message": .string(diagnostic.message), "jsonPath": .string(diagnostic.path.description),
        ]
        if locatesLines, let location = diagnostic.location {
            out["line"] = .number(Double(location.line))
            out["column"] = .number(Double(location.column))
        }
        if let index = elementIndex(diagnostic.path) {
            out["element"] = .number(Double(index))
            if let pattern, index < pattern.elements.count { out["time"] = .number(pattern.elements[index].time) }
        }
        return .object(out)
    }

    /// `i` in a path `Pattern[i]...`.
    static func elementIndex(_ path: JSONPath) -> Int? {
        guard path.components.count >= 2, path.components[0] == .key("Pattern"),
            case .index(let i) = path.components[1]
        else { return nil }
        return i
    }
}

extension JSONValue {
    /// The member `key` of an object.
    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    var string: String? { if case .string(let s) = self { s } else { nil } }
    var number: Double? { if case .number(let n) = self { n } else { nil } }
    var bool: Bool? { if case .bool(let b) = self { b } else { nil } }
}
