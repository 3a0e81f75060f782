import HapticsCore
import HapticsSystem
import Synchronization

/// The range and default of one parameter (Core Haptics' `CHHapticParameterAttributes`).
public protocol CHHapticParameterAttributes {
    var minValue: Float { get }
    var maxValue: Float { get }
    var defaultValue: Float { get }
}

/// What this machine can play (Core Haptics' `CHHapticDeviceCapability`).
///
/// Here haptics are heard, not felt: `supportsHaptics` and `supportsAudio` are true when the
/// preview can play, i.e. `HAPTIC_OUTPUT` names a WAV file or the ALSA device (`HAPTIC_DEVICE`,
/// default `"default"`) opens.
public protocol CHHapticDeviceCapability {
    var supportsHaptics: Bool { get }
    var supportsAudio: Bool { get }
    /// The range and default of an event parameter for an event type.
    func attributes(
        forEventParameter inParameter: CHHapticEvent.ParameterID, eventType type: CHHapticEvent.EventType
    ) throws -> any CHHapticParameterAttributes
    /// The range and default of a dynamic parameter.
    func attributes(forDynamicParameter inParameter: CHHapticDynamicParameter.ID) throws
        -> any CHHapticParameterAttributes
}

struct ParameterAttributes: CHHapticParameterAttributes {
    var minValue: Float
    var maxValue: Float
    var defaultValue: Float
}

struct DeviceCapability: CHHapticDeviceCapability {
    var canPlay: Bool
    var supportsHaptics: Bool { canPlay }
    var supportsAudio: Bool { canPlay }

    func attributes(
        forEventParameter inParameter: CHHapticEvent.ParameterID, eventType type: CHHapticEvent.EventType
    ) throws -> any CHHapticParameterAttributes {
        guard let kind = EventType(rawValue: type.rawValue) else {
            throw CHHapticError(.invalidEventType, "unknown event type '\(type.rawValue)'")
        }
        guard let id = EventParameterID(rawValue: inParameter.rawValue) else {
            throw CHHapticError(.invalidParameterType, "unknown event parameter '\(inParameter.rawValue)'")
        }
        let envelope: [EventParameterID] = [.attackTime, .decayTime, .releaseTime, .sustained]
        let own: [EventParameterID] =
            kind.isHaptic
            ? [.hapticIntensity, .hapticSharpness] : [.audioVolume, .audioPitch, .audioPan, .audioBrightness]
        guard envelope.contains(id) || own.contains(id) else {
            throw CHHapticError(
                .invalidParameterType, "\(inParameter.rawValue) is not a parameter of \(type.rawValue) events")
        }
        return ParameterAttributes(
            minValue: id.range.lowerBound, maxValue: id.range.upperBound, defaultValue: id.defaultValue)
    }

    func attributes(forDynamicParameter inParameter: CHHapticDynamicParameter.ID) throws
        -> any CHHapticParameterAttributes
    {
        let id = try inParameter.model()
        return ParameterAttributes(
            minValue: id.range.lowerBound, maxValue: id.range.upperBound, defaultValue: id.neutralValue)
    }
}

/// Whether each output selection could play, asked once per process (opening a device takes time).
let playability = Mutex<[OutputSelection: Bool]>([:])
