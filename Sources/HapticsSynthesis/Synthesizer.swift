import CRenderKernels
public import HapticsCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// The streaming synthesizer: plays prepared patterns on layers (players) at exact output frames,
/// mixes their voices, and soft-limits the sum.
///
/// All storage is allocated in `init`; ``render(into:)`` never allocates. Output depends only on
/// what was scheduled and on frame numbers, never on how the stream is cut into blocks: rendering
/// N frames at once or in any split gives bit-identical samples.
///
/// ```swift
/// var synth = Synthesizer(format: AudioFormat(sampleRate: 48_000), voicing: .standard)
/// let tap = Synthesizer.prepare(pattern, clips: [:], format: synth.format, voicing: .standard)
/// synth.start(tap, layer: 0, atFrame: 4_800)   // 100 ms in
/// var block = [Float](repeating: 0, count: 512)
/// block.withUnsafeMutableBufferPointer { synth.render(into: $0) }
/// ```
public struct Synthesizer: ~Copyable {
    /// Output layout.
    public let format: AudioFormat
    /// How haptic events sound.
    public let voicing: VoicingProfile
    /// Controls are evaluated every this many frames from their layer's start, and ramped between.
    public static let controlInterval = 128
    /// The soft limiter leaves samples up to this magnitude untouched.
    public static let limiterThreshold: Float = 0.8

    /// The next frame ``render(into:)`` will produce.
    public private(set) var currentFrame: Int64 = 0
    /// Frames mixed at a time, before the limiter writes them to the caller's buffer.
    static let mixFrames = 1_024

    /// Haptic events are silent (Core Haptics' `isMutedForHaptics`, or `playsAudioOnly`).
    public private(set) var mutedHaptics = false
    /// Audio events are silent (`isMutedForAudio`, or `playsHapticsOnly`).
    public private(set) var mutedAudio = false

    let maxVoices: Int
    let voices: UnsafeMutablePointer<Voice>
    var voiceHighWater = 0
    let maxLayers: Int
    let layers: UnsafeMutablePointer<Layer>
    /// One past the highest layer slot ever used: the bound of every layer scan.
    var layerHighWater = 0
    var commands: [Command] = []
    var commandHead = 0
    let hapticTable: UnsafeMutablePointer<Float>
    let hapticPeak: Float
    let toneTable: UnsafeMutablePointer<Float>
    let tonePeak: Float
    let tiltLowPass: Float
    /// Which build of the oscillator loops runs (the same bits either way; tests compare them).
    var kernels = Kernels.Set.best
    let stopFadeFrames: Int
    /// `log2(highestFrequency / lowestFrequency)` of the voicing, once rather than per update.
    let octaveSpan: Double
    /// Where voices are summed: ``mixFrames`` frames, all zero between renders (the limiter
    /// clears what it reads), so the caller's buffer is written once and never cleared first.
    let mix: UnsafeMutablePointer<Float>
    /// Bumped whenever what a control update computes could change other than by time: a sent
    /// control, a layer started or stopped, a mute. A voice reuses the targets it computed for
    /// its next update only if no bump came in between.
    var controlRevision = 0
    /// Knots of the controls sent to each layer, in frames: ``overrideCapacity`` per layer and
    /// control, allocated once (pages are touched only when used), so sending a control never
    /// allocates. Layer `s`'s knots for `id` start at `(s × 12 + id.index) × overrideCapacity`.
    let overrideKnots: UnsafeMutablePointer<ParameterTimeline.Knot>
    /// Room for one element's knots while an override is inserted.
    let overrideScratch: UnsafeMutablePointer<ParameterTimeline.Knot>
    /// Knots a layer keeps per control: those in force and those still to come. Apple caps a
    /// curve at 16 points (17 knots); what would overflow is dropped, latest first.
    public static let overrideCapacity = 32

    /// Creates a synthesizer with room for `maxVoices` simultaneous voices and `maxLayers` layers.
    ///
    /// Events that start while every voice is busy are dropped.
    public init(format: AudioFormat, voicing: VoicingProfile, maxVoices: Int = 512, maxLayers: Int = 64) {
        precondition(maxVoices > 0 && maxLayers > 0)
        precondition(
            format.channels <= 2, "the synthesizer renders mono or stereo; map wider devices with a ChannelMap")
        self.format = format
        self.voicing = voicing
        self.maxVoices = maxVoices
        self.maxLayers = maxLayers
        voices = .allocate(capacity: maxVoices)
        voices.initialize(repeating: Voice(), count: maxVoices)
        layers = .allocate(capacity: maxLayers)
        layers.initialize(repeating: Layer(), count: maxLayers)
        commands.reserveCapacity(256)
        let haptic = Wavetable(harmonicCount: voicing.harmonicCount, rolloff: voicing.harmonicRolloff)
        hapticTable = .allocate(capacity: haptic.points.count)
        hapticTable.initialize(from: haptic.points, count: haptic.points.count)
        hapticPeak = haptic.harmonicPeak
        let tone = Wavetable(harmonicCount: ToneVoicing.harmonicCount, rolloff: 1)
        toneTable = .allocate(capacity: tone.points.count)
        toneTable.initialize(from: tone.points, count: tone.points.count)
        tonePeak = tone.harmonicPeak
        tiltLowPass = Float(1 - exp(-2 * Double.pi * ToneVoicing.tiltCornerFrequency / Double(format.sampleRate)))
        stopFadeFrames = max(1, VoicePlan.frames(EnvelopeTiming.stopFade, format.sampleRate))
        octaveSpan = log2(voicing.highestFrequency / voicing.lowestFrequency)
        mix = .allocate(capacity: Self.mixFrames * format.channels)
        mix.initialize(repeating: 0, count: Self.mixFrames * format.channels)
        overrideKnots = .allocate(capacity: maxLayers * ControlTable<Int>.count * Self.overrideCapacity)
        overrideScratch = .allocate(capacity: Self.overrideCapacity)
    }

