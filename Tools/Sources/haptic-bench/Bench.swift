import ArgumentParser
import Dispatch
import Foundation
import HapticsALSA
import HapticsCore
import HapticsEngine
import HapticsSynthesis
import Synchronization
import SystemPackage
import _ToolTestSupport

/// `haptic-bench`: the real-time figures of docs/timing.md, measured on this machine.
///
/// Run the release build through the audio rig, e.g.
/// `tools/audio-rig/with-rig Tools/.build/release/haptic-bench ticks --seconds 20 --load 2`.
@main
struct Bench: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "haptic-bench",
        abstract:
            "Measure the real-time engine (timer lateness, start latency, CPU, many players, feedback latency) and the studio.",
        subcommands: [
            Ticks.self, StartLatency.self, CPU.self, Players.self, FeedbackLatency.self, Controls.self, Idle.self,
            StudioFigures.self, StudioIdle.self, StudioEntries.self, StudioEdit.self,
        ])
}

// MARK: - Shared

/// Monotonic nanoseconds (CLOCK_MONOTONIC).
func now() -> UInt64 { MonotonicClock().nanoseconds }

/// Process CPU time (user + system) in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(RUSAGE_SELF.rawValue, &usage)
    return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec)
        + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
}

/// p50 / p99 / max of `values` (milliseconds), formatted.
func percentiles(_ values: [Double]) -> String {
    guard !values.isEmpty else { return "no samples" }
    let sorted = values.sorted()
    func at(_ q: Double) -> Double { sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * q).rounded()))] }
    return String(format: "n=%d p50=%.3f ms p99=%.3f ms max=%.3f ms", sorted.count, at(0.5), at(0.99), sorted.last!)
}

struct DeviceArguments: ParsableArguments {
    @Option(help: "ALSA playback device, or paced-null: the engine alone on a clocked null output.")
    var device = "default"

    @Option(help: ArgumentHelp("Output latency.", valueName: "ms"))
    var latency = 20

    @Option(help: ArgumentHelp("Engine tick interval (default: one device period).", valueName: "ms"))
    var tick: Double?

    @Option(help: "Busy-loop processes to run meanwhile (2 = both cores busy).")
    var load = 0

    @Option(help: "Periods the ALSA buffer is split into (the device and the engine wake once per period).")
    var periods = 4

    @Option(
        help:
            "What drives the engine's ticks: thread (the default, ThreadTickSource) or dispatch (a DispatchSourceTimer)."
    )
    var timer = "thread"

    func validate() throws {
        guard ["thread", "dispatch"].contains(timer) else { throw ValidationError("--timer is thread or dispatch") }
    }

    /// The tick source `--timer` names.
    func tickSource(label: String) -> any TickSource {
        timer == "dispatch" ? DispatchTickSource(label: label) : ThreadTickSource(label: label)
    }

    func open() throws -> any AudioOutput {
        if device == "paced-null" {
            let format = AudioFormat()
            return PacedOutput(NullOutput(format: format), bufferFrames: format.sampleRate * latency / 1000)
        }
        return try ALSAOutput(.init(device: device, latencyMilliseconds: latency, periodsPerBuffer: periods))
    }

    var configuration: HapticEngine.Configuration {
        var configuration = HapticEngine.Configuration()
        configuration.tickIntervalNanoseconds = tick.map { UInt64($0 * 1e6) }
        return configuration
    }
}

// MARK: - Timer lateness

extension Bench {
    struct Ticks: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Lateness of engine ticks (actual - scheduled): p50, p99, max.")

        @Option(help: "How long to measure.") var seconds = 20.0
        @Option(help: ArgumentHelp("Tick interval.", valueName: "ms")) var tick = 4.0
        @Option(help: "Busy-loop processes to run meanwhile.") var load = 0
        @Flag(help: "Ask for SCHED_FIFO on the timer's thread (needs root or CAP_SYS_NICE).") var fifo = false
        @Option(help: "thread (ThreadTickSource, the engine's default) or dispatch (DispatchTickSource).")
        var timer = "thread"

