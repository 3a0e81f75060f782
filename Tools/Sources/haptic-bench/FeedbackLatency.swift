import ArgumentParser
import Dispatch
import Foundation
import HapticsEngine
import HapticsSynthesis
import Observation
import SensoryFeedback
import Synchronization

// MARK: - Feedback latency

extension Bench {
    /// `haptic-bench feedback`: from an observed value's change to the first audible sample.
    struct FeedbackLatency: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "feedback",
            abstract: "Latency from an observed value's change to the first sample handed to the output.",
            discussion: """
                A FeedbackTrigger watches an @Observable value; each iteration changes it, runs the \
                update pass at once, and times until the engine (its real tick source, output paced \
                to real time, no device) writes the first audible sample of the selection preset.
                """)

        @Option(help: "How many changes to time.")
        var iterations = 500

        func validate() throws {
            guard iterations > 0 else { throw ValidationError("--iterations must be above 0") }
        }

        func run() throws {
            let probe = ProbeOutput(PacedOutput(NullOutput(format: AudioFormat(sampleRate: 48_000, channels: 1))))
            let engine = HapticEngine(output: probe)
            let player = try FeedbackPlayer(engine: engine)
            try player.prepare()
            let tick = Double(engine.tickIntervalNanoseconds) / 1e6
            let latencies = MainActor.assumeIsolated { measure(player: player, probe: probe) }
            engine.stop()
            let sorted = latencies.sorted()
            func percentile(_ p: Double) -> Double { sorted[min(sorted.count - 1, Int(p * Double(sorted.count)))] }
            print("feedback latency over \(sorted.count) changes (engine tick \(fixed(tick)) ms):")
            print(
                "  p50 \(fixed(percentile(0.5))) ms   p99 \(fixed(percentile(0.99))) ms   max \(fixed(sorted.last ?? 0)) ms"
            )
            print(percentile(0.99) <= tick ? "  p99 within one tick" : "  p99 ABOVE one tick")
        }

        @MainActor func measure(player: FeedbackPlayer, probe: ProbeOutput) -> [Double] {
            let model = BenchModel()
            let updates = ManualUpdates()
            let trigger = FeedbackTrigger(sink: player, feedback: .selection, updates: .manual(updates)) { model.value }
            var latencies: [Double] = []
            latencies.reserveCapacity(iterations)
            for i in 0..<iterations {
                // Let the previous tick's tail play out, then start at a random phase of the tick.
                usleep(40_000 + UInt32.random(in: 0..<4_000))
                let start = DispatchTime.now().uptimeNanoseconds
                probe.arm()
                model.value = i + 1
                updates.run()
                while !probe.fired { usleep(100) }
                latencies.append(Double(probe.firedAt - start) / 1e6)
            }
            _ = trigger
            return latencies
        }

        func fixed(_ value: Double) -> String {
            let hundredths = Int((value * 100).rounded())
            return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
        }
    }
}

/// The observed value whose changes the benchmark times.
@Observable final class BenchModel {
    var value = 0
}

/// Passes frames on and notes when the first audible sample after `arm()` is handed over.
final class ProbeOutput: AudioOutput {
    let wrapped: any AudioOutput
    private let armed = Atomic<Bool>(false)
    private let firedNanoseconds = Atomic<UInt64>(0)

    init(_ output: any AudioOutput) { wrapped = output }

    func arm() {
        firedNanoseconds.store(0, ordering: .releasing)
        armed.store(true, ordering: .releasing)
    }

    var fired: Bool { firedNanoseconds.load(ordering: .acquiring) != 0 }
    var firedAt: UInt64 { firedNanoseconds.load(ordering: .acquiring) }

    var name: String { wrapped.name }
    var format: AudioFormat { wrapped.format }
    var bufferFrames: Int { wrapped.bufferFrames }
    var periodFrames: Int { wrapped.periodFrames }
    func start() throws(AudioOutputError) { try wrapped.start() }
    func availableFrames() throws(AudioOutputError) -> Int { try wrapped.availableFrames() }
    func delayFrames() throws(AudioOutputError) -> Int { try wrapped.delayFrames() }
    func timing() throws(AudioOutputError) -> OutputTiming { try wrapped.timing() }
    func waitForRoom(timeoutMilliseconds: Int) throws(AudioOutputError) -> Bool {
        try wrapped.waitForRoom(timeoutMilliseconds: timeoutMilliseconds)
    }
    var framesWritten: Int64 { wrapped.framesWritten }
    var underrunCount: Int { wrapped.underrunCount }
    func drain() throws(AudioOutputError) { try wrapped.drain() }
    func close() { wrapped.close() }

    func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioOutputError) -> Int {
        if armed.load(ordering: .acquiring), samples.contains(where: { abs($0) > 1e-4 }) {
            armed.store(false, ordering: .relaxed)
            firedNanoseconds.store(DispatchTime.now().uptimeNanoseconds, ordering: .releasing)
        }
        return try wrapped.write(samples)
    }
}
