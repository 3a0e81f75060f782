import CSndFile
import Foundation
import HapticsCore
import HapticsSynthesis
import Testing

@testable import HapticsAudioAnalysis

// MARK: Material

/// Deterministic noise in -1...1.
struct Noise {
    var state: UInt64
    mutating func next() -> Float {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Float(Int64(bitPattern: state) >> 11) / Float(1 << 52)
    }
}

/// 2 ms noise clicks (exponentially decaying) at `times`, at `rate`, `channels` identical channels.
func clickTrain(_ times: [Double], seconds: Double, rate: Int = 48_000, channels: Int = 1, amplitude: Float = 0.8)
    -> [Float]
{
    var out = [Float](repeating: 0, count: Int(seconds * Double(rate)) * channels)
    var noise = Noise(state: 7)
    for time in times {
        let start = Int((time * Double(rate)).rounded())
        let length = rate / 100
        for i in 0..<length where start + i < out.count / channels {
            let value = amplitude * noise.next() * Float(exp(-Double(i) / (Double(rate) * 0.002)))
            for c in 0..<channels { out[(start + i) * channels + c] = value }
        }
    }
    return out
}

/// Karplus–Strong plucked strings: (time, frequency) notes, each ringing until the next.
func plucks(_ notes: [(Double, Double)], seconds: Double, rate: Int = 48_000) -> [Float] {
    var out = [Float](repeating: 0, count: Int(seconds * Double(rate)))
    var noise = Noise(state: 11)
    for (index, (time, frequency)) in notes.enumerated() {
        let start = Int(time * Double(rate))
        let end = index + 1 < notes.count ? Int(notes[index + 1].0 * Double(rate)) : out.count
        let period = Int(Double(rate) / frequency)
        var line = (0..<period).map { _ in noise.next() * 0.5 }
        var j = 0
        for i in start..<end {
            let next = line[(j + 1) % period]
            let value = line[j % period]
            out[i] += value
            line[j % period] = 0.996 * 0.5 * (value + next)
            j += 1
        }
    }
    // The last note fades out over 50 ms rather than stopping with a click.
    let fade = rate / 20
    for i in 0..<fade { out[out.count - fade + i] *= Float(fade - i) / Float(fade) }
    return out
}

func wav(_ samples: [Float], rate: Int = 48_000, channels: Int = 1) -> [UInt8] {
    WAV.encode(AudioClip(sampleRate: rate, channels: channels, samples: samples), sampleFormat: .s16)
}

func convert(_ bytes: [UInt8], _ options: AudioHapticsOptions = AudioHapticsOptions()) throws(AudioDecodeError)
    -> AudioHapticsResult
{
    try AudioHaptics.convert(AudioFileReader(bytes: bytes, name: "test.wav"), options: options)
}

func transientTimes(_ pattern: HapticPattern) -> [Double] {
    pattern.events.filter { $0.type == .hapticTransient }.map(\.time)
}

/// The largest distance from each expected time to the nearest found one, and the other way round.
func worstMiss(_ expected: [Double], _ found: [Double]) -> Double {
    let a = expected.map { e in found.map { abs($0 - e) }.min() ?? .infinity }.max() ?? 0
    let b = found.map { f in expected.map { abs($0 - f) }.min() ?? .infinity }.max() ?? 0
    return max(a, b)
}

/// Writes `samples` through libsndfile in `format` and returns the file's bytes.
func encoded(_ samples: [Float], format: Int, rate: Int = 48_000, channels: Int = 1) -> [UInt8]? {
    let path = FileManager.default.temporaryDirectory.appending(path: "haptics-audio-\(UUID()).bin").path
    defer { try? FileManager.default.removeItem(atPath: path) }
    var info = SF_INFO()
    info.samplerate = Int32(rate)
    info.channels = Int32(channels)
    info.format = Int32(format)
    guard let file = sf_open(path, Int32(SFM_WRITE), &info) else { return nil }
    _ = samples.withUnsafeBufferPointer { sf_writef_float(file, $0.baseAddress, sf_count_t(samples.count / channels)) }
    sf_close(file)
    return FileManager.default.contents(atPath: path).map(Array.init)
}

