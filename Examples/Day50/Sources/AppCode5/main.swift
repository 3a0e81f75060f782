import CoreHaptics

// Plays, through whatever HAPTIC_OUTPUT or HAPTIC_DEVICE names: three decoded taps, then (after the
// engine was stopped and started again, as apps do on going to the background and back) one tap
// from a JSONSerialization dictionary. Four taps in all; prints only on failure.
func run() async throws {
    guard CHHapticEngine.capabilitiesForHardware().supportsHaptics else {
        throw CHHapticError(.notSupported)
    }
    // The session set-up of audio apps, then that engine released again.
    _ = try AudioSessionSetup.makeEngine()
    guard try await AmbientCue().isAmbient else { throw CHHapticError(.invalidAudioSession) }
    let controller = try HapticsController()
    do {
        try controller.engine.makePlayer(with: CHHapticPattern(events: [], parameters: []))
            .start(atTime: CHHapticTimeImmediate)
        throw CHHapticError(.unknownError)
    } catch {
        guard PatternLoader.code(of: error) == -4805 else { throw error }
    }
    try await controller.engine.start()
    let taps = try TapEvent.taps(
        from: #"[{"at": 0, "strength": 1}, {"at": 0.1, "strength": 0.7}, {"at": 0.2, "strength": 0.4}]"#)
    try await controller.play(taps)
    try await controller.engine.stop()

    try await controller.engine.start()
    let ahap =
        #"{"Version": 1, "Pattern": [{"Event": {"Time": 0, "EventType": "HapticTransient","#
        + #" "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}]}}]}"#
    try controller.engine.makePlayer(with: PatternLoader.pattern(fromAHAP: ahap)).start(atTime: 0)
    await controller.finish()
    guard TapEvent.decoded == 3, controller.reasons == ["finished"] else {
        throw CHHapticError(.unknownError, userInfo: [NSLocalizedDescriptionKey: "stopped: \(controller.reasons)"])
    }
}

do {
    try await run()
} catch {
    print("failed: \(error) (code \(PatternLoader.code(of: error)))")
    exit(1)
}
