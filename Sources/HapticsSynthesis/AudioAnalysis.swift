#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Measurements of rendered audio: level, loudness, spectrum and timing.
///
/// All functions take interleaved float samples, read them without copying, and are pure.
/// Each has an `UnsafeBufferPointer<Float>` form (for spans: `samples[a..<b].withUnsafeBufferPointer`)
/// and an `[Float]` convenience.
///
/// ```swift
/// let clip = try WAV.decode(bytes)
/// let lufs = AudioAnalysis.integratedLoudness(clip.samples, format: AudioFormat(sampleRate: clip.sampleRate, channels: clip.channels))
/// let hits = AudioAnalysis.onsets(clip.samples, channels: clip.channels, minGapFrames: 480)
/// ```
public enum AudioAnalysis {
    // MARK: Level

    /// Largest absolute sample value (linear; 1 is full scale). 0 for no samples.
    ///
    /// - Complexity: O(*n*).
    public static func peak(_ samples: UnsafeBufferPointer<Float>) -> Float {
        var peak: Float = 0
        for x in samples { peak = max(peak, abs(x)) }
        return peak
    }

    /// Largest absolute sample value; see ``peak(_:)-(UnsafeBufferPointer<Float>)``.
    public static func peak(_ samples: [Float]) -> Float {
        samples.withUnsafeBufferPointer { peak($0) }
    }

    /// Root-mean-square level of all samples (all channels together) in dB relative to full
    /// scale: a full-scale square wave reads 0 dBFS, a full-scale sine -3.01 dBFS.
    /// `-infinity` for silence or no samples.
    ///
    /// - Complexity: O(*n*).
    public static func rmsDBFS(_ samples: UnsafeBufferPointer<Float>) -> Double {
        guard !samples.isEmpty else { return -.infinity }
        var sum: Double = 0
        for x in samples { sum += Double(x) * Double(x) }
        return 10 * log10(sum / Double(samples.count))
    }

    /// RMS level in dBFS; see ``rmsDBFS(_:)-(UnsafeBufferPointer<Float>)``.
    public static func rmsDBFS(_ samples: [Float]) -> Double {
        samples.withUnsafeBufferPointer { rmsDBFS($0) }
    }

    // MARK: Timing

    /// Frames at which bursts of sound start: the first frame whose absolute value exceeds
    /// `threshold` on any channel after at least `minGapFrames` frames at or below it. The start
    /// of the signal counts as silence, so a burst at frame 0 is an onset.
    ///
    /// ```swift
    /// // Clicks at frames 100 and 5_000, each 50 frames long:
    /// AudioAnalysis.onsets(samples, channels: 1, minGapFrames: 480)  // [100, 5_000]
    /// ```
    ///
    /// - Complexity: O(*n*).
    public static func onsets(
        _ samples: UnsafeBufferPointer<Float>, channels: Int, threshold: Float = 1e-4, minGapFrames: Int
    ) -> [Int] {
        precondition(channels > 0 && minGapFrames >= 0)
        var result: [Int] = []
        var lastLoud = Int.min
        let frames = samples.count / channels
        for frame in 0..<frames {
            var loud = false
            for channel in 0..<channels where abs(samples[frame &* channels &+ channel]) > threshold {
                loud = true
            }
            guard loud else { continue }
            if lastLoud == Int.min || frame - lastLoud - 1 >= minGapFrames { result.append(frame) }
            lastLoud = frame
        }
        return result
    }

    /// Onset frames; see ``onsets(_:channels:threshold:minGapFrames:)-(UnsafeBufferPointer<Float>,_,_,_)``.
    public static func onsets(
        _ samples: [Float], channels: Int, threshold: Float = 1e-4, minGapFrames: Int
    ) -> [Int] {
        samples.withUnsafeBufferPointer {
            onsets($0, channels: channels, threshold: threshold, minGapFrames: minGapFrames)
        }
    }

    // MARK: Spectrum

    /// Spectral centroid in Hz: the power-weighted mean frequency of the (channel-averaged) signal.
    ///
    /// Welch's method: Hann-windowed frames of `frameSize` samples with 50 % overlap, power spectra
    /// averaged; a span shorter than `frameSize` is one frame zero-padded to a power of two.
    /// Bright, sharp sounds have a high centroid; a pure tone's centroid is its frequency.
    /// 0 when the span is silent or empty.
    ///
    /// - Parameter frameSize: FFT length, a power of two (resolution is `sampleRate / frameSize`).
    /// - Complexity: O(*n* log `frameSize`).
    public static func spectralCentroid(
        _ samples: UnsafeBufferPointer<Float>, sampleRate: Int, channels: Int = 1, frameSize: Int = 4096
    ) -> Double {
        let spectrum = averagedPowerSpectrum(samples, channels: channels, frameSize: frameSize)
        var weighted: Double = 0
        var total: Double = 0
        for (bin, power) in spectrum.enumerated() {
            weighted += Double(bin) * power
            total += power
        }
        guard total > 0 else { return 0 }
        let binWidth = Double(sampleRate) / Double(2 * (spectrum.count - 1))
        return weighted / total * binWidth
    }

