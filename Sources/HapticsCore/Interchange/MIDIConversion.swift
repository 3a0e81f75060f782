#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// How ``MIDIFile/hapticPattern(_:)`` turns notes into a pattern.
public struct MIDIHapticsOptions: Hashable, Sendable {
    /// Only this track, counted from 1 in file order (a format 1 file's tempo track is track 1).
    public var track: Int?
    /// Only this channel, 1...16 (General MIDI drums are channel 10).
    public var channel: Int?
    /// Note-ons within this many seconds of a group's first become one transient (a chord, a
    /// strum, a flam): it also caps transients at one per window.
    public var chordWindow: Double
    /// A note (not a drum) held at least this long also becomes a continuous event.
    public var heldThreshold: Double
    /// How fast a held note's intensity falls: seconds to fall to 1/e of the way to ``decayFloor``.
    public var decayTime: Double
    /// The fraction of its intensity a held note keeps however long it is held.
    public var decayFloor: Float
    /// A held note's continuous intensity as a fraction of its transient's.
    public var heldLevel: Float

    public init(
        track: Int? = nil, channel: Int? = nil, chordWindow: Double = 0.025, heldThreshold: Double = 0.3,
        decayTime: Double = 0.8, decayFloor: Float = 0.25, heldLevel: Float = 0.6
    ) {
        self.track = track
        self.channel = channel
        self.chordWindow = chordWindow
        self.heldThreshold = heldThreshold
        self.decayTime = decayTime
        self.decayFloor = decayFloor
        self.heldLevel = heldLevel
    }
}

/// A pattern made from a MIDI file, and what did not fit.
public struct MIDIConversion: Hashable, Sendable {
    public var pattern: HapticPattern
    /// Notes read (after the track and channel filters).
    public var notes: Int
    /// Notes that start after ``AHAPLimits/maxDuration`` or past ``AHAPLimits/maxEvents``: left out.
    public var droppedNotes: Int
    /// Continuous events cut to ``AHAPLimits/maxContinuousDuration``.
    public var shortenedHeldNotes: Int
}

extension MIDIFile {
    /// General MIDI's drum channel (channel 10, counted from 0).
    public static let drumChannel = 9

    /// The pattern the notes play, under Core Haptics' limits (``AHAPLimits/default``).
    ///
    /// - Each group of note-ons within ``MIDIHapticsOptions/chordWindow`` is one transient at the
    ///   group's first note-on.
    /// - Intensity: a note's is velocity / 127. The renderer's amplitude is intensity squared, so
    ///   this follows General MIDI's velocity curve (amplitude (v/127)², 40 dB over the range).
    ///   A group's notes add as uncorrelated sounds do, in power (intensity⁴), capped at 1: four
    ///   notes at velocity 64 make 0.71, not 2.
    /// - Sharpness: from the key, linear in semitones from C1 (0) to C8 (1); on channel 10 from the
    ///   General MIDI drum kind (kick 0.1, toms 0.3 to 0.5, snare 0.8, hi-hats 0.95). A group's is
    ///   the power-weighted mean of its notes'.
    /// - A note held at least ``MIDIHapticsOptions/heldThreshold`` (not on channel 10) also becomes
    ///   a continuous event from its group's time for as long as it is held (a group's held notes
    ///   make one), at ``MIDIHapticsOptions/heldLevel`` of their intensity.
    /// - While held notes sound, a HapticIntensityControl curve makes them decay as a struck or
    ///   plucked string does, from 1 down towards ``MIDIHapticsOptions/decayFloor``, and back to 1
    ///   at the next group, so every transient plays at its own intensity. Each curve has at
    ///   most 16 points.
    public func hapticPattern(_ options: MIDIHapticsOptions = .init()) -> MIDIConversion {
        let limits = AHAPLimits.default
        var selected: [Note] = []
        for (index, track) in tracks.enumerated() where options.track == nil || options.track == index + 1 {
            for note in track.notes where options.channel == nil || options.channel == note.channel + 1 {
                selected.append(note)
            }
        }
        // Stable: equal starts keep track order.
        let notes = selected.enumerated().sorted { ($0.element.start, $0.offset) < ($1.element.start, $1.offset) }
            .map(\.element)

        struct Group {
            var time: Double
            var power: Float = 0
            var sharpnessSum: Float = 0
            var heldPower: Float = 0
            var heldSharpnessSum: Float = 0
            var heldEnd: Double = 0
        }
        var groups: [Group] = []
        var dropped = 0
        var shortened = 0
        // Transients, continuous events: at most maxEvents in all.
        var events = 0
        for note in notes {
            if note.start > limits.maxDuration {
                dropped += 1
                continue
            }
            let intensity = Float(note.velocity) / 127
            let power = intensity * intensity * intensity * intensity
            let drum = note.channel == Self.drumChannel
            let sharpness = drum ? Self.drumSharpness(key: note.key) : Self.sharpness(key: note.key)
            if groups.isEmpty || note.start - groups[groups.count - 1].time >= options.chordWindow {
                guard events < limits.maxEvents else {
                    dropped += 1
                    continue
                }
                groups.append(Group(time: note.start))
                events += 1
            }
            let g = groups.count - 1
            groups[g].power += power
            groups[g].sharpnessSum += power * sharpness
            if !drum, note.duration >= options.heldThreshold {
                if groups[g].heldPower == 0 {
                    guard events < limits.maxEvents else { continue }
                    events += 1
                }
                groups[g].heldPower += power
                groups[g].heldSharpnessSum += power * sharpness
                groups[g].heldEnd = max(groups[g].heldEnd, note.end)
            }
        }

        var elements: [PatternElement] = []
        elements.reserveCapacity(events + groups.count / 4)
        // The end of the continuous events sounding so far: where a decay curve may run to.
        var soundingUntil = 0.0
        for (i, group) in groups.enumerated() {
            let intensity = min(1, group.power.squareRoot().squareRoot())
            let sharpness = group.power > 0 ? group.sharpnessSum / group.power : 0.5
            elements.append(
                .event(
                    HapticEvent(
                        time: group.time, type: .hapticTransient,
                        parameters: [
                            .init(.hapticIntensity, rounded(intensity)), .init(.hapticSharpness, rounded(sharpness)),
                        ])))
            if group.heldPower > 0 {
                var duration = group.heldEnd - group.time
                if duration > limits.maxContinuousDuration {
                    duration = limits.maxContinuousDuration
                    shortened += 1
                }
                let held = min(1, group.heldPower.squareRoot().squareRoot()) * options.heldLevel
                elements.append(
                    .event(
                        HapticEvent(
                            time: group.time, type: .hapticContinuous, duration: rounded(duration),
                            parameters: [
                                .init(.hapticIntensity, rounded(held)),
                                .init(.hapticSharpness, rounded(group.heldSharpnessSum / group.heldPower)),
                            ])))
                soundingUntil = max(soundingUntil, group.time + duration)
            }
            let next = i + 1 < groups.count ? groups[i + 1].time : nil
            if let curve = decayCurve(from: group.time, soundingUntil: soundingUntil, next: next, options) {
                elements.append(.curve(curve))
            }
        }
        return MIDIConversion(
            pattern: HapticPattern(elements: elements), notes: notes.count, droppedNotes: dropped,
            shortenedHeldNotes: shortened)
    }