    deinit {
        voices.deinitialize(count: maxVoices)
        voices.deallocate()
        layers.deinitialize(count: maxLayers)
        layers.deallocate()
        hapticTable.deallocate()
        toneTable.deallocate()
        overrideKnots.deallocate()
        overrideScratch.deallocate()
        mix.deallocate()
    }

    /// Prepares a pattern once: sorts events (stably, by time), resolves their parameters, attaches
    /// clips by `EventWaveformPath` (a missing clip plays silence; `feeds` are clips read while
    /// they play) and compiles the timelines.
    ///
    /// - Throws: ``FrameRangeError`` when an event's time or end (or the pattern's duration) is
    ///   not a frame position: NaN, infinite, or further than ``AudioFormat/maxFrame`` frames.
    /// - Complexity: O(*n* log *n*) in the number of pattern elements, plus copying the clips used.
    public static func prepare(
        _ pattern: HapticPattern, clips: [String: AudioClip], feeds: [String: ClipFeed] = [:], format: AudioFormat,
        voicing: VoicingProfile
    ) throws(FrameRangeError) -> PreparedPattern {
        var clipData: [ClipData] = []
        var clipIndex: [String: Int] = [:]
        var events: [PreparedEvent] = []
        events.reserveCapacity(pattern.elements.count)
        var inOrder = true
        for element in pattern.elements {
            guard case .event(let event) = element else { continue }
            // Every onset and end must be a frame position; later conversions rely on it.
            _ = try format.frame(at: event.time)
            if let d = event.duration { _ = try format.frame(at: event.time + d) }
            if let last = events.last, event.time < last.time { inOrder = false }
            var index = -1
            if event.type == .audioCustom, let path = event.waveformPath {
                if let known = clipIndex[path] {
                    index = known
                } else if let clip = clips[path] {
                    index = clipData.count
                    clipIndex[path] = index
                    clipData.append(ClipData(clip))
                } else if let feed = feeds[path] {
                    index = clipData.count
                    clipIndex[path] = index
                    clipData.append(ClipData(feed))
                }
            }
            events.append(PreparedEvent(event, clip: index))
        }
        // Stable, by time; a pattern already in time order (as files usually are) is left as it is.
        let sorted =
            inOrder
            ? events
            : events.enumerated().sorted { ($0.element.time, $0.offset) < ($1.element.time, $1.offset) }.map(\.element)
        // One control's timeline at a time: its knots are copied and the timeline let go.
        let knots = KnotTable { ParameterTimeline($0, pattern: pattern).knots }
        let storage = PreparedPattern.Storage(
            events: sorted, knots: knots, clips: clipData, duration: pattern.duration, sampleRate: format.sampleRate)
        let sounding = PatternRenderer.length(of: storage, format: format, voicing: voicing)
        let end = try format.frame(at: pattern.duration)
        return PreparedPattern(storage: storage, frameCount: max(sounding, end))
    }

    /// Whether nothing is playing or scheduled.
    public var isIdle: Bool {
        if commandHead < commands.count { return false }
        for i in 0..<voiceHighWater where voices[i].active { return false }
        for i in 0..<layerHighWater where layers[i].inUse && layers[i].nextOnset != .max { return false }
        return true
    }

    // MARK: Scheduling

    /// Starts `pattern` on `layer` at absolute output frame `atFrame` (a past frame means now),
    /// `offset` seconds into the pattern. Events already under way at `offset` join in progress.
    ///
    /// With `origin`, it plays as if it had started at frame `origin` (and from `atFrame` on, not
    /// before `origin`): its events land on the frames, and its controls on the control grid, of
    /// that earlier start, and those under way at `atFrame` join in progress. A piece of a pattern
    /// (``PreparedPattern/Pieces``) started this way on the frame its window begins plays what the
    /// whole pattern started at `origin` plays there.
    ///
    /// Starting a layer that is playing stops what it plays (a 10 ms fade) at `atFrame`.
    /// Controls sent to the layer stay in force across starts until replaced.
    public mutating func start(
        _ pattern: PreparedPattern, layer: Int, atFrame: Int64, asIfStartedAt origin: Int64? = nil, offset: Double = 0
    ) {
        _ = layerSlot(layer, create: true)  // set the layer up here, not in render()
        let frame = max(atFrame, currentFrame, origin ?? .min)
        schedule(Command(frame: frame, layer: layer, action: .start(pattern, offset, origin)))
    }

