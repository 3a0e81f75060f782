import Foundation
import HapticsSynthesis
import Testing
import _ToolTestSupport

/// Transients of every sharpness and a continuous buzz: both halves of the actuator voicing.
private let actuatorPattern = """
    {"Version":1,"Pattern":[
    {"Event":{"Time":0.0,"EventType":"HapticTransient","EventParameters":[\
    {"ParameterID":"HapticIntensity","ParameterValue":1},{"ParameterID":"HapticSharpness","ParameterValue":0}]}},
    {"Event":{"Time":0.1,"EventType":"HapticTransient","EventParameters":[\
    {"ParameterID":"HapticIntensity","ParameterValue":0.7},{"ParameterID":"HapticSharpness","ParameterValue":1}]}},
    {"Event":{"Time":0.2,"EventType":"HapticContinuous","EventDuration":0.25,"EventParameters":[\
    {"ParameterID":"HapticIntensity","ParameterValue":0.8},{"ParameterID":"HapticSharpness","ParameterValue":0.5}]}}
    ]}
    """

/// Raw little-endian FLOAT_LE samples.
private func floats(_ path: String) throws -> [Float] {
    let bytes = try [UInt8](Data(contentsOf: URL(filePath: path)))
    return stride(from: 0, to: bytes.count - 3, by: 4).map { at in
        Float(
            bitPattern: UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16
                | UInt32(bytes[at + 3]) << 24)
    }
}

/// `haptic render PATTERN --channels 2 --format f32 EXTRA…` as interleaved stereo samples.
private func offlineStereo(_ pattern: String, _ extra: [String] = []) async throws -> [Float] {
    let result = try await Haptic.run(["render", pattern, "-o", "-", "--format", "f32", "--channels", "2"] + extra)
    try #require(result.status == 0, "\(result.stderr)")
    return try WAV.decode(result.stdout).samples
}

/// Channels `pair` (0-based) of `frames`, 4-channel interleaved, as interleaved stereo.
private func pair(_ samples: [Float], _ first: Int, channels: Int = 4) -> [Float] {
    stride(from: 0, to: samples.count - channels + 1, by: channels).flatMap {
        [samples[$0 + first], samples[$0 + first + 1]]
    }
}

/// `played` (interleaved stereo, a device's leading silence and all) holds `reference` exactly,
/// starting at frame `offset`, and silence everywhere else.
private func expect(_ played: [Float], holds reference: [Float], at offset: Int, _ what: String) {
    guard offset >= 0, offset + reference.count <= played.count else {
        Issue.record("\(what): capture of \(played.count) samples too short for \(reference.count) at \(offset)")
        return
    }
    let mismatches = (0..<reference.count).filter { played[offset + $0] != reference[$0] }
    #expect(mismatches.isEmpty, "\(what): \(mismatches.count) samples differ, first at \(mismatches.first ?? -1)")
    #expect(played[..<offset].allSatisfy { $0 == 0 }, "\(what): sound before the pattern")
    #expect(played[(offset + reference.count)...].allSatisfy { $0 == 0 }, "\(what): sound after the pattern")
}

/// Checks a 4-channel capture: the actuator render on 3-4; on 1-2 silence, or with `preview` the
/// ordinary render, starting on the same frame.
private func expectActuatorCapture(_ samples: [Float], pattern: String, preview: Bool) async throws {
    let haptic = pair(samples, 2)
    let actuator = try await offlineStereo(pattern, ["--voice", "actuator"])
    let start = try #require(haptic.firstIndex { $0 != 0 }, "nothing on channels 3-4")
    let first = try #require(actuator.firstIndex { $0 != 0 })
    let offset = (start - first) & ~1
    expect(haptic, holds: actuator, at: offset, "channels 3-4")
    let front = pair(samples, 0)
    if preview {
        expect(front, holds: try await offlineStereo(pattern), at: offset, "channels 1-2")
    } else {
        #expect(front.allSatisfy { $0 == 0 }, "channels 1-2 are not silent")
    }
}

/// An ALSA configuration file beside the defaults, for one test's devices.
private func alsaConfig(_ scratch: ScratchFolder, _ text: String) throws -> [String: String] {
    let conf = try scratch.write("asound.conf", text)
    let base = ProcessInfo.processInfo.environment["ALSA_CONFIG_PATH"] ?? "/usr/share/alsa/alsa.conf"
    return ProcessInfo.processInfo.environment.merging(["ALSA_CONFIG_PATH": base + ":" + conf]) { $1 }
}

