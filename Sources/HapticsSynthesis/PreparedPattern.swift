import HapticsCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A pattern made ready to play: events sorted by time with their parameters resolved, clips
/// attached, and the dynamic parameters and curves compiled into knots (``ParameterTimeline``'s
/// compiled form) in memory the render loop reads without reference counting.
///
/// Make one with ``Synthesizer/prepare(_:clips:feeds:format:voicing:)`` from a whole pattern, or
/// with a ``Builder`` from the elements as they are made, and start it as often as needed.
public struct PreparedPattern: Sendable {
    @usableFromInline let storage: Storage
    /// Frames from the start to the end of the last sound, release tails included, and never
    /// less than `duration`: how long a player plays it.
    public let frameCount: Int64

    /// The pattern's length in seconds (`HapticPattern.duration`), without release tails.
    public var duration: Double { storage.duration }
    /// The number of events.
    public var eventCount: Int { storage.events.count }
    /// The sample rate it was prepared for.
    public var sampleRate: Int { storage.sampleRate }

    @usableFromInline
    final class Storage: Sendable {
        let events: [PreparedEvent]
        let clips: [ClipData]
        let duration: Double
        let sampleRate: Int

        /// Each timeline's knots, in memory this storage owns, so the render loop can walk them
        /// without reference counting. Only the knots are kept: the timelines they were compiled
        /// from (their elements and a second copy of the knots) are gone once copied.
        let knots: KnotTable

        init(events: [PreparedEvent], knots: KnotTable, clips: [ClipData], duration: Double, sampleRate: Int) {
            self.events = events
            self.knots = knots
            self.clips = clips
            self.duration = duration
            self.sampleRate = sampleRate
        }

        deinit { knots.deallocate() }
    }
}

/// Decoded clip samples in memory the render loop can read without retain/release or bounds checks.
final class ClipData: @unchecked Sendable {  // immutable after init; owns its buffer
    let samples: UnsafeMutableBufferPointer<Float>
    let frames: Int
    let channels: Int
    let sampleRate: Int
    /// A clip read while it plays: `samples` is its ring (`mask` its index mask), not owned.
    let feed: ClipFeed?
    /// ANDed with a frame index: -1 (every bit) for a whole clip, the ring's size less 1 for a feed.
    let mask: Int

    init(_ feed: ClipFeed) {
        samples = feed.ring
        frames = feed.frames
        channels = 1
        sampleRate = feed.sampleRate
        self.feed = feed
        mask = feed.capacity - 1
    }

    init(_ clip: AudioClip) {
        feed = nil
        mask = -1
        samples = .allocate(capacity: max(clip.samples.count, 1))
        _ = samples.initialize(from: clip.samples)
        if clip.samples.isEmpty { samples[0] = 0 }
        frames = clip.frameCount
        channels = min(clip.channels, 2)
        sampleRate = clip.sampleRate
        if clip.channels > 2 {
            // Keep the first two channels of a multichannel clip, repacked as stereo.
            for f in 0..<frames {
                samples[2 * f] = clip.samples[f * clip.channels]
                samples[2 * f + 1] = clip.samples[f * clip.channels + 1]
            }
        }
    }

    deinit { if feed == nil { samples.deallocate() } }
}

/// One event with everything the synthesizer needs, resolved once.
struct PreparedEvent: Sendable {
    var time: Double
    var type: EventType
    var duration: Double?
    var intensity: Float
    var sharpness: Float
    var attack: Float
    var decay: Float
    var release: Float
    var sustained: Bool
    var volume: Float
    var pitch: Float
    var pan: Float
    var brightness: Float
    /// Index into `Storage.clips`, or -1 (no clip: silence).
    var clip: Int
    var usesVolumeEnvelope: Bool
    var loops: Bool

    init(_ e: HapticEvent, clip: Int) {
        time = e.time
        type = e.type
        duration = e.duration
        intensity = e.value(of: .hapticIntensity)
        sharpness = e.value(of: .hapticSharpness)
        attack = e.value(of: .attackTime)
        decay = e.value(of: .decayTime)
        release = e.value(of: .releaseTime)
        sustained = e.value(of: .sustained) >= 0.5
        volume = e.value(of: .audioVolume)
        pitch = e.value(of: .audioPitch)
        pan = e.value(of: .audioPan)
        brightness = e.value(of: .audioBrightness)
        self.clip = clip
        usesVolumeEnvelope = e.waveformUsesVolumeEnvelope
        loops = e.waveformLoopEnabled
    }
}

/// Envelope timing numbers (see docs/voicing.md).
enum EnvelopeTiming {
    /// Seconds per unit of AttackTime, DecayTime and ReleaseTime.
    static let secondsPerUnit = 1.0
    /// Shortest continuous attack: keeps onsets click-free.
    static let minimumAttack = 0.002
    /// Shortest decay of a non-sustained continuous event.
    static let minimumDecay = 0.020
    /// Shortest release (also the cut of a transient with a short EventDuration).
    static let minimumRelease = 0.005
    /// Attack of a transient.
    static let transientAttack = 0.001
    /// Fade-in and fade-out of a clip that does not use the volume envelope.
    static let clipEdge = 0.002
    /// Fade used by `Synthesizer.stop(layer:atFrame:)` and a restart of a playing layer.
    static let stopFade = 0.010
}