    /// The intensity control from `start` while a continuous event sounds (until `soundingUntil`):
    /// an exponential fall sampled at up to 15 points, then back to 1 by `next` (or just after the
    /// sound ends). Nil when nothing sounds long enough to need it.
    func decayCurve(from start: Double, soundingUntil: Double, next: Double?, _ options: MIDIHapticsOptions)
        -> ParameterCurve?
    {
        let gap = (next ?? .infinity) - start
        let sounding = soundingUntil - start
        let shortest = 0.1
        guard sounding > shortest, gap > shortest else { return nil }
        // The fall runs to the sound's end, or to 5 ms before the next group when it sounds on.
        let fallEnd = sounding < gap ? sounding : gap - 0.005
        let back = sounding < gap ? min(sounding + 0.01, gap) : gap
        let count = max(2, min(15, Int(fallEnd / 0.1) + 1))
        var points: [ParameterCurve.ControlPoint] = []
        points.reserveCapacity(count + 1)
        for k in 0..<count {
            let t = fallEnd * Double(k) / Double(count - 1)
            let fall = Float(exp(-t / options.decayTime))
            points.append(.init(time: rounded(t), value: rounded(options.decayFloor + (1 - options.decayFloor) * fall)))
        }
        points.append(.init(time: rounded(back), value: 1))
        return ParameterCurve(.hapticIntensityControl, time: start, controlPoints: points)
    }

    /// Sharpness from a key: C1 (24) is 0, C8 (108) is 1, linear in semitones.
    public static func sharpness(key: Int) -> Float {
        min(1, max(0, Float(key - 24) / 84))
    }

    /// Sharpness from a General MIDI drum key (channel 10): low and dull for kicks, high and
    /// bright for snares, hand claps, hi-hats and cymbals.
    public static func drumSharpness(key: Int) -> Float {
        switch key {
        case 35, 36: 0.1  // bass drums
        case 41, 43: 0.3  // low toms
        case 45, 47: 0.4  // mid toms
        case 48, 50: 0.5  // high toms
        case 37: 0.9  // side stick
        case 38, 40: 0.8  // snares
        case 39: 0.85  // hand clap
        case 42, 44, 46: 0.95  // hi-hats
        case 49, 52, 55, 57: 0.75  // crash, china, splash
        case 51, 53, 59: 0.85  // ride, ride bell
        case 54, 56, 75, 76, 77, 80, 81: 0.95  // tambourine, cowbell, claves, woodblocks, triangles
        case 60...68: 0.5  // bongos, congas, timbales, agogos
        default: 0.7
        }
    }
}

/// Six decimal places: the AHAP stays short and its numbers read as written.
private func rounded(_ value: Double) -> Double { (value * 1_000_000).rounded() / 1_000_000 }
private func rounded(_ value: Float) -> Float { (value * 10_000).rounded() / 10_000 }
