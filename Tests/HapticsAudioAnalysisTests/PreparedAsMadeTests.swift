import HapticsCore
import Testing
import _HapticsTestSupport

@testable import HapticsAudioAnalysis
@testable import HapticsSynthesis

@Suite("Audio to haptics: prepared as the analysis makes it")
struct PreparedAsMadeTests {
    @Test(
        "The streamed elements, prepared as they come, play the whole pattern's samples",
        arguments: streamedSettings)
    func sameSamples(name: String, seconds: Double, rate: Int, options: AudioHapticsOptions) throws {
        let (options, bytes, clips) = playedSetting(seconds: seconds, rate: rate, options: options)
        let whole = try convert(bytes, options).pattern
        let builder = PreparedPattern.Builder()
        var elements: [PatternElement] = []
        let summary = try AudioHaptics.convert(AudioFileReader(bytes: bytes, name: "test.wav"), options: options) {
            builder.add($0)
            elements.append($0)
        }
        #expect(elements == whole.elements, "\(name)")
        #expect(summary.transients == whole.events.count { $0.type == .hapticTransient })
        let format = AudioFormat(sampleRate: 48_000, channels: 2)
        let expected = try Synthesizer.prepare(whole, clips: clips, format: format, voicing: .standard)
        let made = try builder.finish(format: format, voicing: .standard, clips: clips)
        #expect(made.frameCount == expected.frameCount, "\(name)")
        #expect(made.eventCount == expected.eventCount, "\(name)")
        let times = made.storage.events.map { (event: PreparedEvent) in event.time }
        #expect(times == expected.storage.events.map { (event: PreparedEvent) in event.time }, "\(name)")
        for id in DynamicParameterID.all {
            let got: [ParameterTimeline.Knot] = Array(made.storage.knots[id])
            let knots: [ParameterTimeline.Knot] = Array(expected.storage.knots[id])
            #expect(got == knots, "\(name): \(id)")
        }
        // 12 s from the start, and from a time inside a continuous event and its curves (`--from`):
        // the events and knots are the same throughout (above), so this checks how they play.
        for offset in [0, seconds * 0.55 + 0.0123] {
            let frames = min(12 * 48_000, Int(expected.frameCount) - Int(offset * 48_000))
            let at = firstDifference(made, expected, format: format, offset: offset, frames: frames)
            #expect(at == nil, "\(name), from \(offset) s: differs at frame \(at ?? -1)")
        }
    }
}
