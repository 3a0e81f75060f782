public import OrderedCollections

/// A Core Haptics pattern: the in-memory form of an AHAP file.
///
/// Time is AHAP's: seconds as `Double`, relative to the moment the pattern
/// starts. Parameter values are `Float`, as in Core Haptics. Elements keep
/// the order they had in the file so that an AHAP file survives a
/// decode → encode → decode round trip unchanged.
///
/// ```swift
/// let tap = HapticPattern(elements: [
///     .event(HapticEvent(time: 0, type: .hapticTransient,
///                        parameters: [.init(.hapticIntensity, 1), .init(.hapticSharpness, 1)]))
/// ])
/// print(tap.duration)  // 0.0: a transient has no length of its own
/// ```
public struct HapticPattern: Hashable, Sendable {
    /// The top-level `Version` number, when the file gives one.
    public var version: Double?
    /// The top-level `Metadata` dictionary, kept verbatim (key order included) and written back.
    public var metadata: OrderedDictionary<String, JSONValue>
    /// The `Pattern` array, in file order.
    public var elements: [PatternElement]

    public init(
        version: Double? = 1,
        metadata: OrderedDictionary<String, JSONValue> = [:],
        elements: [PatternElement] = []
    ) {
        self.version = version
        self.metadata = metadata
        self.elements = elements
    }

    /// The events, in file order.
    public var events: [HapticEvent] {
        elements.compactMap { if case .event(let e) = $0 { e } else { nil } }
    }

    /// The dynamic parameters, in file order.
    public var dynamicParameters: [DynamicParameter] {
        elements.compactMap { if case .parameter(let p) = $0 { p } else { nil } }
    }

    /// The parameter curves, in file order.
    public var parameterCurves: [ParameterCurve] {
        elements.compactMap { if case .curve(let c) = $0 { c } else { nil } }
    }

    /// The pattern's length in seconds, as Core Haptics defines it
    /// (`CHHapticPattern.duration`: "the start time of the pattern's last event or
    /// parameter, plus that event's duration if present"): the latest of each
    /// event's `Time + EventDuration` (a transient or an event without a duration
    /// ends at its `Time`) and each dynamic parameter's or curve's start `Time`.
    ///
    /// - Complexity: O(n) in the number of elements.
    public var duration: Double {
        var end = 0.0
        for element in elements {
            switch element {
            case .event(let event): end = max(end, event.time + (event.duration ?? 0))
            case .parameter(let parameter): end = max(end, parameter.time)
            case .curve(let curve): end = max(end, curve.time)
            }
        }
        return end
    }
}

/// One entry of the `Pattern` array.
public enum PatternElement: Hashable, Sendable {
    case event(HapticEvent)
    case parameter(DynamicParameter)
    case curve(ParameterCurve)

    /// The element's start time in seconds.
    public var time: Double {
        switch self {
        case .event(let e): e.time
        case .parameter(let p): p.time
        case .curve(let c): c.time
        }
    }
}

/// The four AHAP event types, with Apple's raw strings.
public enum EventType: String, CaseIterable, Hashable, Sendable {
    case hapticTransient = "HapticTransient"
    case hapticContinuous = "HapticContinuous"
    case audioContinuous = "AudioContinuous"
    case audioCustom = "AudioCustom"

    /// Whether the event is felt (haptic) rather than heard (audio) on an iPhone.
    public var isHaptic: Bool { self == .hapticTransient || self == .hapticContinuous }

    /// Whether the event needs an `EventDuration` to play.
    public var requiresDuration: Bool { self == .hapticContinuous || self == .audioContinuous }

    /// What an `EventDuration` of `given` seconds means on an event of this type: the one place
    /// of the rule that 0 on a transient or an AudioCustom event means "not set" (nil), so the
    /// tap plays whole and the waveform to its end. Apple's header: a duration "if unset (0.0)";
    /// `CHHapticPattern.exportDictionary()` writes `EventDuration: 0` on every transient, and
    /// `CHHapticEvent(audioResourceID:parameters:relativeTime:)` plays the whole resource.
    /// A continuous event keeps its 0 (it lasts 0 s).
    @inlinable
    public func duration(given: Double?) -> Double? {
        given == 0 && !requiresDuration ? nil : given
    }
}

