import Dispatch
public import HapticsSynthesis
import Synchronization

/// Pieces of a pattern (``PreparedPattern/Pieces``) handed from the thread that makes them to
/// the ``LivePlayback`` that plays them: at most `capacity` wait here, so the maker runs a few
/// pieces ahead of the listener and no further, and what is held stays a few pieces whatever the
/// pattern's length.
///
/// ```swift
/// let queue = PieceQueue()
/// Thread {   // the maker
///     for element in elements { for piece in try! pieces.add(element) { guard queue.put(piece) else { return } } }
///     queue.end()
/// }.start()
/// let outcome = try LivePlayback(pieces: queue, output: alsa, options: options).run()
/// ```
public final class PieceQueue: Sendable {
    private struct State {
        var waiting: [PreparedPattern.Pieces.Piece] = []
        var ended = false
        var failure: String?
        var closed = false
    }

    private let state = Mutex(State())
    private let room = DispatchSemaphore(value: 0)
    private let arrived = DispatchSemaphore(value: 0)
    /// The most pieces waiting at once.
    public let capacity: Int

    public init(capacity: Int = 2) {
        self.capacity = max(1, capacity)
    }

    /// Hands on the next piece, waiting while ``capacity`` wait already. Returns false once
    /// playback has ended: the maker should stop.
    public func put(_ piece: PreparedPattern.Pieces.Piece) -> Bool {
        while true {
            let outcome: Bool? = state.withLock { state in
                if state.closed { return false }
                guard state.waiting.count < capacity else { return nil }
                state.waiting.append(piece)
                return true
            }
            if let outcome {
                if outcome { arrived.signal() }
                return outcome
            }
            _ = room.wait(timeout: .now() + .milliseconds(50))
        }
    }

    /// No more pieces: the pattern is all made, or making it failed for `failure` (playback
    /// ends with it once the pieces before have played).
    public func end(failure: String? = nil) {
        state.withLock {
            $0.ended = true
            $0.failure = failure
        }
        arrived.signal()
    }

    /// The pieces waiting, and whether the last has come (and why making them stopped, if it failed).
    func take() -> (pieces: [PreparedPattern.Pieces.Piece], ended: Bool, failure: String?) {
        let taken = state.withLock { state in
            defer { state.waiting.removeAll() }
            return (state.waiting, state.ended, state.failure)
        }
        if !taken.0.isEmpty { room.signal() }
        return taken
    }

    /// Waits up to `milliseconds` for a piece or the end.
    func wait(milliseconds: Int) {
        _ = arrived.wait(timeout: .now() + .milliseconds(milliseconds))
    }

    /// Playback is over: a maker's ``put(_:)`` returns false from now on.
    func close() {
        state.withLock { $0.closed = true }
        room.signal()
    }
}

/// What a ``LivePlayback`` of pieces knows while it plays: the pieces taken and not yet
/// started, the players of those started, and the frame they all count from.
// @unchecked Sendable: touched by the playback's `run()` thread only (its `queue` is Sendable).
final class PieceSchedule: @unchecked Sendable {
    /// A started piece's player, and whether it has played to its end.
    final class Started: Sendable {
        let player: Player
        let done = Atomic(false)
        init(_ player: Player) { self.player = player }
    }

    let queue: PieceQueue
    let from: Double
    /// Pieces taken, in order, not yet started.
    var later: [PreparedPattern.Pieces.Piece] = []
    /// The players started and not yet finished.
    var started: [Started] = []
    var ended = false
    var failure: String?
    /// The frame the pieces count from: where the first ones started, `from` seconds in.
    var origin: Int64?

    init(queue: PieceQueue, from: Double) {
        self.queue = queue
        self.from = from
    }

    /// Takes what the maker has handed on.
    func takeArrived() {
        let (pieces, ended, failure) = queue.take()
        later += pieces
        if ended {
            self.ended = true
            self.failure = failure
        }
    }

    /// Drops the players that have finished; true once every piece has come, started and finished.
    func collectFinished() -> Bool {
        started.removeAll { $0.done.load(ordering: .acquiring) }
        return ended && later.isEmpty && started.isEmpty
    }

    /// A player for `piece`, whose end is noted.
    func player(for piece: PreparedPattern.Pieces.Piece, on engine: HapticEngine) throws(HapticEngineError) -> Player {
        let entry = Started(try engine.makePlayer(prepared: piece.pattern, advanced: true))
        entry.player.completionHandler = { [weak entry] _ in entry?.done.store(true, ordering: .releasing) }
        started.append(entry)
        return entry.player
    }
}

extension LivePlayback {
    /// How far ahead of the next frame a piece is started (its player made, its start queued).
    static let pieceLookaheadSeconds = 10.0

    /// Waits, before the engine starts, for the pieces under way at `from`: all have come once
    /// one starting later has, or the last. Those over by `from` are let go as they come, so
    /// playing from late in a long sound holds no more than playing from its start. Returns
    /// false when interrupted meanwhile.
    func waitForFirstPieces(_ schedule: PieceSchedule) -> Bool {
        let rate = Double(engine.format.sampleRate)
        while true {
            schedule.takeArrived()
            schedule.later.removeAll { Double($0.pattern.frameCount) / rate <= schedule.from }
            if schedule.ended || schedule.later.contains(where: { $0.start > schedule.from }) { return true }
            if outcome.withLock({ $0 }) != nil { return false }
            schedule.queue.wait(milliseconds: 20)
        }
    }

    /// Starts the pieces under way at `from` on one frame, `from` seconds in, the first of them
    /// (the sound) being the playback's start.
    func startPieces(_ schedule: PieceSchedule) throws(HapticEngineError) {
        let first = schedule.later.prefix { $0.start <= schedule.from }
        schedule.later.removeFirst(first.count)
        var commands: [Command] = []
        for piece in first {
            let player = try schedule.player(for: piece, on: engine)
            commands.append(.start(layer: player.layer, pattern: piece.pattern, offset: schedule.from, loop: nil))
        }
        if let layer = commands.first?.layer {
            firstLayer.withLock { $0 = layer }
            engine.enqueue(commands, at: .immediate)
        } else {
            // Nothing sounds at `from`: the later pieces count from the next frame.
            schedule.origin = engine.nextFrame
        }
    }

    /// Starts each piece that has come and begins within the lookahead, on the frame where its
    /// window begins as if started with the first ones; ends playback once all have played.
    func schedulePieces(_ schedule: PieceSchedule) throws(HapticEngineError) {
        if schedule.origin == nil, let layer = firstLayer.withLock({ $0 }) {
            // Known once the tick has applied the first start.
            schedule.origin = engine.render.withLock {
                $0.layers[layer].pattern != nil ? $0.layers[layer].startFrame : nil
            }
        }
        guard let origin = schedule.origin else { return }
        if schedule.later.isEmpty { schedule.takeArrived() }
        let horizon = engine.nextFrame + Int64(Self.pieceLookaheadSeconds * Double(engine.format.sampleRate))
        while let piece = schedule.later.first {
            let frame = origin + engine.format.clampedFrame(at: piece.start - schedule.from)
            guard frame <= horizon else { break }
            schedule.later.removeFirst()
            let player = try schedule.player(for: piece, on: engine)
            engine.enqueue(
                [.startPiece(layer: player.layer, pattern: piece.pattern, origin: origin, offset: schedule.from)],
                at: .frame(frame))
            if schedule.later.isEmpty { schedule.takeArrived() }
        }
        if schedule.collectFinished() {
            finish(schedule.failure.map { .failed($0) } ?? .finished)
        }
    }
}
