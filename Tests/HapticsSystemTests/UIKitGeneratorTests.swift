import Dispatch
import Foundation
import HapticsEngine
import HapticsSynthesis
import HapticsSystem
import SensoryFeedback
import Synchronization
import Testing

/// A sink that remembers what it was asked to play.
final class RecordingSink: FeedbackSink {
    private let played = Mutex<[SensoryFeedback]>([])
    var feedbacks: [SensoryFeedback] { played.withLock { $0 } }
    func play(_ feedback: SensoryFeedback) { played.withLock { $0.append(feedback) } }
}

@Suite struct UIKitGeneratorTests {
    @Test func uikitGeneratorsMapToPresetsAndClamp() {
        let sink = RecordingSink()
        UIImpactFeedbackGenerator(style: .heavy, sink: sink).impactOccurred(intensity: 1.7)
        UIImpactFeedbackGenerator(style: .soft, sink: sink).impactOccurred(intensity: -0.5)
        UIImpactFeedbackGenerator(style: .rigid, sink: sink).impactOccurred()
        UIImpactFeedbackGenerator(sink: sink).impactOccurred(intensity: 0.25)
        let notification = UINotificationFeedbackGenerator(sink: sink)
        notification.notificationOccurred(.success)
        notification.notificationOccurred(.warning)
        notification.notificationOccurred(.error)
        UISelectionFeedbackGenerator(sink: sink).selectionChanged()
        #expect(
            sink.feedbacks == [
                .impactWeight(.heavy, intensity: 1), .impactFlexibility(.soft, intensity: 0),
                .impact(flexibility: .rigid),
                .impact(weight: .medium, intensity: 0.25), .success, .warning, .error, .selection,
            ])
        #expect(
            sink.feedbacks.map(\.presetName) == [
                "impact-heavy", "impact-soft", "impact-rigid", "impact-medium", "success", "warning", "error",
                "selection",
            ])
    }
}

@Suite struct SystemFeedbackTests {
    @Test func environmentOutputCapturesTheFeedbackToAWAVFile() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "system-feedback-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appending(path: "out.wav").path(percentEncoded: false)
        do {
            let player = try FeedbackPlayer(environment: ["HAPTIC_OUTPUT": path])
            // The capture is paced to real time: wait (bounded) until the feedback has been heard.
            let finished = DispatchSemaphore(value: 0)
            player.engine.notifyWhenPlayersFinished { _ in
                finished.signal()
                return .stopEngine
            }
            player.play(.success)
            #expect(finished.wait(timeout: .now() + 5) == .success, "the feedback finishes playing")
            player.engine.stop()
            player.engine.output.close()
        }
        let clip = try WAV.decode(Array(try Data(contentsOf: URL(filePath: path))))
        let onsets = AudioAnalysis.onsets(clip.samples, channels: clip.channels, minGapFrames: 960)
        #expect(onsets.count == 2)
        if onsets.count == 2 {
            let gap = Double(onsets[1] - onsets[0]) / Double(clip.sampleRate)
            #expect(abs(gap - 0.1) < 0.002, "the second tap of .success is 100 ms after the first")
        }
    }
}
