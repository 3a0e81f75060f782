import HapticsCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The streaming analysis behind ``AudioHaptics``: feed mono blocks of any size, then ``finish()``.
///
/// Per 10 ms frame (a 46 ms Hann window at about 22 kHz, the input decimated by an integer factor):
/// - onsets: log-compressed magnitudes in semitone bands, flux (each band's rise over the frame two
///   before) weighted towards high bands, where attacks put their energy (a soft piano note's
///   hammer, a ghost hi-hat) and sustained partials do not; then a peak that is the local maximum
///   and stands above twice the local mean plus a small threshold (adaptive: in continuous sound,
///   such as the syllables inside a spoken word, a new onset must stand out from the flux around it;
///   after silence a small one suffices), at least the minimum gap after the last; its time
///   refined to the 1 ms block where energy jumps most. The local mean leaves out the largest
///   flux before the peak's own rise: in a fast run (a roll, 16th notes) that is the previous
///   note's peak, which would otherwise raise the bar for the next. A peak where the level does
///   not rise and then falls by more than `endDrop` is a sound's abrupt end (a sample cut off
///   mid-decay clicks in the high bands), not an onset. Under the silence threshold (within
///   `quietRange`) a peak must stand further out. A peak that fails the mean test still counts
///   where the energy above about 14 kHz (the source's third difference, before decimation takes
///   it away) rises by `airRise` within its window: a hi-hat under a snare's or a cymbal's wash
///   barely changes the bands up to 12 kHz but rises 7 to 11 dB above 16 kHz. Failing that too, it
///   counts where the tonal rise (bands below 4 kHz, each band's level held over the next 20 ms
///   above its loudest of 20 to 40 ms before) stands out from its own local mean, inside a sound
///   not silent for 0.5 s: notes that ring into each other (pizzicato strings), whose level builds
///   over 30 to 80 ms while the ringing high partials ripple in the flux. No maximum filter across bands
///   (SuperFlux): on the benchmark it cost soft piano notes and speech more than it saved;
/// - loudness: the frame's mean square (within the band, if one is given), as a perceptual
///   intensity (amplitude^0.6, Stevens' loudness exponent, -12 dBFS RMS at 1);
/// - sharpness: the spectral centroid, on a log scale across the band.
///
/// Memory: the window, a 64-frame history and the events written so far; nothing grows with the
/// length of a silent or continuous sound beyond the events it makes.
public final class AudioHapticsAnalyzer {
    // MARK: Tuning (tools/bench; docs/audio-to-haptics.md)

    /// Log compression: log10(1 + λ·|X|), |X| normalised so a full-scale sine's bin is about 1.
    static let compression: Float = 1_000
    /// Peak threshold over `meanWeight` × the local mean, per band (× band count) at sensitivity 0.5.
    static let deltaPerBand: Float = 0.002
    /// How many times the local mean of the flux a peak must exceed, at sensitivity 0.5.
    static let meanWeight: Float = 2
    /// A band's flux is weighted by (centre frequency / 1 kHz)^highBandEmphasis.
    static let highBandEmphasis = 0.6
    static let bandsPerOctave = 12.0
    /// Frames (10 ms) of the peak picker: local maximum over [-preMax, +postMax], mean over [-preAvg, +postAvg].
    static let preMax = 3
    static let postMax = 3
    static let preAvg = 7
    static let postAvg = 1
    /// Decibels the level may fall across a peak that brought no rise in level, from `lag` frames
    /// before it to `postMax` frames after (where the window holds the new sound): more is a
    /// sound's end.
    static let endDrop = 15.0
    /// Frames between a frame and the one its flux is measured against (its window overlaps 57 %).
    static let lag = 2
    /// Decibels under the silence threshold where an onset still counts (a soft note in a quiet
    /// tail), if its flux stands `quietMeanWeight` times further above the local mean.
    static let quietRange = 10.0
    static let quietMeanWeight: Float = 1.3
    /// Decibels the air band's energy (the source's third difference, above about 14 kHz at
    /// 48 kHz) must rise, over the 5 ms from a 1 ms block against the 10 ms before it, to make a
    /// peak that fails the mean test an onset; the 5 ms must be above the silence threshold.
    static let airRise = 3.0
    /// Decibels the air band's rise must exceed the first difference's (energy above about 8 kHz)
    /// by: a sibilant inside a spoken word, all below 11 kHz, raises both alike.
    static let airOverEdge = 2.0
    /// The tonal rise (a plucked note ringing into the last, whose level builds for 30 to 80 ms):
    /// each band below `toneHigh`'s rise from the loudest of its levels 20 to 40 ms back to the
    /// quietest of its levels over the next 20 ms (a ripple falls back within that), summed. A
    /// peak that fails the mean test counts if this rise is the local maximum and stands
    /// `toneMeanWeight` times over its own local mean plus `toneDelta` times the threshold, inside
    /// a sound that has not been silent for `toneSounding` frames (a word's own vowel, 0.1 to
    /// 0.4 s after it starts, is no new onset).
    static let toneHigh = 4_000.0
    /// Frames after a frame its tonal rise waits for.
    static let toneKeep = 2
    static let toneMeanWeight: Float = 1.5
    static let toneDelta: Float = 2
    static let toneSounding = 50
    /// Silence that closes a continuous event, seconds.
    static let hold = 0.1
    /// The longest continuous event written, seconds (Core Haptics plays up to 30).
    static let maxContinuous = 20.0
    /// RMS amplitude that maps to intensity 1 (-12 dBFS).
    static let fullScaleRMS = 0.2512
    static let loudnessExponent = 0.6

    // MARK: Set-up