    /// Stops `layer` at `atFrame`: its sounding voices fade out over 10 ms, later events are dropped.
    public mutating func stop(layer: Int, atFrame: Int64) {
        schedule(Command(frame: max(atFrame, currentFrame), layer: layer, action: .stop))
    }

    /// Sets dynamic parameter `id` of `layer` to `value` from `atFrame` on. It takes over from
    /// earlier pattern or sent values until a later-starting one does.
    ///
    /// `value` should lie in `id.range` (`id.clamp(_:)`; `Player.sendParameters` clamps): the
    /// modulated result is clamped to the event parameter's range either way.
    ///
    /// - Complexity: O(``overrideCapacity``); never allocates.
    public mutating func setControl(_ id: DynamicParameterID, _ value: Float, layer: Int, atFrame: Int64) {
        addOverride(id, .step(time: Double(max(atFrame, currentFrame)), value: value), layer: layer)
    }

    /// Runs `curve` on `layer` starting `curve.time` seconds after `atFrame`. Its values should
    /// lie in `curve.id.range`, as for ``setControl(_:_:layer:atFrame:)``.
    ///
    /// - Complexity: O(``overrideCapacity``); allocates only for control points out of order.
    public mutating func scheduleCurve(_ curve: ParameterCurve, layer: Int, atFrame: Int64) {
        guard !curve.controlPoints.isEmpty else { return }
        let frame = Double(max(atFrame, currentFrame)) + curve.time * Double(format.sampleRate)
        addOverride(curve.id, .curve(time: frame, points: curve.controlPoints), layer: layer)
    }

    /// Fades everything out linearly-ish over `frames` frames from `atFrame` (Ctrl-C), stops every
    /// layer and cancels starts scheduled after `atFrame`.
    public mutating func fadeOutAll(atFrame: Int64, frames: Int) {
        schedule(Command(frame: max(atFrame, currentFrame), layer: -1, action: .fadeOutAll(max(1, frames))))
    }

    /// Silences haptic and/or audio events from the current frame on; what sounds ramps to its
    /// new level over one control interval, so muting never clicks.
    public mutating func setMuted(haptics: Bool, audio: Bool) {
        guard haptics != mutedHaptics || audio != mutedAudio else { return }
        mutedHaptics = haptics
        mutedAudio = audio
        controlRevision &+= 1
        refreshSoundingVoices { _ in true }
    }

    /// Silences `layer` (a player's `isMuted`) from the current frame on, with the same ramp.
    public mutating func setMuted(_ muted: Bool, layer: Int) {
        guard let slot = layerSlot(layer, create: true), layers[slot].muted != muted else { return }
        layers[slot].muted = muted
        controlRevision &+= 1
        refreshSoundingVoices { $0.layer == slot }
    }

    /// Re-targets the matching voices' gains from `currentFrame`.
    mutating func refreshSoundingVoices(_ matches: (Voice) -> Bool) {
        for i in 0..<voiceHighWater where voices[i].active && matches(voices[i]) {
            var v = voices[i]
            scheduleNextControl(&v, from: currentFrame, slot: v.layer)
            voices[i] = v
        }
    }

    /// Whether a voice is heard at all under the mute switches.
    func audible(_ v: VoiceInputs) -> Bool {
        if v.isHaptic ? mutedHaptics : mutedAudio { return false }
        return v.layer < 0 || !layers[v.layer].muted
    }

    /// Queues `command` in frame order, after those due at the same frame.
    ///
    /// - Complexity: O(1) for a command due no earlier than the last one queued; otherwise
    ///   O(log *n*) to find its place and O(*n*) to insert it.
    mutating func schedule(_ command: Command) {
        if commandHead > 0 && commandHead == commands.count {
            commands.removeAll(keepingCapacity: true)
            commandHead = 0
        }
        // Commands come in time order as a rule: then the new one goes last, in O(1). Otherwise it
        // goes after every pending command due at or before its frame, found by binary search.
        // (A scan from the head made 120,000 feedbacks at one time, a replayed session log,
        // quadratic: 45% of the replay's time.)
        guard let last = commands.last, commandHead < commands.count, last.frame > command.frame else {
            commands.append(command)
            return
        }
        var low = commandHead
        var high = commands.count - 1  // commands[high] is due after the new one
        while low < high {
            let middle = low + (high - low) / 2
            if commands[middle].frame > command.frame { high = middle } else { low = middle + 1 }
        }
        commands.insert(command, at: low)
    }

    /// Layer `slot`'s override knots: ``overrideCapacity`` per control.
    func overrides(of slot: Int) -> UnsafeMutablePointer<ParameterTimeline.Knot> {
        overrideKnots + slot * ControlTable<Int>.count * Self.overrideCapacity
    }