/// `haptic play`, `feedback` and `devices` on multichannel devices, without hardware: ALSA's
/// `file` PCM with four channels, `plug` PCMs that refuse a channel count or a rate, and a fake
/// `/proc/asound` with a DualSense in it.
@Suite struct ActuatorCommandTests {
    @Test func actuatorChannelsCarryTheActuatorRenderAndTheOthersStaySilent() async throws {
        let scratch = try ScratchFolder()
        let pattern = try scratch.write("p.ahap", actuatorPattern)
        let capture = scratch.path("quad.raw")
        let environment = try alsaConfig(
            scratch, "pcm.quad { type file; slave.pcm \"null\"; file \"\(capture)\"; format \"raw\" }")
        let result = try await Haptic.run(
            ["play", pattern, "--device", "quad", "--channels", "4", "--haptic-channels", "3,4"],
            environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        try await expectActuatorCapture(try floats(capture), pattern: pattern, preview: false)
    }

    @Test func previewAudioPutsTheOrdinaryRenderOnChannelsOneAndTwo() async throws {
        let scratch = try ScratchFolder()
        let pattern = try scratch.write("p.ahap", actuatorPattern)
        let capture = scratch.path("quad.raw")
        let environment = try alsaConfig(
            scratch, "pcm.quad { type file; slave.pcm \"null\"; file \"\(capture)\"; format \"raw\" }")
        let result = try await Haptic.run(
            ["play", pattern, "--device", "quad", "--channels", "4", "--haptic-channels", "3,4", "--preview-audio"],
            environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        try await expectActuatorCapture(try floats(capture), pattern: pattern, preview: true)
    }

    @Test func feedbackPlaysOnTheActuatorChannelsToo() async throws {
        let scratch = try ScratchFolder()
        let capture = scratch.path("quad.raw")
        let environment = try alsaConfig(
            scratch, "pcm.quad { type file; slave.pcm \"null\"; file \"\(capture)\"; format \"raw\" }")
        let result = try await Haptic.run(
            ["feedback", "impact", "--device", "quad", "--channels", "4", "--haptic-channels", "3,4"],
            environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let samples = try floats(capture)
        #expect(samples.count % 4 == 0 && samples.count > 0)
        #expect(pair(samples, 2).contains { $0 != 0 }, "nothing on the actuators")
        #expect(pair(samples, 0).allSatisfy { $0 == 0 }, "sound on channels 1-2")
    }

    @Test func aDeviceWithFewerChannelsThanTheMapIsOneLineAndExitOne() async throws {
        let scratch = try ScratchFolder()
        let pattern = try scratch.write("p.ahap", actuatorPattern)
        let environment = try alsaConfig(scratch, "pcm.two { type plug; slave { pcm \"null\"; channels 2 } }")
        let result = try await Haptic.run(
            ["play", pattern, "--device", "two", "--channels", "4", "--haptic-channels", "3,4"],
            environment: environment)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "haptic: device 'two' has 2 channels, not the 4 the channel map 4:3,4 needs; "
                + "check --channels and --haptic-channels against `haptic devices`\n")
        #expect(result.stdout.isEmpty, "a preview was written instead")
    }

    @Test func aDeviceThatRefuses48kHzIsOneLineAndExitOne() async throws {
        let scratch = try ScratchFolder()
        let pattern = try scratch.write("p.ahap", actuatorPattern)
        let environment = try alsaConfig(scratch, "pcm.rate44 { type plug; slave { pcm \"null\"; rate 44100 } }")
        let result = try await Haptic.run(
            ["play", pattern, "--device", "rate44", "--channels", "4", "--haptic-channels", "3,4"],
            environment: environment)
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "haptic: device 'rate44' does not play at 48000 Hz (it plays 44100 Hz), and a haptic signal "
                + "is not resampled: pick a device that does (`haptic devices`)\n")
    }

    /// A device that fails after playing a while: the `file` PCM's writes fail once the process
    /// may write no more (`ulimit -f` 2048 blocks of 512 bytes, 1 MiB, about 1.4 s of 4-channel
    /// float; SIGXFSZ ignored across `exec`), as a controller's do once it is unplugged. Playback
    /// stops there with one line and exit status 1 instead of playing on into nothing.
    @Test func aDeviceThatFailsWhilePlayingStopsWithOneLineAndExitOne() async throws {
        let scratch = try ScratchFolder()
        let pattern = try scratch.write(
            "long.ahap",
            """
            {"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticContinuous","EventDuration":4,\
            "EventParameters":[{"ParameterID":"HapticIntensity","ParameterValue":1}]}}]}
            """)
        let capture = scratch.path("quad.raw")
        let environment = try alsaConfig(
            scratch, "pcm.quad { type file; slave.pcm \"null\"; file \"\(capture)\"; format \"raw\" }")
        let started = Date()
        let result = try await ChildProcess.run(
            "/bin/sh",
            [
                "-c", "trap '' XFSZ; ulimit -f 2048; exec \"$0\" \"$@\"", Haptic.executable.path(percentEncoded: false),
                "play", pattern, "--device", "quad", "--channels", "4", "--haptic-channels", "3,4",
            ], environment: environment)
        let said = result.stderr
        let seconds = Date().timeIntervalSince(started)
        #expect(result.status == 1, "\(said)")
        // ALSA's file plugin itself prints "ftruncate() failed: File too large" (past its error
        // handler, as aplay shows too): the simulation's own line, not ours.
        let ours = said.split(separator: "\n").filter { !$0.hasPrefix("ftruncate() failed") }
        #expect(ours.count == 1, "\(said)")
        #expect(
            ours.first?.hasPrefix("haptic: playback stopped: device 'quad' could not play") == true
                && ours.first?.contains("write failed") == true, "\(said)")
        #expect(seconds < 3.5, "played on for \(seconds) s after the device failed")
        #expect((try? Data(contentsOf: URL(filePath: capture)).count) == 1 << 20, "it failed at opening, not in play")
    }

