import HapticsCore
import Testing

@Suite struct PatternModelTests {
    @Test func jsonPathPrintsLikeAHAPAuthorsWriteIt() {
        let path = JSONPath.root.key("Pattern").index(3).key("Event").key("EventDuration")
        #expect(path.description == "Pattern[3].Event.EventDuration")
        #expect(JSONPath.root.description == "$")
    }

    @Test func durationIsTheLatestEventEndOrParameterStart() {
        let pattern = HapticPattern(elements: [
            .event(HapticEvent(time: 0.5, type: .hapticTransient)),
            .event(HapticEvent(time: 0.2, type: .hapticContinuous, duration: 1.0)),
            .curve(
                ParameterCurve(.hapticIntensityControl, time: 3, controlPoints: [.init(time: 0, value: 1)])),
            .parameter(DynamicParameter(.hapticSharpnessControl, value: 0.2, time: 5)),
        ])
        // Apple: the start of the last event or parameter, plus that event's duration.
        #expect(pattern.duration == 5)
        #expect(HapticPattern(elements: Array(pattern.elements.prefix(3))).duration == 3)
        #expect(HapticPattern(elements: Array(pattern.elements.prefix(2))).duration == 1.2)
        #expect(pattern.events.count == 2)
        #expect(pattern.parameterCurves.count == 1)
        #expect(pattern.dynamicParameters.count == 1)
    }

    @Test func unsetParametersFallBackToApplesDefaults() {
        let event = HapticEvent(time: 0, type: .hapticTransient, parameters: [.init(.hapticIntensity, 0.3)])
        #expect(event.value(of: .hapticIntensity) == 0.3)
        #expect(event.value(of: .hapticSharpness) == 0.5)
        #expect(!event.sets(.hapticSharpness))
    }

    /// `EventDuration: 0` on a transient or AudioCustom is "not set", however the event is built
    /// or changed; a continuous event keeps its 0.
    @Test func zeroDurationIsUnsetOnTransientsAndAudioCustomOnly() {
        #expect(HapticEvent(time: 0, type: .hapticTransient, duration: 0).duration == nil)
        #expect(HapticEvent(time: 0, type: .audioCustom, duration: 0).duration == nil)
        #expect(HapticEvent(time: 0, type: .hapticContinuous, duration: 0).duration == 0)
        #expect(HapticEvent(time: 0, type: .audioContinuous, duration: 0).duration == 0)
        #expect(HapticEvent(time: 0, type: .hapticTransient, duration: 0.2).duration == 0.2)
        var event = HapticEvent(time: 0, type: .hapticContinuous, duration: 0)
        event.type = .hapticTransient
        #expect(event.duration == nil)
        event.duration = 0
        #expect(event.duration == nil)
        #expect(event == HapticEvent(time: 0, type: .hapticTransient))
    }

    @Test(arguments: DynamicParameterID.allCases)
    func onlyIntensityAndVolumeControlsMultiply(id: DynamicParameterID) {
        let multiplies = id == .hapticIntensityControl || id == .audioVolumeControl
        #expect(id.isMultiplicative == multiplies)
        #expect(id.neutralValue == (multiplies ? 1 : 0))
    }
}
