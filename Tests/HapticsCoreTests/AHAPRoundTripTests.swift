import HapticsCore
import OrderedCollections
import Testing
import _HapticsTestSupport

@Suite struct AHAPRoundTripTests {
    @Test func everyFixtureIsFound() {
        #expect(
            Fixtures.ahapFiles == [
                "ahap/Curve17.ahap", "ahap/Heartbeat.ahap", "ahap/Kit.ahap", "ahap/Oscillate.ahap", "ahap/Typo.ahap",
            ])
    }

    @Test(arguments: Fixtures.ahapFiles)
    func decodeEncodeDecodeIsEqual(file: String) throws {
        let first = try AHAP.decode(try Fixtures.bytes(file), file: file)
        let encoded = AHAP.encode(first.pattern)
        let second = try AHAP.decode(encoded, file: file)
        #expect(second.pattern == first.pattern)
        // The writer's output is a fixed point and draws no warnings the source did not
        // (unknown keys are dropped, so those go away).
        #expect(AHAP.encode(second.pattern) == encoded)
        #expect(Set(second.diagnostics.map(\.code)).isSubset(of: first.diagnostics.map(\.code)))
    }

    @Test func longCurvesKeepEveryPoint() throws {
        // Exporters write long curves (Meta Haptics Studio: 827 points in one curve).
        let points = (0..<827).map { #"{"Time": \#(Double($0) / 100), "ParameterValue": 0.5}"# }
        let text = doc(
            #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [\#(points.joined(separator: ","))]}}"#
        )
        let pattern = try AHAP.decode(Array(text.utf8)).pattern
        #expect(pattern.parameterCurves.map(\.controlPoints.count) == [827])
        #expect(pattern.parameterCurves.first?.controlPoints.last?.time == 8.26)
    }

    @Test func encodesPrettyStableAHAP() throws {
        var metadata = OrderedDictionary<String, JSONValue>()
        metadata["Project"] = .string("Tap \"1\"\n")
        metadata["Tags"] = .array([.number(1), .bool(true), .null, .object([:])])
        let pattern = HapticPattern(
            version: 1, metadata: metadata,
            elements: [
                .event(
                    HapticEvent(
                        time: 0.1, type: .audioCustom, duration: 2,
                        parameters: [.init(.audioVolume, 0.75)], waveformPath: "AHAP/Drums.wav",
                        waveformUsesVolumeEnvelope: false, waveformLoopEnabled: true)),
                .parameter(DynamicParameter(.hapticIntensityControl, value: 0.5, time: 1e-5)),
                .curve(ParameterCurve(.audioPanControl, time: 0, controlPoints: [.init(time: 0, value: -1)])),
                .event(HapticEvent(time: 3, type: .hapticTransient)),
            ])
        let text = String(decoding: AHAP.encode(pattern), as: UTF8.self)
        #expect(
            text == """
                {
                    "Version": 1,
                    "Metadata": {
                        "Project": "Tap \\"1\\"\\n",
                        "Tags": [
                            1,
                            true,
                            null,
                            {}
                        ]
                    },
                    "Pattern": [
                        {
                            "Event": {
                                "Time": 0.1,
                                "EventType": "AudioCustom",
                                "EventDuration": 2,
                                "EventParameters": [
                                    {
                                        "ParameterID": "AudioVolume",
                                        "ParameterValue": 0.75
                                    }
                                ],
                                "EventWaveformPath": "AHAP/Drums.wav",
                                "EventWaveformUseVolumeEnvelope": false,
                                "EventWaveformLoopEnabled": true
                            }
                        },
                        {
                            "Parameter": {
                                "ParameterID": "HapticIntensityControl",
                                "Time": 1e-05,
                                "ParameterValue": 0.5
                            }
                        },
                        {
                            "ParameterCurve": {
                                "ParameterID": "AudioPanControl",
                                "Time": 0,
                                "ParameterCurveControlPoints": [
                                    {
                                        "Time": 0,
                                        "ParameterValue": -1
                                    }
                                ]
                            }
                        },
                        {
                            "Event": {
                                "Time": 3,
                                "EventType": "HapticTransient"
                            }
                        }
                    ]
                }

                """)
        #expect(try AHAP.decode(AHAP.encode(pattern)).pattern == pattern)
    }

    @Test func versionlessFilesStayVersionless() throws {
        let pattern = try AHAP.decode(
            Array(#"{"Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient"}}]}"#.utf8)
        ).pattern
        #expect(pattern.version == nil)
        #expect(String(decoding: AHAP.encode(pattern), as: UTF8.self).hasPrefix("{\n    \"Pattern\": ["))
    }
}