    let options: AudioHapticsOptions
    let sourceRate: Int
    let decimation: Int
    /// Analysis sample rate.
    let rate: Double
    let size: Int
    let hop: Int
    private let fft: RealFFT
    private let window: UnsafeMutablePointer<Float>
    private let history: UnsafeMutablePointer<Float>
    private let windowed: UnsafeMutablePointer<Float>
    private let power: UnsafeMutablePointer<Float>
    /// |X[k]|, from `power` once per frame.
    private let magnitude: UnsafeMutablePointer<Float>
    private let windowEnergy: Double
    /// Flux bands: `bandCount` adjacent bin ranges, band b is `bandEdges[b]..<bandEdges[b + 1]`.
    private let bandCount: Int
    private let bandEdges: UnsafeMutablePointer<Int>
    /// 1 + λ·(a band's magnitude) per band, then padded with 1 to a multiple of 8 lanes.
    private let compressed: UnsafeMutablePointer<Float>
    /// Their logarithms, as many lanes.
    private let logs: UnsafeMutablePointer<Float>
    /// Band levels of the last `lag + 1` frames, frame t's at `(t % (lag + 1)) * bandCount`.
    private let levels: UnsafeMutablePointer<Float>
    /// Each band's weight in the flux.
    private let bandWeight: UnsafeMutablePointer<Float>
    /// The bands below `toneHigh` (the first `toneBands`), their levels of the last `toneRing`
    /// frames, frame t's at `(t % toneRing) * toneBands`.
    private let toneBands: Int
    private static let toneRing = 7
    private let toneLevels: UnsafeMutablePointer<Float>
    /// Scratch: each band's tonal rise in the frame being measured.
    private let toneRises: UnsafeMutablePointer<Float>
    private let loudBins: Range<Int>
    private let sharpBins: Range<Int>
    private let sharpLow: Double
    private let sharpHigh: Double
    private let delta: Float
    private let meanWeight: Float

    // MARK: State

    private var decimateSum: Float = 0
    private var decimateCount = 0
    private var filled = 0
    /// Analysis samples taken in.
    private var samples = 0
    private var frame = 0
    private var sourceFrames = 0
    /// Analysis samples of exact zeros in a row, and how many make the state all zeros.
    private var quietSamples = 0
    private let quietNeeded: Int

    private struct FrameInfo {
        var flux: Float = 0
        var dB: Double = -.infinity
        var sharpness: Double = 0.5
        var silent = true
        /// The tonal rise (`toneHigh`), set `toneKeep` frames later.
        var tone: Float = 0
        /// Frames in a row up to this one that were not silent.
        var sounding = 0
    }
    private static let ring = 64
    private var frames = [FrameInfo](repeating: FrameInfo(), count: ring)

    private let block: Int
    private static let energyRing = 1_024
    private let energies: UnsafeMutablePointer<Float>
    /// Per 1 ms block, the sum of squares of the source's third difference (`energies`' ring),
    /// when the source is decimated (at 22 kHz and under there is no air band above the analysis).
    private let airEnergies: UnsafeMutablePointer<Float>
    private var airSum: Float = 0
    /// The same for the source's first difference (the edge band, above about 8 kHz).
    private let edgeEnergies: UnsafeMutablePointer<Float>
    private var edgeSum: Float = 0
    /// The last source sample and its first and second differences.
    private var airState: (Float, Float, Float) = (0, 0, 0)
    private var blockIndex = 0
    private var blockSum: Float = 0
    private var blockCount = 0

    private var lastOnsetFrame = Int.min / 2
    private var lastOnsetTime = -Double.infinity
    private var peak: Float
    private let peakDecay: Float

    private typealias Transient = PatternStream.Transient
    private var transients: [Transient] = []
    private var onsets: [Double] = []
    /// The intensity of each onset's transient (before the budget), in step with `onsets`.
    private var onsetIntensities: [Double] = []

    private struct Point {
        var time: Double
        var intensity: Double
        var sharpness: Double
    }
    private var segment: [Point] = []
    private var silentFrames = 0
    private var elements: [PatternElement] = []
    private var continuousStarts: [Double] = []
    /// When set (``AudioHaptics/convert(_:options:writingAHAP:)``), events go to the stream as
    /// they are made instead of being kept for ``finish()``.
    var stream: PatternStream?
    private var onsetCount = 0

