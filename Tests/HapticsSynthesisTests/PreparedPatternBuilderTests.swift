import Foundation
import HapticsCore
import Testing
import _HapticsTestSupport

@testable import HapticsSynthesis

@Suite("PreparedPattern.Builder: a pattern prepared from its elements as they come")
struct PreparedPatternBuilderTests {
    /// Every way a timeline is compiled: steps, curves whose first point comes later (a ramp from
    /// the value in force), a curve cut by the next element, equal start times (the later wins),
    /// an empty curve (it only lengthens the pattern), several controls interleaved, events in
    /// and out of time order, and AudioCustom events with a clip, a feed-less missing clip and
    /// the same clip twice.
    static func pattern(eventsInOrder: Bool) -> HapticPattern {
        func curve(_ id: DynamicParameterID, _ time: Double, _ points: [(Double, Float)]) -> PatternElement {
            .curve(ParameterCurve(id, time: time, controlPoints: points.map { .init(time: $0.0, value: $0.1) }))
        }
        var elements: [PatternElement] = [
            .event(
                HapticEvent(
                    time: 0, type: .audioCustom, parameters: [.init(.audioVolume, 0.7)], waveformPath: "tone.wav")),
            .event(
                HapticEvent(
                    time: 0.05, type: .hapticContinuous, duration: 1.4,
                    parameters: [.init(.hapticIntensity, 0.9), .init(.hapticSharpness, 0.3)])),
            curve(.hapticIntensityControl, 0.05, [(0.1, 0.2), (0.3, 1), (0.5, 0.4)]),
            curve(.hapticSharpnessControl, 0.1, [(0, 0.1), (0.9, -0.3)]),
            .parameter(DynamicParameter(.hapticIntensityControl, value: 0.6, time: 0.3)),
            .parameter(DynamicParameter(.hapticIntensityControl, value: 0.8, time: 0.3)),
            curve(.hapticIntensityControl, 0.45, [(0.2, 0.1), (0.6, 0.9)]),
            curve(.audioVolumeControl, 0.5, []),
            curve(.audioVolumeControl, 0.6, [(0, 1), (0.2, 0.3)]),
            .event(HapticEvent(time: 0.7, type: .audioCustom, waveformPath: "missing.wav")),
            .event(HapticEvent(time: 0.8, type: .audioCustom, duration: 0.1, waveformPath: "tone.wav")),
            .event(
                HapticEvent(
                    time: 1.0, type: .hapticTransient,
                    parameters: [.init(.hapticIntensity, 1), .init(.hapticSharpness, 0.8)])),
            .parameter(DynamicParameter(.hapticSharpnessControl, value: 0.2, time: 1.2)),
            .event(HapticEvent(time: 1.25, type: .hapticTransient, parameters: [.init(.hapticIntensity, 0.5)])),
            .event(HapticEvent(time: 1.25, type: .audioContinuous, duration: 0.3)),
        ]
        if !eventsInOrder {
            elements.append(.event(HapticEvent(time: 0.2, type: .hapticTransient)))
        }
        return HapticPattern(elements: elements)
    }

    static let tone = AudioClip(
        sampleRate: 44_100, channels: 1,
        samples: (0..<44_100).map { Float(sin(Double($0) * 0.05)) * 0.5 })

    @Test("The builder prepares the events, knots and length prepare() makes of the whole", arguments: [true, false])
    func sameAsWhole(eventsInOrder: Bool) throws {
        let pattern = Self.pattern(eventsInOrder: eventsInOrder)
        let format = AudioFormat(sampleRate: 48_000, channels: 2)
        let clips = ["tone.wav": Self.tone]
        let whole = try Synthesizer.prepare(pattern, clips: clips, format: format, voicing: .standard)
        let builder = PreparedPattern.Builder()
        for element in pattern.elements { builder.add(element) }
        let made = try builder.finish(format: format, voicing: .standard, clips: clips)
        #expect(made.frameCount == whole.frameCount)
        #expect(made.duration == whole.duration)
        #expect(made.eventCount == whole.eventCount)
        let madeEvents: [PreparedEvent] = made.storage.events
        let wholeEvents: [PreparedEvent] = whole.storage.events
        let times = madeEvents.map { (event: PreparedEvent) in event.time }
        #expect(times == wholeEvents.map { (event: PreparedEvent) in event.time })
        let slots = madeEvents.map { (event: PreparedEvent) in event.clip }
        #expect(slots == wholeEvents.map { (event: PreparedEvent) in event.clip })
        #expect(slots.contains(0) && slots.contains(-1))
        #expect(made.storage.clips.count == whole.storage.clips.count)
        for id in DynamicParameterID.all {
            let got: [ParameterTimeline.Knot] = Array(made.storage.knots[id])
            let expected: [ParameterTimeline.Knot] = Array(whole.storage.knots[id])
            #expect(got == expected, "\(id)")
        }
        let intensity: UnsafeBufferPointer<ParameterTimeline.Knot> = made.storage.knots[
            DynamicParameterID.hapticIntensityControl]
        #expect(intensity.count > 5)
        let frames = Int(whole.frameCount)
        for offset in [0, 0.61] {
            #expect(
                firstDifference(made, whole, format: format, offset: offset, frames: frames, layer: 3, block: 777)
                    == nil)
        }
    }

    @Test("A time that is no frame position fails at the end, as prepare() fails")
    func frameRange() {
        let format = AudioFormat(sampleRate: 48_000)
        for bad in [Double.infinity, 1e300] {
            let builder = PreparedPattern.Builder()
            builder.add(.event(HapticEvent(time: 1, type: .hapticContinuous, duration: bad)))
            #expect(throws: FrameRangeError.self) {
                _ = try builder.finish(format: format, voicing: .standard)
            }
        }
    }
}
