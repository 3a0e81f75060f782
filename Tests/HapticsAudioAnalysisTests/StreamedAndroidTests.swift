import Foundation
import HapticsCore
import Testing

@testable import HapticsAudioAnalysis

@Suite("Audio to haptics: the streamed Android effect")
struct StreamedAndroidTests {
    @Test(
        "Streamed bytes equal AndroidVibration's JSON and Kotlin of the whole pattern",
        arguments: streamedSettings, [false, true])
    func sameBytes(
        _ setting: (String, Double, Int, AudioHapticsOptions), kotlin: Bool
    ) throws {
        let (name, seconds, rate, options) = setting
        let bytes = wav(streamMaterial(seconds: seconds, rate: rate), rate: rate)
        let whole = try convert(bytes, options)
        let effect = AndroidVibration(whole.pattern)
        let expected = Array((kotlin ? effect.kotlin : effect.json).utf8)
        let expectedLosses = AndroidVibration.losses(of: whole.pattern, as: effect)
        var got: [UInt8] = []
        var pieces = 0
        var losses: [ConversionLoss] = []
        let summary = try AudioHaptics.convert(
            AudioFileReader(bytes: bytes, name: "test.wav"), options: options, kotlin: kotlin, losses: &losses
        ) { chunk in
            got += chunk
            pieces += 1
        }
        let label = "\(name)\(kotlin ? ", Kotlin" : "")"
        if got != expected {
            let at =
                zip(got, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset
                ?? min(got.count, expected.count)
            let context = String(decoding: expected[max(0, at - 200)..<min(expected.count, at + 100)], as: UTF8.self)
            let mine = String(decoding: got[max(0, at - 200)..<min(got.count, at + 100)], as: UTF8.self)
            Issue.record(
                "\(label): differs at byte \(at) of \(expected.count) (streamed \(got.count)): ...\(context)\n--- streamed: ...\(mine)"
            )
        }
        #expect(losses == expectedLosses, "\(label)")
        #expect(summary.onsets == whole.onsets.count, "\(label)")
        // Written as it goes, not at the end (a composition too: its primitives as they come).
        #expect(pieces > 1 || expected.count < 1 << 16, "\(label): \(expected.count) bytes in one piece")
        // The option sets reach both of Android's forms, and the waveforms move the motor.
        if options.content == .transientsOnly {
            #expect(effect.milliseconds > 0 && { if case .composition = effect { true } else { false } }())
        } else if case .waveform(let timings, let amplitudes) = effect {
            #expect(timings.count > 100 && amplitudes.contains { $0 > 0 }, "\(label)")
        } else {
            Issue.record("\(label): expected a waveform")
        }
    }
}

@Suite("AndroidVibrationStream: any pattern in time order")
struct AndroidVibrationStreamTests {
    static func tap(_ time: Double, _ intensity: Float, _ sharpness: Float = 0.5) -> PatternElement {
        .event(
            HapticEvent(
                time: time, type: .hapticTransient,
                parameters: [.init(.hapticIntensity, intensity), .init(.hapticSharpness, sharpness)]))
    }

    static func sound(_ time: Double, _ duration: Double, _ intensity: Float, release: Float = 0.05) -> PatternElement {
        .event(
            HapticEvent(
                time: time, type: .hapticContinuous, duration: duration,
                parameters: [.init(.hapticIntensity, intensity), .init(.releaseTime, release)]))
    }

    static func ramp(_ time: Double, _ id: DynamicParameterID, _ from: Float, _ to: Float) -> PatternElement {
        .curve(
            ParameterCurve(id, time: time, controlPoints: [.init(time: 0, value: from), .init(time: 0.5, value: to)]))
    }

    @Test(
        "Streamed bytes and losses equal the whole pattern's",
        arguments: [
            // Transients held until a continuous event, then replayed into the waveform.
            [tap(0.003, 1), tap(0.2, 0.4, 0.9), sound(0.5, 1.2, 0.8), tap(0.9, 1), sound(1.4, 0.6, 0.5)],
            // Curves of both controls, more than the stream keeps, and a release control.
            [sound(0, 3, 1)] + (0..<12).map { ramp(Double($0) * 0.25, .hapticIntensityControl, 1, 0.2) }
                + [ramp(1, .hapticReleaseTimeControl, 0.5, 0), tap(2.1, 0.7), sound(3.2, 0.4, 0.6)],
            // Transients only: a composition.
            [tap(0, 1, 1), tap(0.0116, 0.5, 0.4), tap(0.5, 0.3, 0)],
            // Nothing that vibrates: an empty waveform.
            [.event(HapticEvent(time: 0, type: .audioCustom, parameters: [], waveformPath: "a.wav"))],
            // An event that fades before its end: the trailing zeros dropped.
            [
                .event(
                    HapticEvent(
                        time: 0.1, type: .hapticContinuous, duration: 2,
                        parameters: [
                            .init(.hapticIntensity, 1), .init(.sustained, 0), .init(.decayTime, 0.1),
                        ]))
            ],
        ] as [[PatternElement]], [false, true])
    func sameBytes(_ elements: [PatternElement], kotlin: Bool) throws {
        let pattern = HapticPattern(elements: elements)
        let effect = AndroidVibration(pattern)
        let stream = AndroidVibrationStream(kotlin: kotlin)
        var got: [UInt8] = []
        for element in elements {
            stream.add(element)
            try stream.drain { got += $0 }
        }
        stream.finish()
        try stream.drain { got += $0 }
        #expect(String(decoding: got, as: UTF8.self) == (kotlin ? effect.kotlin : effect.json))
        #expect(stream.losses == AndroidVibration.losses(of: pattern, as: effect))
    }