    public init(sampleRate: Int, options: AudioHapticsOptions) {
        self.options = options
        sourceRate = sampleRate
        decimation = max(1, sampleRate / 22_050)
        rate = Double(sampleRate) / Double(decimation)
        var n = 4
        while Double(n) < rate * 0.04 { n <<= 1 }
        size = n
        hop = max(1, Int((rate / 100).rounded()))
        fft = RealFFT(size: n)
        window = .allocate(capacity: n)
        history = .allocate(capacity: n)
        history.initialize(repeating: 0, count: n)
        windowed = .allocate(capacity: n)
        power = .allocate(capacity: n / 2 + 1)
        magnitude = .allocate(capacity: n / 2 + 1)
        energies = .allocate(capacity: Self.energyRing)
        energies.initialize(repeating: 0, count: Self.energyRing)
        airEnergies = .allocate(capacity: Self.energyRing)
        airEnergies.initialize(repeating: 0, count: Self.energyRing)
        edgeEnergies = .allocate(capacity: Self.energyRing)
        edgeEnergies.initialize(repeating: 0, count: Self.energyRing)
        var energy = 0.0
        for i in 0..<n {
            let w = 0.5 - 0.5 * cos(2 * Double.pi * (Double(i) + 0.5) / Double(n))
            window[i] = Float(w)
            energy += w * w
        }
        windowEnergy = energy
        let binHz = rate / Double(n)
        let nyquistBin = n / 2
        func bin(_ hz: Double) -> Int { min(nyquistBin, max(0, Int((hz / binHz).rounded()))) }
        let low = options.band?.low ?? 30
        let high = min(options.band?.high ?? rate / 2, rate / 2)
        var bands: [Range<Int>] = []
        var start = max(1, bin(low))
        var edge = low
        let end = max(start + 1, bin(high))
        while start < end {
            edge *= pow(2, 1 / Self.bandsPerOctave)
            let stop = min(end, max(start + 1, bin(edge)))
            if stop > start {
                bands.append(start..<stop)
                start = stop
            }
        }
        bandCount = bands.count
        bandEdges = .allocate(capacity: bands.count + 1)
        bandEdges[0] = bands.first?.lowerBound ?? 0
        for (b, range) in bands.enumerated() { bandEdges[b + 1] = range.upperBound }
        let lanes = (bands.count + 7) / 8 * 8
        compressed = .allocate(capacity: lanes)
        compressed.initialize(repeating: 1, count: lanes)
        logs = .allocate(capacity: lanes)
        logs.initialize(repeating: 0, count: lanes)
        levels = .allocate(capacity: (Self.lag + 1) * bands.count)
        levels.initialize(repeating: 0, count: (Self.lag + 1) * bands.count)
        bandWeight = .allocate(capacity: bands.count)
        for (b, range) in bands.enumerated() {
            let centreHz = Double(range.lowerBound + range.upperBound) * 0.5 * binHz
            bandWeight[b] = Float(pow(centreHz / 1000, Self.highBandEmphasis))
        }
        toneBands = bands.prefix { Double($0.lowerBound + $0.upperBound) * 0.5 * binHz < Self.toneHigh }.count
        toneLevels = .allocate(capacity: Self.toneRing * toneBands)
        toneLevels.initialize(repeating: 0, count: Self.toneRing * toneBands)
        toneRises = .allocate(capacity: toneBands)
        loudBins =
            options.band.map { max(0, bin($0.low))..<max(bin($0.low) + 1, bin($0.high) + 1) } ?? 0..<(nyquistBin + 1)
        let sharp = options.band ?? AudioHapticsOptions.sharpnessBand
        sharpLow = sharp.low
        sharpHigh = min(sharp.high, rate / 2)
        sharpBins = max(1, bin(sharp.low))..<max(bin(sharp.low) + 2, bin(sharpHigh) + 1)
        delta = Self.deltaPerBand * Float(bands.count) * Float(pow(4, 0.5 - options.sensitivity))
        meanWeight = Self.meanWeight * Float(pow(2, 0.5 - options.sensitivity))
        peak = delta * 4
        peakDecay = Float(pow(0.5, 1 / (5 * rate / Double(hop))))
        block = max(1, Int((rate / 1000).rounded()))
        quietNeeded = max(n + hop * (Self.ring + Self.lag + 2), block * (Self.energyRing + 8))
    }

    deinit {
        window.deallocate()
        history.deallocate()
        windowed.deallocate()
        power.deallocate()
        magnitude.deallocate()
        energies.deallocate()
        airEnergies.deallocate()
        edgeEnergies.deallocate()
        bandEdges.deallocate()
        compressed.deallocate()
        logs.deallocate()
        levels.deallocate()
        bandWeight.deallocate()
        toneLevels.deallocate()
        toneRises.deallocate()
    }

    var framesPerSecond: Double { rate / Double(hop) }

    // MARK: Feeding

    /// Takes the next mono samples (-1...1) at the source rate.
    public func process(_ input: UnsafeBufferPointer<Float>) {
        guard let base = input.baseAddress else { return }
        sourceFrames += input.count
        let scale = 1 / Float(decimation)
        let decimation = self.decimation
        let hop = self.hop
        let block = self.block
        let energies = self.energies
        var i = 0
        while i < input.count {
            // Silence is skipped only at a frame boundary (nothing half-filled).
            if filled == 0, decimateCount == 0, quietSamples >= quietNeeded, segment.isEmpty {
                i += skipSilence(UnsafeBufferPointer(rebasing: input[i...]))
                if i == input.count { break }
            }
            // Up to the end of this hop, with the per-sample state in locals.
            let slot = history + (size - hop)
            var sum = decimateSum
            var summed = decimateCount
            var filled = self.filled
            var quiet = quietSamples
            var blockSum = self.blockSum
            var blockCount = self.blockCount
            var blockIndex = self.blockIndex
            var airSum = self.airSum
            var edgeSum = self.edgeSum
            let edgeEnergies = self.edgeEnergies
            var (p1, q1, r1) = airState
            let airEnergies = self.airEnergies
            let taken = filled
            while i < input.count, filled < hop {
                if summed == 0, decimation == 2 {
                    // Whole pairs up to the end of the hop or of the 1 ms block, in one tight loop.
                    let n = min(hop &- filled, block &- blockCount, (input.count &- i) >> 1)
                    if n > 0 {
                        let pairs = base + i
                        let into = slot + filled
                        // The air band: each sample's third difference, on two chains.
                        var airOdd: Float = 0
                        for j in 0..<n {
                            let a = pairs[2 &* j]
                            let b = pairs[2 &* j &+ 1]
                            let y = ((0 + a) + b) * scale
                            into[j] = y
                            blockSum += y * y
                            quiet = y == 0 ? quiet &+ 1 : 0
                            let da = a - p1
                            let ea = da - q1
                            let fa = ea - r1
                            let db = b - a
                            let eb = db - da
                            let fb = eb - ea
                            airSum += fa * fa
                            airOdd += fb * fb
                            edgeSum += da * da + db * db
                            p1 = b
                            q1 = db
                            r1 = eb
                        }
                        airSum += airOdd
                        i &+= 2 &* n
                        filled &+= n
                        blockCount &+= n
                        if blockCount == block {
                            energies[blockIndex & (Self.energyRing - 1)] = blockSum
                            airEnergies[blockIndex & (Self.energyRing - 1)] = airSum
                            edgeEnergies[blockIndex & (Self.energyRing - 1)] = edgeSum
                            airSum = 0
                            edgeSum = 0
                            blockIndex &+= 1
                            blockSum = 0
                            blockCount = 0
                        }
                        continue
                    }
                }
                if summed == 0, decimation == 2, i &+ 1 < input.count {
                    sum = (0 + base[i]) + base[i &+ 1]
                    Self.air(base[i], &p1, &q1, &r1, into: &airSum, &edgeSum)
                    Self.air(base[i &+ 1], &p1, &q1, &r1, into: &airSum, &edgeSum)
                    i &+= 2
                    summed = 2
                } else {
                    sum += base[i]
                    if decimation >= 2 { Self.air(base[i], &p1, &q1, &r1, into: &airSum, &edgeSum) }
                    i &+= 1
                    summed &+= 1
                    guard summed == decimation else { continue }
                }
                let y = sum * scale
                sum = 0
                summed = 0
                quiet = y == 0 ? quiet &+ 1 : 0
                slot[filled] = y
                filled &+= 1
                blockSum += y * y
                blockCount &+= 1
                if blockCount == block {
                    energies[blockIndex & (Self.energyRing - 1)] = blockSum
                    airEnergies[blockIndex & (Self.energyRing - 1)] = airSum
                    edgeEnergies[blockIndex & (Self.energyRing - 1)] = edgeSum
                    airSum = 0
                    edgeSum = 0
                    blockIndex &+= 1
                    blockSum = 0
                    blockCount = 0
                }
            }
            self.airSum = airSum
            self.edgeSum = edgeSum
            airState = (p1, q1, r1)
            decimateSum = sum
            decimateCount = summed
            quietSamples = quiet
            self.blockSum = blockSum
            self.blockCount = blockCount
            self.blockIndex = blockIndex
            samples &+= filled &- taken
            self.filled = filled
            if filled == hop {
                analyseFrame()
                (history + 0).update(from: history + hop, count: size - hop)
                self.filled = 0
            }
        }
    }