let clickTimes = [0.25, 0.61, 0.9, 1.333, 1.5, 2.07, 2.5, 2.77, 3.1]

// MARK: Tests

@Suite("Audio to haptics")
struct AudioHapticsTests {
    @Test("A click train: one transient per click, each within 10 ms of it")
    func clicks() throws {
        let result = try convert(wav(clickTrain(clickTimes, seconds: 3.5)))
        let found = transientTimes(result.pattern)
        #expect(found.count == clickTimes.count, "\(found)")
        #expect(worstMiss(clickTimes, found) <= 0.010, "\(found)")
    }

    @Test("Ghost notes 33 dB below the accents, 100 ms after each: every one found, within 10 ms")
    func ghostNotes() throws {
        let accents = (0..<12).map { 0.2 + 0.2 * Double($0) }
        let ghosts = accents.map { $0 + 0.1 }
        var samples = clickTrain(accents, seconds: 2.6)
        let soft = clickTrain(ghosts, seconds: 2.6, amplitude: 0.8 * Float(pow(10, -33.0 / 20)))
        for i in samples.indices { samples[i] += soft[i] }
        let found = transientTimes(try convert(wav(samples)).pattern)
        #expect(found.count == 24, "\(found)")
        #expect(worstMiss((accents + ghosts).sorted(), found) <= 0.010, "\(found)")
    }

    @Test("A fast run: soft notes 30 dB below the loud ones, 65 ms after each: every one found")
    func fastRun() throws {
        // The loud note's flux peak lies inside the mean the soft note is measured against.
        let times = (0..<36).map { 0.3 + 0.065 * Double($0) }
        var samples = clickTrain(times.enumerated().filter { $0.offset % 2 == 0 }.map(\.element), seconds: 3)
        let soft = clickTrain(
            times.enumerated().filter { $0.offset % 2 == 1 }.map(\.element), seconds: 3,
            amplitude: 0.8 * Float(pow(10, -30.0 / 20)))
        var noise = Noise(state: 5)
        for i in samples.indices { samples[i] += soft[i] + 0.001 * noise.next() }
        let found = transientTimes(try convert(wav(samples)).pattern)
        #expect(found.count == times.count, "\(found)")
        #expect(worstMiss(times, found) <= 0.010, "\(found)")
    }

    @Test("Soft notes 2 dB under the silence threshold, after a loud one decays: each found; noise: none")
    func softNotesUnderTheGate() throws {
        // A loud low note, then four soft ones whose 46 ms level peaks at -62 dBFS (a piano's
        // ghost notes in a quiet passage): 8 harmonics each, a 2 ms attack, decaying.
        let rate = 48_000
        var samples = [Float](repeating: 0, count: 3 * rate)
        func note(_ start: Double, _ frequency: Double, _ amplitude: Double, _ decay: Double) {
            let first = Int(start * Double(rate))
            for i in first..<samples.count {
                let t = Double(i - first) / Double(rate)
                var sum = 0.0
                for k in 1...8 { sum += sin(2 * Double.pi * frequency * Double(k) * t) / Double(k) }
                samples[i] += Float(amplitude * min(1, t / 0.002) * exp(-t / decay) * sum)
            }
        }
        note(0.2, 110, 0.3, 0.12)
        let soft = [1.4, 1.8, 2.2, 2.6]
        for (time, frequency) in zip(soft, [440.0, 523.3, 659.3, 587.3]) { note(time, frequency, 0.001, 0.3) }
        let found = transientTimes(try convert(wav(samples)).pattern)
        #expect(found.count == 5, "\(found)")
        #expect(worstMiss([0.2] + soft, found) <= 0.010, "\(found)")
        // Noise as loud whose level wanders by up to 2.5 dB every 10 to 70 ms: no onsets in it.
        var noise = Noise(state: 5)
        var gains = [Float](repeating: 0, count: samples.count)
        var i = 0
        while i < gains.count {
            let length = Int((0.04 + 0.03 * Double(noise.next())) * Double(rate))
            let gain = Float(pow(10, 2.5 * Double(noise.next()) / 20))
            for j in i..<min(gains.count, i + length) { gains[j] = gain }
            i += length
        }
        var hiss = [Float](repeating: 0, count: gains.count)
        let amplitude = Float(pow(10, -64.0 / 20) * 3.0.squareRoot())
        var level: Float = 1
        for j in gains.indices {
            level += (gains[j] - level) / Float(rate / 100)  // 10 ms smoothing
            hiss[j] = amplitude * level * noise.next()
        }
        let inNoise = transientTimes(try convert(wav(hiss)).pattern)
        #expect(inNoise.isEmpty, "\(inNoise)")
    }

