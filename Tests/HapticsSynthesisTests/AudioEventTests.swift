import HapticsCore
import HapticsSynthesis
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct AudioEventTests {
    /// Half a second of a 441 Hz cosine at 22,050 Hz (its first sample is full scale).
    static let clip = AudioClip(
        sampleRate: 22_050, channels: 1,
        samples: (0..<11_025).map { Float(0.8 * cos(2 * Double.pi * 441 * Double($0) / 22_050)) })

    func custom(_ time: Double, duration: Double? = nil, pan: Float = 0, pitch: Float = 0, loop: Bool = false)
        -> PatternElement
    {
        .event(
            HapticEvent(
                time: time, type: .audioCustom, duration: duration,
                parameters: [.init(.audioVolume, 0.5), .init(.audioPan, pan), .init(.audioPitch, pitch)],
                waveformPath: "beep.wav", waveformLoopEnabled: loop))
    }

    @Test func clipPlaysAtItsOwnLengthAndPitchAfterResampling() throws {
        let format = AudioFormat(sampleRate: 48_000)
        let samples = try PatternRenderer.render(
            HapticPattern(elements: [custom(0.1)]), format: format, clips: ["beep.wav": Self.clip])
        let onset = 4_800
        #expect(Measure.firstNonZero(samples) == onset)
        let last = Measure.lastNonZero(samples) ?? 0
        #expect(abs(last - (onset + 24_000)) <= 2)  // 0.5 s at 48 kHz
        let f = AudioAnalysis.dominantFrequency(samples[(onset + 4_800)..<(onset + 19_200)], sampleRate: 48_000)
        #expect(abs(f - 441) <= 1)
    }

    @Test func audioPitchShiftsTheClipAnOctave() throws {
        let format = AudioFormat(sampleRate: 48_000)
        let samples = try PatternRenderer.render(
            HapticPattern(elements: [custom(0, pitch: 1)]), format: format, clips: ["beep.wav": Self.clip])
        #expect(abs(samples.count - 12_000) <= 2)  // twice as fast: half as long
        let f = AudioAnalysis.dominantFrequency(samples[2_000..<10_000], sampleRate: 48_000)
        #expect(abs(f - 882) <= 2)
    }

    @Test func loopingFillsTheEventDurationAndCutsAShorterOne() throws {
        let format = AudioFormat(sampleRate: 48_000)
        let looped = try PatternRenderer.render(
            HapticPattern(elements: [custom(0, duration: 1.2, loop: true)]), format: format,
            clips: ["beep.wav": Self.clip])
        #expect(AudioAnalysis.rmsDBFS(looped[50_000..<56_000]) > -12)  // still playing in the third pass (RMS > 0.25)
        #expect(looped.count >= 57_600 && looped.count < 57_600 + 480)
        let cut = try PatternRenderer.render(
            HapticPattern(elements: [custom(0, duration: 0.2)]), format: format, clips: ["beep.wav": Self.clip])
        #expect(cut.count >= 9_600 && cut.count < 9_600 + 480)
    }

    @Test(arguments: [Float(-1), -0.5, 0, 0.5, 1])
    func panMovesEnergyBetweenChannels(pan: Float) throws {
        let format = AudioFormat(sampleRate: 48_000, channels: 2)
        let samples = try PatternRenderer.render(
            HapticPattern(elements: [custom(0, pan: pan)]), format: format, clips: ["beep.wav": Self.clip])
        // Linear RMS per channel, from AudioAnalysis's dBFS.
        func rms(from start: Int) -> Double {
            pow(10, AudioAnalysis.rmsDBFS(stride(from: start, to: 40_000, by: 2).map { samples[$0] }) / 20)
        }
        let (left, right) = (rms(from: 4_800), rms(from: 4_801))
        // Below the limiter threshold (peak 0.4). Equal power: left^2 + right^2 stays the same, the split follows the pan law.
        let angle = Double(pan + 1) * Double.pi / 4
        #expect(abs(left - right * cos(angle) / max(sin(angle), 1e-9)) < 0.01 || pan == -1)
        if pan == -1 { #expect(right < 1e-6) }
        if pan == 1 { #expect(left < 1e-6) }
        #expect(abs((left * left + right * right).squareRoot() - 0.4 / 2.squareRoot()) < 0.005)
    }

    @Test func missingClipRendersSilence() throws {
        let format = AudioFormat(sampleRate: 48_000)
        let samples = try PatternRenderer.render(HapticPattern(elements: [custom(0, duration: 0.5)]), format: format)
        #expect(samples.count == 24_000)
        #expect(AudioAnalysis.peak(samples) == 0)
    }

    @Test func audioContinuousToneFollowsPitchAndVolume() throws {
        let format = AudioFormat(sampleRate: 48_000)
        func tone(_ pitch: Float, _ volume: Float) throws -> [Float] {
            try PatternRenderer.render(
                HapticPattern(elements: [
                    .event(
                        HapticEvent(
                            time: 0, type: .audioContinuous, duration: 0.4,
                            parameters: [.init(.audioPitch, pitch), .init(.audioVolume, volume)]))
                ]), format: format)
        }
        let low = try tone(-1, 0.5)
        let high = try tone(0, 1)
        #expect(abs(AudioAnalysis.dominantFrequency(low[4_800..<14_400], sampleRate: 48_000) - 220) <= 1)
        #expect(abs(AudioAnalysis.dominantFrequency(high[4_800..<14_400], sampleRate: 48_000) - 440) <= 1)
        // RMS more than 1.5 times (3.52 dB) louder.
        #expect(AudioAnalysis.rmsDBFS(high[4_800..<14_400]) > AudioAnalysis.rmsDBFS(low[4_800..<14_400]) + 3.53)
    }
}