    /// Adds a sent control (`element`, its times in frames) to a layer's overrides: it takes
    /// over from everything that started before it, or at the same frame, until the next
    /// later-starting element. Knots already over are forgotten first.
    mutating func addOverride(_ id: DynamicParameterID, _ element: ParameterTimeline.Element, layer: Int) {
        guard let slot = layerSlot(layer, create: true) else { return }
        let capacity = Self.overrideCapacity
        let knots = overrides(of: slot) + id.index * capacity
        var count = layers[slot].overrideCounts[id]
        // Keep the knot in force now and those after it.
        let inForce = ParameterTimeline.lastKnot(
            in: UnsafeBufferPointer(start: knots, count: count), atOrBefore: Double(currentFrame))
        if inForce > 0 {
            count -= inForce
            UnsafeMutableRawPointer(knots).copyMemory(
                from: knots + inForce, byteCount: count * MemoryLayout<ParameterTimeline.Knot>.stride)
        }
        // Knots of elements that start later stay; earlier elements' knots from here on give way.
        let start = element.time
        // What the control is when the element starts: a curve whose first point is later ramps from it.
        let current = control(id, layer: slot, at: Int64(start.rounded(.down)))
        var later = count
        for i in 0..<count where knots[i].elementStart > start {
            later = i
            break
        }
        var cut = later
        for i in 0..<later where knots[i].time >= start {
            cut = i
            break
        }
        var added = 0
        let scratch = overrideScratch
        ParameterTimeline.knots(
            of: element, until: later < count ? knots[later].elementStart : .infinity,
            timeScale: Double(format.sampleRate), from: current
        ) { knot in
            if added < capacity - cut {
                scratch[added] = knot
                added += 1
            }
        }
        let kept = min(count - later, capacity - cut - added)
        UnsafeMutableRawPointer(knots + cut + added).copyMemory(
            from: knots + later, byteCount: kept * MemoryLayout<ParameterTimeline.Knot>.stride)
        (knots + cut).update(from: scratch, count: added)
        layers[slot].overrideCounts[id] = cut + added + kept
        layers[slot].overrideCursors[id] = .init()
        layers[slot].updateControlFlags()
        controlRevision &+= 1
    }

    /// The slot of layer `id` (created if asked). Slots are handed out lowest first, so every
    /// scan stops at ``layerHighWater`` rather than at `maxLayers`.
    mutating func layerSlot(_ id: Int, create: Bool) -> Int? {
        var free: Int?
        for i in 0..<layerHighWater {
            if layers[i].inUse && layers[i].id == id { return i }
            if !layers[i].inUse && free == nil { free = i }
        }
        guard create else { return nil }
        if free == nil && layerHighWater < maxLayers { free = layerHighWater }
        if free == nil {
            // Recycle a layer that no longer plays or sounds.
            free = (0..<layerHighWater).first { layers[$0].nextOnset == .max && layers[$0].voiceCount == 0 }
        }
        guard let slot = free else { return nil }
        layerHighWater = max(layerHighWater, slot + 1)
        layers[slot] = Layer()
        layers[slot].inUse = true
        layers[slot].id = id
        return slot
    }

    // MARK: Rendering

    /// Renders the next `buffer.count / format.channels` frames, interleaved, overwriting the buffer.
    ///
    /// Every sample written is finite and within -1...1.
    ///
    /// - Complexity: O(frames × sounding voices).
    public mutating func render(into buffer: UnsafeMutableBufferPointer<Float>) {
        _ = renderSounding(into: buffer)
    }

    /// ``render(into:)``, returning the frames (counted from the buffer's start) that a voice may
    /// have written: every frame outside them is exact silence (+0), so an encoder need not
    /// convert it. With `writingSilence: false` the frames outside are not written at all (the
    /// buffer keeps what it held there) and the caller supplies the silence, as the WAV writer
    /// does from a block of zeros; the frames inside, silent stretches among them, are written.
    public mutating func renderSounding(
        into buffer: UnsafeMutableBufferPointer<Float>, writingSilence: Bool = true
    ) -> Range<Int> {
        guard let base = buffer.baseAddress else { return 0..<0 }
        let channels = format.channels
        var left = buffer.count / channels
        var done = 0
        var heard = 0..<0
        while left > 0 {
            let frames = min(left, Self.mixFrames)
            // Outside the frames voices wrote, the mix is still all zero (the limiter cleared it):
            // zeros go straight out there (or nothing, up to the first sound), and only the rest
            // is limited.
            let sounding = mixVoices(frames: frames)
            let out = base + done * channels
            let low = sounding.lowerBound * channels
            let high = sounding.upperBound * channels
            if writingSilence {
                out.update(repeating: 0, count: low)
                (out + high).update(repeating: 0, count: frames * channels - high)
            }
            if !sounding.isEmpty {
                let span = (done + sounding.lowerBound)..<(done + sounding.upperBound)
                if !writingSilence && !heard.isEmpty {
                    // The silence between the last sound and this one lies inside the range.
                    (base + heard.upperBound * channels).update(
                        repeating: 0, count: (span.lowerBound - heard.upperBound) * channels)
                }
                Self.limit(mix + low, into: out + low, count: high - low, clearingSource: true, kernels: kernels)
                heard = heard.isEmpty ? span : heard.lowerBound..<span.upperBound
            }
            done += frames
            left -= frames
        }
        // A partial frame at the end (a buffer that is not a whole number of frames) is silence.
        if writingSilence {
            (base + (buffer.count / channels) * channels).update(repeating: 0, count: buffer.count % channels)
        }
        return heard
    }

