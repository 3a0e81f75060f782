import Foundation
import Testing
import _HapticsTestSupport

@testable import HapticsSynthesis

/// `seconds` of a sine at `frequency` Hz and linear `amplitude`, on `channels` identical channels.
func sine(
    _ frequency: Double, amplitude: Double = 1, seconds: Double, rate: Int = 48_000, channels: Int = 1
) -> [Float] {
    let frames = Int(seconds * Double(rate))
    var out = [Float](repeating: 0, count: frames * channels)
    for frame in 0..<frames {
        let value = Float(amplitude * sin(2 * Double.pi * frequency * Double(frame) / Double(rate)))
        for channel in 0..<channels { out[frame * channels + channel] = value }
    }
    return out
}

@Suite("Audio analysis")
struct AudioAnalysisTests {
    @Test("A full-scale 1 kHz sine: peak 1, RMS -3.01 dBFS")
    func sineLevel() {
        let tone = sine(1000, seconds: 1)
        #expect(abs(AudioAnalysis.peak(tone) - 1) < 1e-6)
        #expect(abs(AudioAnalysis.rmsDBFS(tone) - -3.0103) < 0.001)
        let half = sine(1000, amplitude: 0.5, seconds: 1, channels: 2)
        #expect(abs(AudioAnalysis.rmsDBFS(half) - (-3.0103 - 6.0206)) < 0.001)
    }

    @Test("Silence and nothing: peak 0, RMS and loudness -infinity")
    func silence() {
        let zeros = [Float](repeating: 0, count: 48_000)
        #expect(AudioAnalysis.peak(zeros) == 0)
        #expect(AudioAnalysis.rmsDBFS(zeros) == -.infinity)
        #expect(AudioAnalysis.rmsDBFS([]) == -.infinity)
        #expect(AudioAnalysis.integratedLoudness(zeros, format: AudioFormat()) == -.infinity)
        #expect(AudioAnalysis.spectralCentroid(zeros, sampleRate: 48_000) == 0)
        #expect(AudioAnalysis.dominantFrequency(zeros, sampleRate: 48_000) == 0)
        #expect(AudioAnalysis.onsets(zeros, channels: 1, minGapFrames: 10) == [])
    }

    @Test("K-weighting at 48 kHz equals the coefficients tabulated in ITU-R BS.1770-4")
    func kWeightingCoefficients() {
        let k = KWeighting(sampleRate: 48_000)
        let shelf = [k.shelf.b0, k.shelf.b1, k.shelf.b2, k.shelf.a1, k.shelf.a2]
        let table1 = [1.53512485958697, -2.69169618940638, 1.19839281085285, -1.69065929318241, 0.73248077421585]
        let highPass = [k.highPass.b0, k.highPass.b1, k.highPass.b2, k.highPass.a1, k.highPass.a2]
        let table2 = [1.0, -2.0, 1.0, -1.99004745483398, 0.99007225036621]
        for (ours, spec) in zip(shelf + highPass, table1 + table2) {
            #expect(abs(ours - spec) < 1e-9, "\(ours) vs \(spec)")
        }
    }

    @Test(
        "BS.1770 calibration: a 0 dBFS 997 Hz sine on one channel reads -3.01 LUFS at every rate",
        arguments: [44_100, 48_000, 96_000])
    func calibration(rate: Int) {
        let tone = sine(997, seconds: 5, rate: rate)
        let lufs = AudioAnalysis.integratedLoudness(tone, format: AudioFormat(sampleRate: rate, channels: 1))
        #expect(abs(lufs - -3.01) < 0.01, "\(lufs)")
        // The same tone on both channels is twice the power: +3.01 LU.
        let stereo = sine(997, seconds: 5, rate: rate, channels: 2)
        let both = AudioAnalysis.integratedLoudness(stereo, format: AudioFormat(sampleRate: rate, channels: 2))
        #expect(abs(both - 0) < 0.01, "\(both)")
    }

    @Test("K-weighting: at equal RMS, 50 Hz reads 4.6 LU below 1 kHz and 5 kHz 3.3 LU above")
    func kWeightingShape() {
        func lufs(_ frequency: Double) -> Double {
            AudioAnalysis.integratedLoudness(sine(frequency, amplitude: 0.5, seconds: 2), format: AudioFormat())
        }
        let (low, mid, high) = (lufs(50), lufs(1000), lufs(5000))
        // Response of BS.1770's tabulated 48 kHz filters (scipy.signal.freqz), relative to 1 kHz:
        // -3.934 - 0.698 = -4.632 dB at 50 Hz, 4.013 - 0.698 = +3.316 dB at 5 kHz.
        #expect(abs(low - mid - -4.632) < 0.02, "\(low) vs \(mid)")
        #expect(abs(high - mid - 3.316) < 0.02, "\(high) vs \(mid)")
    }