    @Test("A soft hi-hat 150 ms after a snare, under its wash: found within 10 ms; the wash alone: none")
    func hiHatUnderWash() throws {
        // The snare: noise (a 4-tap mean, below about 10 kHz) decaying over 150 ms. The hat: 24 dB
        // softer, 10 ms decay, the noise's third difference (above about 14 kHz): it barely
        // changes the bands the analysis sees at 24 kHz, and rises far above the wash over 16 kHz.
        let rate = 48_000
        var wash = [Float](repeating: 0, count: 3 * rate)
        var noise = Noise(state: 9)
        let snares = [0.3, 1.1, 1.9]
        for start in snares {
            var last: [Float] = [0, 0, 0]
            for i in 0..<(rate * 6 / 10) {
                let t = Double(i) / Double(rate)
                let value = noise.next()
                let mean = (value + last[0] + last[1] + last[2]) / 4
                last = [value, last[0], last[1]]
                wash[Int(start * Double(rate)) + i] += Float(0.9 * min(1, t / 0.001) * exp(-t / 0.15)) * mean
            }
        }
        var samples = wash
        let hats = snares.map { $0 + 0.15 }
        for start in hats {
            var last: [Float] = [0, 0, 0]
            for i in 0..<(rate / 20) {
                let t = Double(i) / Double(rate)
                let value = noise.next()
                let third = value - 3 * last[0] + 3 * last[1] - last[2]
                last = [value, last[0], last[1]]
                samples[Int(start * Double(rate)) + i] += Float(0.55 * pow(10, -24.0 / 20) * exp(-t / 0.01)) * third
            }
        }
        let found = transientTimes(try convert(wav(samples)).pattern)
        #expect(found.count == 6, "\(found)")
        #expect(worstMiss((snares + hats).sorted(), found) <= 0.010, "\(found)")
        let inWash = transientTimes(try convert(wav(wash)).pattern)
        #expect(inWash.count == 3, "\(inWash)")
        #expect(worstMiss(snares, inWash) <= 0.010, "\(inWash)")
    }

    @Test("Soft notes 130 to 150 ms apart inside a hiss above 4 kHz: each found within 35 ms; the hiss: one")
    func tonalNotesInHiss() throws {
        // A steady hiss (noise's second difference, -38 dBFS) from 0.1 s: its bands above 4 kHz,
        // weighted most in the flux, ripple from frame to frame and lift the local mean, as the
        // ringing partials of pizzicato strings do. Then ten soft notes (6 harmonics, a 10 ms
        // attack, ringing into each other), whose rise is in the bands below 4 kHz.
        let rate = 48_000
        var hiss = [Float](repeating: 0, count: rate * 32 / 10)
        var noise = Noise(state: 13)
        var last: (Float, Float) = (0, 0)
        for i in (rate / 10)..<hiss.count {
            let value = noise.next()
            hiss[i] = Float(pow(10, -40.0 / 20) * 3.0.squareRoot()) * (value - 2 * last.0 + last.1) / 2
            last = (value, last.0)
        }
        var samples = hiss
        let notes = [
            (0.9, 262.0), (1.03, 330.0), (1.16, 392.0), (1.3, 294.0), (1.43, 349.0), (1.58, 440.0), (1.72, 262.0),
            (1.86, 330.0), (2.0, 247.0), (2.14, 392.0),
        ]
        for (start, frequency) in notes {
            let first = Int(start * Double(rate))
            for i in first..<samples.count {
                let t = Double(i - first) / Double(rate)
                let attack = t < 0.01 ? 0.5 - 0.5 * cos(Double.pi * t / 0.01) : 1
                var sum = 0.0
                for k in 1...6 { sum += sin(2 * Double.pi * frequency * Double(k) * t) / Double(k) }
                samples[i] += Float(0.03 * attack * exp(-t / 0.25) * sum)
            }
        }
        let found = transientTimes(try convert(wav(samples)).pattern)
        #expect(found.count == notes.count + 1, "\(found)")
        #expect(worstMiss([0.1] + notes.map(\.0), found) <= 0.035, "\(found)")
        let inHiss = transientTimes(try convert(wav(hiss)).pattern)
        #expect(inHiss.count == 1, "\(inHiss)")
    }