    /// Sums every voice over the next `frames` (at most ``mixFrames``) frames into `mix`; returns
    /// the frames (from the first) that a voice may have written. The rest of the mix stays zero.
    mutating func mixVoices(frames: Int) -> Range<Int> {
        let channels = format.channels
        let end = currentFrame + Int64(frames)
        var frame = currentFrame
        var sounding = 0..<0
        while frame < end {
            runDue(at: frame)
            var next = end
            if commandHead < commands.count { next = min(next, commands[commandHead].frame) }
            for i in 0..<layerHighWater where layers[i].inUse { next = min(next, layers[i].nextOnset) }
            let first = Int(frame - currentFrame)
            if voiceHighWater > 0 {
                let span = first..<Int(next - currentFrame)
                if renderVoices(mix + first * channels, frames: span.count, from: frame) {
                    sounding = sounding.isEmpty ? span : sounding.lowerBound..<span.upperBound
                }
            }
            frame = next
        }
        currentFrame = end
        return sounding
    }

    /// Soft limiter, memoryless: |x| <= T passes; above, `T + (1 - T) * u / (1 + u)` with
    /// `u = (|x| - T) / (1 - T)`, which is smooth at T and never reaches 1. An infinite sample
    /// becomes ±1 and NaN becomes 0, so what comes out is always finite and within -1...1.
    static func limit(_ samples: UnsafeMutablePointer<Float>, count: Int, kernels: Kernels.Set = .best) {
        limit(samples, into: samples, count: count, clearingSource: false, kernels: kernels)
    }

    /// Limits `count` samples of `source` into `out` (the same memory, or apart) and, if asked,
    /// sets the source's samples to 0 in the same pass (CRenderKernels: eight lanes at a time, and
    /// a plain copy where nothing reaches the threshold).
    static func limit(
        _ source: UnsafeMutablePointer<Float>, into out: UnsafeMutablePointer<Float>, count: Int,
        clearingSource: Bool, kernels: Kernels.Set = .best
    ) {
        hk_limit(kernels.c, source, out, Int64(count), clearingSource ? 1 : 0, limiterThreshold)
    }

    /// Runs commands due at `frame` and starts the events whose onset is `frame`.
    mutating func runDue(at frame: Int64) {
        while commandHead < commands.count && commands[commandHead].frame <= frame {
            let command = commands[commandHead]
            commandHead += 1
            switch command.action {
            case .start(let pattern, let offset, let origin):
                startLayer(command.layer, pattern, offset: offset, at: frame, origin: origin)
            case .stop:
                if let slot = layerSlot(command.layer, create: false) { stopLayer(slot, fade: stopFadeFrames) }
            case .fadeOutAll(let fade):
                for slot in 0..<layerHighWater where layers[slot].inUse { stopLayer(slot, fade: fade) }
                for i in 0..<voiceHighWater where voices[i].active { voices[i].release(frames: fade) }
                commands.removeSubrange(commandHead...)
            }
        }
        for slot in 0..<layerHighWater where layers[slot].inUse {
            while layers[slot].nextOnset <= frame, let pattern = layers[slot].pattern {
                let index = layers[slot].nextEvent
                startVoice(pattern, index, layer: slot, onset: layers[slot].nextOnset, skip: 0)
                layers[slot].advance(format: format)
            }
        }
    }

    /// Starts layer `id` at `frame`, counting its events' frames from `origin` (nil: `frame`).
    mutating func startLayer(_ id: Int, _ pattern: PreparedPattern, offset: Double, at frame: Int64, origin: Int64?) {
        guard let slot = layerSlot(id, create: true) else { return }
        stopLayer(slot, fade: stopFadeFrames)
        let start = origin ?? frame
        layers[slot].pattern = pattern.storage
        layers[slot].startFrame = start
        layers[slot].offset = offset
        layers[slot].patternCursors = ControlTable(repeating: .init())
        layers[slot].updateControlFlags()
        controlRevision &+= 1
        let events = pattern.storage.events
        var first = events.endIndex
        for (i, event) in events.enumerated() {
            let onset = start + format.clampedFrame(at: event.time - offset)
            // Started at `frame` itself, what is at or after `offset` is to come; started as
            // from an earlier frame, what starts on `frame` or later.
            if origin == nil ? event.time >= offset : onset >= frame { first = i; break }
            // Under way at `frame`? Join in progress.
            startVoice(pattern.storage, i, layer: slot, onset: onset, skip: Int(frame - onset))
        }
        layers[slot].nextEvent = first
        layers[slot].nextOnset =
            first < events.endIndex ? start + format.clampedFrame(at: events[first].time - offset) : .max
    }

    mutating func stopLayer(_ slot: Int, fade: Int) {
        layers[slot].pattern = nil
        controlRevision &+= 1
        layers[slot].nextOnset = .max
        for i in 0..<voiceHighWater where voices[i].active && voices[i].layer == slot {
            voices[i].release(frames: fade)
            voices[i].layer = -1
        }
        layers[slot].voiceCount = 0
    }

    /// The value of control `id` for layer `slot` at absolute `frame`: the pattern's timeline or
    /// the values sent to the layer, whichever element started later.
    func control(_ id: DynamicParameterID, layer slot: Int, at frame: Int64) -> Float {
        layers[slot].control(id, at: frame, rate: format.sampleRate, overrides: overrides(of: slot))
    }

