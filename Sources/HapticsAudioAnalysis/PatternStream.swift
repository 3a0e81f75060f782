import HapticsCore

/// The analysis's pattern written as AHAP in time order while the sound is still being read, so
/// memory is the analysis window and a few seconds of pending events, not the pattern: the bytes
/// are exactly those of `AHAP.encode` of the whole pattern ``AudioHapticsAnalyzer/finish()``
/// returns (its elements sorted by time, continuous events and curves before transients at equal
/// times).
///
/// An element is written once nothing the analysis can still make may come before it. A transient
/// waits for what decides it: the events-per-second budget looks one second ahead (transients and
/// continuous events), and its compensation needs the curves in force at its time, which exist
/// once the continuous event around it closes (at most 20 s after it starts).
final class PatternStream {
    struct Transient {
        var time: Double
        var intensity: Float
        var sharpness: Float
        var keep = true

        /// The events-per-second budget at `transients[i]`: when the second from its time holds
        /// more than `limit` events (the kept transients and the continuous events starting in
        /// it), the weakest kept transients of that second are dropped. `startIndex` is the first
        /// of `starts` (ascending) not before an earlier call's time. Returns how many it dropped.
        /// One rule for the streamed and the whole-pattern writer, so their bytes stay the same.
        static func thin(
            _ transients: inout [Transient], at i: Int, starts: [Double], from startIndex: inout Int, limit: Int
        ) -> Int {
            let from = transients[i].time
            while startIndex < starts.count, starts[startIndex] < from { startIndex += 1 }
            var continuous = 0
            var k = startIndex
            while k < starts.count, starts[k] < from + 1 {
                continuous += 1
                k += 1
            }
            var window: [Int] = []
            var j = i
            while j < transients.count, transients[j].time < from + 1 {
                if transients[j].keep { window.append(j) }
                j += 1
            }
            var excess = window.count + continuous - limit
            guard excess > 0 else { return 0 }
            var dropped = 0
            for victim in window.sorted(by: { transients[$0].intensity < transients[$1].intensity }) where excess > 0 {
                transients[victim].keep = false
                dropped += 1
                excess -= 1
            }
            return dropped
        }

        /// The transient's event under the pattern's controls: curves act on every event, so it
        /// is written with what makes it play as measured (intensity divided by the intensity
        /// control, sharpness less the sharpness control). One rule for both writers.
        func event(intensity control: ParameterTimeline?, sharpness offset: ParameterTimeline?) -> HapticEvent {
            var intensity = self.intensity
            var sharpness = self.sharpness
            if let control, !control.isEmpty {
                intensity = min(1, intensity / max(0.01, control.value(at: time)))
            }
            if let offset, !offset.isEmpty {
                sharpness = min(1, max(0, sharpness - offset.value(at: time)))
            }
            return HapticEvent(
                time: time, type: .hapticTransient,
                parameters: [
                    .init(.hapticIntensity, AudioHapticsAnalyzer.rounded(intensity)),
                    .init(.hapticSharpness, AudioHapticsAnalyzer.rounded(sharpness)),
                ])
        }
    }

    private struct Queued {
        var element: PatternElement
        var time: Double
        /// 0: continuous events and curves, 1: transients, 2: the AudioCustom event (the order
        /// in which the whole-pattern analysis appends them before its stable sort).
        var group: Int
        var sequence: Int

        func precedes(_ other: Queued) -> Bool {
            (time, group, sequence) < (other.time, other.group, other.sequence)
        }
    }

    private let limit: Int
    private(set) var encoder = AHAPStreamEncoder()
    /// When set, elements go here (in the order written) instead of to the AHAP encoder.
    var sink: ((PatternElement) -> Void)?
    /// Transients not yet written; those before `decided` are final (kept or dropped).
    private var pending: [Transient] = []
    private var decided = 0
    /// Continuous events' starts the budget may still count, ascending.
    private var starts: [Double] = []
    private var startIndex = 0
    /// The curves whose values transients still to be decided may need, in the order made.
    private var intensityCurves: [ParameterCurve] = []
    private var sharpnessCurves: [ParameterCurve] = []
    private var controls: (intensity: ParameterTimeline, sharpness: ParameterTimeline)?
    /// Elements ready to write, in the order the whole pattern sorts them.
    private var queue: [Queued] = []
    private var queueHead = 0
    private var sequence = 0