/// An `Event` element.
public struct HapticEvent: Hashable, Sendable {
    /// `Time`: seconds from the start of the pattern (>= 0).
    public var time: Double
    /// `EventType`. Changing it applies ``EventType/duration(given:)`` to ``duration`` again.
    public var type: EventType {
        didSet { duration = type.duration(given: duration) }
    }
    /// `EventDuration` in seconds, when it is set. Continuous events need it; for transients and
    /// AudioCustom it pads or cuts the event. 0 on a transient or an AudioCustom event means
    /// "not set" and is held as nil (``EventType/duration(given:)``), whoever builds the event:
    /// render, play, info, plot, review, studio and lint all read it from here.
    public var duration: Double? {
        didSet { duration = type.duration(given: duration) }
    }
    /// `EventParameters`, in file order, values already clamped to their ranges.
    public var parameters: [EventParameter]
    /// `EventWaveformPath` (AudioCustom): a path relative to the AHAP file's folder.
    public var waveformPath: String?
    /// `EventWaveformUseVolumeEnvelope` (default true).
    public var waveformUsesVolumeEnvelope: Bool
    /// `EventWaveformLoopEnabled` (default false).
    public var waveformLoopEnabled: Bool

    public init(
        time: Double,
        type: EventType,
        duration: Double? = nil,
        parameters: [EventParameter] = [],
        waveformPath: String? = nil,
        waveformUsesVolumeEnvelope: Bool = true,
        waveformLoopEnabled: Bool = false
    ) {
        self.time = time
        self.type = type
        self.duration = type.duration(given: duration)
        self.parameters = parameters
        self.waveformPath = waveformPath
        self.waveformUsesVolumeEnvelope = waveformUsesVolumeEnvelope
        self.waveformLoopEnabled = waveformLoopEnabled
    }

    /// The value of `id`: the last one given in `EventParameters`, else Apple's default.
    public func value(of id: EventParameterID) -> Float {
        parameters.last(where: { $0.id == id })?.value ?? id.defaultValue
    }

    /// Whether the event sets `id` itself (rather than falling back to the default).
    public func sets(_ id: EventParameterID) -> Bool {
        parameters.contains { $0.id == id }
    }
}

/// One entry of `EventParameters`.
public struct EventParameter: Hashable, Sendable {
    public var id: EventParameterID
    public var value: Float

    public init(_ id: EventParameterID, _ value: Float) {
        self.id = id
        self.value = value
    }
}

/// The event parameter IDs, with Apple's raw strings, ranges and defaults.
public enum EventParameterID: String, CaseIterable, Hashable, Sendable {
    case hapticIntensity = "HapticIntensity"
    case hapticSharpness = "HapticSharpness"
    case attackTime = "AttackTime"
    case decayTime = "DecayTime"
    case releaseTime = "ReleaseTime"
    case sustained = "Sustained"
    case audioVolume = "AudioVolume"
    case audioPitch = "AudioPitch"
    case audioPan = "AudioPan"
    case audioBrightness = "AudioBrightness"

    /// The values Core Haptics accepts; others are clamped to the nearest end.
    @inlinable
    public var range: ClosedRange<Float> {
        switch self {
        case .audioPitch, .audioPan: -1...1
        default: 0...1
        }
    }

    /// The value used when an event does not set this parameter.
    public var defaultValue: Float {
        switch self {
        case .hapticIntensity: 1
        case .hapticSharpness: 0.5
        case .attackTime, .decayTime, .releaseTime: 0
        case .sustained: 1
        case .audioVolume: 0.75
        case .audioPitch, .audioPan: 0
        case .audioBrightness: 1  // Apple: "The default value is 1.0" (no high-frequency reduction)
        }
    }

    /// The dynamic parameter that modulates this event parameter, if any (the haptic control
    /// where there is one, else the audio one): read from ``DynamicParameterID/modulates``.
    public var control: DynamicParameterID? {
        DynamicParameterID.control(for: self, onHapticEvent: true)
            ?? DynamicParameterID.control(for: self, onHapticEvent: false)
    }
}

/// A `Parameter` element: a dynamic parameter that changes abruptly at `time`.
public struct DynamicParameter: Hashable, Sendable {
    public var id: DynamicParameterID
    /// `Time`: seconds from the start of the pattern.
    public var time: Double
    /// `ParameterValue`, clamped to `id.range`.
    public var value: Float

    public init(_ id: DynamicParameterID, value: Float, time: Double = 0) {
        self.id = id
        self.value = value
        self.time = time
    }
}

