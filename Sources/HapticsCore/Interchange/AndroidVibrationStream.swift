/// A pattern's Android effect written while the pattern is still being made, from its elements in
/// time order: the bytes are exactly those of `AndroidVibration(pattern).json` (or `.kotlin`) of the
/// whole pattern, through the same sweep (``AndroidVibration/WaveformSweep``).
///
/// Android's waveform lists every timing before any amplitude, so one list must wait for the end:
/// the timings are written as the steps are taken, and the amplitudes are held, one byte a run (at
/// most 100 a second of pattern), to be written after them. Until the first continuous event the
/// pattern may still be transients only, which Android plays as a composition: the elements up to
/// then are held, and the composition is made from them at the end if no continuous event comes.
/// A writer told that no continuous event will come (`transientsOnly`) holds nothing: it writes
/// each transient's primitive as it comes.
package final class AndroidVibrationStream {
    private let text: AndroidVibration.WaveformText
    private let kotlin: Bool
    /// Set when no continuous event will come: the effect is a composition from its first
    /// transient on, written as they come.
    private let composition: AndroidVibration.CompositionText?
    /// The last primitive's onset (milliseconds), once one is written.
    private var lastOnset: Int?
    private var out: [UInt8] = []
    /// Elements held while the effect may still be a composition (nil once it is a waveform).
    private var held: [PatternElement]? = []
    private var sweep = AndroidVibration.WaveformSweep()
    private var runs = AndroidVibration.WaveformRuns()
    private var runsWritten = 0
    private var amplitudes: [UInt8] = []
    /// The control elements a later step may read, in the order met.
    private var controls: [PatternElement] = []
    private var timelines: (intensity: ParameterTimeline, release: ParameterTimeline)?
    /// A composition's controls (its primitives' scale and name).
    private var scaling: (intensity: ParameterTimeline, sharpness: ParameterTimeline)?
    private var tally = AndroidVibration.LossTally()
    private var isWaveform = false

    /// `transientsOnly`: the caller promises no continuous event (a pattern of transients and
    /// controls is a composition, so its primitives need not wait for the end).
    package init(kotlin: Bool, transientsOnly: Bool = false) {
        self.kotlin = kotlin
        text = kotlin ? .kotlin : .json
        composition = transientsOnly ? (kotlin ? .kotlin : .json) : nil
    }

    /// Bytes ready to hand on.
    package var pendingBytes: Int { out.count }

    /// What the effect loses, as `AndroidVibration.losses(of:as:)` reports it (after ``finish()``).
    package var losses: [ConversionLoss] { tally.entries(waveform: isWaveform) }

    /// Hands the bytes written since the last drain to `body`.
    package func drain(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        guard !out.isEmpty else { return }
        try out.withUnsafeBytes(body)
        out.removeAll(keepingCapacity: true)
    }

    /// The next element of the pattern (times ascending).
    package func add(_ element: PatternElement) {
        if case .event(let event) = element { tally.add(event) }
        if let composition {
            addPrimitive(element, composition)
            return
        }
        if held != nil {
            guard case .event(let event) = element, event.type == .hapticContinuous else {
                held?.append(element)
                return
            }
            let earlier = held ?? []
            held = nil
            isWaveform = true
            out.append(contentsOf: text.head.utf8)
            for element in earlier { take(element) }
        }
        take(element)
    }

    /// Everything is known: writes the rest.
    package func finish() {
        if let composition, lastOnset != nil {
            // Primitives were written: close the composition.
            out.append(contentsOf: composition.tail.utf8)
            held = nil
            return
        }
        if let held {
            // No continuous event: the effect is that of the elements held (a composition, or
            // an empty waveform).
            let effect = AndroidVibration(HapticPattern(elements: held))
            if case .waveform = effect { isWaveform = true }
            out.append(contentsOf: (kotlin ? effect.kotlin : effect.json).utf8)
            self.held = nil
            return
        }
        let count = sweep.stepCount
        while sweep.index < count { takeStep() }
        if let run = runs.finish(afterOthers: runsWritten > 0) { write(run) }
        out.append(contentsOf: text.middle.utf8)
        for (i, amplitude) in amplitudes.enumerated() {
            if i > 0 { out.append(contentsOf: AndroidVibration.WaveformText.separator.utf8) }
            out.append(contentsOf: String(amplitude).utf8)
        }
        amplitudes = []
        out.append(contentsOf: text.tail.utf8)
    }

    /// A composition's next element: a transient's primitive is written under the controls in
    /// force at its time; the controls are kept (those still in force); anything else is only
    /// counted (the losses).
    private func addPrimitive(_ element: PatternElement, _ composition: AndroidVibration.CompositionText) {
        switch element {
        case .event(let event) where event.type == .hapticTransient:
            if lastOnset == nil { out.append(contentsOf: composition.head.utf8) }
            let made =
                scaling
                ?? {
                    let pattern = HapticPattern(elements: controls)
                    return (
                        ParameterTimeline(.hapticIntensityControl, pattern: pattern),
                        ParameterTimeline(.hapticSharpnessControl, pattern: pattern)
                    )
                }()
            scaling = made
            var previous = lastOnset ?? 0
            let primitive = AndroidVibration.Primitive(
                event, intensity: made.intensity, sharpness: made.sharpness, after: &previous)
            out.append(contentsOf: composition.primitive(primitive, first: lastOnset == nil).utf8)
            lastOnset = previous
            trimControls(needed: event.time, [.hapticIntensityControl, .hapticSharpnessControl])
        case .event(let event):
            precondition(event.type != .hapticContinuous, "a continuous event in a transients-only stream")
        default: keepControl(element, [.hapticIntensityControl, .hapticSharpnessControl])
        }
    }

    /// Keeps `element` when it is a value or curve of one of the controls `ids`.
    private func keepControl(_ element: PatternElement, _ ids: [DynamicParameterID]) {
        guard let id = Self.id(of: element), ids.contains(id) else { return }
        controls.append(element)
        timelines = nil
        scaling = nil
    }

    private func take(_ element: PatternElement) {
        switch element {
        case .event(let event) where event.type.isHaptic:
            // Every step ending at or before this onset has all its events.
            while sweep.nextStepEnd <= event.time { takeStep() }
            sweep.add(event, release: timeline().release)
        default: keepControl(element, [.hapticIntensityControl, .hapticReleaseTimeControl])
        }
    }

    private func takeStep() {
        if let run = runs.add(sweep.step(intensity: timeline().intensity)) { write(run) }
        trimControls(needed: sweep.earliestNeeded, [.hapticIntensityControl, .hapticReleaseTimeControl])
    }

    private func write(_ run: (milliseconds: Int, amplitude: Int)) {
        if runsWritten > 0 { out.append(contentsOf: AndroidVibration.WaveformText.separator.utf8) }
        out.append(contentsOf: text.timing(run.milliseconds).utf8)
        amplitudes.append(UInt8(run.amplitude))
        runsWritten += 1
    }

    private func timeline() -> (intensity: ParameterTimeline, release: ParameterTimeline) {
        if let timelines { return timelines }
        let pattern = HapticPattern(elements: controls)
        let made = (
            ParameterTimeline(.hapticIntensityControl, pattern: pattern),
            ParameterTimeline(.hapticReleaseTimeControl, pattern: pattern)
        )
        timelines = made
        return made
    }

    /// Forgets control elements no later step or primitive can read: for each of `ids`, all but
    /// the one in force at `needed`, the earliest moment still needed, and the one before it
    /// (whose value it starts from).
    private func trimControls(needed: Double, _ ids: [DynamicParameterID]) {
        guard controls.count > 8 else { return }
        var keep: [PatternElement] = []
        for id in ids {
            let mine = controls.filter { Self.id(of: $0) == id }
            let inForce = mine.lastIndex { $0.time <= needed } ?? 0
            keep += mine[max(0, inForce - 1)...]
        }
        guard keep.count < controls.count else { return }
        controls = keep
        timelines = nil
        scaling = nil
    }

    private static func id(of element: PatternElement) -> DynamicParameterID? {
        switch element {
        case .parameter(let p): p.id
        case .curve(let c): c.id
        default: nil
        }
    }
}
