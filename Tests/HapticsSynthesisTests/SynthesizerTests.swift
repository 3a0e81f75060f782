import HapticsCore
import Testing
import _HapticsTestSupport

@testable import HapticsSynthesis

@Suite struct SynthesizerTests {
    static let rates = [44_100, 48_000, 96_000]

    @Test(arguments: rates, [0.0, 0.0123, 0.5, 1.00001, 2.71828])
    func transientStartsAtItsExactFrame(rate: Int, time: Double) throws {
        let format = AudioFormat(sampleRate: rate)
        let samples = try PatternRenderer.render(HapticPattern(elements: [transient(time)]), format: format)
        #expect(Measure.firstNonZero(samples) == Int(try format.frame(at: time)))
    }

    @Test(arguments: rates)
    func continuousEventEndsAfterItsReleaseTime(rate: Int) throws {
        let format = AudioFormat(sampleRate: rate)
        let pattern = HapticPattern(elements: [
            continuous(0.1003, 0.25, extra: [.init(.releaseTime, 0.1)])
        ])
        var renderer = try PatternRenderer(pattern: pattern, format: format)
        let samples = try PatternRenderer.render(pattern, format: format)
        let end = Int(try format.frame(at: 0.1003 + 0.25))
        let release = Int((0.1 * Double(rate)).rounded())
        let frameCount = renderer.frameCount
        #expect(frameCount == Int64(end + release))
        #expect(samples.count == end + release)
        #expect(Measure.firstNonZero(samples) == Int(try format.frame(at: 0.1003)))
        // Full level up to the end, then the release fades to silence.
        // (RMS above 0.2 is above -13.98 dBFS; below 0.05, below -26.02 dBFS.)
        #expect(AudioAnalysis.rmsDBFS(samples[(end - 2_000)..<end]) > -13.9)
        #expect(AudioAnalysis.rmsDBFS(samples[(end + release / 2)..<(end + release)]) < -26.1)
        var scratch = [Float](repeating: 0, count: 10)
        for _ in 0..<((end + release) / 10) { _ = scratch.withUnsafeMutableBufferPointer { renderer.render(into: $0) } }
        #expect(scratch.withUnsafeMutableBufferPointer { renderer.render(into: $0) } == (end + release) % 10)
    }

    @Test func transientIsAShortClickBetween5And40Milliseconds() throws {
        let format = AudioFormat(sampleRate: 48_000)
        for sharpness: Float in [0, 0.5, 1] {
            let samples = try PatternRenderer.render(
                HapticPattern(elements: [transient(0, sharpness: sharpness)]), format: format)
            let length = Double(samples.count) / 48_000
            #expect(length >= 0.005 && length <= 0.040)
        }
    }

    @Test func loudnessRisesWithIntensity() throws {
        let format = AudioFormat(sampleRate: 48_000)
        var previous = -Double.infinity
        for intensity: Float in [0.1, 0.25, 0.4, 0.55, 0.7, 0.85, 1] {
            let samples = try PatternRenderer.render(
                HapticPattern(elements: [continuous(0, 0.5, intensity: intensity)]), format: format)
            let level = AudioAnalysis.rmsDBFS(samples[4_800..<19_200])
            #expect(level > previous + 0.83, "intensity \(intensity)")  // RMS up by more than 10 % (0.828 dB)
            previous = level
        }
        let silent = try PatternRenderer.render(
            HapticPattern(elements: [continuous(0, 0.5, intensity: 0)]), format: format)
        #expect(AudioAnalysis.peak(silent) == 0)
    }

    @Test(arguments: VoicingProfile.all)
    func centroidRisesWithSharpness(voicing: VoicingProfile) throws {
        let format = AudioFormat(sampleRate: 48_000)
        var previous = 0.0
        for sharpness: Float in [0, 0.25, 0.5, 0.75, 1] {
            let samples = try PatternRenderer.render(
                HapticPattern(elements: [continuous(0, 0.3, sharpness: sharpness)]), format: format, voicing: voicing)
            let centroid = AudioAnalysis.spectralCentroid(samples[2_400..<7_200], sampleRate: 48_000)
            #expect(centroid > previous, "sharpness \(sharpness)")
            previous = centroid
        }
    }

