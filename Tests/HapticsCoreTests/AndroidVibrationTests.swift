import HapticsCore
import Testing

@Suite struct AndroidVibrationTests {
    /// 2,000 impulses over an hour, with a continuous event so the result is a waveform: every
    /// event was looked at in each of the 360,000 steps (1,000 impulses took 11 s in a release
    /// build, issue 32); a sweep looks only at those playing.
    @Test func anHourOfImpulsesMapsInLinearTime() {
        var elements: [PatternElement] = [
            .event(
                HapticEvent(
                    time: 0, type: .hapticContinuous, duration: 1, parameters: [.init(.hapticIntensity, 0.5)]))
        ]
        for k in 0..<2_000 {
            elements.append(
                .event(
                    HapticEvent(
                        time: 1.8 + Double(k) * 1.8, type: .hapticTransient,
                        parameters: [.init(.hapticIntensity, 1)])))
        }
        let started = ContinuousClock.now
        let effect = AndroidVibration(HapticPattern(elements: elements))
        let elapsed = ContinuousClock.now - started
        guard case .waveform(let timings, let amplitudes) = effect else {
            Issue.record("expected a waveform, got \(effect)")
            return
        }
        // Each impulse holds full amplitude for a 10 ms step (two when it straddles a boundary).
        let full = amplitudes.indices.filter { amplitudes[$0] == 255 }
        #expect(full.count == 2_000)
        #expect(
            full.allSatisfy { timings[$0] == 10 || timings[$0] == 20 },
            "a step, or two when its time falls on a boundary")
        #expect(abs(timings.reduce(0, +) - 3_600_010) <= 10, "\(timings.reduce(0, +)) ms")
        #expect(elapsed < .seconds(20), "\(elapsed)")
    }

    @Test func overlappingCarriersAreReportedAsAWaveformLoss() {
        // Apple's Effects-Oscillate: two carriers at once, which a waveform's one amplitude
        // plays as the stronger.
        let pattern = HapticPattern(
            elements: [0, 0.075].map { sharpness in
                .event(
                    HapticEvent(
                        time: 0, type: .hapticContinuous, duration: 3,
                        parameters: [.init(.hapticIntensity, 0.5), .init(.hapticSharpness, sharpness)]))
            })
        let losses = AndroidVibration.losses(of: pattern, as: AndroidVibration(pattern))
        #expect(losses.map(\.kind) == ["sharpness", "overlapping-continuous"])
        #expect(losses.last?.count == 1)
    }
}