    @Test("Gating: a passage 30 dB down does not pull integrated loudness down; shorter than 400 ms is -inf")
    func gating() {
        let loud = sine(997, amplitude: 1, seconds: 5)
        let quiet = sine(997, amplitude: 0.0316, seconds: 5)
        let lufs = AudioAnalysis.integratedLoudness(loud + quiet, format: AudioFormat())
        // Ungated, the mean power would be half: -6.0 LUFS. The relative gate (-13 LUFS) drops
        // the quiet blocks; the three blocks straddling the boundary pull it down slightly.
        #expect(lufs < -3.01 && lufs > -3.3, "\(lufs)")
        let short = sine(997, seconds: 0.399)
        #expect(AudioAnalysis.integratedLoudness(short, format: AudioFormat()) == -.infinity)
        let below = sine(997, amplitude: 0.0002, seconds: 2)  // about -77 LUFS: under the absolute gate
        #expect(AudioAnalysis.integratedLoudness(below, format: AudioFormat()) == -.infinity)
    }

    @Test("Kit.wav RMS over the whole clip: -16.11 dBFS (computed by tools/make-fixture-wav's formula)")
    func kitRMS() throws {
        let clip = try WAV.decode([UInt8](Data(contentsOf: kitWAV)))
        #expect(abs(AudioAnalysis.rmsDBFS(clip.samples) - -16.109) < 0.001)
    }

    @Test("Spectral centroid of a pure tone is its frequency", arguments: [440.0, 1000.0, 3150.0])
    func centroidOfTone(frequency: Double) {
        let centroid = AudioAnalysis.spectralCentroid(sine(frequency, seconds: 1), sampleRate: 48_000)
        #expect(abs(centroid - frequency) < 1, "\(centroid)")
    }

    @Test("Spectral centroid weights by power: equal 200 Hz and 2 kHz tones centre on 1.1 kHz; 3:1 power on 650 Hz")
    func centroidOfMixture() {
        let low = sine(200, seconds: 1)
        let high = sine(2000, seconds: 1)
        let equal = zip(low, high).map { 0.5 * ($0 + $1) }
        #expect(abs(AudioAnalysis.spectralCentroid(equal, sampleRate: 48_000) - 1100) < 2)
        let weighted = zip(low, high).map { 0.5 * ($0 * Float(3.0.squareRoot()) + $1) }
        #expect(abs(AudioAnalysis.spectralCentroid(weighted, sampleRate: 48_000) - 650) < 2)
        // A short span (shorter than one frame) still works: 2000 frames of 1 kHz.
        let short = Array(sine(1000, seconds: 1).prefix(2000))
        #expect(abs(AudioAnalysis.spectralCentroid(short, sampleRate: 48_000) - 1000) < 15)
    }

    @Test("Dominant frequency is accurate to 0.1 Hz, mono or stereo", arguments: [55.0, 173.3, 440.0, 2500.0])
    func dominant(frequency: Double) {
        let mono = sine(frequency, seconds: 1)
        #expect(abs(AudioAnalysis.dominantFrequency(mono, sampleRate: 48_000) - frequency) < 0.1)
        let stereo = sine(frequency, amplitude: 0.3, seconds: 1, rate: 44_100, channels: 2)
        let found = AudioAnalysis.dominantFrequency(stereo, sampleRate: 44_100, channels: 2)
        #expect(abs(found - frequency) < 0.1, "\(found)")
    }

    @Test("Dominant frequency of a square wave is its fundamental")
    func dominantOfSquare() {
        let square = sine(150, seconds: 1).map { $0 >= 0 ? Float(0.5) : -0.5 }
        #expect(abs(AudioAnalysis.dominantFrequency(square, sampleRate: 48_000) - 150) < 0.2)
    }

