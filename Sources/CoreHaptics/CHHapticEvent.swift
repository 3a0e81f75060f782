public import Foundation
import HapticsCore

/// "Start as soon as possible": pass it as the time of `start(atTime:)` and friends.
public let CHHapticTimeImmediate: TimeInterval = 0

/// The ID of a sound registered with ``CHHapticEngine/registerAudioResource(_:options:)``.
public typealias CHHapticAudioResourceID = Int

/// One haptic or audio event of a pattern (Core Haptics' `CHHapticEvent`).
///
/// ```swift
/// let tap = CHHapticEvent(eventType: .hapticTransient, parameters: [
///     CHHapticEventParameter(parameterID: .hapticIntensity, value: 1),
/// ], relativeTime: 0)
/// ```
/// Open, as Apple's class is: apps subclass events (to make them `Decodable`, say) and call any
/// of the four initializers as `super.init`.
///
/// An `NSObject` subclass, as Apple's is, and so are `CHHapticEventParameter`,
/// `CHHapticDynamicParameter`, `CHHapticParameterCurve` (and its `ControlPoint`) and
/// `CHHapticPattern`: `String(describing:)` gives `<CHHapticEvent: 0x...>`, one per object, and
/// `==` and `hash` are the object's identity, so an app's cache keyed by either tells two
/// events apart.
open class CHHapticEvent: NSObject {
    /// The kind of event, with Apple's raw strings (the AHAP `EventType` values).
    public struct EventType: RawRepresentable, Hashable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        public static let hapticTransient = EventType("HapticTransient")
        public static let hapticContinuous = EventType("HapticContinuous")
        public static let audioContinuous = EventType("AudioContinuous")
        public static let audioCustom = EventType("AudioCustom")
    }

    /// An event parameter, with Apple's raw strings (the AHAP `ParameterID` values).
    public struct ParameterID: RawRepresentable, Hashable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        public static let hapticIntensity = ParameterID("HapticIntensity")
        public static let hapticSharpness = ParameterID("HapticSharpness")
        public static let attackTime = ParameterID("AttackTime")
        public static let decayTime = ParameterID("DecayTime")
        public static let releaseTime = ParameterID("ReleaseTime")
        public static let sustained = ParameterID("Sustained")
        public static let audioVolume = ParameterID("AudioVolume")
        public static let audioPitch = ParameterID("AudioPitch")
        public static let audioPan = ParameterID("AudioPan")
        public static let audioBrightness = ParameterID("AudioBrightness")
    }

    public let type: EventType
    public let eventParameters: [CHHapticEventParameter]
    /// Seconds from the start of the pattern.
    open var relativeTime: TimeInterval
    /// Seconds; 0 for a transient or an audio resource played to its end.
    open var duration: TimeInterval
    /// The registered sound an `audioCustom` event plays.
    let audioResourceID: CHHapticAudioResourceID?

    /// An event without its own duration (a transient, or a continuous event of length 0).
    public init(
        eventType type: EventType, parameters eventParameters: [CHHapticEventParameter], relativeTime time: TimeInterval
    ) {
        self.type = type
        self.eventParameters = eventParameters
        relativeTime = time
        duration = 0
        audioResourceID = nil
    }

    /// An event lasting `duration` seconds.
    public init(
        eventType type: EventType, parameters eventParameters: [CHHapticEventParameter],
        relativeTime time: TimeInterval,
        duration: TimeInterval
    ) {
        self.type = type
        self.eventParameters = eventParameters
        relativeTime = time
        self.duration = duration
        audioResourceID = nil
    }

    /// Plays a registered sound in full.
    public init(
        audioResourceID resID: CHHapticAudioResourceID, parameters eventParameters: [CHHapticEventParameter],
        relativeTime time: TimeInterval
    ) {
        type = .audioCustom
        self.eventParameters = eventParameters
        relativeTime = time
        duration = 0
        audioResourceID = resID
    }

    /// Plays a registered sound, cut (or padded) to `duration` seconds when it is above 0.
    public init(
        audioResourceID resID: CHHapticAudioResourceID, parameters eventParameters: [CHHapticEventParameter],
        relativeTime time: TimeInterval, duration: TimeInterval
    ) {
        type = .audioCustom
        self.eventParameters = eventParameters
        relativeTime = time
        self.duration = duration
        audioResourceID = resID
    }

    /// The waveform path an audio resource's event carries in the model.
    static func resourcePath(_ id: CHHapticAudioResourceID) -> String { "CHHapticAudioResource/\(id)" }

    /// The model event, after checking what Core Haptics checks.
    func model() throws(CHHapticError) -> HapticEvent {
        guard let kind = HapticsCore.EventType(rawValue: type.rawValue) else {
            throw CHHapticError(.invalidEventType, "unknown event type '\(type.rawValue)'")
        }
        guard relativeTime.isFinite, relativeTime >= 0 else {
            throw CHHapticError(.invalidEventTime, "event time \(relativeTime) must be a number >= 0")
        }
        guard duration.isFinite, duration >= 0 else {
            throw CHHapticError(.invalidEventDuration, "event duration \(duration) must be a number >= 0")
        }
        if kind == .audioCustom, audioResourceID == nil {
            throw CHHapticError(.invalidAudioResource, "an audioCustom event needs an audio resource ID")
        }
        var parameters: [EventParameter] = []
        for parameter in eventParameters {
            guard let id = EventParameterID(rawValue: parameter.parameterID.rawValue) else {
                throw CHHapticError(
                    .invalidParameterType, "unknown event parameter '\(parameter.parameterID.rawValue)'")
            }
            let value = parameter.value.isFinite ? parameter.value : id.defaultValue
            parameters.append(EventParameter(id, min(max(value, id.range.lowerBound), id.range.upperBound)))
        }
        // A continuous event stops at Core Haptics' 30 s maximum, as on a device and as the AHAP
        // reader has it; the pattern itself may be as long as the app likes.
        let played = kind.requiresDuration ? min(duration, AHAPLimits.default.maxContinuousDuration) : duration
        return HapticEvent(
            time: relativeTime, type: kind, duration: played > 0 ? played : nil, parameters: parameters,
            waveformPath: audioResourceID.map(Self.resourcePath))
    }
}

