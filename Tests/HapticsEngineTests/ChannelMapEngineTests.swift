import HapticsCore
import HapticsEngine
import HapticsSynthesis
import HapticsTesting
import Testing

/// The engine on a device wider than stereo: the haptic signal, voiced for actuators, on the
/// mapped channels; the preview (the ordinary render) on its own; silence everywhere else.
@Suite struct ChannelMapEngineTests {
    static let pattern = HapticPattern(elements: [
        .event(HapticEvent(time: 0, type: .hapticTransient, parameters: [.init(.hapticIntensity, 1)])),
        .event(
            HapticEvent(
                time: 0.05, type: .hapticContinuous, duration: 0.1,
                parameters: [.init(.hapticIntensity, 0.7), .init(.hapticSharpness, 0.8)])),
    ])

    /// Channel `channel` (0-based) of `channels`-wide interleaved `samples`.
    static func channel(_ samples: [Float], _ channel: Int, of channels: Int) -> [Float] {
        stride(from: channel, to: samples.count, by: channels).map { samples[$0] }
    }

    /// Plays the pattern at 0.1 s on a 6-channel device mapped `map`, in ticks of `tickFrames`.
    static func play(_ map: ChannelMap, tickFrames: Int) throws -> [Float] {
        let rig = ManualEngineDriver(
            format: AudioFormat(sampleRate: 48_000, channels: map.deviceChannels), tickFrames: tickFrames,
            channelMap: map)
        try rig.engine.start()
        let player = try rig.engine.makePlayer(Self.pattern)
        try player.start(atTime: 0.1)
        rig.advance(by: .seconds(0.5))
        return rig.samples
    }

    @Test(arguments: [192, 61, 1_500])
    func everyChannelHoldsItsOfflineRenderSampleForSample(tickFrames: Int) throws {
        let map = try ChannelMap(deviceChannels: 6, hapticChannels: [5, 3], previewChannels: [1, 2])
        let samples = try Self.play(map, tickFrames: tickFrames)
        let stereo = AudioFormat(sampleRate: 48_000, channels: 2)
        let actuator = try PatternRenderer.render(Self.pattern, format: stereo, voicing: .actuator)
        let preview = try PatternRenderer.render(Self.pattern, format: stereo, voicing: .standard)
        let sources: [(device: Int, offline: [Float], channel: Int)] = [
            (4, actuator, 0), (2, actuator, 1), (0, preview, 0), (1, preview, 1),
        ]
        for (device, offline, source) in sources {
            let live = Self.channel(samples, device, of: 6)
            let expected = Self.channel(offline, source, of: 2)
            #expect(live.prefix(4_800).allSatisfy { $0 == 0 }, "channel \(device + 1) before the pattern")
            #expect(Array(live.dropFirst(4_800).prefix(expected.count)) == expected, "channel \(device + 1)")
            #expect(live.dropFirst(4_800 + expected.count).allSatisfy { $0 == 0 })
        }
        #expect(Self.channel(samples, 3, of: 6).allSatisfy { $0 == 0 }, "channel 4 is not mapped")
        #expect(Self.channel(samples, 5, of: 6).allSatisfy { $0 == 0 }, "channel 6 is not mapped")
        #expect(actuator != preview)
    }

    @Test func withoutAPreviewOnlyTheActuatorChannelsSound() throws {
        let samples = try Self.play(.dualSense(preview: false), tickFrames: 192)
        #expect(samples.count % 4 == 0)
        for silent in [0, 1] { #expect(Self.channel(samples, silent, of: 4).allSatisfy { $0 == 0 }) }
        for loud in [2, 3] { #expect(Self.channel(samples, loud, of: 4).contains { $0 != 0 }) }
    }

    @Test func channelMapsParseAndRefuseWhatCannotBe() throws {
        #expect(try ChannelMap(parsing: "4:3,4") == .dualSense())
        #expect(try ChannelMap(parsing: "4:3,4:1,2") == .dualSense(preview: true))
        #expect(ChannelMap.dualSense().withPreview(true) == .dualSense(preview: true))
        #expect(try ChannelMap(parsing: "4:3").withPreview(true).previewChannels == [1])
        #expect(ChannelMap.dualSense(preview: true).description == "4:3,4:1,2")
        let bad = ["4", "4:3,5", "4:3,3", "4:1,2,3", "x:1", "4:1:2,3,4", "33:1"]
        for text in bad {
            #expect(throws: ChannelMapError.self, "\(text)") { try ChannelMap(parsing: text) }
        }
    }
}