@Suite struct HostileInputTests {
    func firstError(_ bytes: [UInt8], limits: AHAPLimits = .default) -> AHAPError? {
        do {
            _ = try AHAP.decode(bytes, file: "bad.ahap", limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test func emptyTruncatedAndGarbageFilesFailWithLocatedErrors() throws {
        #expect(
            firstError([])?.description
                == "bad.ahap:$: error[json-syntax]: file is empty; expected a JSON object (line 1, column 1)")
        let boing = try Fixtures.bytes("ahap/Heartbeat.ahap")
        for cut in stride(from: 1, to: boing.count - 1, by: 7) {
            let error = firstError(Array(boing[..<cut]))
            #expect(error != nil, "cut at \(cut)")
            #expect(error?.location != nil)
        }
        var generator = SplitMix64(seed: 42)
        for _ in 0..<200 {
            let garbage = (0..<64).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            #expect(firstError(garbage) != nil)
        }
    }

    @Test func twoHundredThousandEventsHitTheEventLimit() {
        let one = #"{"Event":{"Time":0,"EventType":"HapticTransient"}}"#
        let text =
            #"{"Version":1,"Pattern":["# + Array(repeating: one, count: 200_000).joined(separator: ",") + "]}"
        let error = firstError(Array(text.utf8))
        #expect(
            error?.description
                == "bad.ahap:Pattern: error[limit-exceeded]: Pattern has 200000 events; the limit is 100000 (AHAPLimits.maxEvents) (line 1, column 24)"
        )
        #expect(error?.code == .limitExceeded)
    }

    @Test func otherLimitsAreEnforced() {
        var limits = AHAPLimits.default
        limits.maxFileBytes = 10
        #expect(
            firstError(Array(#"{"Pattern": []}"#.utf8), limits: limits)?.description
                == "bad.ahap:$: error[limit-exceeded]: file is 15 bytes; the limit is 10 (AHAPLimits.maxFileBytes)")

        limits = .default
        limits.maxControlPoints = 1024
        let points = (0...1024).map { #"{"Time": \#($0), "ParameterValue": 0}"# }.joined(separator: ",")
        let element =
            #"{"ParameterCurve": {"ParameterID": "HapticIntensityControl", "Time": 0, "ParameterCurveControlPoints": [\#(points)]}}"#
        let curve = doc(element)
        #expect(
            firstError(Array(curve.utf8), limits: limits)?.description
                == "bad.ahap:Pattern[0].ParameterCurve.ParameterCurveControlPoints: error[limit-exceeded]: ParameterCurve has 1025 control points; haptic reads at most 1024 in one curve \(at("[{", in: element))"
        )

        let long = doc(#"{"Event": {"Time": 3600, "EventType": "HapticContinuous", "EventDuration": 1}}"#)
        #expect(
            firstError(Array(long.utf8))?.description
                == "bad.ahap:Pattern: error[limit-exceeded]: pattern lasts 3601 s; the limit is 3600 s (AHAPLimits.maxDuration) (line 1, column 27)"
        )
        #expect(firstError(Array(long.utf8))?.diagnostics.map(\.code) == [.limitExceeded])

        limits = .default
        limits.maxStringBytes = 8
        #expect(
            firstError(
                Array(#"{"Metadata": {"Title": "a long title"}, "Pattern": []}"#.utf8), limits: limits)?
                .description
                == "bad.ahap:Metadata.Title: error[limit-exceeded]: string longer than 8 bytes (AHAPLimits.maxStringBytes) (line 1, column 24)"
        )
    }

    @Test func deepNestingAndOddTokensNeverCrash() {
        let deep = Array(#"{"Pattern": "#.utf8) + [UInt8](repeating: UInt8(ascii: "["), count: 200_000)
        #expect(firstError(deep)?.code == .limitExceeded)
        #expect(
            firstError(Array(doc(#"{"Event": {"Time": 1e999, "EventType": "HapticTransient"}}"#).utf8))?.code
                == .numberOutOfRange)
        #expect(
            firstError(Array(doc(#"{"Event": {"Time": Infinity, "EventType": "HapticTransient"}}"#).utf8))?
                .code == .jsonSyntax)
        #expect(
            firstError(Array(doc(#"{"Event": {"Time": -NaN, "EventType": "HapticTransient"}}"#).utf8))?.code
                == .jsonSyntax)
        #expect(
            firstError(Array(#"{"Metadata": {"a": "\uDE00"}, "Pattern": []}"#.utf8))?.code == .jsonSyntax)
        #expect(firstError([0x7B, 0x22, 0xC3, 0x28, 0x22, 0x3A, 0x31, 0x7D])?.code == .invalidUTF8)
    }

    @Test func byteOrderMarkIsAcceptedWithAWarning() throws {
        let bytes: [UInt8] =
            [0xEF, 0xBB, 0xBF] + Array(doc(#"{"Event": {"Time": 0, "EventType": "HapticTransient"}}"#).utf8)
        let decoded = try AHAP.decode(bytes, file: "bom.ahap")
        #expect(decoded.diagnostics.map(\.code) == [.bom])
        #expect(decoded.pattern.events.count == 1)
    }
}
