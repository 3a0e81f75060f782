import ArgumentParser
import CMallocCounter
import HapticsCore
import HapticsEngine
import HapticsSynthesis
import Synchronization

// MARK: - Allocations per control sent

extension Bench {
    /// Heap allocations the tick makes for each control sent (issue 9): counted by an allocator
    /// interposed in this executable (CMallocCounter), on the thread that runs the tick.
    struct Controls: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract:
                "Heap allocations on the tick thread per control sent (sendParameters, curves) and per player"
                + " started, stopped, finished and let go; fails above 0.")

        @Option(help: "Controls to send, one per tick.") var count = 20_000
        @Option(help: "Send a parameter curve every this many controls (0: never).") var curveEvery = 10

        func run() throws {
            let clock = ManualClock()
            let ticks = CountedTicks()
            let format = AudioFormat(sampleRate: 48_000, channels: 1)
            let output = PacedOutput(NullOutput(format: format), bufferFrames: 960, clock: clock)
            let engine = HapticEngine(output: output, clock: clock, ticks: ticks)
            try engine.start()
            let pattern = HapticPattern(elements: [
                .event(HapticEvent(time: 0, type: .hapticContinuous, duration: 3_000)),
                .event(HapticEvent(time: 0, type: .hapticTransient)),
            ])
            let player = try engine.makePlayer(pattern)
            try player.start(atTime: HapticEngine.timeImmediate)
            let tickNanoseconds: UInt64 = 2_000_000

            /// Runs one tick and returns the allocations it made.
            func tick() -> UInt {
                clock.advance(byNanoseconds: tickNanoseconds)
                return ticks.tick()
            }
            // Warm up: the engine's and the runtime's one-time allocations.
            for _ in 0..<200 { _ = tick() }
            var idle: UInt = 0
            for _ in 0..<count { idle += tick() }
            var withControls: UInt = 0
            var sent = 0
            var curves = 0
            for i in 0..<count {
                let value = Float(i % 100) / 100
                if curveEvery > 0 && i % curveEvery == 0 {
                    let curve = ParameterCurve(
                        .hapticSharpnessControl,
                        controlPoints: [.init(time: 0, value: -value), .init(time: 0.004, value: value)])
                    try player.scheduleParameterCurve(curve, atTime: HapticEngine.timeImmediate)
                    curves += 1
                } else {
                    try player.sendParameters(
                        [DynamicParameter(.hapticIntensityControl, value: value)], atTime: HapticEngine.timeImmediate)
                }
                sent += 1
                withControls += tick()
            }
            // Players that start, finish (a completion each, on the callback queue) and are let go,
            // and players stopped before their end: the tick's side of each start, stop, finish and
            // release. Making and dropping a player happens on this thread, not the tick's.
            let tap = HapticPattern(elements: [.event(HapticEvent(time: 0, type: .hapticTransient))])
            let long = HapticPattern(elements: [.event(HapticEvent(time: 0, type: .hapticContinuous, duration: 10))])
            let finishedCount = Atomic<Int>(0)
            /// Starts `rounds` players, stops every second one before its end, lets each go; returns
            /// the tick's allocations over the whole run.
            func lifecycle(rounds: Int, completions: Bool) throws -> UInt {
                var allocations: UInt = 0
                for round in 0..<rounds {
                    let player = try engine.makeAdvancedPlayer(round % 2 == 0 ? tap : long)
                    if completions { player.completionHandler = { _ in finishedCount.add(1, ordering: .relaxed) } }
                    try player.start(atTime: HapticEngine.timeImmediate)
                    allocations += tick()
                    if round % 2 == 1 { try player.stop(atTime: HapticEngine.timeImmediate) }
                    for _ in 0..<19 { allocations += tick() }
                }
                return allocations
            }
            let rounds = count / 20
            // Warm up the completion path too: Dispatch's first wake-up of the callback queue from
            // this thread allocates once.
            _ = try lifecycle(rounds: 2, completions: true)
            engine.flushCallbacks()
            finishedCount.store(0, ordering: .relaxed)
            let plain = try lifecycle(rounds: rounds, completions: false)
            let handled = try lifecycle(rounds: rounds, completions: true)
            engine.flushCallbacks()
            engine.stop()
            let perControl = Double(withControls) / Double(sent)
            print(
                "controls: \(sent) sent (\(curves) curves), one per 2 ms tick: \(withControls) allocations on the tick"
                    + " thread (\(perControl) per control); \(idle) in \(count) ticks without controls")
            print(
                "players: \(rounds) started, \(rounds / 2) stopped, each let go: \(plain) allocations on the tick thread;"
                    + " again with completion handlers (\(finishedCount.load(ordering: .relaxed)) called): \(handled)")
            guard withControls == 0, plain == 0, handled == 0 else { throw ExitCode.failure }
        }
    }
}

/// Runs the engine's tick on the caller's thread and counts the allocations made inside it (and
/// nothing else: the handler is called directly, not fetched through a lock).
// @unchecked Sendable: used from one thread only (the benchmark's).
final class CountedTicks: TickSource, @unchecked Sendable {
    private var handler: (@Sendable () -> Void)?

    func start(intervalNanoseconds: UInt64, handler: @escaping @Sendable () -> Void) { self.handler = handler }
    func stop() { handler = nil }
    func kick() {}

    /// Runs one tick; returns the allocations it made.
    func tick() -> UInt {
        guard let handler else { return 0 }
        let before = haptics_thread_allocations()
        handler()
        return haptics_thread_allocations() - before
    }
}