    @Test("A sound cut off mid-decay: a transient at its start, none at the cut")
    func abruptEnd() throws {
        // A synthesised kick (a falling sine), stopped after 350 ms at -25 dB of its start:
        // the cut clicks in the high bands while the level falls to the noise floor.
        let rate = 48_000
        var samples = [Float](repeating: 0, count: 3 * rate)
        var noise = Noise(state: 3)
        for i in samples.indices { samples[i] = 0.001 * noise.next() }
        let starts = [0.3, 1.0, 1.7, 2.4]
        for start in starts {
            var phase = 0.0
            for i in 0..<(rate * 35 / 100) {
                let t = Double(i) / Double(rate)
                phase += 2 * Double.pi * (50 + 120 * exp(-t / 0.03)) / Double(rate)
                let fadeIn = min(1, Double(i) / 48)
                samples[Int(start * Double(rate)) + i] += Float(0.5 * fadeIn * sin(phase) * exp(-t / 0.12))
            }
        }
        let found = transientTimes(try convert(wav(samples)).pattern)
        #expect(found.count == starts.count, "\(found)")
        #expect(worstMiss(starts, found) <= 0.010, "\(found)")
    }

    @Test("Plucked notes: one transient per note, each within 10 ms of it")
    func plucked() throws {
        let notes = [(0.2, 196.0), (0.7, 247.0), (1.1, 294.0), (1.45, 392.0), (2.0, 330.0), (2.6, 220.0), (3.0, 440.0)]
        let result = try convert(wav(plucks(notes, seconds: 3.6)))
        let found = transientTimes(result.pattern)
        #expect(found.count == notes.count, "\(found)")
        #expect(worstMiss(notes.map(\.0), found) <= 0.010, "\(found)")
    }

    @Test("Stereo and any sample rate: the same clicks at 8, 44.1 and 96 kHz, stereo")
    func rates() throws {
        for rate in [8_000, 44_100, 96_000] {
            let samples = clickTrain(clickTimes, seconds: 3.5, rate: rate, channels: 2)
            let result = try convert(wav(samples, rate: rate, channels: 2))
            let found = transientTimes(result.pattern)
            #expect(found.count == clickTimes.count, "\(rate) Hz: \(found)")
            #expect(worstMiss(clickTimes, found) <= 0.010, "\(rate) Hz: \(found)")
            #expect(abs(result.duration - 3.5) < 0.001)
        }
    }

    @Test(
        "FLAC, Ogg Vorbis, Opus and MP3 through libsndfile: the same clicks within 10 ms",
        arguments: [
            ("FLAC", SF_FORMAT_FLAC | SF_FORMAT_PCM_16), ("Ogg Vorbis", SF_FORMAT_OGG | SF_FORMAT_VORBIS),
            ("Opus", SF_FORMAT_OGG | SF_FORMAT_OPUS), ("MP3", SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III),
        ])
    func formats(name: String, format: Int) throws {
        let samples = clickTrain(clickTimes, seconds: 3.5, channels: 2)
        let bytes = try #require(encoded(samples, format: format, channels: 2), "libsndfile cannot write \(name)")
        let reader = try AudioFileReader(bytes: bytes, name: "clicks")
        #expect(reader.sampleRate == 48_000 && reader.channels == 2)
        let result = try AudioHaptics.convert(reader, options: AudioHapticsOptions())
        let found = transientTimes(result.pattern)
        #expect(found.count == clickTimes.count, "\(name): \(found)")
        #expect(worstMiss(clickTimes, found) <= 0.010, "\(name): \(found)")
    }