    private(set) var dropped = 0
    private(set) var transientsWritten = 0
    private(set) var continuousWritten = 0

    init(options: AudioHapticsOptions) {
        limit = options.maxEventsPerSecond
        if let audio = options.audioPath {
            enqueue(
                .event(
                    HapticEvent(
                        time: 0, type: .audioCustom, parameters: [.init(.audioVolume, 1)], waveformPath: audio)),
                group: 2)
        }
    }

    /// A continuous event and its curves, as the analysis closes it.
    func addContinuous(start: Double, _ elements: [PatternElement]) {
        starts.append(start)
        for element in elements {
            if case .curve(let curve) = element {
                if curve.id == .hapticIntensityControl {
                    intensityCurves.append(curve)
                } else {
                    sharpnessCurves.append(curve)
                }
                controls = nil
            } else {
                continuousWritten += 1
            }
            enqueue(element, group: 0)
        }
    }

    /// The next onset's transient (times ascending).
    func addTransient(_ transient: Transient) { pending.append(transient) }

    /// Decides and writes what the analysis can no longer change: no transient it makes from now
    /// on comes before `transientBound`, no continuous event or curve before `continuousBound`.
    func advance(transientBound: Double, continuousBound: Double) {
        decide(upTo: min(transientBound, continuousBound))
        var horizon = min(transientBound, continuousBound)
        if decided < pending.count { horizon = min(horizon, pending[decided].time) }
        write(before: horizon)
        trim(from: min(horizon, decided < pending.count ? pending[decided].time : horizon))
    }

    /// Hands the bytes written since the last drain to `body`.
    func drain(_ body: (UnsafeRawBufferPointer) throws -> Void) throws {
        try encoder.drain(body)
    }

    /// Everything is known: writes the rest and closes the document.
    func finish() {
        advance(transientBound: .infinity, continuousBound: .infinity)
        encoder.finish()
    }

    /// The budget (as `AudioHapticsAnalyzer.budget`), one transient at a time, for those whose
    /// second ahead is complete; each kept transient is then compensated and queued.
    private func decide(upTo bound: Double) {
        while decided < pending.count, pending[decided].time + 1 <= bound {
            let i = decided
            if pending[i].keep {
                dropped += Transient.thin(&pending, at: i, starts: starts, from: &startIndex, limit: limit)
            }
            decided += 1
            if pending[i].keep { queueTransient(pending[i]) }
        }
    }

    private func queueTransient(_ transient: Transient) {
        if controls == nil {
            controls = (
                ParameterTimeline(.hapticIntensityControl, parameters: [], curves: intensityCurves),
                ParameterTimeline(.hapticSharpnessControl, parameters: [], curves: sharpnessCurves)
            )
        }
        transientsWritten += 1
        enqueue(.event(transient.event(intensity: controls?.intensity, sharpness: controls?.sharpness)), group: 1)
    }

    private func enqueue(_ element: PatternElement, group: Int) {
        let item = Queued(element: element, time: element.time, group: group, sequence: sequence)
        sequence += 1
        var low = queueHead
        var high = queue.count
        while low < high {
            let mid = (low + high) / 2
            if queue[mid].precedes(item) { low = mid + 1 } else { high = mid }
        }
        queue.insert(item, at: low)
    }

    private func write(before horizon: Double) {
        while queueHead < queue.count, queue[queueHead].time < horizon {
            if let sink { sink(queue[queueHead].element) } else { encoder.append(queue[queueHead].element) }
            queueHead += 1
        }
        if queueHead > 64, queueHead * 2 > queue.count {
            queue.removeFirst(queueHead)
            queueHead = 0
        }
    }

    /// Forgets what no transient at or after `time` can need: decided transients, counted
    /// starts, and curves before the last one in force at `time`.
    private func trim(from time: Double) {
        if decided > 0 {
            pending.removeFirst(decided)
            decided = 0
        }
        if startIndex > 0 {
            starts.removeFirst(startIndex)
            startIndex = 0
        }
        for keyPath in [\PatternStream.intensityCurves, \PatternStream.sharpnessCurves] {
            // Keep the curve in force at `time` and the one before it (whose end it cuts).
            let inForce = self[keyPath: keyPath].lastIndex { $0.time <= time } ?? 0
            if inForce > 1 {
                self[keyPath: keyPath].removeFirst(inForce - 1)
                controls = nil
            }
        }
    }
}
