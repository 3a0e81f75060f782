import Foundation
import HapticsCore
import HapticsSynthesis
import Testing

/// An emphasis sounds as Meta's and Lofelt's players play it, whatever the envelope under it,
/// and `convert --check` compares each format played by its own semantics.
@Suite struct ClipEmphasisTests {
    static let rate = 48_000

    /// The largest absolute sample in `seconds` from `time`.
    static func peak(_ samples: [Float], at time: Double, seconds: Double = 0.02) -> Float {
        let first = Int(time * Double(rate))
        let last = min(samples.count, first + Int(seconds * Double(rate)))
        return samples[first..<last].map(abs).max() ?? 0
    }

    static func dB(_ x: Float) -> Double { 20 * log10(Double(max(x, 1e-9))) }

    /// A buzz with an emphasis at 0.5 s on a breakpoint of `amplitude` (Meta's Drill has all 43
    /// of its emphases on breakpoints of amplitude 0).
    static func clip(under amplitude: Float) -> HapticClip {
        HapticClip(amplitude: [
            .init(time: 0, amplitude: 0), .init(time: 0.2, amplitude: amplitude),
            .init(time: 0.5, amplitude: amplitude, emphasis: .init(amplitude: 0.81, frequency: 0.6)),
            .init(time: 0.8, amplitude: amplitude), .init(time: 1, amplitude: 0),
        ])
    }

    @Test func anEmphasisIsAsLoudOnASilentOrQuietBreakpointAsOnItsOwn() throws {
        let format = AudioFormat(sampleRate: Self.rate, channels: 1)
        // The emphasis alone, as a transient nothing scales: the level a Meta/Lofelt player gives it.
        let alone = try PatternRenderer.render(
            try #require(ClipPlayback.layers(Self.clip(under: 0)).emphases), format: format)
        let reference = Self.peak(alone, at: 0.5)
        #expect(Self.dB(reference) > -12, "\(Self.dB(reference))")
        for amplitude: Float in [0, 0.01, 0.1] {
            let samples = try PatternRenderer.render(Self.clip(under: amplitude).pattern, format: format)
            // Nothing before the emphasis where the envelope is 0, and the click starts on its frame.
            if amplitude == 0 {
                let onset = samples.firstIndex { abs($0) > 1e-3 }
                #expect(onset.map { abs($0 - Self.rate / 2) <= 48 } == true, "\(String(describing: onset))")
            }
            let level = Self.peak(samples, at: 0.5)
            #expect(abs(Self.dB(level) - Self.dB(reference)) < 1.5, "amplitude \(amplitude): \(Self.dB(level)) dB")
        }
    }

    @Test func theCheckPassesTheMappingAndFailsAConversionThatScalesEmphases() throws {
        let clip = Self.clip(under: 0)
        let good = try ConversionCheck(clip: clip, converted: clip.pattern)
        #expect((good.envelopeCorrelation ?? 0) >= 0.9, "\(good.summary)")
        #expect(good.emphases == 1 && good.emphasesKept == 1, "\(good.summary)")
        // The mapping before: the emphasis a transient under the envelope, silent at 0.
        var elements = clip.pattern.elements.filter {
            if case .curve = $0 { return false }
            if case .event(let e) = $0, e.type == .hapticTransient { return false }
            return true
        }
        elements.append(
            .curve(
                ParameterCurve(
                    .hapticIntensityControl,
                    controlPoints: clip.amplitude.map { .init(time: $0.time, value: $0.amplitude.squareRoot()) })))
        elements.append(
            .event(
                HapticEvent(
                    time: 0.5, type: .hapticTransient,
                    parameters: [.init(.hapticIntensity, 0.9), .init(.hapticSharpness, 0.6)])))
        let lossy = try ConversionCheck(clip: clip, converted: HapticPattern(elements: elements))
        #expect(lossy.emphasesKept == 0, "\(lossy.summary)")
        #expect((lossy.envelopeCorrelation ?? 0) < 0.9, "\(lossy.summary)")
    }

    @Test func transientsUnderAnIntensityCurveGoToHapticAndBackAsTaps() throws {
        // Apple's Gravel: transients only, under an intensity curve. The curve scales the taps;
        // there is no carrier for it to shape.
        var elements: [PatternElement] = (0..<13).map { i in
            .event(
                HapticEvent(
                    time: 0.04 + Double(i) * 0.2, type: .hapticTransient,
                    parameters: [.init(.hapticIntensity, 1), .init(.hapticSharpness, 0.5)]))
        }
        elements.append(
            .curve(
                ParameterCurve(
                    .hapticIntensityControl,
                    controlPoints: [.init(time: 0, value: 0.3), .init(time: 1, value: 0.6), .init(time: 3, value: 0)])))
        let pattern = HapticPattern(elements: elements)
        var losses: [ConversionLoss] = []
        let clip = HapticClip(pattern: pattern, losses: &losses)
        #expect(clip.amplitude.allSatisfy { $0.amplitude == 0 })
        let check = try ConversionCheck(original: pattern, clip: clip)
        #expect(check.originalOnsets == 13 && check.convertedOnsets == 13, "\(check.summary)")
        #expect(check.emphasesKept == 13, "\(check.summary)")
        #expect((check.envelopeCorrelation ?? 0) >= 0.9 && abs(check.loudnessDifferenceDB) < 1, "\(check.summary)")
    }

    /// RMS of `samples` from `start` for `seconds`.
    static func rms(_ samples: [Float], from start: Double, seconds: Double) -> Double {
        let first = Int(start * Double(rate))
        let window = samples[first..<min(samples.count, first + Int(seconds * Double(rate)))]
        return (window.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(1, window.count))).squareRoot()
    }

