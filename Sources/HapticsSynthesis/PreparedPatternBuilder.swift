public import HapticsCore

extension PreparedPattern {
    /// Prepares a pattern from its elements as they are made, without the pattern: each event is
    /// resolved as it comes and each dynamic parameter or curve compiled into its control's knots
    /// once the next one of that control starts (it runs until then), so what is held is the
    /// prepared form alone. ``finish(format:voicing:clips:feeds:)`` gives the ``PreparedPattern``
    /// that ``Synthesizer/prepare(_:clips:feeds:format:voicing:)`` makes of the whole pattern
    /// holding the same elements in the same order: the same events, knots and length, so it
    /// plays the same samples.
    ///
    /// The elements must come in time order for each control (as a pattern's elements sort, and
    /// as `haptic convert`'s analysis hands them on); events may come in any order (they are
    /// sorted at the end, stably, as `prepare` sorts them).
    ///
    /// ```swift
    /// let builder = PreparedPattern.Builder()
    /// for element in pattern.elements { builder.add(element) }
    /// let prepared = try builder.finish(format: engine.format, voicing: .standard)
    /// ```
    public final class Builder {
        private var events: [PreparedEvent] = []
        private var inOrder = true
        /// The waveform paths named by AudioCustom events, in the order first named: event `clip`
        /// fields index this until ``finish(format:voicing:clips:feeds:)`` resolves them.
        private var clipPaths: [String] = []
        /// Events that name a waveform (their indices in `events`).
        private var clipEvents: [Int] = []
        private var controls = KnotCompiler()
        private var duration = 0.0
        /// The largest magnitude of an event's time or end, checked as a frame position at the end.
        private var farthest = 0.0
        /// The first event time or end that is not finite.
        private var notFinite: Double?

        public init() {}

        /// Adds the pattern's next element.
        ///
        /// - Precondition: a parameter or curve does not start before the last one of its control.
        public func add(_ element: PatternElement) {
            switch element {
            case .event(let event):
                note(event.time)
                if let d = event.duration { note(event.time + d) }
                if let last = events.last, event.time < last.time { inOrder = false }
                var index = -1
                if event.type == .audioCustom, let path = event.waveformPath {
                    index = clipPaths.firstIndex(of: path) ?? clipPaths.count
                    if index == clipPaths.count { clipPaths.append(path) }
                    clipEvents.append(events.count)
                }
                events.append(PreparedEvent(event, clip: index))
                duration = max(duration, event.time + (event.duration ?? 0))
            case .parameter(let parameter):
                controls.add(.step(time: parameter.time, value: parameter.value), to: parameter.id)
                duration = max(duration, parameter.time)
            case .curve(let curve):
                if !curve.controlPoints.isEmpty {
                    controls.add(.curve(time: curve.time, points: curve.controlPoints), to: curve.id)
                }
                duration = max(duration, curve.time)
            }
        }

        private func note(_ time: Double) {
            if time.isFinite {
                farthest = max(farthest, time.magnitude)
            } else if notFinite == nil {
                notFinite = time
            }
        }

        /// The prepared pattern, for `format` and `voicing`, its AudioCustom events playing
        /// `clips` or `feeds` by waveform path (a path found in neither plays silence). The
        /// builder is empty afterwards.
        ///
        /// - Throws: ``FrameRangeError`` when an event's time or end (or the pattern's duration)
        ///   is not a frame position, as `prepare` does.
        public func finish(
            format: AudioFormat, voicing: VoicingProfile, clips: [String: AudioClip] = [:],
            feeds: [String: ClipFeed] = [:]
        ) throws(FrameRangeError) -> PreparedPattern {
            defer { reset() }
            if let notFinite { throw FrameRangeError(seconds: notFinite, sampleRate: format.sampleRate) }
            _ = try format.frame(at: farthest)
            controls.finish()
            // Each named path in order of first use, as `prepare` attaches them.
            var clipData: [ClipData] = []
            let slots = clipPaths.map { path -> Int in
                let data = clips[path].map(ClipData.init) ?? feeds[path].map(ClipData.init)
                guard let data else { return -1 }
                clipData.append(data)
                return clipData.count - 1
            }
            for i in clipEvents { events[i].clip = slots[events[i].clip] }
            var sorted: [PreparedEvent] = []
            swap(&sorted, &events)
            if !inOrder {
                sorted = sorted.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }
                    .map(\.element)
            }
            let table = KnotTable { id in
                var list: [ParameterTimeline.Knot] = []
                swap(&list, &controls.knots[id])
                return list
            }
            let storage = PreparedPattern.Storage(
                events: sorted, knots: table, clips: clipData, duration: duration, sampleRate: format.sampleRate)
            let sounding = PatternRenderer.length(of: storage, format: format, voicing: voicing)
            let end = try format.frame(at: duration)
            return PreparedPattern(storage: storage, frameCount: max(sounding, end))
        }

        private func reset() {
            events = []
            inOrder = true
            clipPaths = []
            clipEvents = []
            controls = KnotCompiler()
            duration = 0
            farthest = 0
            notFinite = nil
        }
    }
}

/// Each control's knots compiled from its elements as they come, as `ParameterTimeline`
/// compiles a whole pattern's: an element runs until the next of its control starts, so its
/// knots are made then. What ``PreparedPattern/Builder`` and ``PreparedPattern/Pieces`` share.
struct KnotCompiler {
    /// Each control's last element, whose knots wait for the next element's start.
    var pending = ControlTable<ParameterTimeline.Element?>(repeating: nil)
    var knots = ControlTable<[ParameterTimeline.Knot]>(repeating: [])

    /// Adds `element` to control `id`, compiling the one before it.
    ///
    /// - Precondition: `element` does not start before the control's last element.
    mutating func add(_ element: ParameterTimeline.Element, to id: DynamicParameterID) {
        if let previous = pending[id] {
            precondition(
                !(element.time < previous.time), "\(id) elements must come in time order for a prepared pattern")
            compile(previous, until: element.time, id)
        }
        pending[id] = element
    }

    /// The knots `element` of control `id` contributes until `end`, appended.
    mutating func compile(_ element: ParameterTimeline.Element, until end: Double, _ id: DynamicParameterID) {
        var list: [ParameterTimeline.Knot] = []
        swap(&list, &knots[id])
        let current = list.last.map { ParameterTimeline.value(of: $0, at: element.time) } ?? id.neutralValue
        ParameterTimeline.knots(of: element, until: end, from: current) { list.append($0) }
        swap(&list, &knots[id])
    }

    /// Compiles every control's last element: the pattern has ended.
    mutating func finish() {
        for id in DynamicParameterID.all {
            if let last = pending[id] { compile(last, until: .infinity, id) }
            pending[id] = nil
        }
    }
}