        func run() throws {
            let interval = UInt64(tick * 1e6)
            let expected = Int(seconds * 1e9 / Double(interval))
            let samples = Mutex<[UInt64]>([])
            samples.withLock { $0.reserveCapacity(expected + 16) }
            let fifoResult = Mutex<Int32?>(nil)
            let wantFIFO = fifo
            let load = try BusyLoops(count: self.load)
            defer { load.stop() }
            let source: any TickSource =
                timer == "dispatch"
                ? DispatchTickSource(label: "haptic-bench.ticks") : ThreadTickSource(label: "haptic-bench.ticks")
            let done = DispatchSemaphore(value: 0)
            let start = now()
            source.start(intervalNanoseconds: interval) {
                let t = now()
                if wantFIFO, fifoResult.withLock({ $0 == nil }) {
                    var parameter = sched_param(sched_priority: 10)
                    let result = pthread_setschedparam(pthread_self(), SCHED_FIFO, &parameter)
                    fifoResult.withLock { $0 = result }
                }
                let count = samples.withLock { samples in
                    samples.append(t)
                    return samples.count
                }
                if count == expected { done.signal() }
            }
            done.wait()
            source.stop()
            let times = samples.withLock { $0 }
            let lateness = times.map { t -> Double in
                let k = (t - start) / interval
                return Double(t - (start + k * interval)) / 1e6
            }
            let span = Double(times.last! - start) / 1e9
            print(
                "ticks: interval \(tick) ms, load \(self.load), \(String(format: "%.1f", span)) s: \(percentiles(lateness))"
            )
            let missed = Int((Double(times.last! - start) / Double(interval)).rounded()) + 1 - times.count
            print("ticks: \(times.count) handler calls, \(max(0, missed)) scheduled ticks without a call")
            if wantFIFO {
                let result = fifoResult.withLock { $0 } ?? -1
                print(
                    "ticks: SCHED_FIFO " + (result == 0 ? "granted" : "refused (\(Errno(rawValue: result)))"))
            }
        }
    }
}

// MARK: - Start latency

/// An output that forwards to a device and notes when the first non-silent frame is handed over.
final class StampingOutput: AudioOutput {
    let inner: any AudioOutput
    /// 0: not armed; otherwise the time the caller armed it.
    let armed = Atomic<UInt64>(0)
    /// When the first loud write after arming happened (0: not yet).
    let stamped = Atomic<UInt64>(0)
    /// The last time a write held sound.
    let lastLoud = Atomic<UInt64>(0)

    init(_ inner: any AudioOutput) { self.inner = inner }

    var name: String { inner.name }
    var format: AudioFormat { inner.format }
    var channelMap: ChannelMap? { inner.channelMap }
    var bufferFrames: Int { inner.bufferFrames }
    var periodFrames: Int { inner.periodFrames }
    var framesWritten: Int64 { inner.framesWritten }
    var underrunCount: Int { inner.underrunCount }
    func start() throws(AudioOutputError) { try inner.start() }
    func availableFrames() throws(AudioOutputError) -> Int { try inner.availableFrames() }
    func delayFrames() throws(AudioOutputError) -> Int { try inner.delayFrames() }
    func timing() throws(AudioOutputError) -> OutputTiming { try inner.timing() }
    func waitForRoom(timeoutMilliseconds: Int) throws(AudioOutputError) -> Bool {
        try inner.waitForRoom(timeoutMilliseconds: timeoutMilliseconds)
    }
    func drain() throws(AudioOutputError) { try inner.drain() }
    func close() { inner.close() }

    func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioOutputError) -> Int {
        let t = now()
        let accepted = try inner.write(samples)
        let loud = samples.prefix(accepted * format.channels).contains { $0 != 0 }
        if loud {
            lastLoud.store(t, ordering: .relaxed)
            if armed.load(ordering: .acquiring) != 0, stamped.load(ordering: .relaxed) == 0 {
                stamped.store(t, ordering: .releasing)
            }
        }
        return accepted
    }
}

extension Bench {
    struct StartLatency: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Time from player.start(atTime: immediate) to the write holding the event's first frame.")

        @OptionGroup var device: DeviceArguments
        @Option(help: "How many starts to measure.") var runs = 200

