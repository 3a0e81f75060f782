import Foundation
import HapticsCore
import HapticsSynthesis
import Testing

@testable import HapticsAudioAnalysis

/// Sound that exercises every path of the streamed writer: dense clicks over a tone (more onsets
/// than the budget), silences that close continuous events, plucked notes, short noise bursts
/// (continuous events a few frames apart, curves overlapping the next event), and a 25 s swelling
/// tone with clicks (continuous events cut at 20 s, transients waiting for their curves).
func streamMaterial(seconds: Double, rate: Int = 48_000, seed: UInt64 = 5) -> [Float] {
    var out = [Float](repeating: 0, count: Int(seconds * Double(rate)))
    var noise = Noise(state: seed)
    let r = Double(rate)
    func click(at time: Double, amplitude: Float) {
        let start = Int(time * r)
        for i in 0..<(rate / 100) where start + i < out.count {
            out[start + i] += amplitude * noise.next() * Float(exp(-Double(i) / (r * 0.002)))
        }
    }
    var section = 0.0
    while section < seconds {
        let kind = Int(section / 10) % 4
        let end = min(seconds, section + (kind == 3 ? 25 : 10))
        for i in Int(section * r)..<Int(end * r) {
            let t = Double(i) / r
            switch kind {
            case 0 where t < section + 6:
                out[i] += 0.05 * Float(sin(2 * .pi * 110 * t))
            case 1 where t.truncatingRemainder(dividingBy: 0.45) < 0.3:
                out[i] += 0.3 * noise.next() * Float(0.5 + 0.5 * sin(2 * .pi * 3 * t))
            case 2:
                out[i] +=
                    0.2 * Float(sin(2 * .pi * 220 * t))
                    * Float(exp(-(t - section).truncatingRemainder(dividingBy: 0.4) * 8))
            case 3:
                out[i] += Float(0.02 + 0.2 * (t - section) / 25) * Float(sin(2 * .pi * (80 + 40 * sin(t)) * t))
            default: break
            }
        }
        switch kind {
        case 0:
            // 25 clicks a second, of varied strength: over a budget of 24 with the continuous events.
            for (n, time) in stride(from: section + 0.1, to: section + 6, by: 0.04).enumerated() {
                click(at: time, amplitude: Float(0.5 + 0.4 * Double((n * 7) % 10) / 10))
            }
        case 3:
            for time in stride(from: section + 0.5, to: end - 0.5, by: 0.37) {
                click(at: time, amplitude: 0.5)
            }
        default: break
        }
        section = end
    }
    return out
}

/// The AHAP the streamed writer hands over, and how many pieces it came in.
func streamed(_ bytes: [UInt8], _ options: AudioHapticsOptions) throws -> (
    bytes: [UInt8], pieces: Int, summary: AudioHapticsSummary
) {
    var out: [UInt8] = []
    var pieces = 0
    let summary = try AudioHaptics.convert(AudioFileReader(bytes: bytes, name: "test.wav"), options: options) { chunk in
        out += chunk
        pieces += 1
    }
    return (out, pieces, summary)
}

/// The option sets every streamed writer is compared with its whole-pattern writer on: the
/// budget under pressure, 20 s cuts (130 s), transients only (twice: a composition long enough
/// to be written in pieces), continuous only, `--with-audio` with `--band`, and three sample rates.
let streamedSettings: [(String, Double, Int, AudioHapticsOptions)] = [
    ("defaults", 40.0, 48_000, AudioHapticsOptions()),
    (
        "long, 44.1 kHz, budget 24", 130.0, 44_100,
        {
            var o = AudioHapticsOptions(); o.maxEventsPerSecond = 24; return o
        }()
    ),
    (
        "resolution 1, budget 12", 70.0, 48_000,
        {
            var o = AudioHapticsOptions(); o.resolution = 1; o.maxEventsPerSecond = 12; return o
        }()
    ),
    (
        "transients only", 70.0, 48_000,
        {
            var o = AudioHapticsOptions(); o.content = .transientsOnly; o.maxEventsPerSecond = 20; return o
        }()
    ),
    (
        "transients only, dense, 44.1 kHz", 130.0, 44_100,
        {
            var o = AudioHapticsOptions(); o.content = .transientsOnly; o.sensitivity = 1; o.minimumGap = 0.01;
            o.maxEventsPerSecond = 60; return o
        }()
    ),
    (
        "continuous only", 70.0, 48_000,
        {
            var o = AudioHapticsOptions(); o.content = .continuousOnly; return o
        }()
    ),
    (
        "with audio, band", 45.0, 22_050,
        {
            var o = AudioHapticsOptions(); o.audioPath = "a.wav"; o.band = .init(low: 40, high: 400);
            o.minimumGap = 0.01; return o
        }()
    ),
]

@Suite("Audio to haptics: the streamed AHAP")
struct StreamedAHAPTests {
    @Test(
        "Streamed bytes equal AHAP.encode of the whole pattern",
        arguments: streamedSettings)
    func sameBytes(name: String, seconds: Double, rate: Int, options: AudioHapticsOptions) throws {
        let bytes = wav(streamMaterial(seconds: seconds, rate: rate), rate: rate)
        let whole = try convert(bytes, options)
        let expected = AHAP.encode(whole.pattern)
        let (got, pieces, summary) = try streamed(bytes, options)
        if got != expected {
            let at =
                zip(got, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(got.count, expected.count)
            let context = String(decoding: expected[max(0, at - 200)..<min(expected.count, at + 200)], as: UTF8.self)
            Issue.record("\(name): differs at byte \(at) of \(expected.count) (streamed \(got.count)): ...\(context)")
        }
        let events = whole.pattern.events
        #expect(summary.transients == events.count { $0.type == .hapticTransient })
        #expect(summary.continuousEvents == events.count { $0.type == .hapticContinuous })
        #expect(summary.droppedForBudget == whole.droppedForBudget)
        #expect(summary.onsets == whole.onsets.count)
        // Written as it goes, not at the end (the material makes 0.3 MB of AHAP or more).
        #expect(pieces > 1 || expected.count < 1 << 16)
        if options.maxEventsPerSecond < 30 { #expect(whole.droppedForBudget > 0) }
    }

    @Test("Silence streams an empty pattern; no samples writes nothing")
    func empty() throws {
        let silent = wav([Float](repeating: 0, count: 48_000))
        let (got, _, summary) = try streamed(silent, AudioHapticsOptions())
        #expect(got == AHAP.encode(HapticPattern()))
        #expect(summary.transients + summary.continuousEvents == 0)
        var written = 0
        #expect(throws: AudioDecodeError.self) {
            _ = try AudioHaptics.convert(AudioFileReader(bytes: wav([]), name: "e.wav"), options: AudioHapticsOptions())
            {
                written += $0.count
            }
        }
        #expect(written == 0)
    }
}

/// A streamed setting as `haptic play song.wav` analyses it: the options with the sound's own
/// AudioCustom event (it plays too), the sound's WAV bytes, and the sound as the event's clip.
func playedSetting(seconds: Double, rate: Int, options given: AudioHapticsOptions) -> (
    options: AudioHapticsOptions, bytes: [UInt8], clips: [String: AudioClip]
) {
    var options = given
    if options.audioPath == nil { options.audioPath = "song.wav" }
    let material = streamMaterial(seconds: seconds, rate: rate)
    let clip = AudioClip(sampleRate: rate, channels: 1, samples: material)
    return (options, wav(material, rate: rate), [options.audioPath!: clip])
}