    /// Spectral centroid in Hz; see ``spectralCentroid(_:sampleRate:channels:frameSize:)-(UnsafeBufferPointer<Float>,_,_,_)``.
    public static func spectralCentroid(
        _ samples: [Float], sampleRate: Int, channels: Int = 1, frameSize: Int = 4096
    ) -> Double {
        samples.withUnsafeBufferPointer {
            spectralCentroid($0, sampleRate: sampleRate, channels: channels, frameSize: frameSize)
        }
    }

    /// Frequency in Hz of the strongest spectral peak above DC (for a buzz: its fundamental,
    /// which carries the most power in the voicings' waveforms).
    ///
    /// Same averaged, Hann-windowed spectrum as ``spectralCentroid(_:sampleRate:channels:frameSize:)-(UnsafeBufferPointer<Float>,_,_,_)``,
    /// with the peak refined by parabolic interpolation of log power, so the estimate is far finer
    /// than a bin (typically within 0.1 Hz for a steady tone). 0 when the span is silent.
    ///
    /// - Complexity: O(*n* log `frameSize`).
    public static func dominantFrequency(
        _ samples: UnsafeBufferPointer<Float>, sampleRate: Int, channels: Int = 1, frameSize: Int = 16_384
    ) -> Double {
        let spectrum = averagedPowerSpectrum(samples, channels: channels, frameSize: frameSize)
        guard spectrum.count > 2 else { return 0 }
        var best = 1
        for bin in 1..<(spectrum.count - 1) where spectrum[bin] > spectrum[best] { best = bin }
        guard spectrum[best] > 0 else { return 0 }
        var offset: Double = 0
        let (left, center, right) = (spectrum[best - 1], spectrum[best], spectrum[best + 1])
        if left > 0, right > 0 {
            let (a, b, c) = (log(left), log(center), log(right))
            let curvature = a - 2 * b + c
            if curvature < 0 { offset = 0.5 * (a - c) / curvature }
        }
        let binWidth = Double(sampleRate) / Double(2 * (spectrum.count - 1))
        return (Double(best) + offset) * binWidth
    }

    /// Strongest frequency in Hz; see ``dominantFrequency(_:sampleRate:channels:frameSize:)-(UnsafeBufferPointer<Float>,_,_,_)``.
    public static func dominantFrequency(
        _ samples: [Float], sampleRate: Int, channels: Int = 1, frameSize: Int = 16_384
    ) -> Double {
        samples.withUnsafeBufferPointer {
            dominantFrequency($0, sampleRate: sampleRate, channels: channels, frameSize: frameSize)
        }
    }

    /// Mean power spectrum (bins 0...fftSize/2) of Hann-windowed frames with 50 % overlap,
    /// channels averaged to mono first. Empty input gives a single zero bin pair.
    static func averagedPowerSpectrum(
        _ samples: UnsafeBufferPointer<Float>, channels: Int, frameSize: Int
    ) -> [Double] {
        precondition(channels > 0, "channels must be positive")
        precondition(frameSize >= 2 && frameSize & (frameSize - 1) == 0, "frameSize must be a power of two")
        let frames = samples.count / channels
        // A span shorter than a frame becomes one frame, zero-padded to a power of two.
        let windowLength = min(frames, frameSize)
        let fftSize = max(2, windowLength <= 2 ? 2 : 1 << (Int.bitWidth - (windowLength - 1).leadingZeroBitCount))
        var spectrum = [Double](repeating: 0, count: fftSize / 2 + 1)
        guard windowLength > 1 else { return spectrum }

        let fft = RadixTwoFFT(size: fftSize)
        let window = (0..<windowLength).map { 0.5 - 0.5 * cos(2 * Double.pi * Double($0) / Double(windowLength)) }
        var real = [Double](repeating: 0, count: fftSize)
        var imaginary = [Double](repeating: 0, count: fftSize)
        let hop = max(1, windowLength / 2)
        let scale = 1 / Double(channels)
        var frameCount = 0
        var start = 0
        while start + windowLength <= frames {
            real.withUnsafeMutableBufferPointer { re in
                imaginary.withUnsafeMutableBufferPointer { im in
                    for i in 0..<windowLength {
                        var sum: Float = 0
                        let base = (start + i) * channels
                        for channel in 0..<channels { sum += samples[base + channel] }
                        re[i] = Double(sum) * scale * window[i]
                    }
                    for i in windowLength..<fftSize { re[i] = 0 }
                    for i in 0..<fftSize { im[i] = 0 }
                    fft.forward(real: re.baseAddress!, imaginary: im.baseAddress!)
                    for bin in 0...(fftSize / 2) { spectrum[bin] += re[bin] * re[bin] + im[bin] * im[bin] }
                }
            }
            frameCount += 1
            start += hop
        }
        let norm = 1 / Double(frameCount)
        for bin in spectrum.indices { spectrum[bin] *= norm }
        return spectrum
    }
}