    mutating func startVoice(_ pattern: PreparedPattern.Storage, _ index: Int, layer slot: Int, onset: Int64, skip: Int)
    {
        let event = pattern.events[index]
        let clip = event.clip >= 0 ? pattern.clips[event.clip] : nil
        var durationFrames: Int?
        if let d = event.duration {
            let end = layers[slot].startFrame + format.clampedFrame(at: event.time + d - layers[slot].offset)
            durationFrames = Int(max(0, end - onset))
        }
        // An event starting now takes its values from the pattern's controls at its own time,
        // not at its frame's (up to half a frame away): a click's level stays what it is at its
        // onset, so a control point between the two would otherwise set it from the wrong side.
        layers[slot].startingEventTime = skip == 0 ? event.time : nil
        defer { layers[slot].startingEventTime = nil }
        let plan = VoicePlan(
            event: event, durationFrames: durationFrames, clip: clip,
            control: { control($0, layer: slot, at: onset) },
            format: format, voicing: voicing)
        guard plan.totalFrames > skip, event.type != .audioCustom || clip != nil else { return }
        guard let v = (0..<maxVoices).first(where: { !voices[$0].active }) else { return }
        voiceHighWater = max(voiceHighWater, v + 1)
        var voice = Voice()
        voice.active = true
        voice.layer = slot
        voice.isHaptic = event.type.isHaptic
        voice.kind =
            switch event.type {
            case .hapticTransient: .click
            case .hapticContinuous: .buzz
            case .audioContinuous: .tone
            case .audioCustom: .clip
            }
        voice.baseIntensity = event.intensity
        voice.baseSharpness = event.sharpness
        voice.baseVolume = event.volume
        voice.basePitch = event.pitch
        voice.basePan = event.pan
        voice.baseBrightness = event.brightness
        voice.clip = clip
        voice.loops = event.loops
        if let clip { voice.baseStep = Double(clip.sampleRate) / Double(format.sampleRate) }
        voice.beginEnvelope(plan)
        let now = onset + Int64(skip)
        setControls(&voice, at: now, slot: slot)
        layers[slot].startingEventTime = nil  // the next update reads its own frame's time
        if voice.kind != .click && layers[slot].hasControls(haptic: voice.isHaptic) {
            scheduleNextControl(&voice, from: now, slot: slot)
        }
        if skip > 0 {
            voice.skipEnvelope(skip)
            voice.position = Double(skip) * voice.step
            if voice.loops, let clip, clip.frames > 0 {
                voice.position = voice.position.truncatingRemainder(dividingBy: Double(clip.frames))
            }
        }
        voices[v] = voice
        layers[slot].voiceCount += 1
    }

    /// Computes the voice's modulated values at `frame` and sets them as current (no ramp).
    func setControls(_ v: inout Voice, at frame: Int64, slot: Int) {
        let t = targets(v.inputs, at: frame, slot: slot)
        v.gainLeft = t.left
        v.gainRight = t.right
        v.brightness = t.brightness
        v.tilt = t.brightness
        v.gainLeftStep = 0
        v.gainRightStep = 0
        v.brightnessStep = 0
        v.tiltStep = 0
        v.increment = t.increment
        v.step = t.step
        v.rampOrigin = frame
    }

    /// Ramps current values towards those at the next control frame and schedules the update.
    func scheduleNextControl(_ v: inout Voice, from frame: Int64, slot: Int) {
        // The grid starts at the layer's start frame, so a pattern sounds the same wherever in
        // the stream it starts: a live play equals the offline render, sample for sample.
        let interval = Int64(Self.controlInterval)
        let origin = slot >= 0 ? layers[slot].startFrame : 0
        let next = origin + (Swift.max(0, frame - origin) / interval + 1) * interval
        v.settleRamps(at: frame)
        let t = targets(v.inputs, at: next, slot: slot)
        let n = Float(next - frame)
        v.incrementTarget = t.increment
        v.stepTarget = t.step
        v.targetRevision = controlRevision
        v.gainLeftTarget = t.left
        v.gainRightTarget = t.right
        v.gainLeftStep = (t.left - v.gainLeft) / n
        v.gainRightStep = (t.right - v.gainRight) / n
        if v.kind == .clip {
            v.tiltTarget = t.brightness
            v.tiltStep = (t.brightness - v.tilt) / n
        } else {
            v.brightnessTarget = t.brightness
            v.brightnessStep = (t.brightness - v.brightness) / n
        }
        v.nextControlFrame = next
    }

    struct Targets {
        var left: Float
        var right: Float
        /// Harmonic share for oscillators, tilt gain for clips.
        var brightness: Float
        var increment: UInt32
        var step: Double
    }

    /// The voice's gains, brightness and pitch at `frame` under its layer's controls and the mutes.
    func targets(_ v: VoiceInputs, at frame: Int64, slot: Int) -> Targets {
        var t = unmutedTargets(v, at: frame, slot: slot)
        if !audible(v) {
            t.left = 0
            t.right = 0
        }
        return t
    }

