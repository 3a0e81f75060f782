import Foundation
import HapticsEngine
import Testing

@testable import HapticsSystem

/// What `HAPTIC_DEVICE` and `HAPTIC_CHANNEL_MAP` select, and that a value that cannot be used is
/// reported when the output is opened rather than ignored.
@Suite struct OutputSelectionTests {
    /// A scratch `/proc` whose `asound/cards` lists no card.
    static func procWithoutCards() throws -> String {
        let root = FileManager.default.temporaryDirectory.appending(path: "haptic-proc-\(UUID().uuidString)")
        let asound = root.appending(path: "asound")
        try FileManager.default.createDirectory(at: asound, withIntermediateDirectories: true)
        try Data("--- no soundcards ---\n".utf8).write(to: asound.appending(path: "cards"))
        return root.path(percentEncoded: false)
    }

    @Test func aDualSenseThatIsNotConnectedIsReportedWhenOpened() throws {
        let selection = OutputSelection(
            environment: ["HAPTIC_DEVICE": "dualsense", "HAPTIC_PROC_ROOT": try Self.procWithoutCards()])
        #expect(selection.destination == .device("dualsense"))
        #expect(!selection.canPlay())
        let error = #expect(throws: AudioOutputError.self) { try selection.open() }
        #expect(error?.code == .deviceNotFound)
        #expect(
            error?.message.hasPrefix("no DualSense found: no sound card with USB id 054c:0ce6 or 054c:0df2") == true)
    }

    @Test func aChannelMapThatIsNotAMapIsReportedWhenOpened() throws {
        for (text, message) in [
            ("4:9", "HAPTIC_CHANNEL_MAP: channel 9 is not one of the device's 1...4"),
            ("four", "HAPTIC_CHANNEL_MAP: 'four' is not CHANNELS:HAPTIC[:PREVIEW], e.g. 4:3,4 or 4:3,4:1,2"),
            ("4:3,3", "HAPTIC_CHANNEL_MAP: a channel is named twice in 3,3"),
        ] {
            let selection = OutputSelection(environment: ["HAPTIC_DEVICE": "null", "HAPTIC_CHANNEL_MAP": text])
            let error = #expect(throws: AudioOutputError.self, "\(text)") { try selection.open() }
            #expect(error?.code == .unsupportedConfiguration, "\(text)")
            #expect(error?.device == "null", "\(text)")
            #expect(error?.message == message, "\(text)")
            #expect(!selection.canPlay(), "\(text)")
        }
    }

    @Test func aGoodChannelMapIsUsedAndACaptureIgnoresTheDeviceVariables() throws {
        let mapped = OutputSelection(environment: ["HAPTIC_DEVICE": "null", "HAPTIC_CHANNEL_MAP": "4:3,4:1,2"])
        #expect(mapped.configurationError == nil)
        #expect(
            mapped.channelMap == (try ChannelMap(deviceChannels: 4, hapticChannels: [3, 4], previewChannels: [1, 2])))
        #expect(mapped.description == "ALSA device null (channel map 4:3,4:1,2)")
        let capture = OutputSelection(
            environment: [
                "HAPTIC_OUTPUT": "/tmp/x.wav", "HAPTIC_DEVICE": "dualsense", "HAPTIC_CHANNEL_MAP": "nonsense",
            ])
        #expect(capture.destination == .file("/tmp/x.wav") && capture.configurationError == nil)
    }
}