    @Test("Onsets land on the exact first sample of each burst after a long enough gap")
    func onsetsExact() {
        var samples = [Float](repeating: 0, count: 20_000)
        func burst(at frame: Int, length: Int, amplitude: Float) {
            for i in 0..<length { samples[frame + i] = (i % 2 == 0 ? 1 : -1) * amplitude }
        }
        burst(at: 0, length: 30, amplitude: 0.5)
        burst(at: 1_000, length: 100, amplitude: 0.01)
        burst(at: 1_150, length: 10, amplitude: 0.9)  // 50 quiet frames after the last: too close
        burst(at: 7_777, length: 1, amplitude: 0.001)
        burst(at: 12_345, length: 300, amplitude: 0.00005)  // below the threshold: not sound
        burst(at: 19_999, length: 1, amplitude: 0.2)
        #expect(AudioAnalysis.onsets(samples, channels: 1, minGapFrames: 100) == [0, 1_000, 7_777, 19_999])
        #expect(AudioAnalysis.onsets(samples, channels: 1, minGapFrames: 50) == [0, 1_000, 1_150, 7_777, 19_999])
        #expect(AudioAnalysis.onsets(samples, channels: 1, threshold: 0.005, minGapFrames: 100) == [0, 1_000, 19_999])
        #expect(
            AudioAnalysis.onsets(samples, channels: 1, threshold: 0.00001, minGapFrames: 100)
                == [0, 1_000, 7_777, 12_345, 19_999])
    }

    @Test("Onsets in stereo are frames, found on either channel")
    func onsetsStereo() {
        var samples = [Float](repeating: 0, count: 2 * 5_000)
        samples[2 * 480 + 1] = 0.3  // right channel only, frame 480
        samples[2 * 3_000] = -0.3  // left channel only, frame 3000
        samples[2 * 3_001 + 1] = 0.3
        #expect(AudioAnalysis.onsets(samples, channels: 2, minGapFrames: 480) == [480, 3_000])
    }

    @Test("The FFT equals a direct DFT", arguments: [2, 8, 64, 1024])
    func fftMatchesDFT(size: Int) {
        var generator = SplitMix64(seed: UInt64(size))
        let inputRe = (0..<size).map { _ in Double.random(in: -1...1, using: &generator) }
        let inputIm = (0..<size).map { _ in Double.random(in: -1...1, using: &generator) }
        var re = inputRe
        var im = inputIm
        re.withUnsafeMutableBufferPointer { re in
            im.withUnsafeMutableBufferPointer { im in
                RadixTwoFFT(size: size).forward(real: re.baseAddress!, imaginary: im.baseAddress!)
            }
        }
        var worst = 0.0
        for k in 0..<size {
            var (sumRe, sumIm) = (0.0, 0.0)
            for n in 0..<size {
                let angle = -2 * Double.pi * Double(k * n % size) / Double(size)
                sumRe += inputRe[n] * cos(angle) - inputIm[n] * sin(angle)
                sumIm += inputRe[n] * sin(angle) + inputIm[n] * cos(angle)
            }
            worst = max(worst, abs(sumRe - re[k]), abs(sumIm - im[k]))
        }
        #expect(worst < 1e-9)
    }
}

/// Loudness of audio too long to hold: measured block by block, the same figure as in one piece.
@Suite struct LoudnessMeterTests {
    @Test(arguments: [[1], [7, 4_410], [1_000, 1, 33_333], [96_000]])
    func blocksOfAnySizeGiveTheWholeSignalsLoudnessBitForBit(blockFrames: [Int]) {
        // 44.1 kHz stereo (segments of 4 410 frames), a loud then a quiet part so both gates act.
        let format = AudioFormat(sampleRate: 44_100, channels: 2)
        let signal =
            sine(997, amplitude: 0.5, seconds: 1.3, rate: 44_100, channels: 2)
            + sine(200, amplitude: 0.01, seconds: 1.1, rate: 44_100, channels: 2)
        let whole = AudioAnalysis.integratedLoudness(signal, format: format)
        #expect(whole > -10 && whole < -5)

        var meter = LoudnessMeter(format: format)
        var start = 0
        var turn = 0
        signal.withUnsafeBufferPointer { samples in
            while start < samples.count {
                let frames = blockFrames[turn % blockFrames.count]
                let end = min(samples.count, start + frames * 2)
                meter.add(UnsafeBufferPointer(rebasing: samples[start..<end]))
                start = end
                turn += 1
            }
        }
        #expect(meter.integratedLoudness == whole)
    }

    @Test func lessThanOneGatingBlockHasNoLoudness() {
        var meter = LoudnessMeter(format: AudioFormat())
        meter.add(sine(997, seconds: 0.39))
        #expect(meter.integratedLoudness == -.infinity)
    }
}