    @Test func orderOnADeviceThatCannotTakeTheMapTouchesNeitherStoreNorLog() async throws {
        let scratch = try ScratchFolder()
        let script = try scratch.write("order.txt", "quantity 4\nsubmit\n")
        let environment = try alsaConfig(scratch, "pcm.two { type plug; slave { pcm \"null\"; channels 2 } }")
        let result = try await Haptic.run(
            [
                "order", "--store", scratch.path("store"), "--script", script, "--device", "two", "--channels", "4",
                "--haptic-channels", "3,4",
            ], environment: environment)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("haptic: device 'two' has 2 channels, not the 4"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.path("store")), "the store was created")
    }

    /// A fake `/proc/asound` with a DualSense as card 1 (and an ordinary card 0).
    private func fakeProc(_ scratch: ScratchFolder, usbID: String = "054c:0ce6") throws -> String {
        _ = try scratch.write(
            "proc/asound/cards",
            """
             0 [PCH            ]: HDA-Intel - HDA Intel PCH
                                  HDA Intel PCH at 0xf7f10000 irq 32
             1 [Controller     ]: USB-Audio - Wireless Controller
                                  Sony Interactive Entertainment Wireless Controller at usb-0000:00:14.0-2, full speed

            """)
        _ = try scratch.write("proc/asound/card0/id", "PCH\n")
        _ = try scratch.write("proc/asound/card1/id", "Controller\n")
        _ = try scratch.write("proc/asound/card1/usbid", "\(usbID)\n")
        _ = try scratch.write(
            "proc/asound/card1/stream0",
            """
            Sony Interactive Entertainment Wireless Controller at usb-0000:00:14.0-2, full speed : USB Audio

            Playback:
              Status: Stop
              Interface 1
                Altset 1
                Format: S16_LE
                Channels: 4
                Rates: 48000

            Capture:
              Interface 2
                Channels: 2
            """)
        return scratch.path("proc")
    }

    @Test func devicesNamesTheDualSenseByItsUSBIDs() async throws {
        for usb in ["054c:0ce6", "054c:0df2"] {
            let scratch = try ScratchFolder()
            let proc = try fakeProc(scratch, usbID: usb)
            let environment = ProcessInfo.processInfo.environment.merging(["HAPTIC_PROC_ROOT": proc]) { $1 }
            let result = try await Haptic.run(["devices"], environment: environment)
            #expect(result.status == 0, "\(result.stderr)")
            #expect(
                result.output.contains(
                    "haptic: card 1 'Controller' is a DualSense (USB \(usb)), 4 channels: actuators on channels 3,4; "
                        + "play with --device dualsense (hw:CARD=Controller,DEV=0)\n"), "\(result.output)")
            #expect(!result.output.contains("card 0"))
        }
        // Another Sony product is no DualSense.
        let scratch = try ScratchFolder()
        let proc = try fakeProc(scratch, usbID: "054c:09cc")
        let result = try await Haptic.run(
            ["devices"], environment: ProcessInfo.processInfo.environment.merging(["HAPTIC_PROC_ROOT": proc]) { $1 })
        #expect(!result.output.contains("haptic:"), "\(result.output)")
    }

    @Test func devicesShowsEachDevicesChannels() async throws {
        let scratch = try ScratchFolder()
        let environment = try alsaConfig(
            scratch,
            """
            pcm.haptic_two { type plug; slave { pcm "null"; channels 2 } hint { show on; description "two" } }
            """)
        let result = try await Haptic.run(["devices"], environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let line = try #require(result.output.split(separator: "\n").first { $0.hasPrefix("haptic_two ") })
        #expect(line.contains(" any "), "a converting plug takes any channel count: \(line)")
        #expect(result.stderr.isEmpty, "probing printed: \(result.stderr)")
    }

    @Test func dualsenseOpensTheCardsOwnDeviceAndNeverFallsBackToAPreview() async throws {
        let scratch = try ScratchFolder()
        let pattern = try scratch.write("p.ahap", actuatorPattern)
        let proc = try fakeProc(scratch)
        let environment = ProcessInfo.processInfo.environment.merging([
            "HAPTIC_PROC_ROOT": proc, "TMPDIR": scratch.url.path(percentEncoded: false),
        ]) { $1 }
        // The fake card has no ALSA device behind it: opening hw:CARD=Controller fails, and says so.
        let result = try await Haptic.run(["play", pattern, "--device", "dualsense"], environment: environment)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("haptic: device 'hw:CARD=Controller,DEV=0' not found"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1)
        #expect(!FileManager.default.fileExists(atPath: scratch.path("haptic-preview")))
        // No DualSense at all.
        let empty = try ScratchFolder()
        _ = try empty.write("proc/asound/cards", "--- no soundcards ---\n")
        let none = try await Haptic.run(
            ["play", pattern, "--device", "dualsense"],
            environment: environment.merging(["HAPTIC_PROC_ROOT": empty.path("proc")]) { $1 })
        #expect(none.status == 1)
        #expect(none.stderr.hasPrefix("haptic: no DualSense found: no sound card with USB id 054c:0ce6 or 054c:0df2"))
    }

    @Test func badChannelMapsAreRefusedBeforeAnythingOpens() async throws {
        let scratch = try ScratchFolder()
        let pattern = try scratch.write("p.ahap", actuatorPattern)
        let cases: [([String], String)] = [
            (["--channels", "4"], "--channels 4 needs --haptic-channels"),
            (["--haptic-channels", "3,4"], "--haptic-channels needs --channels"),
            (["--channels", "4", "--haptic-channels", "3,5"], "channel 5 is not one of the device's 1...4"),
            (["--channels", "4", "--haptic-channels", "3,3"], "a channel is named twice"),
            (["--channels", "4", "--haptic-channels", "1,2,3"], "one or two channels"),
        ]
        for (options, message) in cases {
            let result = try await Haptic.run(["play", pattern, "--device", "null"] + options)
            #expect(result.status == 64, "\(options): \(result.stderr)")
            #expect(result.stderr.contains(message), "\(options): \(result.stderr)")
        }
    }
}

