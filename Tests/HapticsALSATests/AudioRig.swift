import Dispatch
import Foundation
import HapticsEngine
import HapticsSynthesis
import Synchronization
import _HapticsTestSupport

/// What the ALSA tests add to the shared rig support: playing a signal tick by tick.
extension AudioRig {
    /// One engine-style tick: when it happened and where the device was.
    struct Tick {
        var uptimeNanoseconds: UInt64
        var timing: OutputTiming
        var framesWritten: Int64
        /// `framesWritten - delay`: the frame being heard.
        var position: Int64 { framesWritten - Int64(timing.delayFrames) }
    }

    /// Feeds `signal` (mono or interleaved) to `output` the way the engine will: a DispatchSourceTimer
    /// on a high-QoS serial queue asks for room every `tickMilliseconds` and writes that much. Drains
    /// at the end. Returns every tick's measurement.
    static func play(_ signal: [Float], through output: any AudioOutput, tickMilliseconds: Int) async throws
        -> [Tick]
    {
        let queue = DispatchQueue(label: "haptic.rig.player", qos: .userInteractive)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let state = Mutex((offset: 0, ticks: [Tick](), finished: false))
        let channels = output.format.channels
        return try await withCheckedThrowingContinuation { continuation in
            timer.setEventHandler {
                do {
                    let timing = try output.timing()
                    let tick = Tick(
                        uptimeNanoseconds: DispatchTime.now().uptimeNanoseconds, timing: timing,
                        framesWritten: output.framesWritten)
                    let offset = state.withLock { $0.offset }
                    let frames = min(timing.availableFrames, (signal.count - offset) / channels)
                    let accepted = try signal.withUnsafeBufferPointer {
                        try output.write(
                            UnsafeBufferPointer(rebasing: $0[offset..<(offset + frames * channels)]))
                    }
                    let done = state.withLock { state in
                        state.offset += accepted * channels
                        state.ticks.append(tick)
                        return state.offset == signal.count
                    }
                    if done {
                        timer.cancel()
                        try output.drain()
                        continuation.resume(returning: state.withLock { $0.ticks })
                    }
                } catch {
                    timer.cancel()
                    continuation.resume(throwing: error)
                }
            }
            timer.schedule(
                deadline: .now(), repeating: .milliseconds(tickMilliseconds), leeway: .microseconds(500))
            timer.activate()
        }
    }

    /// Polls `condition` on a DispatchSourceTimer every `tickMilliseconds` until it holds (true) or
    /// `timeoutMilliseconds` pass (false). For waiting on a device, which is what the engine does too.
    static func poll(
        everyMilliseconds tickMilliseconds: Int, timeoutMilliseconds: Int,
        until condition: @escaping @Sendable () throws -> Bool
    ) async throws -> Bool {
        let queue = DispatchQueue(label: "haptic.rig.poll", qos: .userInteractive)
        let timer = DispatchSource.makeTimerSource(queue: queue)
        let deadline = DispatchTime.now().uptimeNanoseconds + UInt64(timeoutMilliseconds) * 1_000_000
        return try await withCheckedThrowingContinuation { continuation in
            timer.setEventHandler {
                do {
                    if try condition() {
                        timer.cancel()
                        continuation.resume(returning: true)
                    } else if DispatchTime.now().uptimeNanoseconds > deadline {
                        timer.cancel()
                        continuation.resume(returning: false)
                    }
                } catch {
                    timer.cancel()
                    continuation.resume(throwing: error)
                }
            }
            timer.schedule(
                deadline: .now(), repeating: .milliseconds(tickMilliseconds), leeway: .microseconds(500))
            timer.activate()
        }
    }
}
