import CRenderKernels

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One sounding event. Plain data so the voice pool is a flat pre-allocated array.
struct Voice {
    enum Kind: UInt8 {
        case click, buzz, tone, clip
    }

    enum Stage: UInt8 {
        case attack, decay, sustain, release, done
    }

    var active = false
    var kind = Kind.click
    /// Layer slot whose controls modulate the voice, or -1 (detached: values frozen).
    var layer = -1
    var isHaptic = true

    // Event values before modulation.
    var baseIntensity: Float = 1
    var baseSharpness: Float = 0.5
    var baseVolume: Float = 1
    var basePitch: Float = 0
    var basePan: Float = 0
    var baseBrightness: Float = 0.5

    // Oscillator.
    var phase: UInt32 = 1 << 30
    var increment: UInt32 = 0
    var brightness: Float = 0
    var brightnessStep: Float = 0
    var brightnessTarget: Float = 0

    // Clip player.
    var clip: ClipData?
    var position: Double = 0
    var baseStep: Double = 1
    var step: Double = 1
    var loops = false
    var lowLeft: Float = 0
    var lowRight: Float = 0
    var tilt: Float = 1
    var tiltStep: Float = 0
    var tiltTarget: Float = 1

    // Gains (control-rate ramps), left/mono and right.
    var gainLeft: Float = 0
    var gainLeftStep: Float = 0
    var gainLeftTarget: Float = 0
    var gainRight: Float = 0
    var gainRightStep: Float = 0
    var gainRightTarget: Float = 0
    /// Absolute frame of the next control update; `Int64.max` while the layer has no controls.
    var nextControlFrame = Int64.max
    /// The frame at which the ramped values (gains, brightness, tilt) are what the fields hold:
    /// at frame `f` a ramped value is `value + step × (f − rampOrigin)`, in closed form, so the
    /// kernels need no running sums and any frame's value can be computed on its own.
    var rampOrigin: Int64 = 0
    /// The oscillator increment and clip step at `nextControlFrame`, computed with the ramps'
    /// targets; valid while the synthesizer's `controlRevision` is still `targetRevision`.
    var incrementTarget: UInt32 = 0
    var stepTarget: Double = 1
    var targetRevision = 0

    // Envelope: env' = env·k + d per frame within a stage, kept as its value at an anchor every
    // `HK_ENVELOPE_STRIDE` frames and the frames since (CRenderKernels), so that the kernels compute
    // eight frames side by side and a frame's value does not depend on where a block began.
    var stage = Stage.attack
    var envAnchor: Float = 0
    var envSince: Int32 = 0
    /// The stage's coefficients (`hk_envelope`), computed once when the stage begins.
    var envTable = Voice.envelopeTable(k: 1, d: 0)
    /// Anchor steps a silent stretch passed over (``Kernels/skipOscillator(_:_:)``) and not yet
    /// taken: taken when the envelope is read or the voice sounds again, and dropped when a new
    /// stage sets a new anchor, so a click or a release that stays silent to its end costs nothing.
    var envOwed = 0
    var stageRemaining = 0
    var decayFrames = 0
    var sustained = false
    var untilRelease = Int.max
    var releaseFrames = 1

    /// What the control path reads, copied field by field: passing the voice itself to a function
    /// copies all of it, a few hundred bytes, once per control update.
    var inputs: VoiceInputs {
        VoiceInputs(
            kind: kind, isHaptic: isHaptic, layer: layer, baseIntensity: baseIntensity,
            baseSharpness: baseSharpness, baseVolume: baseVolume, basePitch: basePitch, basePan: basePan,
            baseBrightness: baseBrightness, baseStep: baseStep, stereoClip: clip?.channels == 2)
    }

    /// The recurrence's `k` and `d`: the table's first step holds them exactly (`1·k`, `0·k + d`).
    var envK: Float { envTable.a.1 }
    var envD: Float { envTable.b.1 }

    /// The envelope at the current frame, as the kernels compute it.
    var env: Float {
        withUnsafePointer(to: envTable) {
            hk_envelope_at($0, hk_envelope_advance($0, envAnchor, Int64(envOwed)), envSince)
        }
    }