/// The twelve dynamic parameter IDs, with Apple's raw strings.
///
/// Intensity and volume controls multiply the event's value; all others add to it.
/// The result is clamped to the event parameter's range.
public enum DynamicParameterID: String, CaseIterable, Hashable, Sendable {
    case hapticIntensityControl = "HapticIntensityControl"
    case hapticSharpnessControl = "HapticSharpnessControl"
    case hapticAttackTimeControl = "HapticAttackTimeControl"
    case hapticDecayTimeControl = "HapticDecayTimeControl"
    case hapticReleaseTimeControl = "HapticReleaseTimeControl"
    case audioVolumeControl = "AudioVolumeControl"
    case audioPanControl = "AudioPanControl"
    case audioPitchControl = "AudioPitchControl"
    case audioBrightnessControl = "AudioBrightnessControl"
    case audioAttackTimeControl = "AudioAttackTimeControl"
    case audioDecayTimeControl = "AudioDecayTimeControl"
    case audioReleaseTimeControl = "AudioReleaseTimeControl"

    /// Whether the control multiplies (intensity, volume) rather than adds.
    @inlinable
    public var isMultiplicative: Bool {
        switch self {
        case .hapticIntensityControl, .audioVolumeControl: true
        default: false
        }
    }

    /// The values a control accepts: 0...1 for multipliers, -1...1 for offsets.
    @inlinable
    public var range: ClosedRange<Float> { isMultiplicative ? 0...1 : -1...1 }

    /// The neutral value: 1 for multipliers, 0 for offsets.
    @inlinable
    public var neutralValue: Float { isMultiplicative ? 1 : 0 }

    /// Which event parameter this control modulates, and on which kind of event: the one table
    /// of that relation (``target``, ``actsOnHaptics``, ``control(for:onHapticEvent:)`` and
    /// `EventParameterID.control` all read it).
    @inlinable
    public var modulates: (parameter: EventParameterID, onHapticEvents: Bool) {
        switch self {
        case .hapticIntensityControl: (.hapticIntensity, true)
        case .hapticSharpnessControl: (.hapticSharpness, true)
        case .hapticAttackTimeControl: (.attackTime, true)
        case .hapticDecayTimeControl: (.decayTime, true)
        case .hapticReleaseTimeControl: (.releaseTime, true)
        case .audioVolumeControl: (.audioVolume, false)
        case .audioPanControl: (.audioPan, false)
        case .audioPitchControl: (.audioPitch, false)
        case .audioBrightnessControl: (.audioBrightness, false)
        case .audioAttackTimeControl: (.attackTime, false)
        case .audioDecayTimeControl: (.decayTime, false)
        case .audioReleaseTimeControl: (.releaseTime, false)
        }
    }

    /// The event parameter this control modulates.
    @inlinable
    public var target: EventParameterID { modulates.parameter }

    /// Whether the control acts on haptic events (true) or audio events (false).
    public var actsOnHaptics: Bool { modulates.onHapticEvents }

    /// The control that modulates `parameter` on an event of the given kind, if any:
    /// `Haptic*Control` for haptic events, `Audio*Control` for audio events.
    public static func control(for parameter: EventParameterID, onHapticEvent haptic: Bool) -> DynamicParameterID? {
        for id in all where id.modulates == (parameter, haptic) { return id }
        return nil
    }

    /// `value` clamped to ``range``: what a sent or scheduled control value becomes.
    @inlinable
    public func clamp(_ value: Float) -> Float {
        min(max(value, range.lowerBound), range.upperBound)
    }
}

/// A `ParameterCurve` element: a control that moves linearly between its points.
public struct ParameterCurve: Hashable, Sendable {
    public var id: DynamicParameterID
    /// `Time`: when the curve starts, in seconds from the start of the pattern.
    public var time: Double
    /// `ParameterCurveControlPoints`; their times are relative to `time`, ascending.
    public var controlPoints: [ControlPoint]

    public init(_ id: DynamicParameterID, time: Double = 0, controlPoints: [ControlPoint]) {
        self.id = id
        self.time = time
        self.controlPoints = controlPoints
    }

    /// One `ParameterCurveControlPoints` entry.
    public struct ControlPoint: Hashable, Sendable {
        /// Seconds from the curve's start.
        public var time: Double
        /// `ParameterValue`, clamped to the curve's range.
        public var value: Float

        public init(time: Double, value: Float) {
            self.time = time
            self.value = value
        }
    }
}
