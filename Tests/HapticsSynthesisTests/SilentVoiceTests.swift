import HapticsCore
import Testing
import _HapticsTestSupport

@testable import HapticsSynthesis

/// A voice whose gains are zero (a muted player, or an event held at intensity 0 by a curve) is not
/// synthesised: it only advances its phase and envelope. Nothing a user hears may change for it.
@Suite struct SilentVoiceTests {
    /// A voice part-way through a decaying envelope, `since` frames past an anchor.
    static func voice(since: Int32, phase: UInt32, increment: UInt32) -> Voice {
        var v = Voice()
        v.setEnvelope(0.73, k: 0.9993, d: 0.00011)
        v.envSince = since
        v.phase = phase
        v.increment = increment
        v.brightness = 0.8
        v.brightnessStep = 0.0001
        return v
    }

    @Test(
        "Skipping a silent span leaves the voice where the loops leave it, and the mix untouched",
        arguments: [Kernels.Set.baseline, .best], [1, 2])
    func skipMatchesTheLoops(kernels: Kernels.Set, channels: Int) throws {
        let table = Wavetable(harmonicCount: 16, rolloff: 1).points
        var generator = SplitMix64(seed: 12)
        for count in [0, 1, 7, 8, 9, 15, 16, 17, 100, 127, 128, 1_023, 4_099] {
            for since in Int32(0)..<8 {  // every frame between two envelope anchors
                let phase = UInt32(truncatingIfNeeded: generator.next())
                let increment = UInt32(truncatingIfNeeded: generator.next() >> 40)
                var played = Self.voice(since: since, phase: phase, increment: increment)
                var skipped = played
                #expect(played.isSilent(channels: channels))
                var mix = [Float](repeating: 0, count: max(1, count * channels))
                mix.withUnsafeMutableBufferPointer { out in
                    table.withUnsafeBufferPointer { points in
                        Kernels.oscillator(
                            &played, out.baseAddress!, count, points.baseAddress!, channels: channels, ramp: 3,
                            kernels: kernels)
                    }
                }
                Kernels.skipOscillator(&skipped, count)
                #expect(played.phase == skipped.phase, "count \(count), since \(since)")
                #expect(played.envSince == skipped.envSince, "count \(count), since \(since)")
                // Read with the steps still owed, and after taking them.
                #expect(played.env.bitPattern == skipped.env.bitPattern, "count \(count), since \(since)")
                skipped.settleEnvelope()
                #expect(skipped.envOwed == 0)
                #expect(played.envAnchor.bitPattern == skipped.envAnchor.bitPattern, "count \(count), since \(since)")
                // Every sample the loop added was ±0, and +0 plus ±0 is +0.
                #expect(mix.allSatisfy { $0.bitPattern == 0 }, "count \(count), since \(since)")
            }
        }
    }

    @Test("A voice that sounds, or ramps out of silence, is not silent", arguments: [1, 2])
    func soundingVoicesAreNotSilent(channels: Int) throws {
        var v = Self.voice(since: 0, phase: 0, increment: 1 << 20)
        v.gainLeft = 0.5
        #expect(!v.isSilent(channels: channels))
        v.gainLeft = 0
        v.gainLeftStep = 1e-6
        #expect(!v.isSilent(channels: channels))
        v.gainLeftStep = 0
        v.gainRight = 0.25  // only heard in stereo
        #expect(v.isSilent(channels: channels) == (channels == 1))
        v.gainRight = 0
        v.gainRightStep = 1e-6
        #expect(v.isSilent(channels: channels) == (channels == 1))
        v.gainRightStep = 0
        v.envAnchor = .infinity  // ∞ × 0 is NaN, which the loop must be left to write
        #expect(!v.isSilent(channels: channels))
    }

    /// Where a buzz is held silent: a stretch of its sustain, of its attack (whose envelope rises
    /// every frame), or from its attack across its end into its release (which starts from the
    /// envelope's level then).
    struct Hold: Sendable, CustomTestStringConvertible {
        var name: String
        var duration: Double
        var attack: Float
        var release: Float
        /// The intensity curve is 0 over `from + 0.001 ... to`, 1 elsewhere.
        var from: Double
        var to: Double
        var testDescription: String { name }

        static let all = [
            Hold(name: "sustain", duration: 1.5, attack: 0.05, release: 0.1, from: 0.3, to: 0.6),
            Hold(name: "attack", duration: 1.5, attack: 0.8, release: 0.1, from: 0.2, to: 0.5),
            Hold(name: "attack into release", duration: 0.4, attack: 0.6, release: 0.5, from: 0.2, to: 0.5),
        ]

        /// The buzz, with the curve at `level` (0, or a level that makes the voice sound) in the hold.
        func pattern(level: Float) -> HapticPattern {
            let end = duration + Double(release)
            return HapticPattern(elements: [
                .event(
                    HapticEvent(
                        time: 0, type: .hapticContinuous, duration: duration,
                        parameters: [
                            .init(.hapticIntensity, 0.9), .init(.hapticSharpness, 0.6), .init(.attackTime, attack),
                            .init(.releaseTime, release),
                        ])),
                .curve(
                    ParameterCurve(
                        .hapticIntensityControl, time: 0,
                        controlPoints: [
                            .init(time: 0, value: 1), .init(time: from, value: 1),
                            .init(time: from + 0.001, value: level),
                            .init(time: to, value: level), .init(time: to + 0.001, value: 1),
                            .init(time: end, value: 1),
                        ])),
                .curve(
                    ParameterCurve(
                        .hapticSharpnessControl, time: 0,
                        controlPoints: [.init(time: 0, value: -0.2), .init(time: end, value: 0.3)])),
            ])
        }
    }

