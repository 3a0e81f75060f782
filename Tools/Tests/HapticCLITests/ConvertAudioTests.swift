import Foundation
import HapticsCore
import HapticsSynthesis
import Testing
import _ToolTestSupport

/// `haptic convert` with audio input, end to end through the real binary.
@Suite("haptic convert: audio")
struct ConvertAudioTests {
    let scratch: ScratchFolder
    init() throws { scratch = try ScratchFolder() }

    static let clickTimes = [0.25, 0.61, 0.9, 1.333, 1.5, 2.07, 2.5]

    /// 2 ms decaying clicks at `times`, 48 kHz stereo, as 16-bit WAV bytes.
    static func clicks(_ times: [Double] = clickTimes, seconds: Double = 3) -> [UInt8] {
        let rate = 48_000
        var samples = [Float](repeating: 0, count: Int(seconds * Double(rate)) * 2)
        var state: UInt64 = 5
        for time in times {
            let start = Int(time * Double(rate))
            for i in 0..<480 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let noise = Float(Int64(bitPattern: state) >> 11) / Float(1 << 52)
                let value = 0.8 * noise * Float(exp(-Double(i) / 96))
                samples[(start + i) * 2] = value
                samples[(start + i) * 2 + 1] = value
            }
        }
        return WAV.encode(AudioClip(sampleRate: rate, channels: 2, samples: samples), sampleFormat: .s16)
    }

    @Test("A WAV becomes an AHAP with one transient per click, within 10 ms")
    func wavToAHAP() async throws {
        let input = try scratch.write("clicks.wav", Self.clicks())
        let result = try await Haptic.run(["convert", input, "-o", scratch.path("clicks.ahap")])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "\(input): 7 transients, 7 continuous events from 3.0 s of audio\n")
        let pattern = try AHAP.decode(Array(try Data(contentsOf: URL(filePath: scratch.path("clicks.ahap")))))
        let times = pattern.pattern.events.filter { $0.type == .hapticTransient }.map(\.time)
        #expect(times.count == Self.clickTimes.count)
        for (found, expected) in zip(times, Self.clickTimes) { #expect(abs(found - expected) <= 0.010) }
        // Standard output gets the same bytes, streamed.
        let piped = try await Haptic.run(["convert", input, "-o", "-", "--to", "ahap"])
        #expect(piped.status == 0, "\(piped.stderr)")
        #expect(Array(piped.output.utf8) == Array(try Data(contentsOf: URL(filePath: scratch.path("clicks.ahap")))))
    }

    @Test("A pattern that cannot be written: one line, status 1, no file left behind")
    func unwritable() async throws {
        let input = try scratch.write("clicks.wav", Self.clicks())
        let output = scratch.path("missing/clicks.ahap")
        let result = try await Haptic.run(["convert", input, "-o", output])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("haptic: cannot write '\(output)': "), "\(result.stderr)")
        #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)")
    }

    @Test("A .haptic from audio, written as it is made: the bytes and losses of the AHAP's conversion")
    func streamedClip() async throws {
        let input = try scratch.write("clicks.wav", Self.clicks())
        let (ahap, direct, via) = (scratch.path("c.ahap"), scratch.path("c.haptic"), scratch.path("via.haptic"))
        func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(filePath: path))) }
        var result = try await Haptic.run(["convert", input, "-o", ahap, "--with-audio"])
        #expect(result.status == 0, "\(result.stderr)")
        result = try await Haptic.run(["convert", ahap, "-o", via])
        #expect(result.stderr.hasPrefix("\(ahap): lost: audio-event (1x): "), "\(result.stderr)")
        result = try await Haptic.run(["convert", input, "-o", direct, "--with-audio"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.hasPrefix("\(input): lost: audio-event (1x): "), "\(result.stderr)")
        #expect(try bytes(direct) == bytes(via))
        let piped = try await Haptic.run(["convert", input, "-o", "-", "--to", "haptic", "--with-audio"])
        #expect(Array(piped.output.utf8) == (try bytes(via)))
        let missing = scratch.path("missing/c.haptic")
        result = try await Haptic.run(["convert", input, "-o", missing])
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("haptic: cannot write '\(missing)': "), "\(result.stderr)")
    }

    @Test(
        "Android's effect from audio, written as it is made: the bytes and losses of the AHAP's conversion",
        arguments: [["--with-audio"], ["--transients-only"], ["--continuous-only", "--resolution", "1"]],
        [[], ["--kotlin"]])
    func streamedAndroid(options: [String], flavour: [String]) async throws {
        let input = try scratch.write("clicks.wav", Self.clicks())
        let (ahap, direct, via) = (scratch.path("c.ahap"), scratch.path("c.out"), scratch.path("via.out"))
        func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(filePath: path))) }
        func losses(_ stderr: String, _ file: String) -> [Substring] {
            stderr.split(separator: "\n").filter { $0.hasPrefix("\(file): lost: ") }.map { $0.dropFirst(file.count) }
        }
        var result = try await Haptic.run(["convert", input, "-o", ahap] + options)
        #expect(result.status == 0, "\(result.stderr)")
        let viaResult = try await Haptic.run(["convert", ahap, "-o", via, "--to", "android"] + flavour)
        #expect(viaResult.status == 0, "\(viaResult.stderr)")
        result = try await Haptic.run(["convert", input, "-o", direct, "--to", "android"] + flavour + options)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try bytes(direct) == bytes(via), "\(options) \(flavour)")
        #expect(losses(result.stderr, input) == losses(viaResult.stderr, ahap), "\(result.stderr)")
        #expect(!losses(result.stderr, input).isEmpty)
        let piped = try await Haptic.run(["convert", input, "-o", "-", "--to", "android"] + flavour + options)
        #expect(Array(piped.output.utf8) == (try bytes(via)))
        let missing = scratch.path("missing/c.json")
        result = try await Haptic.run(["convert", input, "-o", missing, "--to", "android"] + flavour + options)
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("haptic: cannot write '\(missing)': "), "\(result.stderr)")
    }

    @Test(
        "Transients only to Android: the composition's primitives reach standard output while the sound is read",
        arguments: [[], ["--kotlin"]])
    func streamedComposition(flavour: [String]) async throws {
        // Three minutes of clicks, 20 a second (3,600 primitives, 0.3 MB of text): the first
        // 64 KB of primitives are out a quarter of the way in, long before the end.
        let rate = 16_000
        let seconds = 180
        var samples = [Float](repeating: 0, count: rate * seconds)
        var state: UInt64 = 9
        for n in 0..<(seconds * 20) {
            let start = n * rate / 20 + 400
            for i in 0..<64 {
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let noise = Float(Int64(bitPattern: state) >> 11) / Float(1 << 52)
                samples[start + i] = Float(0.3 + 0.5 * Double(n % 7) / 7) * noise * Float(exp(-Double(i) / 16))
            }
        }
        let input = try scratch.write(
            "taps.wav", WAV.encode(AudioClip(sampleRate: rate, channels: 1, samples: samples), sampleFormat: .s16))
        let arguments = ["convert", input, "-o", "-", "--to", "android", "--transients-only"] + flavour
        let started = ContinuousClock.now
        let child = try await ChildProcess.start(Haptic.executable.path(percentEncoded: false), arguments)
        let first = await child.waitForOutput(timeout: .seconds(600)) { !child.stdout.isEmpty }
        let firstAt = ContinuousClock.now
        let result = try await child.wait()
        let ended = ContinuousClock.now
        #expect(first && result.status == 0, "\(result.stderr)")
        // Before, the composition came in one piece at the end, microseconds before the exit.
        let whole = ended - started
        #expect(ended - firstAt > whole * 0.3, "first bytes at \(firstAt - started) of \(whole)")
        // And the bytes are those of the whole pattern's conversion.
        let ahap = scratch.path("taps.ahap")
        #expect(try await Haptic.run(["convert", input, "-o", ahap, "--transients-only"]).status == 0)
        let via = try await Haptic.run(["convert", ahap, "-o", "-", "--to", "android"] + flavour)
        #expect(result.stdout == via.stdout)
        #expect(result.output.count(where: { $0 == "\n" }) > 2_000)
    }

    @Test("Audio input to .haptic and to Android, options and --with-audio")
    func otherTargets() async throws {
        let input = try scratch.write("clicks.wav", Self.clicks())
        var result = try await Haptic.run(["convert", input, "-o", scratch.path("clicks.haptic"), "--transients-only"])
        #expect(result.status == 0, "\(result.stderr)")
        let clip = String(decoding: try Data(contentsOf: URL(filePath: scratch.path("clicks.haptic"))), as: UTF8.self)
        #expect(clip.contains("\"emphasis\""))
        result = try await Haptic.run(["convert", input, "-o", "-", "--to", "android", "--continuous-only"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.output.contains("\"timings\""), "\(result.output)")
        try FileManager.default.createDirectory(atPath: scratch.path("out"), withIntermediateDirectories: true)
        result = try await Haptic.run([
            "convert", input, "-o", scratch.path("out/c.ahap"), "--with-audio", "--band", "40-2000",
        ])
        #expect(result.status == 0, "\(result.stderr)")
        let text = String(decoding: try Data(contentsOf: URL(filePath: scratch.path("out/c.ahap"))), as: UTF8.self)
        #expect(
            text.contains("\"EventWaveformPath\" : \"..\\/clicks.wav\"")
                || text.contains("\"EventWaveformPath\": \"../clicks.wav\""), "\(text.prefix(400))")
    }

    @Test("Bad audio: one line naming the file, status 1, nothing written")
    func badInput() async throws {
        let valid = Self.clicks([0.1, 0.3], seconds: 0.5)
        var lying = valid
        lying[32] = 5
        let cases: [(String, [UInt8], String)] = [
            (
                "text.wav", Array("{\"Pattern\": []}".utf8),
                "haptic: PATH: not audio: the file starts with \"{\"Pa\", not RIFF, fLaC, OggS, ID3 or an MPEG frame\n"
            ),
            ("empty.wav", [], "haptic: PATH: not audio: the file is empty (0 bytes)\n"),
            (
                "silent.wav", WAV.encode(AudioClip(sampleRate: 48_000, channels: 1, samples: []), sampleFormat: .s16),
                "haptic: PATH: no audio: the file holds 0 samples\n"
            ),
            (
                "truncated.wav", Array(valid.prefix(30)),
                "haptic: PATH: truncated WAV file: chunk \"fmt \" declares 16 bytes but only 10 remain (at byte 12)\n"
            ),
            (
                "lying.wav", lying,
                "haptic: PATH: fmt chunk: block align 5 does not match 2 channel(s) of 16-bit samples (at byte 32)\n"
            ),
            (
                "garbage.flac", Array("fLaC".utf8) + [UInt8](repeating: 0x55, count: 100),
                "haptic: PATH: cannot decode this FLAC file: "
            ),
        ]
        for (name, bytes, message) in cases {
            let input = try scratch.write(name, bytes)
            let result = try await Haptic.run(["convert", input, "-o", scratch.path("out.ahap")], killAfter: 60)
            #expect(result.status == 1, "\(name): \(result.stderr)")
            let expected = message.replacingOccurrences(of: "PATH", with: input)
            #expect(result.stderr.hasPrefix(expected), "\(name): \(result.stderr)")
            #expect(result.stderr.filter { $0 == "\n" }.count == 1, "\(name): \(result.stderr)")
            #expect(!FileManager.default.fileExists(atPath: scratch.path("out.ahap")))
            // The temporary file the pattern streams into is gone too.
            let left = try FileManager.default.contentsOfDirectory(atPath: scratch.url.path).filter {
                $0.contains("partial")
            }
            #expect(left.isEmpty, "\(name): \(left)")
        }
    }

    @Test("Bad options: exit 64 with the rule")
    func badOptions() async throws {
        let input = try scratch.write("clicks.wav", Self.clicks([0.1, 0.3], seconds: 0.5))
        var result = try await Haptic.run(["convert", input, "-o", scratch.path("o.ahap"), "--band", "200-40"])
        #expect(result.status == 64)
        #expect(result.stderr == "haptic: the band must be LOW-HIGH in Hz with 0 < LOW < HIGH\n")
        result = try await Haptic.run([
            "convert", input, "-o", scratch.path("o.ahap"), "--transients-only", "--continuous-only",
        ])
        #expect(result.status == 64)
        #expect(result.stderr == "haptic: --transients-only and --continuous-only exclude each other\n")
    }
}