    /// Takes the anchor steps still owed (``envOwed``).
    mutating func settleEnvelope() {
        guard envOwed > 0 else { return }
        envAnchor = withUnsafePointer(to: envTable) { hk_envelope_advance($0, envAnchor, Int64(envOwed)) }
        envOwed = 0
    }

    /// Starts a recurrence at the current frame from `value`.
    mutating func setEnvelope(_ value: Float, k: Float, d: Float) {
        envAnchor = value
        envSince = 0
        envOwed = 0
        if k != envK || d != envD { envTable = Self.envelopeTable(k: k, d: d) }
    }

    static func envelopeTable(k: Float, d: Float) -> hk_envelope {
        var table = hk_envelope()
        hk_envelope_table(k, d, &table)
        return table
    }

    /// Whether an oscillator voice adds only ±0 over a span until its next control update: its
    /// gains (on `channels` channels) are zero and do not ramp, and its envelope is finite (the
    /// stages keep it within -0.01...1), so every sample is `wave × (envelope × 0)`. Adding ±0 leaves
    /// the mix as it is (the mix starts at +0 and a sum is −0 only if both terms are), so
    /// ``Kernels/skipOscillator(_:_:)`` may stand in for the loop.
    func isSilent(channels: Int) -> Bool {
        gainLeft == 0 && gainLeftStep == 0 && (channels == 1 || gainRight == 0 && gainRightStep == 0)
            && envAnchor.isFinite
    }

    /// Moves the ramps' origin to `frame`: the fields take the values the ramps reach there.
    mutating func settleRamps(at frame: Int64) {
        let t = Float(frame - rampOrigin)
        gainLeft = gainLeft + gainLeftStep * t
        gainRight = gainRight + gainRightStep * t
        brightness = brightness + brightnessStep * t
        tilt = tilt + tiltStep * t
        rampOrigin = frame
    }

    /// Starts the attack from silence; the first frame already sounds (`1 / attackFrames`).
    mutating func beginEnvelope(_ plan: VoicePlan) {
        decayFrames = plan.decayFrames
        sustained = plan.sustained
        untilRelease = plan.untilRelease
        releaseFrames = plan.releaseFrames
        stage = .attack
        let n = max(1, plan.attackFrames)
        setEnvelope(1 / Float(n), k: 1, d: 1 / Float(n))
        stageRemaining = n
    }

    /// Sets up a fall from the current level to exactly 0 after `frames` frames, shaped like an
    /// exponential decay (about -40 dB by the end) that aims slightly below zero.
    mutating func beginFall(_ next: Stage, frames: Int) {
        stage = next
        stageRemaining = max(0, frames)
        let current = env
        guard frames > 0, current > 0 else {
            stageRemaining = 0
            return
        }
        let overshoot = 0.01
        let k = pow(overshoot / (1 + overshoot), 1 / Double(frames))
        let target = -overshoot * Double(current)
        setEnvelope(current, k: Float(k), d: Float(target * (1 - k)))
    }

    /// Moves to the next envelope stage after the current one ran out.
    mutating func nextStage() {
        switch stage {
        case .attack:
            setEnvelope(1, k: 1, d: 0)
            if sustained {
                stage = .sustain
                stageRemaining = Int.max
            } else {
                beginFall(.decay, frames: decayFrames)
            }
        case .decay, .release, .done:
            setEnvelope(0, k: 1, d: 0)
            stage = .done
            stageRemaining = Int.max
        case .sustain:
            stageRemaining = Int.max
        }
    }

    /// Starts the release now (event end, stop, fade-out), unless a shorter one is already running.
    mutating func release(frames: Int) {
        untilRelease = Int.max
        if stage == .done { return }
        if stage == .release && stageRemaining <= frames { return }
        beginFall(.release, frames: frames)
    }