    /// Digital silence long enough that every frame in the history, the energy ring and the levels
    /// is zero: whole frames of zeros then change nothing but the counters, so they are counted,
    /// not analysed (ten hours of silence cost a scan for zeros). Returns the input samples consumed.
    private func skipSilence(_ input: UnsafeBufferPointer<Float>) -> Int {
        let perFrame = decimation * hop
        var zeros = 0
        while zeros < input.count, input[zeros] == 0 { zeros &+= 1 }
        let k = zeros / perFrame
        guard k > 0 else { return 0 }
        frame += k
        samples += k * hop
        let blocks = blockCount + k * hop
        blockIndex += blocks / block
        blockCount = blocks % block
        peak = max(delta * 4, peak * pow(peakDecay, Float(min(k, 1 << 20))))
        quietSamples += k * hop
        return k * perFrame
    }

    /// The third and first differences of source sample `x` (state: the last sample and its first
    /// and second differences), squared into `sum` and `edge`.
    @inline(__always)
    private static func air(
        _ x: Float, _ p1: inout Float, _ q1: inout Float, _ r1: inout Float, into sum: inout Float,
        _ edge: inout Float
    ) {
        let d = x - p1
        let e = d - q1
        let f = e - r1
        sum += f * f
        edge += d * d
        (p1, q1, r1) = (x, d, e)
    }

    @inline(__always)
    private func take(_ y: Float) {
        quietSamples = y == 0 ? quietSamples &+ 1 : 0
        history[size - hop + filled] = y
        filled &+= 1
        samples &+= 1
        blockSum += y * y
        blockCount &+= 1
        if blockCount == block {
            energies[blockIndex & (Self.energyRing - 1)] = blockSum
            airEnergies[blockIndex & (Self.energyRing - 1)] = airSum
            edgeEnergies[blockIndex & (Self.energyRing - 1)] = edgeSum
            airSum = 0
            edgeSum = 0
            blockIndex &+= 1
            blockSum = 0
            blockCount = 0
        }
        if filled == hop {
            analyseFrame()
            // Slide the window by one hop.
            (history + 0).update(from: history + hop, count: size - hop)
            filled = 0
        }
    }

    /// Time (s) of the centre of frame `t`'s window.
    private func centre(_ t: Int) -> Double { (Double((t + 1) * hop) - Double(size) / 2) / rate }

