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
    /// The oscillator increment and clip step at `nextControlFrame`, computed with the ramps'
    /// targets; valid while the synthesizer's `controlRevision` is still `targetRevision`.
    var incrementTarget: UInt32 = 0
    var stepTarget: Double = 1
    var targetRevision = 0

    // Envelope: env = env * k + d per frame within a stage.
    var stage = Stage.attack
    var env: Float = 0
    var envK: Float = 1
    var envD: Float = 0
    var stageRemaining = 0
    var decayFrames = 0
    var sustained = false
    var untilRelease = Int.max
    var releaseFrames = 1

    /// Starts the attack from silence; the first frame already sounds (`1 / attackFrames`).
    mutating func beginEnvelope(_ plan: VoicePlan) {
        decayFrames = plan.decayFrames
        sustained = plan.sustained
        untilRelease = plan.untilRelease
        releaseFrames = plan.releaseFrames
        stage = .attack
        let n = max(1, plan.attackFrames)
        envK = 1
        envD = 1 / Float(n)
        env = envD
        stageRemaining = n
    }

    /// Sets up a fall from the current level to exactly 0 after `frames` frames, shaped like an
    /// exponential decay (about -40 dB by the end) that aims slightly below zero.
    mutating func beginFall(_ next: Stage, frames: Int) {
        stage = next
        stageRemaining = max(0, frames)
        guard frames > 0, env > 0 else {
            stageRemaining = 0
            return
        }
        let overshoot = 0.01
        let k = pow(overshoot / (1 + overshoot), 1 / Double(frames))
        let target = -overshoot * Double(env)
        envK = Float(k)
        envD = Float(target * (1 - k))
    }

    /// Moves to the next envelope stage after the current one ran out.
    mutating func nextStage() {
        switch stage {
        case .attack:
            env = 1
            if sustained {
                stage = .sustain
                envK = 1
                envD = 0
                stageRemaining = Int.max
            } else {
                beginFall(.decay, frames: decayFrames)
            }
        case .decay, .release, .done:
            env = 0
            envK = 1
            envD = 0
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
            if envK == 1 {
                env += envD * Float(m)
            } else {
                let target = envD / (1 - envK)
                env = target + (env - target) * Float(pow(Double(envK), Double(m)))
            }
            if stageRemaining != Int.max { stageRemaining -= m }
            if untilRelease != Int.max { untilRelease -= m }
            left -= m
        }
    }
}

/// The inner loops. Each runs over a span in which every per-frame quantity moves by a constant
/// step (envelope recurrence, gain and brightness ramps, phase increment).
enum Kernels {
    /// Linear-interpolated lookup of `sine + brightness * harmonics`.
    @inline(__always)
    static func wave(_ table: UnsafePointer<Float>, _ phase: UInt32, _ brightness: Float) -> Float {
        let shift = UInt32(32 - Wavetable.bits)
        let i = Int(phase >> shift) &* 2
        let fraction = Float(phase & ((1 << shift) - 1)) * (1 / Float(1 << shift))
        let s0 = table[i]
        let h0 = table[i &+ 1]
        let s1 = table[i &+ 2]
        let h1 = table[i &+ 3]
        let s = s0 + fraction * (s1 - s0)
        let h = h0 + fraction * (h1 - h0)
        return s + brightness * h
    }

    static func oscillatorMono(
        _ v: inout Voice, _ out: UnsafeMutablePointer<Float>, _ n: Int, _ table: UnsafePointer<Float>
    ) {
        var phase = v.phase
        let increment = v.increment
        var env = v.env
        let k = v.envK
        let d = v.envD
        var gain = v.gainLeft
        let gainStep = v.gainLeftStep
        var brightness = v.brightness
        let brightnessStep = v.brightnessStep
        for j in 0..<n {
            out[j] += wave(table, phase, brightness) * (env * gain)
            env = env * k + d
            gain += gainStep
            brightness += brightnessStep
            phase &+= increment
        }
        v.phase = phase
        v.env = env
        v.gainLeft = gain
        v.brightness = brightness
    }

    static func oscillatorStereo(
        _ v: inout Voice, _ out: UnsafeMutablePointer<Float>, _ n: Int, _ table: UnsafePointer<Float>
    ) {
        var phase = v.phase
        let increment = v.increment
        var env = v.env
        let k = v.envK
        let d = v.envD
        var left = v.gainLeft
        let leftStep = v.gainLeftStep
        var right = v.gainRight
        let rightStep = v.gainRightStep
        var brightness = v.brightness
        let brightnessStep = v.brightnessStep
        for j in 0..<n {
            let x = wave(table, phase, brightness) * env
            out[2 &* j] += x * left
            out[2 &* j &+ 1] += x * right
            env = env * k + d
            left += leftStep
            right += rightStep
            brightness += brightnessStep
            phase &+= increment
        }
        v.phase = phase
        v.env = env
        v.gainLeft = left
        v.gainRight = right
        v.brightness = brightness
    }

    /// One sample of channel `c` at fractional frame `position` (Catmull-Rom cubic).
    @inline(__always)
    static func clipSample(_ clip: ClipData, _ position: Double, _ c: Int, _ loops: Bool) -> Float {
        let frames = clip.frames
        let base = Int(position.rounded(.down))
        let t = Float(position - Double(base))
        @inline(__always) func at(_ i: Int) -> Float {
            var i = i
            if i < 0 || i >= frames {
                guard loops else { return 0 }
                i = ((i % frames) + frames) % frames
            }
            return clip.samples[i &* clip.channels &+ c]
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

    static func clip(_ v: inout Voice, _ out: UnsafeMutablePointer<Float>, _ n: Int, channels: Int, lowPass a: Float) {
        guard let clip = v.clip else { return }
        let frames = Double(clip.frames)
        var position = v.position
        let step = v.step
        var env = v.env
        let k = v.envK
        let d = v.envD
        var left = v.gainLeft
        let leftStep = v.gainLeftStep
        var right = v.gainRight
        let rightStep = v.gainRightStep
        var tilt = v.tilt
        let tiltStep = v.tiltStep
        var lowLeft = v.lowLeft
        var lowRight = v.lowRight
        let stereoClip = clip.channels == 2
        for j in 0..<n {
            var x = clipSample(clip, position, 0, v.loops)
            var y = stereoClip ? clipSample(clip, position, 1, v.loops) : x
            lowLeft += a * (x - lowLeft)
            lowRight += a * (y - lowRight)
            x = (lowLeft + tilt * (x - lowLeft)) * env
            y = (lowRight + tilt * (y - lowRight)) * env
            if channels == 1 {
                out[j] += (stereoClip ? 0.5 * (x + y) : x) * left
            } else {
                out[2 &* j] += x * left
                out[2 &* j &+ 1] += y * right
            }
            env = env * k + d
            left += leftStep
            right += rightStep
            tilt += tiltStep
            position += step
            if position >= frames && v.loops { position -= frames }
        }
        v.position = position
        v.env = env
        v.gainLeft = left
        v.gainRight = right
        v.tilt = tilt
        v.lowLeft = lowLeft
        v.lowRight = lowRight
    }
}