    /// Skips `frames` frames of the envelope (joining an event already in progress).
    mutating func skipEnvelope(_ frames: Int) {
        var left = frames
        while left > 0 && stage != .done {
            if untilRelease == 0 { release(frames: releaseFrames) }
            if stageRemaining == 0 { nextStage(); continue }
            let m = min(left, stageRemaining, untilRelease)
            // In closed form (the skip is the same wherever the blocks fall), then a new anchor.
            if envK == 1 {
                setEnvelope(env + envD * Float(m), k: envK, d: envD)
            } else {
                let target = envD / (1 - envK)
                setEnvelope(target + (env - target) * Float(pow(Double(envK), Double(m))), k: envK, d: envD)
            }
            if stageRemaining != Int.max { stageRemaining -= m }
            if untilRelease != Int.max { untilRelease -= m }
            left -= m
        }
    }
}

/// A voice's event values, from which the synthesizer computes its modulated targets.
struct VoiceInputs {
    var kind: Voice.Kind
    var isHaptic: Bool
    var layer: Int
    var baseIntensity: Float
    var baseSharpness: Float
    var baseVolume: Float
    var basePitch: Float
    var basePan: Float
    var baseBrightness: Float
    var baseStep: Double
    var stereoClip: Bool
}

/// The inner loops. Each runs over a span in which the envelope follows one recurrence, the
/// phase one increment and the ramped values (gains, brightness, tilt) one step from their
/// origin; `ramp` is the span's first frame counted from the voice's `rampOrigin`.
///
/// The oscillators are CRenderKernels' loops: eight frames at a time, for the baseline CPU or for
/// AVX2 (the same bits either way). A frame's sample does not depend on where a span or a block
/// begins: the envelope comes from its anchor, the phase is exact integer arithmetic and each
/// ramped value is `value + step × frame`.
enum Kernels {
    /// A build of the oscillator loops.
    enum Set: Sendable {
        case baseline, avx2

        /// What this process runs: the best the CPU has, or the baseline build when
        /// `HAPTICS_KERNELS=baseline` is set (to compare the two).
        static let best: Set = {
            if let value = getenv("HAPTICS_KERNELS"), String(cString: value) == "baseline" { return .baseline }
            return avx2Available ? .avx2 : .baseline
        }()

        /// Whether this CPU runs the AVX2 build.
        static let avx2Available = hk_best_kernel_set() == HK_KERNELS_AVX2

        var c: hk_kernel_set { self == .avx2 ? HK_KERNELS_AVX2 : HK_KERNELS_BASELINE }
    }

    /// Adds `n` frames of an oscillator voice (click, buzz or tone) to `out`.
    @inline(__always)
    static func oscillator(
        _ v: inout Voice, _ out: UnsafeMutablePointer<Float>, _ n: Int, _ table: UnsafePointer<Float>,
        channels: Int, ramp: Float, kernels: Set
    ) {
        v.settleEnvelope()
        var state = hk_oscillator(
            phase: v.phase, increment: v.increment, env_anchor: v.envAnchor, env_since: v.envSince,
            envelope: nil, brightness: v.brightness, brightness_step: v.brightnessStep,
            gain_left: v.gainLeft, gain_left_step: v.gainLeftStep, gain_right: v.gainRight,
            gain_right_step: v.gainRightStep)
        withUnsafePointer(to: &v.envTable) { envelope in
            state.envelope = envelope
            if channels == 1 {
                hk_oscillator_mono(kernels.c, &state, out, Int64(n), table, ramp)
            } else {
                hk_oscillator_stereo(kernels.c, &state, out, Int64(n), table, ramp)
            }
        }
        v.phase = state.phase
        v.envAnchor = state.env_anchor
        v.envSince = state.env_since
    }

    /// Advances an oscillator voice over `n` frames as `oscillator` would, without computing a
    /// sample: for a span in which ``Voice/isSilent(channels:)`` holds. The phase advances at once
    /// (integer arithmetic, modulo 2^32 as the loop adds); the envelope's anchor steps are owed.
    @inline(__always)
    static func skipOscillator(_ v: inout Voice, _ n: Int) {
        v.phase &+= v.increment &* UInt32(truncatingIfNeeded: n)
        let total = Int(v.envSince) + n
        v.envOwed += total / Int(HK_ENVELOPE_STRIDE)
        v.envSince = Int32(total % Int(HK_ENVELOPE_STRIDE))
    }

