public import HapticsCore

extension PreparedPattern {
    /// A pattern prepared in pieces as its elements are made, so what is held is a few pieces,
    /// whatever the pattern's length: `haptic play song.wav` plays an hour's haptics this way,
    /// each piece on a player of its own, started where the piece starts.
    ///
    /// The haptic events fall into windows of ``seconds`` (pattern seconds `k × seconds` up to
    /// the next multiple: a window's start is an exact frame at any whole-number rate); a window's
    /// piece plays from its start as an offset (``Piece/start``), so its events keep their times.
    /// Each control's knots in a piece run from the one in force at the piece's start to where
    /// the piece's last voice ends, so every voice reads the values the whole pattern's timeline
    /// gives it. A piece is handed out once the elements have passed that end: the knots before
    /// the latest element's start are final (elements come in time order, and a control's
    /// knots before its next element's start do not depend on when that starts).
    ///
    /// The audio events (AudioCustom, AudioContinuous) come first, as the sound's own piece,
    /// prepared whole with any audio controls: a sound is one event as long as the sound.
    ///
    /// The pieces together play what ``Builder`` makes of the same elements, voice for voice:
    /// `PreparedPiecesTests` renders both.
    ///
    /// - Precondition: elements come in time order (as a pattern's elements sort, and as `haptic
    ///   convert`'s analysis hands them on); audio events and controls before the first haptic
    ///   piece is handed out.
    public final class Pieces {
        /// A part of the pattern to play from ``start`` seconds (its events are at or after it).
        public struct Piece: Sendable {
            /// Where the piece starts, in pattern seconds.
            public let start: Double
            public let pattern: PreparedPattern
            /// Whether this is the sound's piece (the audio events, from 0).
            public let isSound: Bool
        }

        /// The window, in seconds.
        public let seconds: Double
        let format: AudioFormat
        let voicing: VoicingProfile
        let clips: [String: AudioClip]
        let feeds: [String: ClipFeed]

        /// The audio events and controls, prepared whole when the first haptic piece is out.
        private var sound: Builder? = Builder()
        /// The haptic events of the window being filled, and where it starts.
        private var collecting: [PreparedEvent] = []
        private var collectingStart = 0.0
        /// Windows cut and waiting for their knots: until the elements pass `until`.
        private var closing: [(start: Double, events: [PreparedEvent], until: Double)] = []
        /// The haptic controls' knots, and each one's element still open.
        private var controls = KnotCompiler()
        /// The latest element's time: every knot before it is final.
        private var now = 0.0

        /// Pieces of `seconds` for `format` and `voicing`, the audio events playing `clips` or
        /// `feeds` by waveform path.
        public init(
            seconds: Double = 20, format: AudioFormat, voicing: VoicingProfile, clips: [String: AudioClip] = [:],
            feeds: [String: ClipFeed] = [:]
        ) {
            precondition(seconds >= 1 && seconds.rounded() == seconds, "a window is a whole number of seconds")
            self.seconds = seconds
            self.format = format
            self.voicing = voicing
            self.clips = clips
            self.feeds = feeds
        }

        /// Adds the pattern's next element; returns the pieces it completed, in the order to start them.
        ///
        /// - Throws: ``FrameRangeError`` when a time is not a frame position.
        public func add(_ element: PatternElement) throws(FrameRangeError) -> [Piece] {
            if !element.time.isFinite { throw FrameRangeError(seconds: element.time, sampleRate: format.sampleRate) }
            _ = try format.frame(at: element.time.magnitude)
            now = max(now, element.time)
            switch element {
            case .event(let event) where !event.type.isHaptic:
                precondition(sound != nil, "audio events come before the first haptic piece is handed out")
                sound?.add(element)
                return []
            case .event(let event):
                if let d = event.duration { _ = try format.frame(at: (event.time + d).magnitude) }
                if event.time >= collectingStart + seconds {
                    cut()
                    collectingStart = (event.time / seconds).rounded(.down) * seconds
                }
                collecting.append(PreparedEvent(event, clip: -1))
            case .parameter(let parameter) where parameter.id.modulates.onHapticEvents:
                controls.add(.step(time: parameter.time, value: parameter.value), to: parameter.id)
            case .curve(let curve) where curve.id.modulates.onHapticEvents:
                if !curve.controlPoints.isEmpty {
                    controls.add(.curve(time: curve.time, points: curve.controlPoints), to: curve.id)
                }
            case .parameter, .curve:
                precondition(sound != nil, "audio controls come before the first haptic piece is handed out")
                sound?.add(element)
            }
            return try handOut(through: now)
        }

