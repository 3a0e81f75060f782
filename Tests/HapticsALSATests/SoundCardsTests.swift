import Foundation
import Glibc
import HapticsEngine
import Testing

@testable import HapticsALSA

/// Recognising a DualSense from a fake `/proc/asound`, and what `--device NAME` resolves to.
@Suite struct SoundCardsTests {
    /// A scratch `/proc` holding `cards` and each card's files.
    static func fakeProc(cards: String, files: [String: String]) throws -> String {
        let root = FileManager.default.temporaryDirectory.appending(path: "haptic-proc-\(UUID().uuidString)")
        for (path, text) in files.merging(["asound/cards": cards], uniquingKeysWith: { $1 }) {
            let file = root.appending(path: path)
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(text.utf8).write(to: file)
        }
        return root.path(percentEncoded: false)
    }

    static let cards = """
         0 [PCH            ]: HDA-Intel - HDA Intel PCH
                              HDA Intel PCH at 0xf7f10000 irq 32
         1 [Controller     ]: USB-Audio - Wireless Controller
                              Sony Interactive Entertainment Wireless Controller at usb-0000:00:14.0-2, full speed

        """

    static let stream = """
        Sony Interactive Entertainment Wireless Controller at usb-0000:00:14.0-2, full speed : USB Audio

        Playback:
          Interface 1
            Format: S16_LE
            Channels: 4
            Rates: 48000

        Capture:
          Interface 2
            Channels: 2
        """

    @Test func aDualSenseIsFoundByItsUSBIDAndResolvesToItsOwnDevice() throws {
        let proc = try Self.fakeProc(
            cards: Self.cards,
            files: [
                "asound/card0/id": "PCH\n", "asound/card1/id": "Controller\n", "asound/card1/usbid": "054C:0DF2\n",
                "asound/card1/stream0": Self.stream,
            ])
        let scanned = SoundCards.scan(proc: proc)
        #expect(
            scanned == [
                SoundCard(index: 0, id: "PCH", name: "HDA Intel PCH"),
                SoundCard(
                    index: 1, id: "Controller", name: "Wireless Controller", usbID: "054c:0df2", playbackChannels: 4),
            ])
        #expect(scanned.map(\.haptic) == [nil, .dualSense])
        let alias = try SoundCards.resolve("DualSense", proc: proc)
        #expect(alias.device == "hw:CARD=Controller,DEV=0" && alias.map == .dualSense())
        for name in ["hw:CARD=Controller,DEV=0", "plughw:1", "hw:Controller"] {
            #expect(try SoundCards.resolve(name, proc: proc) == (name, .dualSense()), "\(name)")
        }
        for name in ["default", "hw:0", "plughw:CARD=PCH", "pulse"] {
            #expect(try SoundCards.resolve(name, proc: proc).map == nil, "\(name)")
        }
    }

    @Test func noCardNoDualSense() throws {
        let proc = try Self.fakeProc(cards: "--- no soundcards ---\n", files: [:])
        #expect(SoundCards.scan(proc: proc).isEmpty)
        #expect(SoundCards.scan(proc: proc + "/missing").isEmpty)
        let error = #expect(throws: AudioOutputError.self) { try SoundCards.resolve("dualsense", proc: proc) }
        #expect(error?.code == .deviceNotFound)
        #expect(
            error?.message.hasPrefix("no DualSense found: no sound card with USB id 054c:0ce6 or 054c:0df2") == true)
    }

    @Test func aDeviceThatGoesAwayWhilePlayingSaysSoNotThatItWasNeverThere() {
        let call = ALSACall(device: "hw:CARD=Controller,DEV=0")
        let gone = call.error(errorNumber: ENODEV, "play 240 frames")
        #expect(gone.code == .deviceNotFound)
        #expect(
            gone.message
                == "device 'hw:CARD=Controller,DEV=0' went away while in use (unplugged?): ALSA says 'No such device'")
        let missing = call.error(errorNumber: ENODEV, ALSACall.opening)
        #expect(missing.message.hasPrefix("device 'hw:CARD=Controller,DEV=0' not found"))
    }
}
