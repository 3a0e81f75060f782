import HapticsCore
import HapticsEngine
import HapticsSynthesis
import HapticsTesting
import SensoryFeedback
import Testing

@Suite struct FeedbackPlayerTests {
    @Test func playsThePresetAtOnce() throws {
        let rig = ManualEngineDriver()
        let player = try FeedbackPlayer(engine: rig.engine)
        rig.advance(by: .seconds(0.05))
        let before = rig.output.framesWritten
        player.play(.success)
        rig.advance(by: .seconds(0.3))
        let samples = rig.output.samples
        let starts = AudioAnalysis.onsets(samples, channels: 1, threshold: 1e-3, minGapFrames: 960)
        #expect(starts.count == 2)
        #expect(starts.first == Int(before), "the first tap lands on the first frame rendered after play")
        #expect(starts.count == 2 && starts[1] - starts[0] == 4_800)
        #expect(player.lastError == nil)
    }

    @Test func intensityScalesAnImpact() throws {
        func peak(_ feedback: SensoryFeedback) throws -> Float {
            let rig = ManualEngineDriver()
            let player = try FeedbackPlayer(engine: rig.engine)
            player.play(feedback)
            rig.advance(by: .seconds(0.1))
            return AudioAnalysis.peak(rig.output.samples)
        }
        let full = try peak(.impact(weight: .heavy, intensity: 1))
        let half = try peak(.impact(weight: .heavy, intensity: 0.5))
        let none = try peak(.impact(weight: .heavy, intensity: 0))
        #expect(full > 0.1)
        #expect(half < full * 0.8 && half > full * 0.2)
        #expect(none < 1e-4)
    }

    @Test func replaysWithANewIntensity() throws {
        let rig = ManualEngineDriver()
        let player = try FeedbackPlayer(engine: rig.engine)
        player.play(.impact(weight: .medium, intensity: 0.3))
        rig.advance(by: .seconds(0.1))
        let split = rig.output.samples.count
        player.play(.impact(weight: .medium, intensity: 1))
        rig.advance(by: .seconds(0.1))
        let samples = rig.output.samples
        #expect(AudioAnalysis.peak(Array(samples[..<split])) < AudioAnalysis.peak(Array(samples[split...])) * 0.6)
    }
}
