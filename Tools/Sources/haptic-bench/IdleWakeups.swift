import ArgumentParser
import Dispatch
import Foundation
import HapticsCore
import HapticsEngine
import Synchronization

// MARK: - Timer wake-ups while idle

extension Bench {
    /// Engine ticks per second with nothing playing (issue 12): the timer stops after
    /// `idleSuspendSeconds` and the next command starts it again.
    struct Idle: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Timer wake-ups per second while an engine is idle; fails above 0.")

        @OptionGroup var device: DeviceArguments
        @Option(help: "How long to count once the engine is idle.") var seconds = 10.0

        func run() throws {
            let ticks = CountingTicks(device.tickSource(label: "haptic-bench.idle"))
            let engine = HapticEngine(output: try device.open(), configuration: device.configuration, ticks: ticks)
            try engine.start()
            let tap = HapticPattern(elements: [.event(HapticEvent(time: 0, type: .hapticTransient))])
            let player = try engine.makePlayer(tap)
            try player.start(atTime: HapticEngine.timeImmediate)
            let hold = engine.configuration.idleSuspendSeconds ?? 0
            usleep(UInt32((hold + 0.5) * 1e6))
            let before = ticks.count
            let start = now()
            usleep(UInt32(seconds * 1e6))
            let idle = ticks.count - before
            let span = Double(now() - start) / 1e9
            // The next command wakes it: a tap played now must tick again.
            let beforeTap = ticks.count
            try player.start(atTime: HapticEngine.timeImmediate)
            usleep(100_000)
            let afterTap = ticks.count - beforeTap
            engine.stop()
            print(
                String(
                    format: "idle: %d timer wake-ups in %.1f s idle (%.2f/s); %d ticks in the 100 ms after a tap;"
                        + " tick %.1f ms; underruns %d",
                    idle, span, Double(idle) / span, afterTap, Double(engine.tickIntervalNanoseconds) / 1e6,
                    engine.underrunCount))
            guard idle == 0, afterTap > 0 else { throw ExitCode.failure }
        }
    }
}

/// Forwards to another tick source and counts the handler's calls.
final class CountingTicks: TickSource {
    let inner: any TickSource
    private let calls = Atomic<Int>(0)

    init(_ inner: any TickSource) { self.inner = inner }

    var count: Int { calls.load(ordering: .relaxed) }

    func start(intervalNanoseconds: UInt64, handler: @escaping @Sendable () -> Void) {
        inner.start(intervalNanoseconds: intervalNanoseconds) { [self] in
            calls.add(1, ordering: .relaxed)
            handler()
        }
    }
    func stop() { inner.stop() }
    func kick() { inner.kick() }
    func suspend() { inner.suspend() }
    func resume() { inner.resume() }
}
