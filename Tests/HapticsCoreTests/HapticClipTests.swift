import Foundation
import HapticsCore
import OrderedCollections
import Testing

/// Hand-written Meta/Lofelt `.haptic` clips: what the reader accepts, refuses and maps to.
@Suite struct HapticClipTests {
    static func clip(amplitude: String, frequency: String? = nil, version: String = #"{"major": 1}"#) -> String {
        var envelopes = #""amplitude": \#(amplitude)"#
        if let frequency { envelopes += #", "frequency": \#(frequency)"# }
        return #"{"version": \#(version), "signals": {"continuous": {"envelopes": {\#(envelopes)}}}}"#
    }

    static func refusal(_ text: String) throws -> String {
        do {
            _ = try HapticClip.decode(Array(text.utf8), file: "c.haptic")
        } catch {
            return error.description
        }
        Issue.record("accepted: \(text)")
        return ""
    }

    @Test func aClipBecomesACarrierWithCurvesAndAnEmphasisTransient() throws {
        let text = Self.clip(
            amplitude:
                #"[{"time": 0, "amplitude": 0.25}, {"time": 0.5, "amplitude": 0.64, "emphasis": {"amplitude": 1, "frequency": 0.81}}, {"time": 1, "amplitude": 0.04}]"#,
            frequency: #"[{"time": 0, "frequency": 0.16}, {"time": 1, "frequency": 0.36}]"#)
        let pattern = try HapticClip.decode(Array(text.utf8), file: "c.haptic").clip.pattern
        #expect(pattern.duration == 1)
        let carriers = pattern.events.filter { $0.type == .hapticContinuous }
        #expect(zip(carriers.map(\.time), [0, 0.498, 0.521]).allSatisfy { abs($0 - $1) < 1e-9 })
        #expect(zip(carriers.compactMap(\.duration), [0.498, 0.023, 0.479]).allSatisfy { abs($0 - $1) < 1e-9 })
        // Over the hold, a carrier of its own at the envelope's level under the held control.
        #expect(carriers.count == 3 && abs(carriers[1].value(of: .hapticIntensity) - 0.64) < 1e-6)
        let carrier = try #require(carriers.first)
        #expect(carrier.value(of: .hapticIntensity) == 1)
        #expect(abs(carrier.value(of: .hapticSharpness) - 0.4) < 1e-6)
        let curves = pattern.parameterCurves
        #expect(curves.map(\.id) == [.hapticIntensityControl, .hapticSharpnessControl])
        // The emphasis (intensity 1) is louder than its breakpoint (control 0.8, ducked 20 % to
        // 0.64 as the players duck the carrier under an emphasis): the control is
        // held at 1 from 1 ms before it to 20 ms after, with 1 ms ramps from and back to the
        // envelope.
        let times = curves[0].controlPoints.map(\.time)
        #expect(times.count == 7)
        #expect(zip(times, [0, 0.498, 0.499, 0.5, 0.52, 0.521, 1]).allSatisfy { abs($0 - $1) < 1e-9 }, "\(times)")
        let intensity = curves[0].controlPoints.map(\.value)
        let expected: [Float] = [0.5, 0.5 + 0.14 * 0.996, 1, 1, 1, 0.64 - 0.44 * 0.042, 0.2]
        #expect(zip(intensity, expected).allSatisfy { abs($0 - $1) < 1e-4 }, "\(intensity)")
        let sharpness = curves[1].controlPoints.map(\.value)
        #expect(zip(sharpness, [0, 0.2] as [Float]).allSatisfy { abs($0 - $1) < 1e-6 })
        // The transient at 0.5 s plays at 1 under the held control; its sharpness is the emphasis
        // frequency as Meta's and Lofelt's players use it (0.81), minus the control's +0.1 there.
        let tap = try #require(pattern.events.last)
        #expect(tap.type == .hapticTransient && tap.time == 0.5)
        #expect(tap.value(of: .hapticIntensity) == 1)
        #expect(abs(tap.value(of: .hapticSharpness) - 0.71) < 1e-6)
    }

    @Test func longEnvelopesAreChunkedIntoSixteenPointCurvesThatShareTheirBoundary() throws {
        let points = (0..<20).map { #"{"time": \#(Double($0) / 10), "amplitude": \#(Double($0) / 20)}"# }
        let pattern = try HapticClip.decode(Array(Self.clip(amplitude: "[\(points.joined(separator: ","))]").utf8))
            .clip.pattern
        let curves = pattern.parameterCurves
        #expect(curves.map(\.controlPoints.count) == [16, 5])
        #expect(curves[1].time == 1.5)
        #expect(curves[1].controlPoints.first?.time == 0)
        #expect(curves[0].controlPoints.last?.value == curves[1].controlPoints.first?.value)
        #expect(pattern.events.count == 1)
    }

    @Test func aClipLongerThanThirtySecondsHasConsecutiveCarriers() throws {
        let text = Self.clip(amplitude: #"[{"time": 0, "amplitude": 1}, {"time": 70, "amplitude": 1}]"#)
        let events = try HapticClip.decode(Array(text.utf8)).clip.pattern.events
        #expect(events.map(\.time) == [0, 30, 60])
        #expect(events.map(\.duration) == [30, 30, 10])
    }

    @Test func invalidClipsAreRefusedAtTheirPlace() throws {
        let outOfRange = try Self.refusal(
            Self.clip(amplitude: #"[{"time": 0, "amplitude": 0.5}, {"time": 1, "amplitude": 1.5}]"#))
        #expect(
            outOfRange
                == "c.haptic:signals.continuous.envelopes.amplitude[1].amplitude: error[value-out-of-range]: amplitude is 1.5; it must be between 0 and 1 (line 1, column 138)"
        )
        #expect(
            try Self.refusal(Self.clip(amplitude: #"[{"time": 1, "amplitude": 0.5}, {"time": 0.5, "amplitude": 1}]"#))
                .hasPrefix(
                    "c.haptic:signals.continuous.envelopes.amplitude[1].time: error[breakpoint-order]: time 0.5 comes before the previous breakpoint's 1"
                ))
        #expect(
            try Self.refusal(Self.clip(amplitude: #"[{"time": 0, "amplitude": 0.5}, {"time": 0, "amplitude": 1}]"#))
                .contains("error[zero-length-clip]"))
        #expect(try Self.refusal(Self.clip(amplitude: "[]")).contains("amplitude: error[empty-envelope]"))
        #expect(
            try Self.refusal(Self.clip(amplitude: #"[{"time": 1, "amplitude": 1}]"#, version: #"{"major": 0}"#))
                .contains(
                    #"version.major: error[clip-version]: version 0.0.0: version 0 is the VIJ data model, whose haptic data is under "voices", not "signals""#
                ))
        #expect(
            try Self.refusal(#"{"version": {"major": 1}, "signals": {"continuous": {"envelopes": {}}}}"#)
                == #"c.haptic:signals.continuous.envelopes: error[missing-key]: envelopes has no "amplitude" (line 1, column 67)"#
        )
        #expect(
            try Self.refusal(Self.clip(amplitude: #"[{"time": "1", "amplitude": 1}, {"time": 2, "amplitude": 1}]"#))
                .contains("amplitude[0].time: error[wrong-type]: time must be a number"))
        #expect(
            try Self.refusal(
                Self.clip(
                    amplitude:
                        #"[{"time": 1, "amplitude": 1, "emphasis": {"amplitude": 1}}, {"time": 2, "amplitude": 1}]"#)
            )
            .contains(#"amplitude[0].emphasis: error[missing-key]: emphasis has no "frequency""#))
    }

    @Test func unknownKeysAreWarningsAndTheClipStillReads() throws {
        let text =
            #"{"version": {"major": 1}, "metadata": {"editor": "hand"}, "signal": 1, "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 1}, {"time": 0.2, "amplitude": 1}]}}}}"#
        let document = try HapticClip.decode(Array(text.utf8))
        #expect(document.diagnostics.map(\.code) == [.unknownKey])
        #expect(document.diagnostics.first?.message.contains(#"did you mean "signals""#) == true)
        #expect(document.clip.metadata["editor"] == .string("hand"))
        #expect(HapticClip.looksLikeClip(Array(text.utf8)))
        #expect(!HapticClip.looksLikeClip(Array(#"{"Pattern": [], "signals": 1}"#.utf8)))
    }
}

/// The two older shapes of Lofelt's data model: the beta `signals.impulses` list in a v1 clip, and
/// the v0.2 "VIJ" clip (`voices`), read through Lofelt's upgrade to v1. Hand-written clips.
@Suite struct HapticClipOlderModelTests {
    static let beta = #"""
        {"version": {"major": 1, "minor": 0, "patch": 0},
         "signals": {"continuous": {"envelopes": {"amplitude": [{"time": 0, "amplitude": 0}, {"time": 1, "amplitude": 0}]}},
                     "impulses": [{"time": 0.25, "amplitude": 0.64, "frequency": 0.36},
                                  {"time": 0.75, "amplitude": 1, "frequency": 1}]}}
        """#

    static let v0 = #"""
        {"metadata": {"editor": "hand", "format": "additive", "duration": 2},
         "variation": {"total gain": 1, "partials": 0},
         "voices": {"envelopes": [[{"time": 0, "amplitude": 0.25}, {"time": 0.5, "amplitude": 0.5}, {"time": 1, "amplitude": 0.16}],
                                  [{"time": 0, "amplitude": 0.49}, {"time": 1.5, "amplitude": 0.81}]],
                    "bands": [],
                    "transients": [[{"time": 0.5, "amplitude": 0.9}, {"time": 0.7, "amplitude": 0.8}],
                                   [{"time": 0.5, "amplitude": 0.4}, {"time": 0.7, "amplitude": 0.6}]]}}
        """#

    @Test func betaImpulsesAreReadPlayedAsTransientsAndWrittenBack() throws {
        let document = try HapticClip.decode(Array(Self.beta.utf8), file: "b.haptic")
        #expect(document.diagnostics.isEmpty, "\(document.diagnostics)")
        let clip = document.clip
        #expect(
            clip.impulses == [
                .init(time: 0.25, amplitude: 0.64, frequency: 0.36), .init(time: 0.75, amplitude: 1, frequency: 1),
            ])
        #expect(clip.duration == 1)
        // A silent envelope: a carrier of intensity 0 that keeps the clip's length, and the
        // impulses as transients at sqrt(amplitude) and their frequency, unscaled.
        let events = clip.pattern.events
        #expect(events.first?.type == .hapticContinuous && events.first?.duration == 1)
        #expect(events.first?.value(of: .hapticIntensity) == 0)
        let taps = events.filter { $0.type == .hapticTransient }
        #expect(taps.map(\.time) == [0.25, 0.75])
        #expect(abs(taps[0].value(of: .hapticIntensity) - 0.8) < 1e-6)
        #expect(abs(taps[0].value(of: .hapticSharpness) - 0.36) < 1e-6)
        let again = try HapticClip.decode(HapticClip.encode(clip)).clip
        #expect(again == clip)
    }

    @Test func aV0ClipIsUpgradedAsLofeltDoesAndKeepsAnUnmatchedTransient() throws {
        let document = try HapticClip.decode(Array(Self.v0.utf8), file: "old.vij")
        #expect(document.diagnostics.map(\.code) == [.clipUpgraded, .transientUnmatched])
        #expect(document.diagnostics[1].location?.line == 6)
        #expect(
            document.diagnostics[1].description
                == "voices.transients[0][1]: warning[transient-unmatched]: the transient at 0.7 s is at no amplitude breakpoint's time; Lofelt's upgrade drops it, here it plays as an impulse"
        )
        let clip = document.clip
        // The amplitude envelope is held to metadata.duration; the transient at 0.5 s is that
        // breakpoint's emphasis.
        #expect(clip.amplitude.map(\.time) == [0, 0.5, 1, 2])
        #expect(clip.amplitude.map(\.amplitude) == [0.25, 0.5, 0.16, 0.16])
        #expect(clip.amplitude[1].emphasis == .init(amplitude: 0.9, frequency: 0.4))
        #expect(clip.frequency.map(\.frequency) == [0.49, 0.81])
        #expect(clip.impulses == [.init(time: 0.7, amplitude: 0.8, frequency: 0.6)])
        #expect(clip.metadata == ["editor": .string("hand")])
        #expect(clip.version == .init(major: 1, minor: 0, patch: 0))
        #expect(clip.duration == 2)
        #expect(HapticClip.looksLikeClip(Array(Self.v0.utf8)))
        let transients = clip.pattern.events.filter { $0.type == .hapticTransient }.map(\.time)
        #expect(transients == [0.5, 0.7])
    }

    @Test func invalidV0ClipsAreRefusedAtTheirPlace() throws {
        func refusal(_ text: String) throws -> String {
            do { _ = try HapticClip.decode(Array(text.utf8), file: "old.vij") } catch { return error.description }
            Issue.record("accepted: \(text)")
            return ""
        }
        let unpaired = Self.v0.replacingOccurrences(of: #", {"time": 0.7, "amplitude": 0.6}"#, with: "")
        #expect(
            try refusal(unpaired).contains(
                "old.vij:voices.transients: error[transient-mismatch]: transients has 2 amplitudes and 1 frequencies; they must pair up"
            ))
        let shifted = Self.v0.replacingOccurrences(
            of: #"{"time": 0.7, "amplitude": 0.6}"#, with: #"{"time": 0.71, "amplitude": 0.6}"#)
        #expect(
            try refusal(shifted).contains(
                "old.vij:voices.transients[1][1]: error[transient-mismatch]: transient 1's frequency is at 0.71 s but its amplitude at 0.7 s"
            ))
        let loud = Self.v0.replacingOccurrences(of: #""amplitude": 0.16}"#, with: #""amplitude": 1.16}"#)
        #expect(
            try refusal(loud).hasPrefix(
                "old.vij:voices.envelopes[0][2].amplitude: error[value-out-of-range]: amplitude is 1.16; it must be between 0 and 1 (line 3"
            ))
        let short = Self.v0.replacingOccurrences(of: #""duration": 2"#, with: #""duration": 1.2"#)
        #expect(
            try refusal(short).contains(
                "old.vij:voices.envelopes[1]: error[breakpoint-order]: a breakpoint at 1.5 s is after metadata.duration (1.2 s)"
            ))
        let empty = #"{"metadata": {"duration": 1}, "voices": {"envelopes": [[]]}}"#
        #expect(try refusal(empty).contains("old.vij:voices.envelopes: error[empty-envelope]"))
    }
}

@Suite struct HapticClipConversionTests {
    /// A clip with 32 frequency breakpoints (three curves), a step, emphasis and a frequency
    /// envelope that starts later than the amplitude one.
    static let clip = HapticClip(
        amplitude: [
            .init(time: 0, amplitude: 0.1),
            .init(time: 0.3, amplitude: 0.6, emphasis: .init(amplitude: 0.16, frequency: 0.9)),
            .init(time: 0.3, amplitude: 0.2),
            .init(time: 1.2, amplitude: 0.05, emphasis: .init(amplitude: 0.5, frequency: 1)),
            .init(time: 2, amplitude: 0.8),
        ],
        frequency: (0..<32).map { .init(time: 0.05 + Double($0) * 0.06, frequency: Float($0 % 7) / 6) })

    @Test func anEmphasisOnSilenceIsHeldAndComesBackAsItWas() throws {
        // Meta's Drill: emphases on breakpoints of amplitude 0. Core Haptics would scale the
        // transient to silence, so the control is held at the emphasis's level while it plays.
        let clip = HapticClip(amplitude: [
            .init(time: 0, amplitude: 0, emphasis: .init(amplitude: 0.64, frequency: 0.16)),
            .init(time: 0.09, amplitude: 0.64),
            .init(time: 0.3, amplitude: 0, emphasis: .init(amplitude: 1, frequency: 1)),
            .init(time: 0.6, amplitude: 0.25),
        ])
        let pattern = clip.pattern
        // The carrier pauses over each hold.
        let carriers = pattern.events.filter { $0.type == .hapticContinuous }
        #expect(carriers.map(\.time) == [0.021, 0.321], "\(carriers)")
        let curve = try #require(pattern.parameterCurves.first { $0.id == .hapticIntensityControl })
        let points = curve.controlPoints.map { ($0.time, $0.value) }
        #expect(points.count == 10, "\(points)")
        #expect(points[0] == (0, 0.8) && points[1].0 == 0.02 && points[1].1 == 0.8, "\(points)")
        #expect(points[5] == (0.299, 1) && points[6] == (0.3, 1) && abs(points[7].0 - 0.32) < 1e-9, "\(points)")
        let hits = pattern.events.filter { $0.type == .hapticTransient }
        #expect(hits.map(\.time) == [0, 0.3])
        #expect(hits.allSatisfy { $0.value(of: .hapticIntensity) == 1 })
        #expect(clip.ahapLosses.map(\.kind) == ["emphasis-held"])
        var losses: [ConversionLoss] = []
        let back = HapticClip(pattern: try AHAP.decode(AHAP.encode(pattern)).pattern, losses: &losses)
        #expect(back.amplitude.map(\.time) == clip.amplitude.map(\.time))
        for (a, b) in zip(back.amplitude, clip.amplitude) {
            #expect(abs(a.amplitude - b.amplitude) < 1e-3, "\(a) \(b)")
            #expect(abs((a.emphasis?.amplitude ?? -1) - (b.emphasis?.amplitude ?? -1)) < 1e-3, "\(a) \(b)")
            #expect(abs((a.emphasis?.frequency ?? -1) - (b.emphasis?.frequency ?? -1)) < 1e-3, "\(a) \(b)")
        }
    }

    @Test func anEmphasisUnderTheSharpnessCurvePlaysAtItsOwnFrequency() throws {
        // Meta's CarEngine1: emphases at frequency 0.1 where sqrt(frequency) is about 0.5, the
        // first frequency 0. The control adds to every event, so with the carrier at sharpness 0
        // a tap there was written at 0.1 - 0.5, clamped to 0, and played at 0.5. The carrier
        // plays sqrt(frequency) whatever its own sharpness (the control makes up the rest), so
        // that sharpness moves to where every tap can be written.
        let clip = HapticClip(
            amplitude: [
                .init(time: 0, amplitude: 0.1),
                .init(time: 0.2, amplitude: 0.1, emphasis: .init(amplitude: 0.3, frequency: 0.1)),
                .init(time: 0.5, amplitude: 0.2, emphasis: .init(amplitude: 0.1, frequency: 0.8)),
                .init(time: 1, amplitude: 0.1),
            ],
            frequency: [
                .init(time: 0.05, frequency: 0), .init(time: 0.3, frequency: 0.25), .init(time: 0.7, frequency: 0.5),
                .init(time: 1, frequency: 0.36),
            ])
        let pattern = clip.pattern
        let controls = ParameterTimelines(pattern)
        let taps = pattern.events.filter { $0.type == .hapticTransient }
        #expect(taps.map(\.time) == [0.2, 0.5])
        for (tap, frequency) in zip(taps, [Float(0.1), 0.8]) {
            let played = controls.value(of: .hapticSharpness, for: tap, at: tap.time)
            #expect(abs(played - frequency) < 1e-5, "\(tap.time): \(played)")
        }
        // The carrier plays sqrt(frequency) throughout, before the first breakpoint too.
        let line: [(Double, Float)] = [(0, 0), (0.05, 0), (0.3, 0.5), (0.7, Float(0.5).squareRoot()), (1, 0.6)]
        for t in [0, 0.03, 0.05, 0.2, 0.45, 0.5, 0.9] {
            let carrier = try #require(
                pattern.events.last { $0.type == .hapticContinuous && $0.time <= t && t < $0.time + ($0.duration ?? 0) }
            )
            let k = line.lastIndex { $0.0 <= t }!
            let expected =
                k + 1 < line.count
                ? line[k].1 + (line[k + 1].1 - line[k].1) * Float((t - line[k].0) / (line[k + 1].0 - line[k].0))
                : line[k].1
            let played = controls.value(of: .hapticSharpness, for: carrier, at: t)
            #expect(abs(played - expected) < 1e-5, "carrier at \(t): \(played), not \(expected)")
        }
        #expect(!clip.ahapLosses.contains { $0.kind == "emphasis-sharpness-clamped" }, "\(clip.ahapLosses)")
    }

    @Test func aSharpnessSweepClampedAt0And1KeepsItsBends() throws {
        // Apple's Inflate: carrier sharpness 0.5, control -0.8 to +0.8 over 1.7 s: the played
        // sharpness is 0 until 0.31875 s, then rises to 1 at 1.38125 s and holds.
        let pattern = HapticPattern(elements: [
            .event(
                HapticEvent(
                    time: 0, type: .hapticContinuous, duration: 1.7,
                    parameters: [.init(.hapticIntensity, 1), .init(.hapticSharpness, 0.5)])),
            .curve(
                ParameterCurve(
                    .hapticSharpnessControl, time: 0,
                    controlPoints: [.init(time: 0, value: -0.8), .init(time: 1.7, value: 0.8)])),
        ])
        var losses: [ConversionLoss] = []
        let clip = HapticClip(pattern: pattern, losses: &losses)
        let times = clip.frequency.map(\.time)
        #expect(times.count == 4)
        #expect(abs(times[1] - 0.31875) < 1e-6 && abs(times[2] - 1.38125) < 1e-6, "\(times)")
        #expect(zip(clip.frequency.map(\.frequency), [0, 0, 1, 1] as [Float]).allSatisfy { abs($0 - $1) < 1e-6 })
    }

    @Test func overlappingSharpnessCurvesGiveBreakpointsInOrderAsTheLaterCurveTakesOver() throws {
        // A generator's pattern (issue 31's third sweep): a sharpness curve starts before the
        // previous one ends. Core Haptics lets the later curve take over at its start; the clip
        // written used to list each curve's points in turn, out of time order, and every reader
        // refused it (`breakpoint-order`).
        let pattern = HapticPattern(elements: [
            .event(
                HapticEvent(
                    time: 0, type: .hapticContinuous, duration: 1.5,
                    parameters: [.init(.hapticIntensity, 1), .init(.hapticSharpness, 0.5)])),
            .curve(
                ParameterCurve(
                    .hapticSharpnessControl, time: 0,
                    controlPoints: [.init(time: 0, value: -0.5), .init(time: 1, value: 0.5)])),
            .curve(
                ParameterCurve(
                    .hapticSharpnessControl, time: 0.5,
                    controlPoints: [.init(time: 0, value: 0.3), .init(time: 0.5, value: -0.3)])),
        ])
        var losses: [ConversionLoss] = []
        let clip = HapticClip(pattern: pattern, losses: &losses)
        // Sharpness 0.5 + control: 0 rising to 0.5 when the second curve starts, 0.8 there,
        // falling to 0.2 at 1 s; the frequency is its square.
        let expected: [(Double, Float)] = [(0, 0), (0.5, 0.25), (0.5, 0.64), (1, 0.04)]
        #expect(clip.frequency.count == expected.count, "\(clip.frequency)")
        for (point, (time, frequency)) in zip(clip.frequency, expected) {
            #expect(abs(point.time - time) < 1e-9 && abs(point.frequency - frequency) < 1e-6, "\(clip.frequency)")
        }
        let read = try HapticClip.decode(HapticClip.encode(clip))
        #expect(read.diagnostics.isEmpty, "\(read.diagnostics)")
        #expect(read.clip == clip)
    }

    @Test func hapticToAHAPToHapticKeepsEveryBreakpointWithin1e3() throws {
        #expect(Self.clip.ahapLosses.map(\.kind).first == "emphasis-held")
        let ahap = AHAP.encode(Self.clip.pattern)
        var losses: [ConversionLoss] = []
        let back = HapticClip(pattern: try AHAP.decode(ahap).pattern, losses: &losses)
        #expect(losses.isEmpty, "\(losses)")
        #expect(back.amplitude.count == Self.clip.amplitude.count)
        #expect(back.frequency.count == Self.clip.frequency.count)
        for (a, b) in zip(Self.clip.amplitude, back.amplitude) {
            #expect(abs(a.time - b.time) < 1e-3 && abs(a.amplitude - b.amplitude) < 1e-3, "\(a) \(b)")
            #expect((a.emphasis == nil) == (b.emphasis == nil))
            if let ea = a.emphasis, let eb = b.emphasis {
                #expect(
                    abs(ea.amplitude - eb.amplitude) < 1e-3 && abs(ea.frequency - eb.frequency) < 1e-3, "\(ea) \(eb)")
            }
        }
        for (a, b) in zip(Self.clip.frequency, back.frequency) {
            #expect(abs(a.time - b.time) < 1e-3 && abs(a.frequency - b.frequency) < 1e-3, "\(a) \(b)")
        }
        // And the .haptic text reads back as the same clip.
        let text = HapticClip.encode(back)
        #expect(try HapticClip.decode(text).clip == back)
    }

    @Test func anAHAPWithAudioAndDynamicParametersSaysWhatItLoses() throws {
        let pattern = HapticPattern(elements: [
            .event(HapticEvent(time: 0, type: .hapticTransient, parameters: [.init(.hapticIntensity, 0.5)])),
            .event(
                HapticEvent(
                    time: 0.1, type: .hapticContinuous, duration: 0.4,
                    parameters: [.init(.hapticIntensity, 0.8), .init(.attackTime, 0.1)])),
            .event(HapticEvent(time: 0.2, type: .audioContinuous, duration: 0.1)),
            .parameter(DynamicParameter(.hapticIntensityControl, value: 0.5, time: 0.3)),
        ])
        var losses: [ConversionLoss] = []
        let clip = HapticClip(pattern: pattern, losses: &losses)
        #expect(losses.map(\.kind) == ["audio-event", "envelope-parameter"])
        // The continuous event is a step up, halved by the intensity parameter at 0.3 s; the
        // transient an emphasis before it.
        #expect(clip.amplitude.map(\.time) == [0, 0.1, 0.1, 0.3, 0.3, 0.5])
        #expect(
            clip.amplitude.map(\.amplitude).map { ($0 * 100).rounded() / 100 } == [0, 0, 0.64, 0.64, 0.16, 0.16])
        #expect(clip.amplitude[0].emphasis?.amplitude == 0.25)
        #expect(clip.duration == 0.5)
    }
}