    private func analyseFrame() {
        let t = frame
        frame += 1
        var info = FrameInfo()
        let size = self.size
        let history = self.history
        let windowed = self.windowed
        let window = self.window
        // The window and the sum of squares in one pass on sixteen lanes: a serial sum would be
        // one chain of `size` dependent additions, bound by their latency.
        var sumSquares: Float = 0
        if size & 15 == 0 {
            typealias V = SIMD8<Float>
            let h = UnsafeRawPointer(history)
            let w = UnsafeRawPointer(window)
            let out = UnsafeMutableRawPointer(windowed)
            var a = V()
            var b = V()
            var o = 0
            while o < size &* 4 {
                let x = h.loadUnaligned(fromByteOffset: o, as: V.self)
                let y = h.loadUnaligned(fromByteOffset: o &+ 32, as: V.self)
                a += x * x
                b += y * y
                out.storeBytes(of: x * w.loadUnaligned(fromByteOffset: o, as: V.self), toByteOffset: o, as: V.self)
                out.storeBytes(
                    of: y * w.loadUnaligned(fromByteOffset: o &+ 32, as: V.self), toByteOffset: o &+ 32, as: V.self)
                o &+= 64
            }
            sumSquares = (a + b).sum()
        } else {
            for i in 0..<size { sumSquares += history[i] * history[i] }
            for i in 0..<size { windowed[i] = history[i] * window[i] }
        }
        let roughDB = 10 * log10(Double(sumSquares) / Double(size) + 1e-30) + options.gain
        let count = bandCount
        let current = levels + (t % (Self.lag + 1)) * count
        if roughDB < options.silenceThreshold - 20 {
            // Far below the gate: no spectrum needed (and long silences cost little).
            current.update(repeating: 0, count: count)
        } else {
            let bins = size / 2 + 1
            fft.power(windowed, into: power)
            // Eight square roots at a time: a scalar `squareRoot()` is a `sqrtss` with a branch to
            // libm's `sqrtf` for negative input (to set errno), which does not vectorise.
            var k = 0
            let from = UnsafeRawPointer(power)
            let into = UnsafeMutableRawPointer(magnitude)
            while k &+ 8 <= bins {
                let p = from.loadUnaligned(fromByteOffset: k &* 4, as: SIMD8<Float>.self)
                into.storeBytes(of: p.squareRoot(), toByteOffset: k &* 4, as: SIMD8<Float>.self)
                k &+= 8
            }
            while k < bins {
                magnitude[k] = power[k].squareRoot()
                k &+= 1
            }
            // Loudness: Parseval over the window (one-sided spectrum: every bin twice but 0 and size/2).
            var energy = Self.sum(power, loudBins)
            energy *= 2
            if loudBins.contains(0) { energy -= Double(power[0]) }
            if loudBins.contains(size / 2) { energy -= Double(power[size / 2]) }
            info.dB = 10 * log10(energy / (Double(size) * windowEnergy) + 1e-30) + options.gain
            info.silent = info.dB < options.silenceThreshold
            // Sharpness: centroid (magnitude-weighted) on a log scale across the band.
            let (weighted, total) = Self.moments(magnitude, sharpBins.clamped(to: 0..<bins))
            if total > 0 {
                let centroid = weighted * (rate / Double(size)) / total
                info.sharpness = min(1, max(0, log(centroid / sharpLow) / log(sharpHigh / sharpLow)))
            }
            // Band levels, log-compressed: the sums first, then their logs eight at a time.
            let norm = Self.compression * 2 / Float(size)
            let compressed = self.compressed
            for b in 0..<count {
                var m: Float = 0
                for k in bandEdges[b]..<bandEdges[b + 1] { m += magnitude[k] }
                compressed[b] = 1 + norm * m
            }
            // Whole vectors in and out: a lane taken out one at a time makes the compiler
            // scalarise the whole logarithm.
            let logs = self.logs
            var b = 0
            while b < count {
                let x = UnsafeRawPointer(compressed + b).loadUnaligned(as: SIMD8<Float>.self)
                UnsafeMutableRawPointer(logs + b).storeBytes(of: VectorLog.log10(x), as: SIMD8<Float>.self)
                b &+= 8
            }
            current.update(from: logs, count: count)
        }
        // Flux: each band's rise over its level `lag` frames before, weighted towards high bands.
        let prev = levels + ((t + 1) % (Self.lag + 1)) * count
        let bandWeight = self.bandWeight
        // Eight bands at a time (a rise below zero counts zero), then the lanes summed.
        var lanes = SIMD8<Float>()
        var b = 0
        let now = UnsafeRawPointer(current)
        let before = UnsafeRawPointer(prev)
        let weights = UnsafeRawPointer(bandWeight)
        while b &+ 8 <= count {
            let o = b &* 4
            let d =
                now.loadUnaligned(fromByteOffset: o, as: SIMD8<Float>.self)
                - before.loadUnaligned(fromByteOffset: o, as: SIMD8<Float>.self)
            lanes +=
                d.replacing(with: 0, where: d .< 0) * weights.loadUnaligned(fromByteOffset: o, as: SIMD8<Float>.self)
            b &+= 8
        }
        var flux = lanes.sum()
        while b < count {
            let d = current[b] - prev[b]
            if d > 0 { flux += d * bandWeight[b] }
            b &+= 1
        }
        info.flux = t >= Self.lag ? flux : 0
        info.sounding = info.silent ? 0 : frames[(t + Self.ring - 1) % Self.ring].sounding + 1
        frames[t % Self.ring] = info
        toneRise(current, at: t)
        follow(info, at: t)
        if t >= Self.postMax { pick(t - Self.postMax, latest: t) }
    }

    /// The sum of `values[range]` in double precision, on four independent chains.
    @inline(__always)
    private static func sum(_ values: UnsafeMutablePointer<Float>, _ range: Range<Int>) -> Double {
        var (s0, s1, s2, s3) = (0.0, 0.0, 0.0, 0.0)
        var k = range.lowerBound
        while k &+ 4 <= range.upperBound {
            s0 += Double(values[k])
            s1 += Double(values[k &+ 1])
            s2 += Double(values[k &+ 2])
            s3 += Double(values[k &+ 3])
            k &+= 4
        }
        while k < range.upperBound {
            s0 += Double(values[k])
            k &+= 1
        }
        return (s0 + s1) + (s2 + s3)
    }

    /// Σ k·values[k] and Σ values[k] over `range`, in double precision, on four chains each.
    @inline(__always)
    private static func moments(_ values: UnsafeMutablePointer<Float>, _ range: Range<Int>) -> (Double, Double) {
        var w = SIMD4<Double>()
        var t = SIMD4<Double>()
        var index = SIMD4<Double>(0, 1, 2, 3) + Double(range.lowerBound)
        var k = range.lowerBound
        while k &+ 4 <= range.upperBound {
            let m = SIMD4<Double>(
                Double(values[k]), Double(values[k &+ 1]), Double(values[k &+ 2]), Double(values[k &+ 3]))
            w += m * index
            t += m
            index += 4
            k &+= 4
        }
        var weighted = w.sum()
        var total = t.sum()
        while k < range.upperBound {
            weighted += Double(values[k]) * Double(k)
            total += Double(values[k])
            k &+= 1
        }
        return (weighted, total)
    }

