import Synchronization

/// A stand-in for AVFAudio's `AVAudioSession` on Linux, so app code that configures its session
/// before it creates a haptic engine compiles unchanged, with `import AVFAudio` or `import AVFoundation`:
///
/// ```swift
/// import AVFoundation
/// import CoreHaptics
///
/// let session = AVAudioSession.sharedInstance()
/// try session.setCategory(.playback, mode: .default, options: [.mixWithOthers])
/// try session.setActive(true)
/// let engine = try CHHapticEngine(audioSession: session)
/// ```
///
/// Linux has no audio sessions: every call succeeds and changes nothing but what the session
/// reports back (`category`, `mode`, `categoryOptions`, `isActive`), and the haptic engine plays
/// through its own output (docs/corehaptics.md). This module (and AVFoundation, which re-exports
/// it) exists only on Linux builds of swift-haptics; on Apple platforms both are Apple's.
public final class AVAudioSession: Sendable {
    private struct State {
        var category = Category.soloAmbient
        var mode = Mode.default
        var options = CategoryOptions()
        var active = false
    }

    private static let shared = AVAudioSession()
    private let state = Mutex(State())
    private init() {}

    /// The process's one session.
    public class func sharedInstance() -> AVAudioSession { shared }

    /// The category last set (Apple's default: `.soloAmbient`).
    public var category: Category { state.withLock { $0.category } }
    /// The mode last set (`.default` until one is).
    public var mode: Mode { state.withLock { $0.mode } }
    /// The options last set.
    public var categoryOptions: CategoryOptions { state.withLock { $0.options } }
    /// Whether `setActive(true)` was the last activation call.
    public var isActive: Bool { state.withLock { $0.active } }

    public func setCategory(_ category: Category) throws {
        state.withLock { $0.category = category }
    }

    public func setCategory(_ category: Category, options: CategoryOptions = []) throws {
        state.withLock {
            $0.category = category
            $0.options = options
        }
    }

    public func setCategory(_ category: Category, mode: Mode, options: CategoryOptions = []) throws {
        state.withLock {
            $0.category = category
            $0.mode = mode
            $0.options = options
        }
    }

    public func setMode(_ mode: Mode) throws {
        state.withLock { $0.mode = mode }
    }

    public func setActive(_ active: Bool, options: SetActiveOptions = []) throws {
        state.withLock { $0.active = active }
    }

    /// `AVAudioSession.Category`, with Apple's raw values.
    public struct Category: RawRepresentable, Hashable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let ambient = Category(rawValue: "AVAudioSessionCategoryAmbient")
        public static let soloAmbient = Category(rawValue: "AVAudioSessionCategorySoloAmbient")
        public static let playback = Category(rawValue: "AVAudioSessionCategoryPlayback")
        public static let record = Category(rawValue: "AVAudioSessionCategoryRecord")
        public static let playAndRecord = Category(rawValue: "AVAudioSessionCategoryPlayAndRecord")
        public static let multiRoute = Category(rawValue: "AVAudioSessionCategoryMultiRoute")
    }

    /// `AVAudioSession.Mode`, with Apple's raw values.
    public struct Mode: RawRepresentable, Hashable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let `default` = Mode(rawValue: "AVAudioSessionModeDefault")
        public static let gameChat = Mode(rawValue: "AVAudioSessionModeGameChat")
        public static let measurement = Mode(rawValue: "AVAudioSessionModeMeasurement")
        public static let moviePlayback = Mode(rawValue: "AVAudioSessionModeMoviePlayback")
        public static let spokenAudio = Mode(rawValue: "AVAudioSessionModeSpokenAudio")
        public static let videoChat = Mode(rawValue: "AVAudioSessionModeVideoChat")
        public static let videoRecording = Mode(rawValue: "AVAudioSessionModeVideoRecording")
        public static let voiceChat = Mode(rawValue: "AVAudioSessionModeVoiceChat")
        public static let voicePrompt = Mode(rawValue: "AVAudioSessionModeVoicePrompt")
    }

    /// `AVAudioSession.CategoryOptions`, with Apple's bit values.
    public struct CategoryOptions: OptionSet, Hashable, Sendable {
        public var rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        public static let mixWithOthers = CategoryOptions(rawValue: 0x1)
        public static let duckOthers = CategoryOptions(rawValue: 0x2)
        public static let allowBluetooth = CategoryOptions(rawValue: 0x4)
        public static let defaultToSpeaker = CategoryOptions(rawValue: 0x8)
        public static let interruptSpokenAudioAndMixWithOthers = CategoryOptions(rawValue: 0x11)
        public static let allowBluetoothA2DP = CategoryOptions(rawValue: 0x20)
        public static let allowAirPlay = CategoryOptions(rawValue: 0x40)
    }

    /// `AVAudioSession.SetActiveOptions`, with Apple's bit values.
    public struct SetActiveOptions: OptionSet, Hashable, Sendable {
        public var rawValue: UInt
        public init(rawValue: UInt) { self.rawValue = rawValue }

        public static let notifyOthersOnDeactivation = SetActiveOptions(rawValue: 1)
    }
}
