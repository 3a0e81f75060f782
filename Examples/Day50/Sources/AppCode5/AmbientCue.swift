import AVFAudio
import CoreHaptics

// Newer apps import AVFAudio (where AVAudioSession lives) rather than AVFoundation, keep their
// haptics object on the main actor, and hop back to it from the engine's handlers.
@MainActor
final class AmbientCue {
    private let engine: CHHapticEngine
    private var player: (any CHHapticPatternPlayer)?
    private(set) var resets = 0

    init() throws {
        let session = AVAudioSession.sharedInstance()
        try session.setCategory(.ambient, mode: .default)
        engine = try CHHapticEngine(audioSession: session)
        engine.playsAudioOnly = true
        engine.isAutoShutdownEnabled = true
        engine.resetHandler = { [weak self] in
            Task { @MainActor in
                self?.player = nil
                self?.resets += 1
            }
        }
    }

    var isAmbient: Bool { AVAudioSession.sharedInstance().category == .ambient && engine.playsAudioOnly }
}