    @Test(
        "Told transients only, each primitive is written as its transient comes",
        arguments: [false, true])
    func compositionAsItGoes(kotlin: Bool) throws {
        // Taps under intensity and sharpness curves (more than the stream keeps), 11.6 ms apart
        // (delays rounded from the onsets), and an audio event (a loss).
        var elements: [PatternElement] = [
            .event(HapticEvent(time: 0, type: .audioCustom, parameters: [], waveformPath: "a.wav"))
        ]
        for i in 0..<40 {
            let time = Double(i) * 0.0116
            if i % 3 == 0 {
                elements.append(Self.ramp(time, .hapticIntensityControl, 1, 0.3))
                elements.append(Self.ramp(time, .hapticSharpnessControl, 0, Float(i % 5) / 5 - 0.4))
            }
            elements.append(Self.tap(time, Float(i % 7 + 1) / 7, Float(i % 10) / 10))
        }
        let pattern = HapticPattern(elements: elements)
        let effect = AndroidVibration(pattern)
        let stream = AndroidVibrationStream(kotlin: kotlin, transientsOnly: true)
        var got: [UInt8] = []
        for element in elements {
            stream.add(element)
            try stream.drain { got += $0 }
        }
        // Every primitive is out before the end: only the tail is left.
        let before = String(decoding: got, as: UTF8.self)
        let whole = kotlin ? effect.kotlin : effect.json
        let tail = kotlin ? "    .compose()\n" : "\n    ]\n}\n"
        #expect(before + tail == whole, "\(before.suffix(200))")
        stream.finish()
        try stream.drain { got += $0 }
        #expect(String(decoding: got, as: UTF8.self) == whole)
        #expect(stream.losses == AndroidVibration.losses(of: pattern, as: effect))
        if case .composition(let primitives) = effect {
            #expect(primitives.count == 40 && Set(primitives.map(\.name)).count == 3)
        } else {
            Issue.record("expected a composition")
        }
        // No transient at all: the empty waveform, as for the whole pattern.
        let silent = AndroidVibrationStream(kotlin: kotlin, transientsOnly: true)
        silent.add(elements[0])
        silent.finish()
        var empty: [UInt8] = []
        try silent.drain { empty += $0 }
        let none = AndroidVibration(HapticPattern(elements: [elements[0]]))
        #expect(String(decoding: empty, as: UTF8.self) == (kotlin ? none.kotlin : none.json))
        #expect(silent.losses == AndroidVibration.losses(of: HapticPattern(elements: [elements[0]]), as: none))
    }

    @Test("Timings are written as the events come, the amplitudes at the end")
    func writtenAsItGoes() throws {
        let stream = AndroidVibrationStream(kotlin: false)
        var got: [UInt8] = []
        // A minute of swells: 600 events, each a run of its own.
        for i in 0..<600 {
            stream.add(Self.sound(Double(i) * 0.1, 0.05, Float(i % 10 + 1) / 10))
            try stream.drain { got += $0 }
        }
        let before = String(decoding: got, as: UTF8.self)
        #expect(
            before.prefix(80).hasPrefix("{\n    \"type\": \"waveform\",\n    \"timings\": [50, 10, 10, 30, 50"),
            "\(before.prefix(80))"
        )
        // All but the last second's runs are out before the end.
        #expect(before.count(where: { $0 == "," }) > 1_000, "\(before.count) bytes before the end")
        #expect(!before.contains("amplitudes"))
        stream.finish()
        try stream.drain { got += $0 }
        #expect(
            String(decoding: got, as: UTF8.self)
                == AndroidVibration(
                    HapticPattern(
                        elements: (0..<600).map {
                            Self.sound(Double($0) * 0.1, 0.05, Float($0 % 10 + 1) / 10)
                        })
                ).json)
    }
}