/// How long each part of a voice lasts, in frames, decided at the event's onset.
struct VoicePlan {
    var attackFrames = 1
    /// Decay after the attack (transients, non-sustained events); ignored when sustained.
    var decayFrames = 0
    var sustained = false
    /// Frames from the onset to the forced release (the event's end); `Int.max` for none.
    var untilRelease = Int.max
    var releaseFrames = 1
    /// The voice's whole length in frames.
    var totalFrames = 0

    static func frames(_ seconds: Double, _ rate: Int) -> Int {
        Int((max(0, seconds) * Double(rate)).rounded(.toNearestOrEven))
    }

    /// - Parameters:
    ///   - control: the dynamic parameter values in force at the onset.
    ///   - durationFrames: frames from onset to `Time + EventDuration` (nil without a duration).
    init(
        event e: PreparedEvent, durationFrames: Int?, clip: ClipData?, control: (DynamicParameterID) -> Float,
        format: AudioFormat, voicing: VoicingProfile
    ) {
        let rate = format.sampleRate
        let haptic = e.type.isHaptic
        func timing(_ base: Float, _ p: EventParameterID) -> Double {
            let value =
                DynamicParameterID.control(for: p, onHapticEvent: haptic).map { $0.apply(control($0), to: base) }
                ?? base
            return Double(value) * EnvelopeTiming.secondsPerUnit
        }
        switch e.type {
        case .hapticTransient:
            let sharpness = DynamicParameterID.hapticSharpnessControl.apply(
                control(.hapticSharpnessControl), to: e.sharpness)
            let length = max(1, Self.frames(voicing.transientLength(sharpness: sharpness), rate))
            attackFrames = min(max(1, Self.frames(EnvelopeTiming.transientAttack, rate)), length)
            decayFrames = length - attackFrames
            totalFrames = length
            releaseFrames = max(1, Self.frames(EnvelopeTiming.minimumRelease, rate))
            if let d = durationFrames, d < length {
                untilRelease = d
                totalFrames = min(length, d + releaseFrames)
            }
        case .hapticContinuous, .audioContinuous, .audioCustom:
            let custom = e.type == .audioCustom
            let envelope = !custom || e.usesVolumeEnvelope
            if envelope {
                attackFrames = max(
                    Self.frames(timing(e.attack, .attackTime), rate), Self.frames(EnvelopeTiming.minimumAttack, rate), 1
                )
                sustained = e.sustained
                decayFrames = max(
                    Self.frames(timing(e.decay, .decayTime), rate), Self.frames(EnvelopeTiming.minimumDecay, rate))
                releaseFrames = max(
                    Self.frames(timing(e.release, .releaseTime), rate),
                    Self.frames(EnvelopeTiming.minimumRelease, rate), 1)
            } else {
                attackFrames = max(Self.frames(EnvelopeTiming.clipEdge, rate), 1)
                sustained = true
                releaseFrames = max(Self.frames(EnvelopeTiming.clipEdge, rate), 1)
            }
            var end = durationFrames ?? 0
            if custom {
                guard let clip, clip.frames > 0 else { totalFrames = 0; return }
                let pitch = DynamicParameterID.audioPitchControl.apply(control(.audioPitchControl), to: e.pitch)
                let step = Double(clip.sampleRate) / Double(rate) * exp2(Double(pitch))
                let natural = Int((Double(clip.frames) / step).rounded(.up))
                if !(e.loops && durationFrames != nil) {
                    if let d = durationFrames, d < natural {
                        end = d
                    } else {
                        // The clip runs out: the release must be over when it does.
                        releaseFrames = min(releaseFrames, natural)
                        end = natural - releaseFrames
                    }
                }
            }
            untilRelease = max(0, end)
            let attackDecay = attackFrames + decayFrames
            if !sustained && attackDecay <= untilRelease {
                totalFrames = attackDecay
            } else {
                totalFrames = untilRelease == 0 ? 0 : untilRelease + releaseFrames
            }
        }
    }
}

/// Every timeline's knots in memory owned by `PreparedPattern.Storage`, one buffer per control.
/// A lookup is one pointer load; a ``ControlTable`` read out of the class would copy all twelve
/// buffers first (a `memcpy` per control evaluation on the render path).
// @unchecked Sendable: written once before Storage.init, only read afterwards, freed in Storage.deinit.
struct KnotTable: @unchecked Sendable {
    private let buffers: UnsafeMutablePointer<UnsafeBufferPointer<ParameterTimeline.Knot>>

    /// Copies `knots(id)` for each control in turn, so only one control's compiled array is
    /// alive beside the table at a time.
    init(_ knots: (DynamicParameterID) -> [ParameterTimeline.Knot]) {
        buffers = .allocate(capacity: ControlTable<Int>.count)
        for id in DynamicParameterID.all {
            let knots = knots(id)
            let buffer = UnsafeMutableBufferPointer<ParameterTimeline.Knot>.allocate(capacity: knots.count)
            _ = buffer.initialize(from: knots)
            (buffers + id.index).initialize(to: UnsafeBufferPointer(buffer))
        }
    }

    subscript(id: DynamicParameterID) -> UnsafeBufferPointer<ParameterTimeline.Knot> { buffers[id.index] }

    func deallocate() {
        for id in DynamicParameterID.all { buffers[id.index].deallocate() }
        buffers.deallocate()
    }
}