        /// Ends the pattern: the pieces still held, in the order to start them.
        public func finish() throws(FrameRangeError) -> [Piece] {
            cut()
            controls.finish()
            // A sound without haptics: its piece alone.
            return try handOut(through: .infinity) + soundPiece()
        }

        /// The sound's piece, the first time it is asked for (none without audio events).
        private func soundPiece() throws(FrameRangeError) -> [Piece] {
            guard let sound else { return [] }
            self.sound = nil
            let whole = try sound.finish(format: format, voicing: voicing, clips: clips, feeds: feeds)
            return whole.eventCount > 0 ? [Piece(start: 0, pattern: whole, isSound: true)] : []
        }

        private func cut() {
            guard !collecting.isEmpty else { return }
            // The last voice ends at the latest event end, plus its tail: a first guess, which
            // `handOut` checks against the piece's sounding length once it is prepared.
            let ends = collecting.map { $0.time + ($0.duration ?? 0) }
            closing.append((collectingStart, collecting, (ends.max() ?? 0) + 1))
            collecting = []
        }

        /// Prepares each closing piece whose voices have all ended by `bound` (the latest
        /// element's time, or the end).
        private func handOut(through bound: Double) throws(FrameRangeError) -> [Piece] {
            var out: [Piece] = []
            while let first = closing.first, first.until <= bound {
                let piece = try prepare(first.start, first.events, through: bound)
                let end = Double(piece.pattern.frameCount) / Double(format.sampleRate)
                if end > bound {
                    // A tail longer than guessed: wait for the elements to pass it.
                    closing[0].until = end
                    break
                }
                out += try soundPiece()
                out.append(piece)
                closing.removeFirst()
                trim()
            }
            return out
        }

        /// The piece from `start`: its events, and each control's knots from the one in force
        /// at `start` to `bound` (those of the element still open compiled up to it).
        private func prepare(_ start: Double, _ events: [PreparedEvent], through bound: Double) throws(FrameRangeError)
            -> Piece
        {
            let table = KnotTable { id in
                let all = controls.knots[id]
                let from = all.withUnsafeBufferPointer { max(0, ParameterTimeline.lastKnot(in: $0, atOrBefore: start)) }
                var list = Array(all[from...])
                if let open = controls.pending[id], bound.isFinite {
                    let current = list.last.map { ParameterTimeline.value(of: $0, at: open.time) } ?? id.neutralValue
                    ParameterTimeline.knots(of: open, until: bound, from: current) { list.append($0) }
                }
                return list
            }
            let duration = events.map { $0.time + ($0.duration ?? 0) }.max() ?? start
            let storage = PreparedPattern.Storage(
                events: events, knots: table, clips: [], duration: duration, sampleRate: format.sampleRate)
            let sounding = PatternRenderer.length(of: storage, format: format, voicing: voicing)
            let end = try format.frame(at: duration)
            return Piece(
                start: start, pattern: PreparedPattern(storage: storage, frameCount: max(sounding, end)), isSound: false
            )
        }

        /// Drops the knots no piece still to come reads: those before the one in force at the
        /// earliest start still held.
        private func trim() {
            let earliest = closing.first?.start ?? collectingStart
            for id in DynamicParameterID.all where !controls.knots[id].isEmpty {
                let keep = controls.knots[id].withUnsafeBufferPointer {
                    ParameterTimeline.lastKnot(in: $0, atOrBefore: earliest)
                }
                if keep > 0 { controls.knots[id].removeFirst(keep) }
            }
        }
    }
}