    /// Keeps frame `t`'s levels below `toneHigh` and sets the tonal rise of frame `c = t - toneKeep`
    /// (2): per band, the quietest of its levels in frames c to c + 2 over the loudest in frames
    /// c - 4 to c - 2, where positive, summed.
    private func toneRise(_ current: UnsafeMutablePointer<Float>, at t: Int) {
        let ring = Self.toneRing
        let count = toneBands
        func row(_ j: Int) -> UnsafeMutablePointer<Float> { toneLevels + (j % ring) * count }
        row(t).update(from: current, count: count)
        let c = t - Self.toneKeep
        guard c >= 4 else { return }
        let (a0, a1, a2) = (row(c), row(c + 1), row(c + 2))
        let (b0, b1, b2) = (row(c - 2), row(c - 3), row(c - 4))
        // Each band's rise into `toneRises` (a loop of selects, which vectorises), then the sum on
        // eight lanes (SIMD8 minima and masks compile to shuffles on baseline x86-64).
        let rises = toneRises
        for b in 0..<count {
            let after = min(a0[b], a1[b], a2[b])
            let before = max(b0[b], b1[b], b2[b])
            rises[b] = max(0, after - before)
        }
        var lanes = SIMD8<Float>()
        var b = 0
        let from = UnsafeRawPointer(rises)
        while b &+ 8 <= count {
            lanes += from.loadUnaligned(fromByteOffset: b &* 4, as: SIMD8<Float>.self)
            b &+= 8
        }
        var rise = lanes.sum()
        while b < count {
            rise += rises[b]
            b &+= 1
        }
        frames[c % Self.ring].tone = rise
    }

    /// Whether frame `c`'s tonal rise is the local maximum over the frames known (up to `latest`
    /// less `toneKeep`), stands out from its local mean as the flux must, and is inside a sound.
    private func toneOnset(_ c: Int, latest: Int) -> Bool {
        let f = frames[c % Self.ring]
        guard f.tone > 0, f.sounding > Self.toneSounding else { return false }
        guard let excess = peakExcess(c, known: latest - Self.toneKeep, weight: Self.toneMeanWeight, { $0.tone }) else {
            return false
        }
        return excess >= Self.toneDelta * delta
    }

    /// How far frame `c`'s `value` (its flux or its tonal rise) stands above `weight` times its
    /// local mean, or nil where it is not the local maximum over the frames known (up to
    /// `known`). The local mean leaves out the largest value before the peak's own rise (the
    /// previous onset's).
    @inline(__always)
    private func peakExcess(_ c: Int, known: Int, weight: Float, _ value: (FrameInfo) -> Float) -> Float? {
        let own = value(frames[c % Self.ring])
        for j in max(0, c - Self.preMax)...min(known, c + Self.postMax) where j != c {
            let other = value(frames[j % Self.ring])
            if other > own || (other == own && j < c) { return nil }
        }
        var sum: Float = 0
        var n: Float = 0
        var largest: Float = 0
        for j in max(0, c - Self.preAvg)...min(known, c + Self.postAvg) {
            let v = value(frames[j % Self.ring])
            sum += v
            n += 1
            if j < c - 1 { largest = max(largest, v) }
        }
        if n > 1 {
            sum -= largest
            n -= 1
        }
        return own - weight * sum / n
    }

    // MARK: Onsets

    private func pick(_ c: Int, latest: Int) {
        let f = frames[c % Self.ring]
        guard f.flux > 0 else { return }
        // Under the silence threshold at the peak and in the next frame: a soft note where a
        // loud one has decayed (a piano's ghost note) counts if the level is within `quietRange`
        // of the threshold and its flux stands further out (a cymbal's tail or a noise floor
        // there makes peaks about twice the mean; the notes, three and more).
        var weight = meanWeight
        let next = frames[(c + 1) % Self.ring]
        if f.silent, next.silent {
            guard max(f.dB, next.dB) >= options.silenceThreshold - Self.quietRange else { return }
            weight *= Self.quietMeanWeight
        }
        guard var excess = peakExcess(c, known: latest, weight: weight, { $0.flux }) else { return }
        // Failing that, a rise in the air band (a hi-hat under a wash): then the onset is there.
        var airTime: Double?
        if excess < delta, decimation >= 2 {
            airTime = airOnset(c)
            if airTime != nil { excess = delta }
        }
        // Failing that, a tonal rise inside a sound (a plucked note ringing into the last).
        if excess < delta, toneOnset(c, latest: latest) { excess = delta }
        guard excess >= delta else { return }
        // A sound's abrupt end, not a start: no rise at the peak, and the level falls across it.
        // (A click shorter than the window also leaves it by `postMax`, but it rose at the peak.)
        let before = frames[max(0, c - Self.lag) % Self.ring].dB
        if before.isFinite, f.dB <= before, frames[min(latest, c + Self.postMax) % Self.ring].dB < before - Self.endDrop
        {
            return
        }
        let gapFrames = Int((options.minimumGap * framesPerSecond).rounded(.down))
        guard c - lastOnsetFrame >= max(1, gapFrames) else { return }
        let time = airTime ?? refine(c)
        guard time - lastOnsetTime >= options.minimumGap * 0.999 else { return }
        lastOnsetFrame = c
        lastOnsetTime = time
        onsets.append(time)
        onsetCount += 1
        peak = max(peak, excess)
        var loudest = -Double.infinity
        for j in c...min(latest, c + 3) { loudest = max(loudest, frames[j % Self.ring].dB) }
        let strength = Double(min(1, excess / peak))
        let intensity = min(1, intensityFor(dB: loudest) * (0.5 + 0.5 * strength))
        let sharpness = frames[min(latest, c + 1) % Self.ring].sharpness
        onsetIntensities.append(intensity)
        if let stream {
            if options.content != .continuousOnly {
                stream.addTransient(.init(time: time, intensity: Float(intensity), sharpness: Float(sharpness)))
            }
        } else {
            transients.append(Transient(time: time, intensity: Float(intensity), sharpness: Float(sharpness)))
        }
    }