    @Test(arguments: [Float(0), 0.5, 1])
    func defaultFundamentalIsInTheHapticBand(sharpness: Float) throws {
        let format = AudioFormat(sampleRate: 48_000)
        let samples = try PatternRenderer.render(
            HapticPattern(elements: [continuous(0, 0.5, sharpness: sharpness)]), format: format)
        // The strongest peak of the whole spectrum, not just of 40-400 Hz: the fundamental dominates.
        let fundamental = AudioAnalysis.dominantFrequency(samples[4_800..<19_200], sampleRate: 48_000)
        #expect(fundamental >= 65 && fundamental <= 300)
        let expected = VoicingProfile.standard.frequency(sharpness: sharpness)
        #expect(abs(fundamental - expected) <= 0.5)
        // Harmonics carry real energy (laptop speakers) in the default voice.
        let slice = samples[4_800..<19_200]
        let second = Measure.power(slice, frequency: 2 * expected, rate: 48_000)
        let third = Measure.power(slice, frequency: 3 * expected, rate: 48_000)
        let first = Measure.power(slice, frequency: expected, rate: 48_000)
        #expect(second + third > first * 0.05)
    }

    @Test func pureVoiceIsASine() throws {
        let format = AudioFormat(sampleRate: 48_000)
        let samples = try PatternRenderer.render(
            HapticPattern(elements: [continuous(0, 0.5, sharpness: 0.5)]), format: format, voicing: .pure)
        let f = VoicingProfile.pure.frequency(sharpness: 0.5)
        let slice = samples[4_800..<19_200]
        #expect(
            Measure.power(slice, frequency: 2 * f, rate: 48_000) < Measure.power(slice, frequency: f, rate: 48_000)
                * 1e-4)
        #expect(VoicingProfile.named("PURE") == .pure)
        #expect(VoicingProfile.named("default") == .standard)
        #expect(VoicingProfile.named("nope") == nil)
    }

    @Test func sixtyFourOverlappingEventsNeverClip() throws {
        let format = AudioFormat(sampleRate: 48_000, channels: 2)
        var elements: [PatternElement] = []
        for i in 0..<32 {
            elements.append(transient(0.01 + Double(i) * 0.0001, sharpness: Float(i % 4) / 3))
            elements.append(continuous(0.005 + Double(i) * 0.0003, 0.2, sharpness: Float(i % 5) / 4))
        }
        let samples = try PatternRenderer.render(HapticPattern(elements: elements), format: format)
        #expect(AudioAnalysis.peak(samples) <= 1.0)
        #expect(AudioAnalysis.peak(samples) > 0.8)  // loud: the limiter works, it is not just quiet
    }

    @Test(arguments: rates)
    func eventEdgesHaveNoJumps(rate: Int) throws {
        let format = AudioFormat(sampleRate: rate)
        let pattern = HapticPattern(elements: [
            continuous(0.05, 0.1, sharpness: 1), transient(0.3, sharpness: 1),
            continuous(0.4, 0.05, sharpness: 1, extra: [.init(.sustained, 0)]),
        ])
        let samples = try PatternRenderer.render(pattern, format: format)
        // Compare with the largest step a full-level carrier takes inside the buzz.
        let start = Int(try format.frame(at: 0.05))
        let end = Int(try format.frame(at: 0.15))
        let steady = Measure.maxStep(samples[(start + rate / 50)..<(end - 10)])
        #expect(Measure.maxStep(samples[(start - 5)..<(start + 20)]) < steady * 0.5)
        #expect(Measure.maxStep(samples[(end - 5)...]) <= steady * 1.01)
        #expect(abs(samples[samples.count - 1]) < 1e-3)
    }

    @Test("Events listed out of time order play in time order, and events at the same time in file order")
    func eventsOutOfFileOrderSoundAsInTimeOrder() throws {
        func transient(_ time: Double, _ intensity: Float, _ sharpness: Float) -> PatternElement {
            .event(
                HapticEvent(
                    time: time, type: .hapticTransient,
                    parameters: [.init(.hapticIntensity, intensity), .init(.hapticSharpness, sharpness)]))
        }
        let buzz = PatternElement.event(
            HapticEvent(
                time: 0.2, type: .hapticContinuous, duration: 0.3,
                parameters: [.init(.hapticIntensity, 0.6), .init(.hapticSharpness, 0.3)]))
        let a = transient(0.1, 0.5, 0.9)
        let b = transient(0.1, 1, 0.1)  // at the same time as `a`, after it in the file
        let c = transient(0.3, 0.8, 0.5)
        let shuffled = HapticPattern(elements: [c, a, buzz, b])
        let ordered = HapticPattern(elements: [a, b, buzz, c])
        let format = AudioFormat(sampleRate: 48_000, channels: 1)
        let prepared = try Synthesizer.prepare(shuffled, clips: [:], format: format, voicing: .standard)
        #expect(prepared.storage.events.map(\.time) == [0.1, 0.1, 0.2, 0.3])
        #expect(prepared.storage.events.map(\.intensity) == [0.5, 1, 0.6, 0.8])
        let heard = try KernelSetTests.render(shuffled, format, .best, block: 1_024)
        #expect(AudioAnalysis.peak(heard) > 0.3)
        try #expect(heard == KernelSetTests.render(ordered, format, .best, block: 1_024))
    }

    @Test func twoRendersAreBitIdentical() throws {
        let pattern = benchmarkLikePattern(seconds: 3)
        let format = AudioFormat(sampleRate: 48_000, channels: 2)
        try #expect(PatternRenderer.render(pattern, format: format) == PatternRenderer.render(pattern, format: format))
    }

    @Test(arguments: [1, 2, 3])
    func randomBlockSplitsAreBitIdentical(seed: UInt64) throws {
        let pattern = benchmarkLikePattern(seconds: 6)
        for channels in [1, 2] {
            let format = AudioFormat(sampleRate: 48_000, channels: channels)
            let whole = try PatternRenderer.render(pattern, format: format)
            var renderer = try PatternRenderer(pattern: pattern, format: format)
            var generator = SplitMix64(seed: seed)
            var pieces: [Float] = []
            var block = [Float](repeating: 0, count: 3_000 * channels)
            while true {
                let frames = Int(generator.next() % 3_000) + 1
                let n = block.withUnsafeMutableBufferPointer {
                    renderer.render(into: UnsafeMutableBufferPointer(rebasing: $0[..<(frames * channels)]))
                }
                if n == 0 { break }
                pieces += block[..<(n * channels)]
            }
            #expect(pieces.count == whole.count)
            #expect(pieces == whole)
        }
    }

    /// Where no voice sounds, the synthesizer writes zeros without limiting them; a click that
    /// starts anywhere in a mix block (its first frame, its last, the next block's first ...)
    /// still comes out whole: silence up to its frame, then the same samples as a click at 0,
    /// whatever the blocks the caller renders in.
    @Test(arguments: [1, 511, 1_023, 1_024, 1_025, 2_047, 3_000])
    func aClickAnywhereInAMixBlockComesOutWholeAfterExactSilence(onset: Int) throws {
        let format = AudioFormat(sampleRate: 48_000)
        let alone = try PatternRenderer.render(HapticPattern(elements: [transient(0)]), format: format)
        let time = Double(onset) / 48_000
        #expect(Int(try format.frame(at: time)) == onset)
        let pattern = HapticPattern(elements: [transient(time), transient(time + 0.0004, sharpness: 1)])
        let pair = try PatternRenderer.render(pattern, format: format)
        let second = onset + Int(try format.frame(at: 0.0004))
        #expect(pair[..<onset].allSatisfy { $0.bitPattern == 0 })
        #expect(Array(pair[onset..<second]) == Array(alone[..<(second - onset)]))
        #expect(AudioAnalysis.peak(pair[second...]) > 0.1)
        for block in [1, 100, 1_024, 4_096] {
            var renderer = try PatternRenderer(pattern: pattern, format: format)
            var pieces: [Float] = []
            var buffer = [Float](repeating: 9, count: block)
            while true {
                let n = buffer.withUnsafeMutableBufferPointer { renderer.render(into: $0) }
                if n == 0 { break }
                pieces += buffer[..<n]
            }
            #expect(pieces == pair, "blocks of \(block)")
        }
    }

    @Test func intensityCurveShapesTheBuzz() throws {
        let format = AudioFormat(sampleRate: 48_000)
        let pattern = HapticPattern(elements: [
            continuous(0, 1),
            .curve(
                ParameterCurve(
                    .hapticIntensityControl, time: 0,
                    controlPoints: [
                        .init(time: 0, value: 1), .init(time: 1, value: 0),
                    ])),
        ])
        let samples = try PatternRenderer.render(pattern, format: format)
        let early = AudioAnalysis.rmsDBFS(samples[4_800..<9_600])
        let middle = AudioAnalysis.rmsDBFS(samples[21_600..<26_400])
        let late = AudioAnalysis.rmsDBFS(samples[40_800..<45_600])
        // RMS more than halved (6.02 dB), then more than divided by 3 (9.54 dB).
        #expect(early > middle + 6.03 && middle > late + 9.55)
    }

    /// A transient takes its level from the intensity control at its own time, as the pattern
    /// orders them, even where a control step falls between that time and the frame it sounds
    /// on (up to half a frame away): before it (the step sets the click) or after it (it does not).
    @Test(arguments: rates, [(0.1, 0.3), (0.3, 0.45), (0.55, 0.9), (0.7, 0.6)])
    func aTransientReadsTheControlAtItsOwnTimeNotItsFrames(rate: Int, fractions: (step: Double, onset: Double)) throws {
        let format = AudioFormat(sampleRate: rate)
        let frame = 0.25 * Double(rate)
        let onset = (frame + fractions.onset) / Double(rate)
        let step = (frame + fractions.step) / Double(rate)
        // Quiet until the step, full after it; the click is loud exactly when the step comes first.
        let loud = fractions.step < fractions.onset
        let pattern = HapticPattern(elements: [
            transient(onset),
            .parameter(DynamicParameter(.hapticIntensityControl, value: 0.1, time: 0)),
            .parameter(DynamicParameter(.hapticIntensityControl, value: 1, time: step)),
        ])
        let samples = try PatternRenderer.render(pattern, format: format)
        let reference = try PatternRenderer.render(
            HapticPattern(elements: [
                transient(onset),
                .parameter(DynamicParameter(.hapticIntensityControl, value: loud ? 1 : 0.1, time: 0)),
            ]), format: format)
        // Sample for sample (compared apart from #expect, which would print every sample).
        let same = samples == reference
        #expect(
            same,
            "step at +\(fractions.step), onset at +\(fractions.onset) frames: peak \(AudioAnalysis.peak(samples[...])) against \(AudioAnalysis.peak(reference[...]))"
        )
        #expect(Measure.firstNonZero(samples) == Int(try format.frame(at: onset)))
    }

    /// Only the start reads the controls at the event's time: the first ramp, to the next
    /// control frame, reads that frame's. A buzz starting where an intensity curve rises from 0
    /// sounds from its first frames (read at its start again, the ramp's target was 0 and the
    /// first control interval silent).
    @Test func aBuzzRampsToTheCurveAtItsNextControlFrame() throws {
        let format = AudioFormat(sampleRate: 48_000)
        let pattern = HapticPattern(elements: [
            continuous(0.1, 0.5),
            .curve(
                ParameterCurve(
                    .hapticIntensityControl, time: 0.1,
                    controlPoints: [.init(time: 0, value: 0), .init(time: 0.1, value: 1)])),
        ])
        let samples = try PatternRenderer.render(pattern, format: format)
        let start = 4_800
        let firstInterval = samples[start..<(start / Synthesizer.controlInterval + 1) * Synthesizer.controlInterval]
        #expect(firstInterval.contains { $0 != 0 }, "silent for its first \(firstInterval.count) frames")
    }

    @Test func scheduledChangesLandAtExactFramesWhateverTheBlocks() throws {
        let format = AudioFormat(sampleRate: 48_000)
        let click = try Synthesizer.prepare(
            HapticPattern(elements: [transient(0)]), clips: [:], format: format, voicing: .standard)
        let buzz = try Synthesizer.prepare(
            HapticPattern(elements: [continuous(0, 10)]), clips: [:], format: format, voicing: .standard)
        var synth = Synthesizer(format: format, voicing: .standard)
        let idleBefore = synth.isIdle
        #expect(idleBefore)
        var out = [Float](repeating: 0, count: 48_000)
        synth.start(click, layer: 1, atFrame: 1_234)
        synth.start(buzz, layer: 2, atFrame: 20_000)
        synth.setControl(.hapticIntensityControl, 0, layer: 2, atFrame: 30_000)
        synth.stop(layer: 2, atFrame: 40_000)
        let busy = !synth.isIdle
        #expect(busy)
        var done = 0
        var block = [Float](repeating: 0, count: 700)
        while done < out.count {
            block.withUnsafeMutableBufferPointer { synth.render(into: $0) }
            for i in 0..<min(700, out.count - done) { out[done + i] = block[i] }
            done += 700
        }
        #expect(Measure.firstNonZero(out) == 1_234)
        #expect(out[19_999] == 0 && out[20_000] != 0)
        #expect(AudioAnalysis.rmsDBFS(out[29_000..<29_900]) > -13.9)  // RMS above 0.2
        // Intensity control 0 from 30,000, reached at the next control frame of layer 2's grid
        // (20,000 + k × 128 = 30,112): at most one control interval of ramp.
        #expect(AudioAnalysis.peak(out[30_112..<31_000]) == 0)
        #expect(AudioAnalysis.peak(out[30_000..<30_112]) > 0)
        #expect(AudioAnalysis.peak(out[40_000...]) == 0)
        let (frame, idle) = (synth.currentFrame, synth.isIdle)
        #expect(frame == Int64(done))
        #expect(idle)
    }

    @Test func stopFadesOutWithoutAJump() throws {
        let format = AudioFormat(sampleRate: 48_000)
        let buzz = try Synthesizer.prepare(
            HapticPattern(elements: [continuous(0, 10)]), clips: [:], format: format, voicing: .standard)
        var synth = Synthesizer(format: format, voicing: .standard)
        synth.start(buzz, layer: 0, atFrame: 0)
        synth.fadeOutAll(atFrame: 10_000, frames: 480)
        var out = [Float](repeating: 0, count: 12_000)
        out.withUnsafeMutableBufferPointer { synth.render(into: $0) }
        let steady = Measure.maxStep(out[2_000..<10_000])
        #expect(Measure.maxStep(out[10_000..<10_480]) <= steady * 1.01)
        #expect(out[10_480...].allSatisfy { $0 == 0 })
        let idle = synth.isIdle
        #expect(idle)
    }
}

