import AVFoundation
import CoreHaptics

// How apps that play audio-based haptics set up their session first (Apple's "Playing Custom
// Haptics with Audio" does this): `import AVFoundation`, a category and activation, then the
// engine on that session.
enum AudioSessionSetup {
    static func makeEngine() throws -> CHHapticEngine {
        let session = AVAudioSession.sharedInstance()
        try session.setCategory(.playback, mode: .default, options: [.mixWithOthers])
        try session.setActive(true)
        guard session.category == .playback, session.isActive else {
            throw CHHapticError(.unknownError, userInfo: [NSLocalizedDescriptionKey: "session not set"])
        }
        return try CHHapticEngine(audioSession: session)
    }
}