    /// The start of the 1 ms block within frame `c`'s window where the air band's energy over the 5
    /// blocks from it rises most over the 10 before, if by `airRise`, by `airOverEdge` more than the
    /// edge band's, and above the silence threshold; nil if none does.
    private func airOnset(_ c: Int) -> Double? {
        let endSample = (c + 1) * hop
        var lo = max(10, (endSample - size) / block)
        lo = max(lo, blockIndex - Self.energyRing + 16)
        if lastOnsetTime.isFinite {
            lo = max(lo, Int(((lastOnsetTime + options.minimumGap) * rate / Double(block)).rounded(.up)))
        }
        let hi = min(blockIndex - 5, endSample / block)
        guard lo <= hi else { return nil }
        let ratio = Float(pow(10, Self.airRise / 10))
        let overEdge = Float(pow(10, Self.airOverEdge / 10))
        // Mean square of the third difference (gain 8 at Nyquist) over a block, at the threshold.
        let floor = Float(Double(block * decimation) * 64 * pow(10, (options.silenceThreshold - options.gain) / 10))
        let ring = Self.energyRing - 1
        var best = -1
        var bestScore: Float = 0
        for k in lo...hi {
            var after: Float = 0
            for j in k..<(k + 5) { after += airEnergies[j & ring] }
            var before: Float = 0
            for j in (k - 10)..<k { before += airEnergies[j & ring] }
            after /= 5
            before /= 10
            guard after >= floor, after >= ratio * before else { continue }
            let score = after / (before + 1e-20)
            var edgeAfter: Float = 0
            for j in k..<(k + 5) { edgeAfter += edgeEnergies[j & ring] }
            var edgeBefore: Float = 0
            for j in (k - 10)..<k { edgeBefore += edgeEnergies[j & ring] }
            guard score >= overEdge * (edgeAfter / 5) / (edgeBefore / 10 + 1e-20) else { continue }
            if score > bestScore {
                bestScore = score
                best = k
            }
        }
        return best >= 0 ? Double(best * block) / rate : nil
    }

    /// The start of the 1 ms block within frame `c`'s window where energy jumps most over the 4 before it.
    private func refine(_ c: Int) -> Double {
        let endSample = (c + 1) * hop
        var lo = max(4, (endSample - size) / block)
        lo = max(lo, blockIndex - Self.energyRing + 8)
        if lastOnsetTime.isFinite {
            lo = max(lo, Int(((lastOnsetTime + options.minimumGap) * rate / Double(block)).rounded(.up)))
        }
        let hi = min(blockIndex - 1, endSample / block)
        guard lo <= hi else { return max(0, centre(c)) }
        var loudest: Float = 0
        for k in lo...hi { loudest = max(loudest, energies[k & (Self.energyRing - 1)]) }
        let floor = Float(block) * 1e-10
        var best = lo
        var bestScore: Float = -1
        for k in lo...hi {
            let e = energies[k & (Self.energyRing - 1)]
            guard e >= loudest * 0.02 else { continue }
            var before: Float = 0
            for j in (k - 4)..<k { before += energies[j & (Self.energyRing - 1)] }
            let score = e / (before * 0.25 + floor)
            if score > bestScore {
                bestScore = score
                best = k
            }
        }
        return Double(best * block) / rate
    }

    private func intensityFor(dB: Double) -> Double {
        guard dB.isFinite else { return 0 }
        return min(1, pow(pow(10, dB / 20) / Self.fullScaleRMS, Self.loudnessExponent))
    }

    // MARK: Continuous events

    private func follow(_ info: FrameInfo, at t: Int) {
        peak = max(delta * 4, peak * peakDecay)
        let time = max(0, centre(t))
        if info.silent {
            guard !segment.isEmpty else { return }
            silentFrames += 1
            if Double(silentFrames) / framesPerSecond >= Self.hold { closeSegment() }
            return
        }
        if silentFrames > 0, !segment.isEmpty {
            // A short gap inside a sound: its frames read as zero.
            for j in stride(from: silentFrames, to: 0, by: -1) {
                segment.append(Point(time: max(0, centre(t - j)), intensity: 0, sharpness: segment.last!.sharpness))
            }
        }
        silentFrames = 0
        segment.append(Point(time: time, intensity: intensityFor(dB: info.dB), sharpness: info.sharpness))
        if time - segment[0].time >= Self.maxContinuous { closeSegment(continuingAt: max(0, centre(t + 1))) }
    }

    /// Ends the current continuous event. `continuingAt` is where the next event of the same sound
    /// starts when the event is cut at its longest length: it ends exactly there and its curves
    /// hold their last values instead of returning to neutral, because a curve that starts at
    /// (or, by rounding, a hair after) the next event's first curve would be the one in force
    /// over that event's first curve.
    private func closeSegment(continuingAt next: Double? = nil) {
        defer {
            segment.removeAll(keepingCapacity: true)
            silentFrames = 0
        }
        guard options.content != .transientsOnly, var points = Optional(segment), let first = points.first else {
            return
        }
        var start = first.time
        // Start with the onset that opens the sound, not half a window before it.
        if let onset = onsets.last(where: { $0 >= start - 0.005 && $0 <= start + 0.06 }) {
            start = max(start, onset)
            points.removeAll { $0.time < start }
            if points.isEmpty { points = [Point(time: start, intensity: first.intensity, sharpness: first.sharpness)] }
            points[0].time = start
        }
        let end = next ?? (points.last?.time ?? start) + 1 / framesPerSecond
        guard end > start + 0.005 else { return }
        let meanSharpness = points.reduce(0) { $0 + $1.sharpness } / Double(points.count)
        let tolerance = 0.2 * (1 - options.resolution)
        var intensity = CurveSimplifier.simplify(points.map { ($0.time, $0.intensity) }, tolerance: tolerance)
        var sharpness = CurveSimplifier.simplify(
            points.map { ($0.time, $0.sharpness - meanSharpness) }, tolerance: tolerance)
        if options.content != .continuousOnly {
            var from = onsets.endIndex
            while from > 0, onsets[from - 1] >= start { from -= 1 }
            let inside = onsets.indices[from...].filter { onsets[$0] <= intensity.last!.0 }
            intensity = Self.lifted(intensity, for: inside.map { (onsets[$0], onsetIntensities[$0]) })
        }
        if next == nil {
            intensity.append((end, intensity.last!.1))
            intensity.append((end + 0.01, 1))
            sharpness.append((end, sharpness.last!.1))
            sharpness.append((end + 0.01, 0))
        }
        var made: [PatternElement] = [
            .event(
                HapticEvent(
                    time: start, type: .hapticContinuous, duration: end - start,
                    parameters: [.init(.hapticIntensity, 1), .init(.hapticSharpness, Float(meanSharpness))]))
        ]
        for curve in CurveSimplifier.curves(.hapticIntensityControl, intensity)
            + CurveSimplifier.curves(.hapticSharpnessControl, sharpness)
        {
            made.append(.curve(curve))
        }
        if let stream {
            stream.addContinuous(start: start, made)
        } else {
            continuousStarts.append(start)
            elements += made
        }
    }

