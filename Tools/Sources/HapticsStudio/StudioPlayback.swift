import Dispatch
import Foundation
package import HapticsCore
package import HapticsEngine
package import HapticsSynthesis
import Synchronization

/// Plays the studio's patterns through one engine on the studio's output, and says where the
/// listener is: the engine's own clock (frames heard by the device) mapped to pattern time.
///
/// Each play starts its player at an explicit engine time a little ahead (the device buffer plus
/// 15 ms), so the frame it starts on is known exactly and the playhead is pure arithmetic on
/// `HapticEngine.currentTime`, with no lock the render thread takes.
package final class StudioPlayback: Sendable {
    /// What to play.
    package struct Request: Sendable {
        package var pattern: HapticPattern
        package var clips: [String: AudioClip] = [:]
        package var voicing: VoicingProfile = .standard
        package var rate: Float = 1
        /// Pattern seconds to start from.
        package var from = 0.0
        /// Pattern seconds to end at (nil: the end); with `loop`, the selection `from..<to` repeats.
        package var to: Double?
        package var loop = false

        package init(pattern: HapticPattern) { self.pattern = pattern }
    }

    /// Where playback is, in pattern seconds, for the page's playhead.
    package struct Position: Sendable, Equatable {
        package var id: Int
        package var time: Double
        package var engineTime: Double
        package var playing: Bool
    }

    /// Opens the output; called on the first play and after the voice changes.
    let openOutput: @Sendable () throws -> any AudioOutput
    let state = Mutex(State())

    struct State {
        var engine: HapticEngine?
        var voice = ""
        var current: Playing?
        var nextID = 1
    }

    /// One play: its player and what maps the engine clock to pattern time.
    struct Playing: @unchecked Sendable {
        // @unchecked: Player is Sendable; the tuple of values here is immutable once made.
        var id: Int
        var player: Player
        var engine: HapticEngine
        var startEngineTime: Double
        var from: Double
        var end: Double
        var loopStart: Double
        var rate: Double
        var loop: Bool
    }

    /// One element each time a play starts (the newest kept), so that the playhead publisher can
    /// sleep while nothing plays instead of polling.
    package let starts: AsyncStream<Void>
    let startsContinuation: AsyncStream<Void>.Continuation

    package init(openOutput: @escaping @Sendable () throws -> any AudioOutput) {
        self.openOutput = openOutput
        (starts, startsContinuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(1))
    }

    /// Starts `request` (stopping what played); returns its id.
    ///
    /// - Throws: the output's or the engine's error, as a message.
    @discardableResult
    package func play(_ request: Request) throws -> Int {
        stop()
        let engine = try engine(for: request.voicing)
        let player = try engine.makeAdvancedPlayer(request.pattern, clips: request.clips)
        let rate = Double(request.rate)
        let duration = request.pattern.duration
        let from = min(max(0, request.from), duration)
        let to = min(max(from, request.to ?? duration), duration)
        player.playbackRate = request.rate
        if request.loop {
            player.loopStart = from
            player.loopEnd = to > from ? to : duration
            player.loopEnabled = true
        }
        if from > 0 { try player.seek(toOffset: from) }
        let lead = Double(engine.output.bufferFrames) / Double(engine.format.sampleRate) + 0.015
        let start = engine.currentTime + lead
        try player.start(atTime: start)
        if !request.loop, request.to != nil, to < duration {
            try player.stop(atTime: start + (to - from) / rate)
        }
        let id = state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            state.current = Playing(
                id: id, player: player, engine: engine, startEngineTime: start, from: from, end: to,
                loopStart: from, rate: rate, loop: request.loop && to > from)
            return id
        }
        startsContinuation.yield()
        return id
    }

    /// Stops what plays, with a 5 ms fade.
    package func stop() {
        let playing = state.withLock { state in
            defer { state.current = nil }
            return state.current
        }
        guard let playing else { return }
        try? playing.player.stop(atTime: HapticEngine.timeImmediate)
    }

    /// Where the listener is now, or nil when nothing has played since the last stop.
    /// `playing` turns false once the last frame of the play has been heard.
    package func position() -> Position? {
        guard let playing = state.withLock({ $0.current }) else { return nil }
        let now = playing.engine.currentTime
        // Before the start is heard (the device buffer and a margin after the request) the time is
        // below `from`, so a page extrapolating between messages starts its head on the right frame.
        let elapsed = (now - playing.startEngineTime) * playing.rate
        var time = playing.from + elapsed
        var finished = false
        if playing.loop {
            let length = playing.end - playing.loopStart
            if time >= playing.end {
                time = playing.loopStart + (time - playing.end).truncatingRemainder(dividingBy: length)
            }
        } else if time >= playing.end {
            time = playing.end
            finished = true
        }
        return Position(id: playing.id, time: time, engineTime: now, playing: !finished)
    }

    /// Forgets a play that has been heard to its end (so its last position is reported once).
    func clear(id: Int) {
        state.withLock { if $0.current?.id == id { $0.current = nil } }
    }

    /// Stops the engine and closes the output.
    package func shutdown() {
        stop()
        let engine = state.withLock { state in
            defer { state.engine = nil }
            return state.engine
        }
        engine?.stop(fadeMilliseconds: 5)
        engine?.output.close()
    }

    /// The running engine for `voicing`; a new voice needs a new engine (the voice is the
    /// synthesizer's), so the old one is stopped and its output closed first.
    func engine(for voicing: VoicingProfile) throws -> HapticEngine {
        if let engine = state.withLock({ $0.voice == voicing.name ? $0.engine : nil }) { return engine }
        shutdown()
        var configuration = HapticEngine.Configuration()
        configuration.voicing = voicing
        configuration.idleShutdownSeconds = .infinity
        let engine = HapticEngine(output: try openOutput(), configuration: configuration)
        try engine.start()
        state.withLock {
            $0.engine = engine
            $0.voice = voicing.name
        }
        return engine
    }
}