/// One parameter of an event: its ID and value (Core Haptics' `CHHapticEventParameter`).
open class CHHapticEventParameter: NSObject {
    public let parameterID: CHHapticEvent.ParameterID
    open var value: Float

    public init(parameterID: CHHapticEvent.ParameterID, value: Float) {
        self.parameterID = parameterID
        self.value = value
    }
}

/// A value that changes every event of a playing pattern from a moment on
/// (Core Haptics' `CHHapticDynamicParameter`).
open class CHHapticDynamicParameter: NSObject {
    /// The controls, with Apple's raw strings (the AHAP `ParameterID` values).
    public struct ID: RawRepresentable, Hashable, Sendable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(_ rawValue: String) { self.rawValue = rawValue }

        public static let hapticIntensityControl = ID("HapticIntensityControl")
        public static let hapticSharpnessControl = ID("HapticSharpnessControl")
        public static let hapticAttackTimeControl = ID("HapticAttackTimeControl")
        public static let hapticDecayTimeControl = ID("HapticDecayTimeControl")
        public static let hapticReleaseTimeControl = ID("HapticReleaseTimeControl")
        public static let audioVolumeControl = ID("AudioVolumeControl")
        public static let audioPanControl = ID("AudioPanControl")
        public static let audioPitchControl = ID("AudioPitchControl")
        public static let audioBrightnessControl = ID("AudioBrightnessControl")
        public static let audioAttackTimeControl = ID("AudioAttackTimeControl")
        public static let audioDecayTimeControl = ID("AudioDecayTimeControl")
        public static let audioReleaseTimeControl = ID("AudioReleaseTimeControl")
    }

    public let parameterID: ID
    open var value: Float
    /// Seconds from the start of the pattern, or from the `atTime` given to `sendParameters`.
    open var relativeTime: TimeInterval

    public init(parameterID: ID, value: Float, relativeTime time: TimeInterval) {
        self.parameterID = parameterID
        self.value = value
        relativeTime = time
    }

    func model() throws(CHHapticError) -> DynamicParameter {
        let id = try parameterID.model()
        guard relativeTime.isFinite, relativeTime >= 0 else {
            throw CHHapticError(.invalidTime, "parameter time \(relativeTime) must be a number >= 0")
        }
        let clamped = min(max(value.isFinite ? value : id.neutralValue, id.range.lowerBound), id.range.upperBound)
        return DynamicParameter(id, value: clamped, time: relativeTime)
    }
}

extension CHHapticDynamicParameter.ID {
    func model() throws(CHHapticError) -> DynamicParameterID {
        guard let id = DynamicParameterID(rawValue: rawValue) else {
            throw CHHapticError(.invalidParameterType, "unknown dynamic parameter '\(rawValue)'")
        }
        return id
    }
}

/// A control that moves linearly between points (Core Haptics' `CHHapticParameterCurve`).
open class CHHapticParameterCurve: NSObject {
    /// One point of a curve: a value at a time relative to the curve's start.
    open class ControlPoint: NSObject {
        open var relativeTime: TimeInterval
        open var value: Float

        public init(relativeTime time: TimeInterval, value: Float) {
            relativeTime = time
            self.value = value
        }
    }

    public let parameterID: CHHapticDynamicParameter.ID
    open var relativeTime: TimeInterval
    public let controlPoints: [ControlPoint]

    public init(parameterID: CHHapticDynamicParameter.ID, controlPoints: [ControlPoint], relativeTime: TimeInterval) {
        self.parameterID = parameterID
        self.controlPoints = controlPoints
        self.relativeTime = relativeTime
    }

    func model() throws(CHHapticError) -> ParameterCurve {
        let id = try parameterID.model()
        guard relativeTime.isFinite, relativeTime >= 0 else {
            throw CHHapticError(.invalidTime, "curve time \(relativeTime) must be a number >= 0")
        }
        guard !controlPoints.isEmpty else {
            throw CHHapticError(.badParameterEntry, "a parameter curve needs at least one control point")
        }
        var points: [ParameterCurve.ControlPoint] = []
        for point in controlPoints {
            guard point.relativeTime.isFinite, point.relativeTime >= 0 else {
                throw CHHapticError(
                    .badParameterEntry, "control point time \(point.relativeTime) must be a number >= 0")
            }
            let value = min(
                max(point.value.isFinite ? point.value : id.neutralValue, id.range.lowerBound), id.range.upperBound)
            points.append(.init(time: point.relativeTime, value: value))
        }
        return ParameterCurve(id, time: relativeTime, controlPoints: points)
    }
}