    func unmutedTargets(_ v: VoiceInputs, at frame: Int64, slot: Int) -> Targets {
        let rate = Double(format.sampleRate)
        func value(_ id: DynamicParameterID, _ base: Float) -> Float {
            guard slot >= 0 else { return base }
            return id.apply(control(id, layer: slot, at: frame), to: base)
        }
        func increment(_ hz: Double) -> UInt32 {
            UInt32(truncatingIfNeeded: Int64((min(hz, rate / 2) / rate * 4_294_967_296).rounded(.toNearestOrEven)))
        }
        let stereo = format.channels == 2
        switch v.kind {
        case .click, .buzz:
            let sharpness = value(.hapticSharpnessControl, v.baseSharpness)
            let intensity = value(.hapticIntensityControl, v.baseIntensity)
            let brightness = voicing.brightness(sharpness: sharpness)
            let boost = v.kind == .click ? voicing.transientGain : 1
            let gain = boost * voicing.amplitude(intensity: intensity) / (1 + brightness * (hapticPeak - 1))
            return Targets(
                left: gain, right: gain, brightness: brightness,
                increment: increment(voicing.lowestFrequency * exp2(octaveSpan * Double(sharpness))), step: 1)
        case .tone, .clip:
            let volume = value(.audioVolumeControl, v.baseVolume)
            let pan = value(.audioPanControl, v.basePan)
            let pitch = value(.audioPitchControl, v.basePitch)
            let brightness = value(.audioBrightnessControl, v.baseBrightness)
            var left: Float = 1
            var right: Float = 1
            if stereo {
                if v.kind == .clip && v.stereoClip {
                    left = pan > 0 ? 1 - pan : 1  // balance for stereo clips
                    right = pan < 0 ? 1 + pan : 1
                } else {
                    let angle = Double(pan + 1) * Double.pi / 4  // equal-power pan
                    left = Float(cos(angle))
                    right = Float(sin(angle))
                }
            }
            if v.kind == .tone {
                let harmonics = brightness * ToneVoicing.maximumBrightness
                let gain = ToneVoicing.peakLevel * volume / (1 + harmonics * (tonePeak - 1))
                return Targets(
                    left: gain * left, right: gain * right, brightness: harmonics,
                    increment: increment(ToneVoicing.frequency(pitch: pitch)), step: 1)
            }
            return Targets(
                left: volume * left, right: volume * right, brightness: brightness,
                increment: 0, step: v.baseStep * exp2(Double(pitch)))
        }
    }

    /// Adds every active voice over `[first, first + frames)` to `out`, retiring those that end;
    /// returns whether any of them wrote a sample (voices silent throughout write none, and `out`
    /// stays as it was).
    mutating func renderVoices(_ out: UnsafeMutablePointer<Float>, frames: Int, from first: Int64) -> Bool {
        // In place: a voice is a few hundred bytes, too many to copy out and back per span.
        let voices = self.voices
        var wrote = false
        for i in 0..<voiceHighWater where voices[i].active {
            if renderVoice(&voices[i], out, frames: frames, from: first) { wrote = true }
        }
        while voiceHighWater > 0 && !voices[voiceHighWater - 1].active { voiceHighWater -= 1 }
        return wrote
    }

    /// Renders one voice over `[first, first + frames)` and retires it if it ends; returns whether
    /// it wrote a sample. An oscillator voice that is silent (``Voice/isSilent(channels:)``) over a
    /// stretch only advances its phase and envelope there: muted players and events held at zero
    /// intensity by a curve cost no synthesis.
    func renderVoice(_ v: inout Voice, _ out: UnsafeMutablePointer<Float>, frames: Int, from first: Int64) -> Bool {
        var wrote = false
        let channels = format.channels
        let slot = v.layer
        if slot >= 0 && v.kind != .click && v.nextControlFrame == .max
            && layers[slot].hasControls(haptic: v.isHaptic)
        {
            scheduleNextControl(&v, from: first, slot: slot)
        }
        var done = 0
        while done < frames {
            let frame = first + Int64(done)
            if frame == v.nextControlFrame {
                v.gainLeft = v.gainLeftTarget
                v.gainRight = v.gainRightTarget
                if v.kind == .clip { v.tilt = v.tiltTarget } else { v.brightness = v.brightnessTarget }
                v.rampOrigin = frame
                if v.layer >= 0 && v.targetRevision == controlRevision {
                    // Nothing changed since they were computed for this very frame.
                    v.increment = v.incrementTarget
                    v.step = v.stepTarget
                } else {
                    let t = targets(v.inputs, at: frame, slot: v.layer)
                    v.increment = t.increment
                    v.step = t.step
                }
                if v.layer >= 0 && layers[v.layer].hasControls(haptic: v.isHaptic) {
                    scheduleNextControl(&v, from: frame, slot: v.layer)
                } else {
                    v.gainLeftStep = 0
                    v.gainRightStep = 0
                    v.brightnessStep = 0
                    v.tiltStep = 0
                    v.nextControlFrame = .max
                }
            }
            if v.untilRelease == 0 { v.release(frames: v.releaseFrames) }
            if v.stageRemaining == 0 { v.nextStage() }
            if v.stage == .done { break }
            var n = min(frames - done, v.stageRemaining, v.untilRelease)
            if v.nextControlFrame != .max { n = min(n, Int(v.nextControlFrame - frame)) }
            let target = out + done * channels
            let ramp = Float(frame - v.rampOrigin)
            switch v.kind {
            case .click, .buzz, .tone:
                if v.isSilent(channels: channels) {
                    Kernels.skipOscillator(&v, n)
                } else {
                    Kernels.oscillator(
                        &v, target, n, v.kind == .tone ? toneTable : hapticTable, channels: channels, ramp: ramp,
                        kernels: kernels)
                    wrote = true
                }
            case .clip:
                Kernels.clip(&v, target, n, channels: channels, lowPass: tiltLowPass, ramp: ramp)
                wrote = true
            }
            if v.stageRemaining != .max { v.stageRemaining -= n }
            if v.untilRelease != .max { v.untilRelease -= n }
            done += n
        }
        if v.stageRemaining == 0 && v.untilRelease != 0 && v.stage != .sustain { v.nextStage() }
        if v.stage == .done {
            v.active = false
            v.clip = nil
            if v.layer >= 0 { layers[v.layer].voiceCount -= 1 }
        }
        return wrote
    }
}