/// Transients every 100 ms and a 2 s buzz under intensity and sharpness curves every 5 s.
func benchmarkLikePattern(seconds: Int) -> HapticPattern {
    var elements: [PatternElement] = []
    for i in 0..<(seconds * 10) {
        elements.append(
            transient(Double(i) * 0.1 + 0.0123, intensity: Float(i % 10) / 10 + 0.1, sharpness: Float(i % 7) / 7))
    }
    var t = 0.0
    while t < Double(seconds) {
        elements.append(
            continuous(
                t + 0.5, 2, intensity: 0.8, sharpness: 0.4, extra: [.init(.attackTime, 0.1), .init(.releaseTime, 0.2)]))
        elements.append(
            .curve(
                ParameterCurve(
                    .hapticIntensityControl, time: t + 0.5,
                    controlPoints: [
                        .init(time: 0, value: 0.2), .init(time: 1, value: 1), .init(time: 2, value: 0.3),
                    ])))
        elements.append(
            .curve(
                ParameterCurve(
                    .hapticSharpnessControl, time: t + 0.5,
                    controlPoints: [
                        .init(time: 0, value: -0.4), .init(time: 2, value: 0.5),
                    ])))
        t += 5
    }
    return HapticPattern(elements: elements)
}

@Suite struct OffsetStartTests {
    @Test func startingPartWayJoinsEventsInProgressAndSkipsEarlierTransients() throws {
        let format = AudioFormat(sampleRate: 48_000)
        let pattern = try Synthesizer.prepare(
            HapticPattern(elements: [transient(0.1), continuous(0.2, 1), transient(0.7)]),
            clips: [:], format: format, voicing: .standard)
        var synth = Synthesizer(format: format, voicing: .standard)
        synth.start(pattern, layer: 0, atFrame: 0, offset: 0.5)
        var out = [Float](repeating: 0, count: 48_000)
        out.withUnsafeMutableBufferPointer { synth.render(into: $0) }
        // The buzz is already at full level; it ends (plus a 5 ms release) 0.7 s later; the
        // transient at 0.7 lands 0.2 s in.
        #expect(AudioAnalysis.rmsDBFS(out[0..<4_800]) > -13.9)  // RMS above 0.2
        #expect(AudioAnalysis.rmsDBFS(out[24_000..<33_000]) > -13.9)
        #expect(out[34_000...].allSatisfy { $0 == 0 })
        var solo = [Float](repeating: 0, count: 48_000)
        let clicks = try Synthesizer.prepare(
            HapticPattern(elements: [transient(0.1), transient(0.7)]), clips: [:], format: format, voicing: .standard)
        var reference = Synthesizer(format: format, voicing: .standard)
        reference.start(clicks, layer: 0, atFrame: 0, offset: 0.5)
        solo.withUnsafeMutableBufferPointer { reference.render(into: $0) }
        #expect(Measure.firstNonZero(solo) == 9_600)  // only the transient at 0.7 s sounds
    }
}

/// The command queue: frame order, stable among commands due at the same frame, however they
/// arrive (issue 28: a replayed session's 120,000 feedbacks at one time were queued by a scan).
@Suite struct CommandQueueTests {
    @Test func commandsAreQueuedInFrameOrderAndStableAtOneFrame() {
        var synthesizer = Synthesizer(format: AudioFormat(), voicing: .standard)
        var random = SplitMix64(seed: 28)
        var arrived: [(frame: Int64, layer: Int)] = []
        for layer in 0..<2_000 {
            // Mostly in time order, with repeats and late arrivals, as an engine's commands come.
            let frame = layer % 5 == 0 ? Int64(random.next() % 1_000) : Int64(layer / 3)
            arrived.append((frame, layer))
            synthesizer.stop(layer: layer, atFrame: frame)
        }
        let expected = arrived.enumerated().sorted { ($0.element.frame, $0.offset) < ($1.element.frame, $1.offset) }
        #expect(synthesizer.commands.map(\.frame) == expected.map(\.element.frame))
        #expect(synthesizer.commands.map(\.layer) == expected.map(\.element.layer))
    }
}