/// The same checks played in real time: the rig's PulseAudio server with a 4-channel null sink,
/// reached through a `file` tap in front of the `pulse` PCM, so the device paces playback and
/// the tap keeps the exact stream.
@Suite(.serialized, .enabled(if: AudioRig.testsEnabled, "needs the audio rig: tools/audio-rig/with-rig swift test"))
struct ActuatorRigTests {
    @Test func liveOnAFourChannelSinkEqualsTheOfflineRenders() async throws {
        try AudioRig.require()
        for preview in [false, true] {
            let scratch = try ScratchFolder()
            let pattern = try scratch.write("p.ahap", actuatorPattern)
            let sink = try await Rig.Sink(channels: 4)
            let tap = scratch.path("tap.raw")
            let environment = try alsaConfig(
                scratch,
                """
                pcm.haptic_quad {
                    type file
                    slave.pcm { type pulse; device "\(sink.name)" }
                    file "\(tap)"
                    format "raw"
                }
                """)
            // Judged on a run without a stall of the machine as long as half the buffer: the
            // hypervisor's stalls are heard as gaps whatever we do (PlayThroughRigTests).
            let (result, seconds) = try await onAStillMachine(stallsBelow: 10) {
                let started = Date()
                let result = try await Haptic.run(
                    [
                        "play", pattern, "--device", "haptic_quad", "--channels", "4", "--haptic-channels", "3,4",
                        "--stats",
                    ]
                        + (preview ? ["--preview-audio"] : []), environment: environment)
                return (result, Date().timeIntervalSince(started))
            }
            #expect(result.status == 0, "\(result.stderr)")
            #expect(playStatistics(result.stderr)["underruns"] == 0, "\(result.stderr)")
            #expect(seconds >= 0.45, "not paced by the device")
            try await expectActuatorCapture(try floats(tap), pattern: pattern, preview: preview)
        }
    }
}
