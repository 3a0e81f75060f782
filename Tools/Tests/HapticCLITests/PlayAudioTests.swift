import Foundation
import HapticsSynthesis
import Testing
import _ToolTestSupport

/// `haptic play SOUND`: the sound and the haptics made from it, through ALSA's `file` PCM.
@Suite("haptic play: audio")
struct PlayAudioTests {
    let scratch: ScratchFolder
    init() throws { scratch = try ScratchFolder() }

    /// Where the clicks start, in frames at 48 kHz.
    static let clickFrames = [9_600, 24_000, 38_400]

    /// 10 ms decaying noise clicks at ``clickFrames`` in 1.2 s, 48 kHz mono, 16-bit WAV bytes; each
    /// click's first sample is its loudest (0.8), so the sound starts on that very frame.
    static func clicks() -> [UInt8] {
        var samples = [Float](repeating: 0, count: 57_600)
        var state: UInt64 = 11
        for start in clickFrames {
            for i in 0..<480 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let noise = i == 0 ? 1 : Float(Int64(bitPattern: state) >> 11) / Float(1 << 52)
                samples[start + i] = 0.8 * noise * Float(exp(-Double(i) / 96))
            }
        }
        return WAV.encode(AudioClip(sampleRate: 48_000, channels: 1, samples: samples), sampleFormat: .s16)
    }

    /// Raw little-endian FLOAT_LE samples.
    func floats(_ path: String) throws -> [Float] {
        let bytes = try [UInt8](Data(contentsOf: URL(filePath: path)))
        return stride(from: 0, to: bytes.count - 3, by: 4).map { at in
            Float(
                bitPattern: UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16
                    | UInt32(bytes[at + 3]) << 24)
        }
    }

    /// `haptic render PATTERN -o - --format f32 EXTRA…` as interleaved samples.
    func render(_ pattern: String, _ extra: [String] = []) async throws -> [Float] {
        let result = try await Haptic.run(["render", pattern, "-o", "-", "--format", "f32"] + extra)
        try #require(result.status == 0, "\(result.stderr)")
        return try WAV.decode(result.stdout).samples
    }

    /// Frames (of `channels`-channel `samples`, channel `channel`) where sound starts: above 0.01 after
    /// at least 50 ms at or below it.
    func onsets(_ samples: [Float], channel: Int, channels: Int) -> [Int] {
        var found: [Int] = []
        var quiet = 2_400
        for frame in 0..<(samples.count / channels) {
            if abs(samples[frame * channels + channel]) > 0.01 {
                if quiet >= 2_400 { found.append(frame) }
                quiet = 0
            } else {
                quiet += 1
            }
        }
        return found
    }

    @Test("On an ordinary output: the sound and its haptics mixed, as convert --with-audio and render make them")
    func mixed() async throws {
        try await expectPlayedAsRendered(try scratch.write("clicks.wav", Self.clicks()))
    }

    /// `haptic play SOUND` through ALSA's file PCM equals `haptic render` of the pattern
    /// `convert --with-audio` makes of it, sample for sample.
    func expectPlayedAsRendered(_ sound: String) async throws {
        let capture = scratch.path("capture.raw")
        let result = try await Haptic.run(["play", sound, "--device", "file:FILE=\(capture),FORMAT=raw"])
        #expect(result.status == 0, "\(result.stderr)")
        let converted = try await Haptic.run(["convert", sound, "-o", scratch.path("played.ahap"), "--with-audio"])
        try #require(converted.status == 0, "\(converted.stderr)")
        try await expectCapture(capture, equalsTheOfflineRenderOf: scratch.path("played.ahap"))
    }

    @Test("On four channels with actuators on 3-4: the sound alone on 1-2, the haptics alone on 3-4, in step")
    func split() async throws {
        let sound = try scratch.write("clicks.wav", Self.clicks())
        let capture = scratch.path("quad.raw")
        let conf = try scratch.write(
            "asound.conf", "pcm.quad { type file; slave.pcm \"null\"; file \"\(capture)\"; format \"raw\" }")
        let base = ProcessInfo.processInfo.environment["ALSA_CONFIG_PATH"] ?? "/usr/share/alsa/alsa.conf"
        let environment = ProcessInfo.processInfo.environment.merging(["ALSA_CONFIG_PATH": base + ":" + conf]) { $1 }
        let result = try await Haptic.run(
            ["play", sound, "--device", "quad", "--channels", "4", "--haptic-channels", "3,4"],
            environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let played = try floats(capture)
        let frames = played.count / 4

        // The sound: each click starts on its own frame, counted from where playback started.
        let heard = onsets(played, channel: 0, channels: 4)
        try #require(heard.count == Self.clickFrames.count, "sound onsets on channel 1: \(heard)")
        let start = heard[0] - Self.clickFrames[0]
        #expect(heard == Self.clickFrames.map { start + $0 }, "sound onsets \(heard), playback from frame \(start)")
        #expect(onsets(played, channel: 1, channels: 4) == heard)

        // The haptics: each onset within 10 ms (480 frames) of its click.
        let felt = onsets(played, channel: 2, channels: 4)
        #expect(felt.count == Self.clickFrames.count, "haptic onsets on channel 3: \(felt)")
        for (onset, click) in zip(felt, Self.clickFrames) {
            #expect(abs(onset - (start + click)) <= 480, "haptic onset at \(onset - start), click at \(click)")
        }

        // Exactly: 1-2 hold the sound alone, 3-4 the actuator render of the haptics alone.
        _ = try scratch.write(
            "sound.ahap",
            #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"AudioCustom","EventWaveformPath":"clicks.wav","#
                + #""EventParameters":[{"ParameterID":"AudioVolume","ParameterValue":1}]}}]}"#)
        let converted = try await Haptic.run(["convert", sound, "-o", scratch.path("haptics.ahap")])
        try #require(converted.status == 0, "\(converted.stderr)")
        let soundAlone = try await render(scratch.path("sound.ahap"), ["--channels", "2"])
        let hapticsAlone = try await render(scratch.path("haptics.ahap"), ["--channels", "2", "--voice", "actuator"])
        let checks: [(first: Int, reference: [Float], what: String)] = [
            (0, soundAlone, "channels 1-2"), (2, hapticsAlone, "channels 3-4"),
        ]
        for (first, reference, what) in checks {
            var pair: [Float] = []
            for frame in 0..<frames { pair += [played[frame * 4 + first], played[frame * 4 + first + 1]] }
            let at = 2 * start
            guard at + reference.count <= pair.count else {
                Issue.record("\(what): capture too short")
                continue
            }
            let differing = (0..<reference.count).filter { pair[at + $0] != reference[$0] }
            let firstDiffering = differing.first ?? -1
            #expect(differing.count == 0, "\(what): \(differing.count) samples differ, first at \(firstDiffering)")
            #expect(pair[(at + reference.count)...].allSatisfy { $0 == 0 }, "\(what): sound after the end")
        }
    }

    @Test(
        "A sound longer than the ring it is read through plays sample for sample as render makes it: 41 s at 44.1 kHz"
    )
    func longerThanTheRing() async throws {
        // Swept tones with clicks every 0.7 s: the 6 s ring (2^18 frames) wraps six times, and
        // the sound is resampled to the output's 48 kHz. Its haptics play in three pieces (20 s
        // windows), each started on its own player, with continuous events and curves across
        // the windows' edges. (Mono: `play` mixes a stereo sound to mono before it plays,
        // `render` after its filters, so their last bits differ.)
        let rate = 44_100
        var samples = [Float](repeating: 0, count: 41 * rate)
        var state: UInt64 = 21
        for frame in 0..<(41 * rate) {
            let t = Double(frame) / Double(rate)
            let phase: Double = 2 * Double.pi * (150 + 40 * t) * t
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let noise = Float(Int64(bitPattern: state) >> 11) / Float(1 << 52)
            let since = t.truncatingRemainder(dividingBy: 0.7)
            let click = since < 0.01 ? 0.6 * noise * Float(exp(-since * 400)) : 0
            samples[frame] = Float(0.2 * sin(phase)) + click
        }
        try await expectPlayedAsRendered(
            try scratch.write(
                "long.wav", WAV.encode(AudioClip(sampleRate: rate, channels: 1, samples: samples), sampleFormat: .s16)))
    }

    @Test("A truncated sound: one line naming the file, status 1, no playback, no hang")
    func truncated() async throws {
        let whole = Self.clicks()
        let sound = try scratch.write("cut.wav", Array(whole[..<(whole.count / 2)]))
        let capture = scratch.path("capture.raw")
        let result = try await Haptic.run(
            ["play", sound, "--device", "file:FILE=\(capture),FORMAT=raw"], killAfter: 60)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("haptic: \(sound): "), "\(result.stderr)")
        #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: capture))
    }

    /// ALSA's file PCM on four channels, actuators on 3-4: channel 1 holds the sound alone, 3 the haptics.
    func quad(_ capture: String) throws -> (arguments: [String], environment: [String: String]) {
        let conf = try scratch.write(
            "asound.conf", "pcm.quad { type file; slave.pcm \"null\"; file \"\(capture)\"; format \"raw\" }")
        let base = ProcessInfo.processInfo.environment["ALSA_CONFIG_PATH"] ?? "/usr/share/alsa/alsa.conf"
        return (
            ["--device", "quad", "--channels", "4", "--haptic-channels", "3,4"],
            ProcessInfo.processInfo.environment.merging(["ALSA_CONFIG_PATH": base + ":" + conf]) { $1 }
        )
    }

    @Test("A sound over an hour plays with its haptics: from 3,600 s, clicks at 3,600.5 and 3,601.5 s heard and felt")
    func overAnHour() async throws {
        // Its haptics last past 3,600 s, a pattern file's limit, which Apple's players do not
        // apply. 1 kHz keeps the file small (3,603 s of 16-bit mono: 7.2 MB); it plays resampled
        // to 48 kHz, each click 48,000 frames after the last.
        let rate = 1_000
        var samples = [Float](repeating: 0, count: 3_603 * rate)
        var state: UInt64 = 31
        for start in [3_600_500, 3_601_500] {
            for i in 0..<50 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let noise = i == 0 ? 1 : Float(Int64(bitPattern: state) >> 11) / Float(1 << 52)
                samples[start + i] = 0.8 * noise * Float(exp(-Double(i) / 10))
            }
        }
        let sound = try scratch.write(
            "hour.wav", WAV.encode(AudioClip(sampleRate: rate, channels: 1, samples: samples), sampleFormat: .s16))
        let capture = scratch.path("hour.raw")
        let (device, environment) = try quad(capture)
        let result = try await Haptic.run(
            ["play", sound, "--from", "3600"] + device, killAfter: 120, environment: environment)
        #expect(result.status == 0, "\(result.stderr)")
        let played = try floats(capture)
        #expect(played.count / 4 >= 3 * 48_000, "\(played.count / 4) frames played")
        let heard = onsets(played, channel: 0, channels: 4)
        try #require(heard.count == 2, "sound onsets on channel 1: \(heard)")
        #expect(abs(heard[1] - heard[0] - 48_000) <= 1, "sound onsets \(heard)")
        let felt = onsets(played, channel: 2, channels: 4)
        #expect(felt.count == 2, "haptic onsets on channel 3: \(felt)")
        for (onset, click) in zip(felt, heard) {
            #expect(abs(onset - click) <= 480, "haptic onset at \(onset), sound onset at \(click)")
        }
    }

    @Test(
        "A sound cut short while it plays: it plays up to the cut, then one line naming the file and the time, status 1"
    )
    func cutWhilePlaying() async throws {
        // 60 s at 48 kHz, clicks every 0.5 s from 0.25 s; cut to its first 18 s once playback has
        // started. The reader keeps at most the ring (2^18 frames, 5.5 s) ahead of playback, so the
        // cut is found at 18 s when it comes within 12.5 s of the start; on a loaded machine it can
        // come later, and the reader has then read on to a block past 18 s: the time named is
        // where reading failed, and playback stops there. The sound is long enough that the
        // reader cannot have read it all before the cut.
        let rate = 48_000
        var samples = [Float](repeating: 0, count: 60 * rate)
        for click in 0..<120 {
            let start = rate / 4 + click * rate / 2
            for i in 0..<480 { samples[start + i] = 0.8 * Float(exp(-Double(i) / 96)) * (i % 2 == 0 ? 1 : -1) }
        }
        let bytes = WAV.encode(AudioClip(sampleRate: rate, channels: 1, samples: samples), sampleFormat: .s16)
        let header = bytes.count - 2 * samples.count
        let sound = try scratch.write("cut.wav", bytes)
        let capture = scratch.path("cut.raw")
        let process = try await ChildProcess.start(
            Haptic.executable.path(percentEncoded: false),
            ["play", sound, "--device", "file:FILE=\(capture),FORMAT=raw"])
        // Watched and cut on a thread of its own: the test's cooperative threads and Dispatch's
        // pool can both be busy for seconds while the other suites run.
        let cut = await withCheckedContinuation { (done: CheckedContinuation<Int32, Never>) in
            Thread {
                let deadline = Date.now + 60
                var status = stat()
                while Date.now < deadline, stat(capture, &status) != 0 || status.st_size == 0 { usleep(2_000) }
                done.resume(returning: truncate(sound, off_t(header + 2 * 18 * rate)))
            }.start()
        }
        #expect(cut == 0)
        let watchdog = Task {
            try await Task.sleep(for: .seconds(90))
            process.signal(SIGKILL)
        }
        defer { watchdog.cancel() }
        let result = try await process.wait()
        #expect(result.status == 1, "\(result.stderr)")
        // One line: the file, where reading failed (the cut at 18 s, or the block after it the
        // reader had read to when the cut came late), the sound's length.
        let prefix = "haptic: \(sound): reading failed at "
        let suffix =
            " s of 60.000 s (the file was cut short or became unreadable while it played); playback stopped there\n"
        #expect(result.stderr.hasPrefix(prefix) && result.stderr.hasSuffix(suffix), "\(result.stderr)")
        let failedAt = Double(result.stderr.dropFirst(prefix.count).dropLast(suffix.count)) ?? 0
        #expect(failedAt >= 18 && failedAt < 24, "reading failed at \(failedAt) s")
        // Every click before that time heard, none after; playback stopped within 0.2 s of it.
        let played = try floats(capture)
        let heard = onsets(played, channel: 0, channels: 1)
        let clicks = Int(((failedAt - 0.25) / 0.5).rounded(.down)) + 1
        #expect(heard.count == clicks, "\(clicks) clicks before \(failedAt) s; onsets: \(heard)")
        let start = (heard.first ?? 0) - rate / 4
        #expect(
            played.count - start < Int(failedAt * Double(rate)) + rate / 5,
            "\(played.count - start) frames played from the start")
    }

    @Test("--loop plays the sound again with its haptics, each pass as the first")
    func loops() async throws {
        // Four channels with actuators on 3-4, so channel 1 holds the sound alone. The clicks are
        // padded to 6 s, longer than the ring a sound played once is read through (2^18 frames).
        var samples = try WAV.decode(Self.clicks()).samples
        samples += [Float](repeating: 0, count: 6 * 48_000 - samples.count)
        let sound = try scratch.write(
            "clicks.wav", WAV.encode(AudioClip(sampleRate: 48_000, channels: 1, samples: samples), sampleFormat: .s16))
        let capture = scratch.path("loop.raw")
        let conf = try scratch.write(
            "asound.conf", "pcm.quad { type file; slave.pcm \"null\"; file \"\(capture)\"; format \"raw\" }")
        let base = ProcessInfo.processInfo.environment["ALSA_CONFIG_PATH"] ?? "/usr/share/alsa/alsa.conf"
        let process = try await ChildProcess.start(
            Haptic.executable.path(percentEncoded: false),
            ["play", sound, "--loop", "--device", "quad", "--channels", "4", "--haptic-channels", "3,4"],
            environment: ProcessInfo.processInfo.environment.merging(["ALSA_CONFIG_PATH": base + ":" + conf]) { $1 })
        // A pass and the second pass's clicks (7.2 s of four channels of floats), or the deadline.
        let deadline = Date.now + 60
        while Date.now < deadline,
            ((try? FileManager.default.attributesOfItem(atPath: capture))?[.size] as? Int ?? 0) < 7 * 48_000 * 16
        {
            try await Task.sleep(for: .milliseconds(20))
        }
        process.signal(SIGINT)
        let status = try await process.wait().status
        #expect(status == 130)
        let played = try floats(capture)
        // Each pass starts the sound's three clicks and their haptics at the same offsets.
        for channel in [0, 2] {
            let found = onsets(played, channel: channel, channels: 4)
            try #require(found.count >= 6, "channel \(channel + 1) onsets: \(found)")
            let period = found[3] - found[0]
            #expect(period >= Self.clickFrames[2] - Self.clickFrames[0])
            #expect(
                found[4] - found[1] == period && found[5] - found[2] == period,
                "channel \(channel + 1) onsets: \(found)")
        }
    }

    @Test("Options that do not apply, and a file that is not audio: one line, no playback")
    func refusals() async throws {
        let sound = try scratch.write("clicks.wav", Self.clicks())
        var result = try await Haptic.run(["play", sound, "--rate", "2", "--device", "null"])
        #expect(result.status == 64)
        #expect(result.stderr.contains("--rate does not apply to audio input"), "\(result.stderr)")
        result = try await Haptic.run(["play", sound, "--sensitivity", "2", "--device", "null"])
        #expect(result.status == 64)
        #expect(result.stderr == "haptic: sensitivity must be within 0...1\n", "\(result.stderr)")
        let fake = try scratch.write("fake.wav", Array("not a sound".utf8))
        result = try await Haptic.run(["play", fake, "--device", "null"])
        #expect(result.status == 1)
        #expect(
            result.stderr
                == "haptic: \(fake): not audio: the file starts with \"not \", not RIFF, fLaC, OggS, ID3 or an MPEG frame\n"
        )
        // A WAV file of 0 samples: refused before the device opens, as `convert` refuses it.
        let empty = try scratch.write(
            "empty.wav", WAV.encode(AudioClip(sampleRate: 48_000, channels: 1, samples: []), sampleFormat: .s16))
        let capture = scratch.path("empty.raw")
        result = try await Haptic.run(["play", empty, "--device", "file:FILE=\(capture),FORMAT=raw"])
        #expect(result.status == 1)
        #expect(result.stderr == "haptic: \(empty): no audio: the file holds 0 samples\n", "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: capture))
    }
}