    @Test func theCarrierDucksAtAnEmphasisInBothDirectionsAsThePlayersDuckIt() throws {
        // A flat buzz with one emphasis on its middle breakpoint: the players lower the carrier
        // 20 % there, a slow V over two seconds that is most of what this envelope does.
        let clip = HapticClip(amplitude: [
            .init(time: 0, amplitude: 0.5),
            .init(time: 1, amplitude: 0.5, emphasis: .init(amplitude: 1, frequency: 0.5)),
            .init(time: 2, amplitude: 0.5),
        ])
        let format = AudioFormat(sampleRate: Self.rate, channels: 1)
        let layers = ClipPlayback.layers(clip)
        let player = try PatternRenderer.render(try #require(layers.continuous), format: format)
        let converted = try PatternRenderer.render(clip.pattern, format: format)
        // How far the carrier dips from its start to 0.6 s into the V (the click long gone):
        // as far in the AHAP as on the players (it stayed flat without the ducking).
        func dip(_ samples: [Float]) -> Double {
            20 * log10(Self.rms(samples, from: 0.6, seconds: 0.1) / Self.rms(samples, from: 0.05, seconds: 0.1))
        }
        #expect(dip(player) < -1, "\(dip(player)) dB")
        #expect(abs(dip(converted) - dip(player)) < 0.3, "\(dip(converted)) dB against \(dip(player)) dB")
        let toAHAP = try ConversionCheck(clip: clip, converted: clip.pattern)
        #expect((toAHAP.envelopeCorrelation ?? 0) >= 0.9, "\(toAHAP.summary)")
        #expect(toAHAP.emphasesKept == 1 && toAHAP.convertedOnsets == toAHAP.originalOnsets, "\(toAHAP.summary)")
        // The other way: a flat AHAP carrier with a tap on it becomes a clip whose breakpoint
        // under the tap is written louder, so that the player's ducking leaves it flat.
        let pattern = HapticPattern(elements: [
            .event(
                HapticEvent(
                    time: 0, type: .hapticContinuous, duration: 2,
                    parameters: [.init(.hapticIntensity, 0.6), .init(.hapticSharpness, 0.5)])),
            .event(
                HapticEvent(
                    time: 1, type: .hapticTransient,
                    parameters: [.init(.hapticIntensity, 1), .init(.hapticSharpness, 0.5)])),
        ])
        var losses: [ConversionLoss] = []
        let back = HapticClip(pattern: pattern, losses: &losses)
        let toClip = try ConversionCheck(original: pattern, clip: back)
        #expect((toClip.envelopeCorrelation ?? 0) >= 0.9, "\(toClip.summary)")
        #expect(abs(toClip.loudnessDifferenceDB) < 0.3 && toClip.emphasesKept == 1, "\(toClip.summary)")
    }

    @Test func theCarrierGoesOnUnderAHeldEmphasisWithNoSecondOnset() throws {
        // A steady buzz with a full, sharp emphasis in the middle: louder than its breakpoint, so
        // the control is held up for 21 ms. The carrier used to pause there; the sharp click
        // dies in a few ms, and the carrier's return after the silence was an onset of its own.
        let clip = HapticClip(
            amplitude: [
                .init(time: 0, amplitude: 0.3),
                .init(time: 0.5, amplitude: 0.3, emphasis: .init(amplitude: 1, frequency: 1)),
                .init(time: 1, amplitude: 0.3),
            ],
            frequency: [.init(time: 0, frequency: 0.5), .init(time: 1, frequency: 0.5)])
        let check = try ConversionCheck(clip: clip, converted: clip.pattern)
        #expect(check.originalOnsets == 1 && check.convertedOnsets == 1, "\(check.summary)")
        #expect(check.emphasesKept == 1 && (check.envelopeCorrelation ?? 0) >= 0.9, "\(check.summary)")
        // The carrier's level over the hold, past the click: within 1 dB of the player's.
        let format = AudioFormat(sampleRate: Self.rate, channels: 1)
        let player = try PatternRenderer.render(try #require(ClipPlayback.layers(clip).continuous), format: format)
        let converted = try PatternRenderer.render(clip.pattern, format: format)
        let gap =
            20 * log10(Self.rms(converted, from: 0.51, seconds: 0.008) / Self.rms(player, from: 0.51, seconds: 0.008))
        #expect(abs(gap) < 1, "\(gap) dB")
        // And back: the hold's carrier goes, the breakpoint under the emphasis comes back.
        var losses: [ConversionLoss] = []
        let back = HapticClip(pattern: clip.pattern, losses: &losses)
        #expect(back.amplitude.count == 3, "\(back.amplitude)")
        #expect(zip(back.amplitude, clip.amplitude).allSatisfy { abs($0.amplitude - $1.amplitude) < 1e-3 })
    }

    @Test func manyTapsOnACurvedCarrierBecomeAClipAsLoudAsTheOriginal() throws {
        // haptify's piano loop: a tap every 50 ms on one carrier under a swelling intensity curve.
        // Each tap's breakpoint is written louder for the player's ducking; placing the next one
        // on the line to that louder breakpoint compounded it (+4.3 dB, correlation 0.39).
        var elements: [PatternElement] = [
            .event(
                HapticEvent(
                    time: 0, type: .hapticContinuous, duration: 1,
                    parameters: [.init(.hapticIntensity, 1), .init(.hapticSharpness, 0.2)])),
            .curve(
                ParameterCurve(
                    .hapticIntensityControl,
                    controlPoints: [
                        .init(time: 0, value: 0.1), .init(time: 0.4, value: 0.9), .init(time: 1, value: 0.3),
                    ]
                )),
        ]
        for k in 1..<20 {
            elements.append(
                .event(
                    HapticEvent(
                        time: Double(k) * 0.05, type: .hapticTransient,
                        parameters: [.init(.hapticIntensity, 0.5), .init(.hapticSharpness, 0.5)])))
        }
        let pattern = HapticPattern(elements: elements)
        var losses: [ConversionLoss] = []
        let clip = HapticClip(pattern: pattern, losses: &losses)
        let check = try ConversionCheck(original: pattern, clip: clip)
        #expect((check.envelopeCorrelation ?? 0) >= 0.9, "\(check.summary)")
        #expect(abs(check.loudnessDifferenceDB) < 1, "\(check.summary)")
        #expect(check.emphasesKept == 19, "\(check.summary)")
    }

    @Test func aClipWithoutAFrequencyEnvelopePlaysItsCarrierAtSharpnessZero() throws {
        // Lofelt's `valid_v1_from_invalid_v0_conversion` shape: an amplitude envelope and no
        // frequency envelope. Meta's exporter and Lofelt's player write the carrier at sharpness 0
        // and no sharpness curve; the mapping played it at 0.5 (correlation 0.81 on that clip).
        let clip = HapticClip(amplitude: [
            .init(time: 0, amplitude: 0.2), .init(time: 0.1, amplitude: 0.3), .init(time: 0.2, amplitude: 0.2),
            .init(time: 0.3, amplitude: 0.5), .init(time: 2, amplitude: 0.5),
        ])
        let carriers = clip.pattern.events.filter { $0.type == .hapticContinuous }
        #expect(!carriers.isEmpty && carriers.allSatisfy { $0.value(of: .hapticSharpness) == 0 })
        let check = try ConversionCheck(clip: clip, converted: clip.pattern)
        #expect((check.envelopeCorrelation ?? 0) >= 0.99, "\(check.summary)")
        #expect(abs(check.loudnessDifferenceDB) < 0.5, "\(check.summary)")
    }

    @Test func aBetaImpulseLouderThanTheEnvelopeIsHeldAsAnEmphasisIs() throws {
        // Lofelt's `valid_beta_impulses` shape: impulses of amplitude 1 over an envelope of 0.3
        // to 0.5. Core Haptics scales a transient by the control in force: written as a tap under
        // the envelope, they played 10 dB under a player's (1 of 3 taps kept).
        let clip = HapticClip(
            amplitude: [
                .init(time: 0, amplitude: 0.2), .init(time: 0.1, amplitude: 0.3),
                .init(time: 0.2, amplitude: 0.2, emphasis: .init(amplitude: 0.6, frequency: 0.7)),
                .init(time: 0.3, amplitude: 0.5), .init(time: 1.5, amplitude: 0.5),
            ],
            impulses: [.init(time: 0.1, amplitude: 1, frequency: 1), .init(time: 0.76, amplitude: 1, frequency: 1)])
        let check = try ConversionCheck(clip: clip, converted: clip.pattern)
        #expect(check.emphases == 3 && check.emphasesKept == 3, "\(check.summary)")
        #expect((check.envelopeCorrelation ?? 0) >= 0.95, "\(check.summary)")
        #expect(clip.ahapLosses.map(\.kind) == ["emphasis-held"])
    }
    /// Meta's DoorKnob1 has an emphasis on a breakpoint 5 µs after one at 0 (amplitude 0.08
    /// after 0, the emphasis at 0.22): the mapping holds the control at the emphasis's level
    /// from a point between the two, less than a frame before the emphasis, and the click used
    /// to read the control at its frame, before the hold (8.7 dB soft at 48 kHz).
    @Test(arguments: [44_100, 48_000, 96_000], [0.11, 0.4, 0.6])
    func anEmphasisOnAStepShorterThanAFrameIsKept(rate: Int, past: Double) throws {
        let time = (0.25 * Double(rate) + past) / Double(rate)
        let clip = HapticClip(amplitude: [
            .init(time: 0, amplitude: 0.03), .init(time: 0.2, amplitude: 0.03),
            .init(time: time - 0.000005, amplitude: 0),
            .init(time: time, amplitude: 0.08, emphasis: .init(amplitude: 0.22, frequency: 0.5)),
            .init(time: 0.3, amplitude: 0.04), .init(time: 0.35, amplitude: 0.01),
        ])
        let format = AudioFormat(sampleRate: rate, channels: 1)
        let alone = try PatternRenderer.render(try #require(ClipPlayback.layers(clip).emphases), format: format)
        let converted = try PatternRenderer.render(clip.pattern, format: format)
        let first = Int(time * Double(rate)) - 1
        func peak(_ samples: [Float]) -> Double {
            Self.dB(samples[first..<min(samples.count, first + rate / 50)].map(abs).max() ?? 0)
        }
        #expect(abs(peak(converted) - peak(alone)) < 1.5, "\(peak(converted)) dB against \(peak(alone)) dB")
        if rate == 48_000 {
            let check = try ConversionCheck(clip: clip, converted: clip.pattern)
            #expect(check.emphasesKept == 1, "\(check.summary)")
        }
    }
}