    @Test("Intensity follows loudness: rendered pattern's envelope correlates >= 0.9 with the sound's")
    func loudnessFollowed() throws {
        // Noise whose level swells and falls over 40 dB, with steps: 6 s.
        let rate = 48_000
        var noise = Noise(state: 3)
        let samples = (0..<(6 * rate)).map { i -> Float in
            let t = Double(i) / Double(rate)
            let dB = -45 + 35 * (0.5 - 0.5 * cos(2 * Double.pi * t / 3)) + (t > 4 && t < 4.5 ? 8 : 0)
            return noise.next() * Float(pow(10, dB / 20)) * 1.7
        }
        var options = AudioHapticsOptions()
        options.content = .continuousOnly
        let result = try convert(wav(samples), options)
        let rendered = try PatternRenderer.render(result.pattern, format: AudioFormat(sampleRate: rate, channels: 1))
        func envelope(_ x: [Float]) -> [Double] {
            stride(from: 0, to: 6 * rate - 2_400, by: 480).map { start in
                var sum = 0.0
                for i in start..<min(x.count, start + 2_400) { sum += Double(x[i]) * Double(x[i]) }
                return 10 * log10(sum / 2_400 + 1e-12)
            }
        }
        let a = envelope(samples)
        let b = envelope(rendered + [Float](repeating: 0, count: max(0, samples.count - rendered.count)))
        let r = correlation(a, b)
        #expect(r >= 0.9, "correlation \(r)")
    }

    @Test("A sound longer than 20 s: the event after the cut renders at the sound's level, not at full")
    func cutAtTwentySeconds() throws {
        // 20 ms of silence, 54 ms of noise at -50 dBFS, then 21 s at -30 dBFS RMS: one continuous
        // event to about 20 s, then the next. Every 10 ms point is kept, so the first event's last
        // curve starts where the second event starts; cut there, its return to neutral (intensity
        // control 1) was written a rounding error after the second event's first curve and played
        // at full strength over it.
        let rate = 48_000
        var noise = Noise(state: 9)
        let samples =
            [Float](repeating: 0, count: rate / 50) + (0..<(54 * rate / 1000)).map { _ in noise.next() * 0.0051 }
            + (0..<(21 * rate)).map { _ in noise.next() * 0.0537 }
        var options = AudioHapticsOptions()
        options.content = .continuousOnly
        options.resolution = 1
        let result = try convert(wav(samples), options)
        let starts = result.pattern.events.map(\.time).sorted()
        try #require(starts.count == 2 && starts[1] > 19.9 && starts[1] < 20.2, "\(starts)")
        let rendered = try PatternRenderer.render(result.pattern, format: AudioFormat(sampleRate: rate, channels: 1))
        func level(_ from: Double, _ to: Double) -> Double {
            let range = Int(from * Double(rate))..<Int(to * Double(rate))
            let energy = range.reduce(0.0) { $0 + Double(rendered[$1]) * Double(rendered[$1]) }
            return 10 * log10(energy / Double(range.count))
        }
        let before = level(18, 19.5)
        for from in [starts[1] + 0.02, starts[1] + 0.1, 20.5] {
            let after = level(from, from + 0.08)
            #expect(abs(after - before) < 1.5, "\(from) s: \(after) dB against \(before) dB before the cut")
        }
    }