    @Test(
        "A buzz held at zero intensity comes back in phase: after the silence it is the same, sample for sample, as one held at half",
        arguments: Hold.all, [Kernels.Set.baseline, .best])
    func heldAtZeroComesBackInPhase(hold: Hold, kernels: Kernels.Set) throws {
        for channels in [1, 2] {
            let format = AudioFormat(sampleRate: 48_000, channels: channels)
            let silent = try KernelSetTests.render(hold.pattern(level: 0), format, kernels, block: 1_000)
            let quiet = try KernelSetTests.render(hold.pattern(level: 0.5), format, kernels, block: 1_000)
            #expect(silent.count == quiet.count)
            // From two control intervals after the curve reaches 0 to one before it leaves 0 (where
            // the gain starts its ramp to the next interval's value): exact silence.
            let interval = Synthesizer.controlInterval
            let first = Int((hold.from + 0.001) * 48_000) + 2 * interval
            let held = (first * channels)..<((Int(hold.to * 48_000) - interval) * channels)
            #expect(silent[held].allSatisfy { $0 == 0 })
            #expect(AudioAnalysis.peak(Array(quiet[held])) > 0.01)
            // Two control intervals after the curve leaves 0, the gains, the phase and the envelope
            // agree again: any drift of the skipped phase or envelope would show here.
            let after = (Int((hold.to + 0.001) * 48_000) + 2 * interval) * channels
            #expect(AudioAnalysis.peak(Array(silent[after...])) > 0.05)
            #expect(
                (after..<silent.count).first { silent[$0].bitPattern != quiet[$0].bitPattern } == nil,
                "\(channels) channels: the first sample after the silence that differs")
        }
    }

    @Test(
        "Outside the frames a block reports as sounding, every sample is exact silence (or, if asked, left unwritten); inside them is all the sound",
        arguments: [1, 2], [64, 1_000, 8_192])
    func blocksReportWhereTheyMaySound(channels: Int, blockFrames: Int) throws {
        // Clicks at zero and full intensity, a buzz held silent by a curve, and long gaps.
        var elements = Hold.all[2].pattern(level: 0).elements
        // Two clicks in one 8,192-frame block with whole mix blocks of silence between them.
        for (time, intensity) in [(0.9, Float(0)), (1.2, 0.9), (1.3, 1), (1.31, 0), (2.2, 0.7)] {
            elements.append(
                .event(
                    HapticEvent(
                        time: time, type: .hapticTransient,
                        parameters: [.init(.hapticIntensity, intensity), .init(.hapticSharpness, 0.5)])))
        }
        let format = AudioFormat(sampleRate: 48_000, channels: channels)
        var renderer = try PatternRenderer(pattern: HapticPattern(elements: elements), format: format)
        // The same render leaving the silence to the caller, into a buffer full of a marker.
        var leaving = try PatternRenderer(pattern: HapticPattern(elements: elements), format: format)
        let marker = Float(bitPattern: 0x7FC0_1234)
        var buffer = [Float](repeating: 0, count: blockFrames * channels)
        var marked = buffer
        var silentBlocks = 0
        var soundingFrames = 0
        var total = 0
        while true {
            let block = buffer.withUnsafeMutableBufferPointer { renderer.renderBlock(into: $0) }
            marked = [Float](repeating: marker, count: marked.count)
            let left = marked.withUnsafeMutableBufferPointer { leaving.renderBlock(into: $0, writingSilence: false) }
            #expect(left == block)
            if block.frames == 0 { break }
            #expect(
                block.sounding.isEmpty || (block.sounding.lowerBound >= 0 && block.sounding.upperBound <= block.frames))
            // The first sample outside the range that is not +0, if any; and the first that was
            // written anyway, or inside the range differs, when the silence is left to the caller.
            let stray = (0..<(block.frames * channels)).first {
                !block.sounding.contains($0 / channels) && buffer[$0].bitPattern != 0
            }
            #expect(stray == nil, "block from frame \(total): a sample outside \(block.sounding) is not silence")
            let differs = (0..<(block.frames * channels)).first {
                block.sounding.contains($0 / channels)
                    ? marked[$0].bitPattern != buffer[$0].bitPattern : marked[$0].bitPattern != marker.bitPattern
            }
            #expect(differs == nil, "block from frame \(total), sounding \(block.sounding): sample \(differs ?? 0)")
            if block.sounding.isEmpty { silentBlocks += 1 }
            soundingFrames += block.sounding.count
            total += block.frames
        }
        // The range is not the whole block everywhere: the silences are reported as such.
        #expect(silentBlocks > 0 || blockFrames > 2_000)
        #expect(soundingFrames < total * 3 / 4)
        #expect(soundingFrames > 0)
    }
}
