import HapticsCore
import Testing

/// A clip lasts to its last amplitude breakpoint (Meta's `HapticData::duration`), in every
/// command and conversion; what Meta's validator refuses is refused, every error listed.
@Suite struct HapticClipLengthTests {
    static func text(amplitude: String, frequency: String? = nil) -> [UInt8] {
        var envelopes = #""amplitude": \#(amplitude)"#
        if let frequency { envelopes += #", "frequency": \#(frequency)"# }
        return Array(#"{"version": {"major": 1}, "signals": {"continuous": {"envelopes": {\#(envelopes)}}}}"#.utf8)
    }

    @Test func aFrequencyEnvelopePastTheAmplitudeEnvelopeDoesNotLengthenTheClip() throws {
        let document = try HapticClip.decode(
            Self.text(
                amplitude: #"[{"time": 0, "amplitude": 1}, {"time": 2, "amplitude": 0.5}]"#,
                frequency: #"[{"time": 0, "frequency": 0.2}, {"time": 5, "frequency": 0.8}]"#), file: "f.haptic")
        #expect(document.clip.duration == 2)
        #expect(document.clip.pattern.duration == 2)
        // Meta's strict validator refuses it, Haptics Studio loads it: a note naming both ends.
        #expect(document.diagnostics.map(\.code) == [.frequencyPastEnd])
        #expect(
            document.diagnostics.first?.description.contains(
                "1 frequency breakpoint(s) from 5 s lie outside the amplitude envelope (0...2 s)") == true,
            "\(document.diagnostics)")
        // Its sharpness curve stops at the end too.
        let sharpness = try #require(document.clip.pattern.parameterCurves.first { $0.id == .hapticSharpnessControl })
        #expect(sharpness.time + (sharpness.controlPoints.last?.time ?? 0) <= 2)
    }

    /// Meta Haptics Studio writes the frequency envelope's last breakpoint a few milliseconds after
    /// the amplitude envelope's (Meta's own SDK sample pack ships such clips), and every player
    /// plays the clip: lint mentions it as a note, not a warning, so the export lints clean.
    @Test func aHapticsStudioExportWhoseFrequencyEndsLaterLintsWithANoteOnly() throws {
        let bytes = Array(
            #"""
            {"version": {"major": 1, "minor": 0, "patch": 0},
             "metadata": {"editor": "Meta XR Haptics Studio", "source": "bushes.wav", "project": "", "tags": [], "description": ""},
             "signals": {"continuous": {"envelopes": {
               "amplitude": [{"time": 0, "amplitude": 0.2}, {"time": 6.2967, "amplitude": 0.0023}, {"time": 6.3817, "amplitude": 0.0001}],
               "frequency": [{"time": 0, "frequency": 0.4}, {"time": 5.8267, "frequency": 0.55}, {"time": 6.3951, "frequency": 0}]}}}}
            """#.utf8)
        let findings = HapticClip.lint(bytes)
        #expect(findings.map(\.code) == [.frequencyPastEnd])
        #expect(findings.map(\.severity) == [.note], "\(findings)")
        #expect(findings.filter { $0.severity != .note }.isEmpty)
        let document = try HapticClip.decode(bytes, file: "bushes.haptic")
        #expect(document.diagnostics.map(\.severity) == [.note])
        #expect(document.clip.duration == 6.3817)
    }

    @Test func aFirstBreakpointAfterZeroIsRampedUpToFromSilence() throws {
        let clip = HapticClip(amplitude: [.init(time: 0.5, amplitude: 1), .init(time: 1, amplitude: 1)])
        let pattern = clip.pattern
        let carrier = try #require(pattern.events.first)
        #expect(carrier.time == 0 && carrier.duration == 1)
        let curve = try #require(pattern.parameterCurves.first)
        #expect(curve.controlPoints.map(\.time) == [0, 0.5, 1])
        #expect(curve.controlPoints.map(\.value) == [0, 1, 1])
    }

    @Test func aSilentClipKeepsItsLengthThroughAHAPAndBack() throws {
        let clip = HapticClip(amplitude: [
            .init(time: 0, amplitude: 0),
            .init(time: 0.4, amplitude: 0, emphasis: .init(amplitude: 0.49, frequency: 0.5)),
            .init(time: 3, amplitude: 0),
        ])
        let pattern = clip.pattern
        #expect(pattern.duration >= 3)
        let carrier = try #require(pattern.events.first { $0.type == .hapticContinuous })
        #expect(carrier.duration == 3 && carrier.value(of: .hapticIntensity) == 0)
        let hit = try #require(pattern.events.first { $0.type == .hapticTransient })
        #expect(hit.time == 0.4 && abs(hit.value(of: .hapticIntensity) - 0.7) < 1e-6)
        var losses: [ConversionLoss] = []
        let back = HapticClip(pattern: try AHAP.decode(AHAP.encode(pattern)).pattern, losses: &losses)
        #expect(back.duration == 3)
        // What comes back is a clip the reader accepts without a finding.
        let again = try HapticClip.decode(HapticClip.encode(back))
        #expect(again.diagnostics.isEmpty, "\(again.diagnostics)")
        #expect(again.clip.amplitude.contains { $0.time == 0.4 && abs(($0.emphasis?.amplitude ?? 0) - 0.49) < 1e-3 })
    }

    @Test func anAudioOnlyPatternBecomesASilentClipOfItsLength() throws {
        // A Hapticlabs export of three AudioCustom events and an audio curve: no haptic event, so
        // the clip had an empty amplitude envelope, which `convert --check` then refused to read
        // back (`empty-envelope`).
        let pattern = HapticPattern(elements: [
            .event(
                HapticEvent(
                    time: 0, type: .audioContinuous, duration: 1.5, parameters: [.init(.audioVolume, 0.5)]))
        ])
        var losses: [ConversionLoss] = []
        let clip = HapticClip(pattern: pattern, losses: &losses)
        #expect(losses.map(\.kind) == ["audio-event"])
        #expect(clip.amplitude.map(\.time) == [0, 1.5] && clip.amplitude.allSatisfy { $0.amplitude == 0 })
        let again = try HapticClip.decode(HapticClip.encode(clip))
        #expect(again.diagnostics.isEmpty, "\(again.diagnostics)")
    }

    @Test func aLoneTransientBecomesAClipOfTwoBreakpoints() throws {
        let pattern = HapticPattern(elements: [
            .event(HapticEvent(time: 0.2, type: .hapticTransient, parameters: [.init(.hapticIntensity, 0.5)]))
        ])
        var losses: [ConversionLoss] = []
        let clip = HapticClip(pattern: pattern, losses: &losses)
        #expect(clip.amplitude.count >= 2 && clip.duration > 0.2)
        let again = try HapticClip.decode(HapticClip.encode(clip))
        #expect(again.diagnostics.isEmpty, "\(again.diagnostics)")
    }

    @Test func everyErrorOfARefusedClipIsListed() throws {
        // One amplitude breakpoint (Meta: InsufficientAmplitudeBreakpoints) and a frequency out
        // of range: both errors, not the first only.
        let bytes = Self.text(
            amplitude: #"[{"time": 1, "amplitude": 0.5}]"#,
            frequency: #"[{"time": 0, "frequency": 2}, {"time": 1, "frequency": 0.5}]"#)
        var refusal: AHAPError?
        do { _ = try HapticClip.decode(bytes, file: "r.haptic") } catch { refusal = error }
        let error = try #require(refusal)
        let errors = error.diagnostics.filter { $0.severity == .error }
        #expect(errors.map(\.code) == [.tooFewBreakpoints, .valueOutOfRange], "\(errors)")
        #expect(
            errors.map(\.description) == [
                "signals.continuous.envelopes.amplitude: error[too-few-breakpoints]: the amplitude envelope has 1 breakpoint; a clip needs at least 2, its length is from the first to the last",
                "signals.continuous.envelopes.frequency[0].frequency: error[value-out-of-range]: frequency is 2; it must be between 0 and 1",
            ])
        // Two breakpoints at one time: the envelope lasts 0 s.
        let flat = Self.text(amplitude: #"[{"time": 1, "amplitude": 0.5}, {"time": 1, "amplitude": 1}]"#)
        #expect(HapticClip.lint(flat).map(\.code) == [.zeroLengthClip])
    }
}