    @Test("Clicks render at their measured level where the envelope is near 0 or under them")
    func clicksOverQuietEnvelope() throws {
        // Noise at -52 dBFS for 2 s (one continuous event) with: a loud note (-10 dBFS, 40 ms
        // decay) at 0.3 s and a quiet one (-30 dBFS) 150 ms after it; 80 ms of silence from
        // 1.0 s (under the 100 ms that ends an event: its curve points read 0), then a faint note
        // (-40 dBFS) rising out of it over 30 ms. The intensity control multiplies transients,
        // and where it is under a transient's intensity, dividing by it cannot reach the
        // measured level (a transient's intensity is at most 1). Without the plateau: the loud
        // note's click 2.7 dB under its measured level, the faint one's 28 dB (nearly silent).
        let rate = 48_000
        var noise = Noise(state: 21)
        var samples = (0..<(2 * rate)).map { _ in noise.next() * 0.0043 }
        for (time, dB) in [(0.3, -10.0), (0.45, -30.0), (1.08, -40.0)] {
            let start = Int(time * Double(rate))
            for i in 0..<(rate / 5) {
                samples[start + i] +=
                    noise.next() * Float(1.7 * pow(10, dB / 20) * exp(-Double(i) / (0.04 * Double(rate))))
            }
        }
        for i in rate..<(rate * 108 / 100) { samples[i] = 0 }
        let rise = rate * 3 / 100
        for i in 0..<rise { samples[rate * 108 / 100 + i] *= Float(i) / Float(rise) }
        let full = try convert(wav(samples)).pattern
        var options = AudioHapticsOptions()
        options.content = .transientsOnly
        let measured = try convert(wav(samples), options).pattern
        let times = transientTimes(full)
        for note in [0.3, 0.45, 1.08] { try #require(times.contains { abs($0 - note) <= 0.01 }, "\(note): \(times)") }
        #expect(transientTimes(measured) == times)
        // The clicks as rendered: the render less the render without transients.
        let format = AudioFormat(sampleRate: rate, channels: 1)
        let without = HapticPattern(
            elements: full.elements.filter {
                if case .event(let event) = $0 { return event.type != .hapticTransient }
                return true
            })
        let rendered = try PatternRenderer.render(full, format: format)
        let background = try PatternRenderer.render(without, format: format)
        let alone = try PatternRenderer.render(measured, format: format)
        func peak(_ x: (Int) -> Float, at time: Double) -> Double {
            let start = Int(time * Double(rate))
            let loudest = (start..<(start + rate / 100)).map { abs(x($0)) }.max() ?? 0
            return 20 * log10(Double(loudest) + 1e-12)
        }
        for time in times {
            let click = peak({ $0 < rendered.count ? rendered[$0] - background[$0] : 0 }, at: time)
            let intended = peak({ $0 < alone.count ? alone[$0] : 0 }, at: time)
            #expect(abs(click - intended) < 1, "\(time) s: click \(click) dBFS, measured \(intended) dBFS")
        }
    }

    @Test("Curves: at most 16 points each; the events-per-second budget holds")
    func curvesAndBudget() throws {
        // 16 clicks a second for 3 s over a sustained tone.
        let times = stride(from: 0.1, to: 3.0, by: 0.06).map { $0 }
        var samples = clickTrain(times, seconds: 3.2)
        for i in samples.indices { samples[i] += 0.05 * Float(sin(2 * Double.pi * 110 * Double(i) / 48_000)) }
        var options = AudioHapticsOptions()
        options.minimumGap = 0.02
        options.maxEventsPerSecond = 10
        options.resolution = 1
        let result = try convert(wav(samples), options)
        for curve in result.pattern.parameterCurves { #expect(curve.controlPoints.count <= 16) }
        let events = result.pattern.events.map(\.time).sorted()
        for (i, start) in events.enumerated() {
            #expect(events[i...].prefix { $0 < start + 1 }.count <= 10, "at \(start) s")
        }
        #expect(result.droppedForBudget > 0)
    }

    @Test("Options: transients only, continuous only, --with-audio, JSON with defaults")
    func options() throws {
        let bytes = wav(clickTrain(clickTimes, seconds: 3.5))
        var options = AudioHapticsOptions()
        options.content = .transientsOnly
        options.audioPath = "clicks.wav"
        let pattern = try convert(bytes, options).pattern
        #expect(Set(pattern.events.map(\.type)) == [.hapticTransient, .audioCustom])
        #expect(pattern.parameterCurves.isEmpty)
        #expect(pattern.events.first { $0.type == .audioCustom }?.waveformPath == "clicks.wav")
        options = AudioHapticsOptions()
        options.content = .continuousOnly
        #expect(Set(try convert(bytes, options).pattern.events.map(\.type)) == [.hapticContinuous])
        let decoded = try JSONDecoder().decode(AudioHapticsOptions.self, from: Data("{\"gain\": 6}".utf8))
        var expected = AudioHapticsOptions()
        expected.gain = 6
        #expect(decoded == expected)
        let round = try JSONDecoder().decode(AudioHapticsOptions.self, from: JSONEncoder().encode(options))
        #expect(round == options)
    }
}

@Suite("Audio to haptics: bad input")
struct AudioBadInputTests {
    func message(_ bytes: [UInt8]) -> String? {
        do {
            _ = try convert(bytes)
            return nil
        } catch {
            return error.description
        }
    }

    @Test("Not audio, empty, 0 samples, truncated, a lying header: one line naming the file")
    func messages() {
        #expect(
            message(Array("{\"Pattern\": []}".utf8))
                == "test.wav: not audio: the file starts with \"{\"Pa\", not RIFF, fLaC, OggS, ID3 or an MPEG frame")
        #expect(message([]) == "test.wav: not audio: the file is empty (0 bytes)")
        #expect(message(wav([])) == "test.wav: no audio: the file holds 0 samples")
        let whole = wav(clickTrain(clickTimes, seconds: 1))
        #expect(
            message(Array(whole.prefix(30)))
                == "test.wav: truncated WAV file: chunk \"fmt \" declares 16 bytes but only 10 remain (at byte 12)")
        var lying = whole
        lying[32] = 3  // block align 3 for 16-bit mono
        #expect(
            message(lying)
                == "test.wav: fmt chunk: block align 3 does not match 1 channel(s) of 16-bit samples (at byte 32)")
        // A file that cannot be opened, or is a folder: the system's reason, named.
        #expect(throws: AudioDecodeError(file: "/no/such/song.wav", "cannot open: No such file or directory")) {
            _ = try AudioFileReader(path: "/no/such/song.wav")
        }
        #expect(throws: AudioDecodeError(file: "/tmp", "not a regular file")) { _ = try AudioFileReader(path: "/tmp") }
    }

    @Test("A truncated FLAC, Ogg or MP3 reads up to the cut: no crash")
    func truncatedCompressed() throws {
        let samples = clickTrain(clickTimes, seconds: 3.5)
        for format in [
            SF_FORMAT_FLAC | SF_FORMAT_PCM_16, SF_FORMAT_OGG | SF_FORMAT_VORBIS,
            SF_FORMAT_MPEG | SF_FORMAT_MPEG_LAYER_III,
        ] {
            let bytes = try #require(encoded(samples, format: format))
            for cut in [bytes.count / 2, 200, 5] {
                do {
                    let result = try convert(Array(bytes.prefix(cut)))
                    #expect(result.duration <= 3.6)
                } catch {
                    #expect(error.description.hasPrefix("test.wav: "))
                }
            }
        }
    }

    @Test("A compressed file that does not open leaves no memory behind (fuzz-audio's first find)")
    func failedOpenReleasesItsCopy() throws {
        // "fLaC" and garbage: libsndfile refuses it; each refusal used to keep the reader's copy of
        // the bytes (64 KB here), so a studio opening such files one after another grew without end
        // (2,000 refusals kept 128 MB; the suites running beside this one stay well under 48 MB).
        let bytes = Array("fLaC".utf8) + [UInt8](repeating: 0x5A, count: 65_532)
        func attempt() {
            #expect(throws: AudioDecodeError.self) { _ = try AudioFileReader(bytes: bytes, name: "bad.flac") }
        }
        attempt()
        let before = try anonymousResident()
        for _ in 0..<2_000 { attempt() }
        let grown = try anonymousResident() - before
        #expect(grown < 48 << 20, "resident memory grew by \(grown) bytes over 2,000 failed opens")
    }

    @Test("A WAV file cut short while it is read: its frames up to the cut, then the end, no crash")
    func cutWhileRead() throws {
        // `haptic play` reads a sound for as long as it plays; a file truncated meanwhile (read
        // through a memory mapping, the pages past the cut faulted: SIGBUS) ends the audio there.
        let samples = clickTrain(clickTimes, seconds: 1)
        let bytes = wav(samples)
        let header = bytes.count - 2 * samples.count
        let path = FileManager.default.temporaryDirectory.appending(path: "cut-\(UUID()).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        try Data(bytes).write(to: URL(filePath: path))
        let reader = try AudioFileReader(path: path)
        var block = [Float](repeating: 0, count: 8_192)
        #expect(block.withUnsafeMutableBufferPointer { reader.read(into: $0) } == 8_192)
        let first = block
        #expect(truncate(path, off_t(header + 2 * 20_000)) == 0)
        var read = 0
        var cut: [Float] = []
        while case let n = block.withUnsafeMutableBufferPointer({ reader.read(into: $0) }), n > 0 {
            read += n
            cut += block[..<n]
        }
        #expect(read == 20_000 - 8_192)
        #expect(reader.framesRead == 20_000)
        // The frames are the file's, as a reader of the whole file decodes them.
        let whole = try AudioFileReader(bytes: bytes, name: "whole.wav")
        var reference = [Float](repeating: 0, count: 20_000)
        #expect(reference.withUnsafeMutableBufferPointer { whole.read(into: $0) } == 20_000)
        #expect(first + cut == reference)
    }

    @Test("10 hours of silence: a bounded run, an empty pattern")
    func tenHoursOfSilence() throws {
        // 16-bit mono at 1 kHz (the lowest rate read): a 72 MB file, read a block at a time.
        let frames = 36_000_000
        let path = FileManager.default.temporaryDirectory.appending(path: "silence-\(UUID()).wav").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        _ = FileManager.default.createFile(
            atPath: path,
            contents: Data(
                WAVHeader.bytes(
                    format: AudioFormat(sampleRate: 1_000, channels: 1), sampleFormat: .s16, frameCount: Int64(frames)))
        )
        let handle = try #require(FileHandle(forWritingAtPath: path))
        try handle.seekToEnd()
        let zeros = Data(count: 1 << 20)
        for _ in 0..<((frames * 2) >> 20) { handle.write(zeros) }
        handle.write(Data(count: (frames * 2) % (1 << 20)))
        try handle.close()
        let result = try AudioHaptics.convert(AudioFileReader(path: path), options: AudioHapticsOptions())
        #expect(result.pattern.events.isEmpty)
        #expect(result.duration == 36_000)
    }
}

func correlation(_ a: [Double], _ b: [Double]) -> Double {
    let n = Double(min(a.count, b.count))
    let ma = a.prefix(Int(n)).reduce(0, +) / n
    let mb = b.prefix(Int(n)).reduce(0, +) / n
    var sab = 0.0
    var saa = 0.0
    var sbb = 0.0
    for i in 0..<Int(n) {
        sab += (a[i] - ma) * (b[i] - mb)
        saa += (a[i] - ma) * (a[i] - ma)
        sbb += (b[i] - mb) * (b[i] - mb)
    }
    return sab / (saa * sbb).squareRoot()
}

/// The process's anonymous resident memory (RssAnon in /proc/self/status), in bytes.
func anonymousResident() throws -> Int {
    let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
    let line = try #require(status.split(separator: "\n").first { $0.hasPrefix("RssAnon:") })
    let kilobytes = try #require(Int(line.split(separator: " ", omittingEmptySubsequences: true)[1]))
    return kilobytes << 10
}