        func run() throws {
            let output = StampingOutput(try device.open())
            let engine = HapticEngine(output: output, configuration: device.configuration)
            let pattern = try AHAP.decode(
                Array(
                    #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient","EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1}]}}]}"#
                        .utf8))
            let player = try engine.makePlayer(pattern.pattern)
            let load = try BusyLoops(count: device.load)
            defer { load.stop() }
            try engine.start()
            usleep(300_000)  // past the pulse plugin's start-up prebuffering
            var latencies: [Double] = []
            var generator = SystemRandomNumberGenerator()
            for _ in 0..<runs {
                // Wait for silence (30 ms without a loud write), then a random phase within a tick.
                while now() - output.lastLoud.load(ordering: .relaxed) < 30_000_000 { usleep(2_000) }
                usleep(UInt32.random(in: 0..<UInt32(engine.tickIntervalNanoseconds / 1000), using: &generator))
                output.stamped.store(0, ordering: .relaxed)
                let t0 = now()
                output.armed.store(t0, ordering: .releasing)
                try player.start(atTime: HapticEngine.timeImmediate)
                while output.stamped.load(ordering: .acquiring) == 0 { usleep(200) }
                latencies.append(Double(output.stamped.load(ordering: .acquiring) - t0) / 1e6)
                output.armed.store(0, ordering: .releasing)
            }
            engine.stop()
            print(
                "start latency: tick \(Double(engine.tickIntervalNanoseconds) / 1e6) ms, latency \(device.latency) ms, load \(device.load): \(percentiles(latencies))"
            )
            print("start latency: underruns \(engine.underrunCount)")
        }
    }
}

// MARK: - CPU and many players

extension Bench {
    struct CPU: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Process CPU while one player loops a pattern in real time.")

        @OptionGroup var device: DeviceArguments
        @Argument(help: "The AHAP file to loop.") var pattern = "Patterns/examples/rising-falling.ahap"
        @Option(help: "How long to play.") var seconds = 20.0

        func run() throws {
            let run = try loopPlayers(pattern, count: 1, seconds: seconds, device: device)
            print(
                String(
                    format: "cpu: %@ looped %.1f s: %.3f s CPU = %.2f%% of one core; underruns %d",
                    pattern, run.wall, run.cpu, 100 * run.cpu / run.wall, run.underruns))
        }
    }

    struct Players: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Many simultaneous looping players: underruns and CPU.")

        @OptionGroup var device: DeviceArguments
        @Argument(help: "The AHAP file every player loops.") var pattern = "Patterns/examples/rising-falling.ahap"
        @Option(help: "Players.") var count = 256
        @Option(help: "How long to play.") var seconds = 10.0

        func run() throws {
            let run = try loopPlayers(pattern, count: count, seconds: seconds, device: device)
            print(
                String(
                    format: "players: %d looping %@ for %.1f s at %d ms latency: underruns %d, CPU %.1f%% of one core",
                    count, pattern, run.wall, device.latency, run.underruns, 100 * run.cpu / run.wall))
        }
    }
}

/// What looping players cost: `count` players loop `pattern` (starts spread so their voices
/// overlap rather than move in lockstep), measured for `seconds` after a short warm-up.
func loopPlayers(
    _ pattern: String, count: Int, seconds: Double, device: DeviceArguments
) throws -> (cpu: Double, wall: Double, underruns: Int) {
    let file = try PatternFile.load(pattern)
    let engine = HapticEngine(
        output: try device.open(), configuration: device.configuration, ticks: device.tickSource(label: "haptic-bench"))
    let players = try (0..<count).map { _ in try engine.makeAdvancedPlayer(file.pattern, clips: file.clips) }
    try engine.start()
    for (k, player) in players.enumerated() {
        player.loopEnabled = true
        try player.start(atTime: engine.currentTime + 0.1 + Double(k) * 0.0007)
    }
    usleep(500_000)
    let cpu0 = processCPUSeconds(), wall0 = now()
    usleep(UInt32(seconds * 1e6))
    let cpu = processCPUSeconds() - cpu0, wall = Double(now() - wall0) / 1e9
    engine.stop()
    return (cpu, wall, engine.underrunCount)
}
