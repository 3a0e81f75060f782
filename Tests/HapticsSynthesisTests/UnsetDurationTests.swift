import HapticsCore
import HapticsSynthesis
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `EventDuration: 0` on a HapticTransient or an AudioCustom event means "not set": Core Haptics'
/// `exportDictionary()` writes it on every transient, and Apple's header calls 0.0 unset. Such a
/// file plays as if it gave no duration, and draws no finding.
@Suite struct UnsetDurationTests {
    static let format = AudioFormat(sampleRate: 48_000)

    /// Half a second of a 441 Hz cosine at 48 kHz, peak 0.5.
    static let clip = AudioClip(
        sampleRate: 48_000, channels: 1,
        samples: (0..<24_000).map { Float(0.5 * cos(2 * Double.pi * 441 * Double($0) / 48_000)) })

    /// One event, `members` spliced into it, decoded as a file would be.
    func decode(_ members: String) throws -> AHAPDocument {
        let text = #"{"Version": 1, "Pattern": [{"Event": {"Time": 0.1, \#(members)}}]}"#
        return try AHAP.decode(Array(text.utf8), file: "unset.ahap")
    }

    func peakDBFS(_ samples: [Float]) -> Double { 20 * log10(Double(AudioAnalysis.peak(samples))) }

    @Test func aTransientWithZeroDurationIsAFullTap() throws {
        let tap =
            #""EventType": "HapticTransient", "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}]"#
        let zero = try decode(tap + #", "EventDuration": 0"#)
        let unset = try decode(tap)
        #expect(zero.diagnostics.isEmpty)
        let zeroSamples = try PatternRenderer.render(zero.pattern, format: Self.format)
        let unsetSamples = try PatternRenderer.render(unset.pattern, format: Self.format)
        // The full tap peaks near -6 dBFS; cut to nothing it was a 5 ms blip near -38 dBFS.
        #expect(peakDBFS(unsetSamples) > -10)
        #expect(peakDBFS(zeroSamples) == peakDBFS(unsetSamples))
        #expect(zeroSamples == unsetSamples)
        #expect(zero.pattern.duration == unset.pattern.duration)
    }

    @Test func anAudioCustomEventWithZeroDurationPlaysItsWaveformToTheEnd() throws {
        let custom = #""EventType": "AudioCustom", "EventWaveformPath": "beep.wav""#
        let zero = try decode(custom + #", "EventDuration": 0"#)
        let unset = try decode(custom)
        #expect(zero.diagnostics.isEmpty)
        let clips = ["beep.wav": Self.clip]
        let zeroSamples = try PatternRenderer.render(zero.pattern, format: Self.format, clips: clips)
        let unsetSamples = try PatternRenderer.render(unset.pattern, format: Self.format, clips: clips)
        // The waveform sounds from 0.1 s for its whole half second.
        #expect(Measure.firstNonZero(zeroSamples) == 4_800)
        #expect(AudioAnalysis.rmsDBFS(Array(zeroSamples[20_000..<24_000])) > -20)
        #expect(zeroSamples.count >= 4_800 + 24_000)
        #expect(zeroSamples == unsetSamples)
    }

    @Test func aContinuousEventWithZeroDurationStillDrawsItsWarning() throws {
        let zero = try decode(#""EventType": "HapticContinuous", "EventDuration": 0"#)
        #expect(zero.diagnostics.map(\.code) == [.zeroDuration])
        #expect(zero.pattern.events[0].duration == 0)
    }
}
