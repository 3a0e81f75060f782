import Foundation
import HapticsALSA
import HapticsCore
import HapticsEngine
import HapticsSynthesis
import SensoryFeedback
import Synchronization

/// Small built-in patterns for each `SensoryFeedback`, used by `haptic order` until the
/// engine-backed `FeedbackPlayer` and its preset AHAP files replace them.
enum BuiltInFeedback {
    /// The pattern `feedback` plays: a few transients (or a short continuous buzz), under 0.2 s.
    static func pattern(for feedback: SensoryFeedback) -> HapticPattern {
        switch feedback {
        case .success: return transients([(0, 0.6, 0.5), (0.1, 1.0, 0.7)])
        case .warning: return transients([(0, 0.8, 0.4), (0.12, 0.8, 0.4)])
        case .error: return transients([(0, 0.9, 0.6), (0.07, 0.9, 0.6), (0.14, 1.0, 0.8)])
        case .selection: return transients([(0, 0.5, 0.8)])
        case .increase: return transients([(0, 0.6, 0.7)])
        case .decrease: return transients([(0, 0.6, 0.3)])
        case .start: return buzz(intensity: 0.6, sharpness: 0.6)
        case .stop: return buzz(intensity: 0.6, sharpness: 0.2)
        case .alignment: return transients([(0, 0.4, 1.0)])
        case .levelChange: return transients([(0, 0.7, 0.5), (0.05, 0.9, 0.6)])
        case .pathComplete: return transients([(0, 0.5, 0.4), (0.08, 0.7, 0.5), (0.16, 0.9, 0.6)])
        case .impact: return transients([(0, 1.0, 0.5)])
        case .impactWeight(let weight, let intensity):
            let (scale, sharpness): (Double, Double) =
                switch weight {
                case .light: (0.5, 0.8)
                case .medium: (0.75, 0.5)
                case .heavy: (1.0, 0.3)
                }
            return transients([(0, scale * intensity, sharpness)])
        case .impactFlexibility(let flexibility, let intensity):
            let sharpness: Double =
                switch flexibility {
                case .rigid: 0.9
                case .solid: 0.6
                case .soft: 0.2
                }
            return transients([(0, intensity, sharpness)])
        }
    }

    private static func transients(_ list: [(time: Double, intensity: Double, sharpness: Double)]) -> HapticPattern {
        HapticPattern(
            elements: list.map {
                .event(
                    HapticEvent(
                        time: $0.time, type: .hapticTransient,
                        parameters: [.init(.hapticIntensity, Float($0.intensity)), .init(.hapticSharpness, Float($0.sharpness))]))
            })
    }

    private static func buzz(intensity: Float, sharpness: Float) -> HapticPattern {
        HapticPattern(elements: [
            .event(
                HapticEvent(
                    time: 0, type: .hapticContinuous, duration: 0.08,
                    parameters: [.init(.hapticIntensity, intensity), .init(.hapticSharpness, sharpness)]))
        ])
    }
}

/// The CLI's feedback sink: each feedback starts a player on a running `HapticEngine` at
/// once. A stand-in adapter until the shared `FeedbackPlayer` lands; swap it in `make`.
final class EngineFeedbackSink: FeedbackSink {
    let engine: HapticEngine
    /// Players still sounding, kept alive until their pattern has played (dropping a player frees its voice layer).
    private let playing = Mutex<[(player: Player, end: Double)]>([])

    init(output: any AudioOutput) throws(HapticEngineError) {
        engine = HapticEngine(output: output)
        engine.isAutoShutdownEnabled = false
        try engine.start()
    }

    /// A sink on `device` (`null`: a silent output that keeps real time), falling back to
    /// the null output with a warning when the device cannot be opened.
    static func make(device: DeviceOptions) -> EngineFeedbackSink {
        let output: any AudioOutput
        if device.device == "null" {
            output = NullOutput()
        } else {
            do {
                output = try device.open()
            } catch {
                Terminal.printError("haptic: no usable audio device (\(error)); feedback stays silent")
                output = NullOutput()
            }
        }
        do {
            return try EngineFeedbackSink(output: output)
        } catch {
            Terminal.fail("cannot start the haptic engine: \(error)")
        }
    }

    func play(_ feedback: SensoryFeedback) {
        let pattern = BuiltInFeedback.pattern(for: feedback)
        do {
            let player = try engine.makePlayer(pattern)
            try player.start(atTime: HapticEngine.timeImmediate)
            let now = engine.currentTime
            playing.withLock { list in
                list.removeAll { $0.end < now }
                list.append((player, now + pattern.duration + 0.5))
            }
        } catch {
            Terminal.printError("haptic: cannot play \(feedback): \(error)")
        }
    }

    /// Waits until every feedback started so far has been heard, then stops the engine.
    func finish() {
        let end = playing.withLock { $0.map(\.end).max() } ?? 0
        let remaining = end - 0.5 - engine.currentTime
        if remaining > 0 { Thread.sleep(forTimeInterval: remaining + Double(engine.output.bufferFrames) / Double(engine.format.sampleRate)) }
        engine.stop()
    }
}