extension Synthesizer: @unchecked Sendable {}  // uniquely owns its buffers; no shared mutable state

/// Numbers for audio events (AudioContinuous tones), independent of the haptic voicing.
enum ToneVoicing {
    /// Partials in the tone's harmonic table.
    static let harmonicCount = 12
    /// Harmonic share at AudioBrightness 1.
    static let maximumBrightness: Float = 1
    /// Amplitude at AudioVolume 1.
    static let peakLevel: Float = 0.5
    /// Corner of the one-pole low-pass that AudioBrightness tilts against for clips.
    static let tiltCornerFrequency = 1_000.0

    /// AudioPitch -1...1 maps to 220...880 Hz (one octave either side of A4).
    static func frequency(pitch: Float) -> Double { 440 * exp2(Double(pitch)) }
}

/// A scheduled change.
struct Command {
    enum Action {
        /// The pattern, the offset, and the frame it counts from when that is earlier than the
        /// command's (nil: the command's own).
        case start(PreparedPattern, Double, Int64?)
        case stop
        case fadeOutAll(Int)
    }

    var frame: Int64
    var layer: Int
    var action: Action
}

/// A player: the pattern it plays, where, and the control values sent to it.
struct Layer {
    var inUse = false
    var id = 0
    var pattern: PreparedPattern.Storage?
    var startFrame: Int64 = 0
    var offset = 0.0
    var nextEvent = 0
    var nextOnset = Int64.max
    var voiceCount = 0
    /// How many override knots (in the synthesizer's `overrideKnots`) each control has.
    var overrideCounts = ControlTable<Int>(repeating: 0)
    var patternCursors = ControlTable<ParameterTimeline.Cursor>(repeating: .init())
    var overrideCursors = ControlTable<ParameterTimeline.Cursor>(repeating: .init())
    var hapticControls = false
    var audioControls = false
    var muted = false
    /// The time of the event whose voice is starting, while it starts (nil otherwise): the
    /// pattern's controls are read there instead of at the frame's time, which rounds it by up
    /// to half a frame, so that a control point between the two still sets the event's values as
    /// the pattern orders them.
    var startingEventTime: Double?

    func hasControls(haptic: Bool) -> Bool { haptic ? hapticControls : audioControls }

    mutating func updateControlFlags() {
        func active(_ id: DynamicParameterID) -> Bool {
            overrideCounts[id] > 0 || !(pattern?.knots[id].isEmpty ?? true)
        }
        hapticControls = active(.hapticIntensityControl) || active(.hapticSharpnessControl)
        audioControls =
            active(.audioVolumeControl) || active(.audioPanControl) || active(.audioPitchControl)
            || active(.audioBrightnessControl)
    }

    mutating func advance(format: AudioFormat) {
        guard let pattern else { return }
        nextEvent += 1
        nextOnset =
            nextEvent < pattern.events.count
            ? startFrame + format.clampedFrame(at: pattern.events[nextEvent].time - offset) : .max
    }

    /// The value of control `id` at absolute `frame`: the pattern's (in pattern seconds) or the
    /// sent one (`overrides`, in frames; the layer's block of the synthesizer's override knots),
    /// whichever element started later; the pattern's at ``startingEventTime`` while an event
    /// starts.
    mutating func control(
        _ id: DynamicParameterID, at frame: Int64, rate: Int, overrides: UnsafePointer<ParameterTimeline.Knot>?
    ) -> Float {
        var value = id.neutralValue
        var start = -Double.infinity
        let seconds = Double(rate)
        if pattern != nil {
            // The layer holds the storage strongly for the whole call: no retain per evaluation
            // (this runs once per voice every control interval).
            unowned(unsafe) let storage = pattern.unsafelyUnwrapped
            let knots = storage.knots[id]
            let t = startingEventTime ?? offset + Double(frame - startFrame) / seconds
            let k = patternCursors[id].seek(in: knots, to: t)
            if k >= 0 {
                value = ParameterTimeline.value(of: knots[k], at: t)
                start = Double(startFrame) + (knots[k].elementStart - offset) * seconds
            }
        }
        let count = overrideCounts[id]
        if count > 0, let overrides {
            let knots = UnsafeBufferPointer(start: overrides + id.index * Synthesizer.overrideCapacity, count: count)
            let f = Double(frame)
            let k = overrideCursors[id].seek(in: knots, to: f)
            if k >= 0 && knots[k].elementStart >= start {
                value = ParameterTimeline.value(of: knots[k], at: f)
            }
        }
        return value
    }
}