    /// One sample of channel `c` at fractional frame `position` (Catmull-Rom cubic).
    @inline(__always)
    static func clipSample(
        _ clip: ClipData, _ position: Double, _ c: Int, _ loops: Bool, available: Int, oldest: Int
    ) -> Float {
        let frames = clip.frames
        let base = Int(position.rounded(.down))
        let t = Float(position - Double(base))
        @inline(__always) func at(_ i: Int) -> Float {
            var i = i
            if i < 0 || i >= frames {
                guard loops else { return 0 }
                i = ((i % frames) + frames) % frames
            }
            // A fed clip's frame not written yet, or already overwritten: silence.
            guard i < available, i >= oldest else { return 0 }
            return clip.samples[(i & clip.mask) &* clip.channels &+ c]
        }
        let y0 = at(base - 1)
        let y1 = at(base)
        let y2 = at(base + 1)
        let y3 = at(base + 2)
        let a = -0.5 * y0 + 1.5 * y1 - 1.5 * y2 + 0.5 * y3
        let b = y0 - 2.5 * y1 + 2 * y2 - 0.5 * y3
        let c1 = -0.5 * y0 + 0.5 * y2
        return ((a * t + b) * t + c1) * t + y1
    }

    static func clip(
        _ v: inout Voice, _ out: UnsafeMutablePointer<Float>, _ n: Int, channels: Int, lowPass a: Float, ramp: Float
    ) {
        guard let clip = v.clip else { return }
        let frames = Double(clip.frames)
        var position = v.position
        let step = v.step
        let left = v.gainLeft
        let leftStep = v.gainLeftStep
        let right = v.gainRight
        let rightStep = v.gainRightStep
        let tilt = v.tilt
        let tiltStep = v.tiltStep
        var lowLeft = v.lowLeft
        var lowRight = v.lowRight
        let stereoClip = clip.channels == 2
        let loops = v.loops
        // What a fed clip holds now: read once a block (the writer only adds to it).
        let available = clip.feed?.framesWritten ?? clip.frames
        let oldest = clip.feed.map { available - $0.capacity } ?? 0
        // The envelope from its anchor, as the oscillators compute it.
        let stride = Int(HK_ENVELOPE_STRIDE)
        var anchor = v.envAnchor
        var since = Int(v.envSince)
        withUnsafePointer(to: &v.envTable) { envelope in
            let raw = UnsafeRawPointer(envelope)
            let envA = raw.advanced(by: MemoryLayout<hk_envelope>.offset(of: \.a)!).assumingMemoryBound(to: Float.self)
            let envB = raw.advanced(by: MemoryLayout<hk_envelope>.offset(of: \.b)!).assumingMemoryBound(to: Float.self)
            for j in 0..<n {
                let t = ramp + Float(j)
                let env = anchor * envA[since] + envB[since]
                let tiltNow = tilt + tiltStep * t
                var x = clipSample(clip, position, 0, loops, available: available, oldest: oldest)
                var y = stereoClip ? clipSample(clip, position, 1, loops, available: available, oldest: oldest) : x
                lowLeft += a * (x - lowLeft)
                lowRight += a * (y - lowRight)
                x = (lowLeft + tiltNow * (x - lowLeft)) * env
                y = (lowRight + tiltNow * (y - lowRight)) * env
                if channels == 1 {
                    out[j] += (stereoClip ? 0.5 * (x + y) : x) * (left + leftStep * t)
                } else {
                    out[2 &* j] += x * (left + leftStep * t)
                    out[2 &* j &+ 1] += y * (right + rightStep * t)
                }
                since += 1
                if since == stride {
                    anchor = anchor * envA[stride] + envB[stride]
                    since = 0
                }
                position += step
                if position >= frames && loops { position -= frames }
            }
        }
        v.position = position
        // The cubic reads one frame before the position.
        clip.feed?.release(before: Int(position) - 1)
        v.envAnchor = anchor
        v.envSince = Int32(since)
        v.lowLeft = lowLeft
        v.lowRight = lowRight
    }
}
