import Foundation
import HapticsALSA
import HapticsCore
import HapticsEngine
import HapticsSynthesis
import SensoryFeedback
import Synchronization

/// The order screen's feedback sink: the presets played by a `FeedbackPlayer` on a running
/// engine, remembering when the last one ends so the command can wait until it is heard.
final class EngineFeedbackSink: FeedbackSink {
    let engine: HapticEngine
    private let player: FeedbackPlayer
    /// Engine time at which the last feedback started so far has finished sounding.
    private let end = Mutex<Double>(0)

    init(output: any AudioOutput) throws(HapticEngineError) {
        engine = HapticEngine(output: output)
        engine.isAutoShutdownEnabled = false
        player = try FeedbackPlayer(engine: engine)
        try player.prepare()
    }

    /// A sink on `device` (`null`: a silent output that keeps real time), falling back to
    /// the null output with a warning when the device cannot be opened.
    static func make(device: DeviceOptions) throws -> EngineFeedbackSink {
        let output: any AudioOutput
        if device.device == "null" {
            output = NullOutput()
        } else {
            do {
                output = try device.open()
            } catch {
                // Asked for actuators: say so and stop, before the order touches the store.
                if device.wantsHaptics { throw Terminal.failure(error.description) }
                Terminal.printError("haptic: no usable audio device (\(error)); feedback stays silent")
                output = NullOutput()
            }
        }
        do {
            return try EngineFeedbackSink(output: output)
        } catch {
            throw Terminal.failure("cannot start the haptic engine: \(error)")
        }
    }

    func play(_ feedback: SensoryFeedback) {
        player.play(feedback)
        if let error = player.lastError { Terminal.printError("haptic: cannot play \(feedback): \(error)") }
        let finishes = engine.currentTime + feedback.preset.pattern.duration + 0.1
        end.withLock { $0 = max($0, finishes) }
    }

    /// Waits until every feedback started so far has been heard, then stops the engine.
    func finish() {
        let remaining = end.withLock { $0 } - engine.currentTime
        if remaining > 0 {
            Thread.sleep(
                forTimeInterval: remaining + Double(engine.output.bufferFrames) / Double(engine.format.sampleRate))
        }
        engine.stop()
        // A stalled device ends feedback early (the orders are saved regardless): say so once.
        if let error = engine.lastOutputError ?? engine.output.stallError {
            Terminal.printError("haptic: feedback stopped: \(error)")
        }
    }
}