    /// The intensity control with a short plateau at each transient it would hold under the
    /// transient's intensity. The control multiplies transients too (read at their onset), so a
    /// transient that rises out of quiet sound, where the envelope is near 0, could not be
    /// compensated by its own intensity (at most 1) and would render weaker than measured, or
    /// silent. The plateau (0.4 ms, at the intensity rounded up) covers
    /// the onset through the curve's 0.1 ms time rounding; the envelope's own values are kept
    /// 1 ms either side, so the continuous event changes for 2 ms at an onset, where the sound
    /// rises anyway. `onsets` are ascending, inside the curve's span.
    static func lifted(_ curve: [(Double, Double)], for onsets: [(time: Double, level: Double)]) -> [(Double, Double)] {
        func value(_ points: [(Double, Double)], at t: Double) -> Double {
            guard let after = points.firstIndex(where: { $0.0 > t }) else { return points.last!.1 }
            guard after > 0 else { return points[0].1 }
            let (t0, v0) = points[after - 1]
            let (t1, v1) = points[after]
            return t1 > t0 ? v0 + (v1 - v0) * (t - t0) / (t1 - t0) : v1
        }
        let edge = 0.001
        let half = 0.0002
        let margin = 0.0002
        var points = curve
        var floor = -Double.infinity
        for (t, level) in onsets {
            let need = min(1, max(0.01, (level * 1000).rounded(.up) / 1000))
            guard value(points, at: t) < need - 0.0005 else { continue }
            let low = max(t - edge, points[0].0, floor)
            let plateauStart = max(t - half, low)
            let high = t + edge
            var made = points.filter { $0.0 < low - margin }
            if low < plateauStart { made.append((low, value(points, at: low))) }
            made.append((plateauStart, need))
            made.append((t + half, need))
            made.append((high, value(points, at: high)))
            made += points.filter { $0.0 > high + margin }
            points = made
            floor = t + half
        }
        return points
    }

    // MARK: Streaming

    /// Hands the stream what the analysis can no longer change, and forgets onsets no
    /// continuous event can start at any more.
    func advanceStream() {
        guard let stream else { return }
        // The next onset is picked in frame `frame - postMax`; `refine` puts it no earlier than
        // the 1 ms block holding the start of that frame's window.
        let c = frame - Self.postMax
        let transientBound = Double((c + 1) * hop - size - 2 * block) / rate
        // A continuous event starts no earlier than the first point of its sound.
        let continuousBound =
            options.content == .transientsOnly
            ? Double.infinity : segment.first?.time ?? max(0, centre(frame))
        stream.advance(transientBound: transientBound, continuousBound: continuousBound)
        let keepFrom = min(transientBound, continuousBound) - 0.1
        if onsets.count > 64, let first = onsets.firstIndex(where: { $0 >= keepFrom }), first > 0 {
            onsets.removeFirst(first)
            onsetIntensities.removeFirst(first)
        }
    }

    /// Flushes the last frames and closes the streamed document.
    func finishStream() -> AudioHapticsSummary {
        let tail = size + hop * (Self.postMax + 2)
        for _ in 0..<tail { take(0) }
        closeSegment()
        let stream = stream!
        stream.finish()
        return AudioHapticsSummary(
            onsets: onsetCount, duration: Double(sourceFrames) / Double(sourceRate),
            droppedForBudget: stream.dropped, transients: stream.transientsWritten,
            continuousEvents: stream.continuousWritten)
    }

    // MARK: Finishing

    /// Flushes the last frames and returns the pattern.
    public func finish() -> AudioHapticsResult {
        // Pad with silence so the last onsets and the last sound are decided.
        let tail = size + hop * (Self.postMax + 2)
        for _ in 0..<tail { take(0) }
        closeSegment()
        var pattern = HapticPattern(elements: elements)
        var dropped = 0
        if options.content != .continuousOnly {
            let kept = budget(transients, dropped: &dropped)
            let intensityControl = ParameterTimeline(.hapticIntensityControl, pattern: pattern)
            let sharpnessControl = ParameterTimeline(.hapticSharpnessControl, pattern: pattern)
            for transient in kept {
                pattern.elements.append(
                    .event(transient.event(intensity: intensityControl, sharpness: sharpnessControl)))
            }
        }
        if let audio = options.audioPath {
            pattern.elements.append(
                .event(
                    HapticEvent(
                        time: 0, type: .audioCustom, parameters: [.init(.audioVolume, 1)], waveformPath: audio)))
        }
        pattern.elements.sort { $0.time < $1.time }
        return AudioHapticsResult(
            pattern: pattern, onsets: onsets, duration: Double(sourceFrames) / Double(sourceRate),
            droppedForBudget: dropped)
    }

    static func rounded(_ x: Float) -> Float { (x * 1000).rounded() / 1000 }

    /// The transients left when no second holds more than the budget of events (continuous
    /// starts count too): in each over-full second the weakest go.
    private func budget(_ all: [Transient], dropped: inout Int) -> [Transient] {
        var all = all
        var startIndex = 0
        for i in all.indices where all[i].keep {
            dropped += Transient.thin(
                &all, at: i, starts: continuousStarts, from: &startIndex, limit: options.maxEventsPerSecond)
        }
        return all.filter(\.keep)
    }
}
