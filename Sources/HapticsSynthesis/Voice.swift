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

/// The inner loops. Each runs over a span in which the envelope follows one recurrence, the
/// phase one increment and the ramped values (gains, brightness, tilt) one step from their
/// origin; `ramp` is the span's first frame counted from the voice's `rampOrigin`.
///
/// The oscillators work four frames at a time with the same operations per frame as the scalar
/// tail (the envelope's recurrence stepped frame by frame, the phase in exact integers, each
/// ramped value `value + step × frame`), so a sample does not depend on where a span or a block
/// begins.
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

    /// ``wave(_:_:_:)`` for four phases: each lane's (sine, harmonics) pair and the pair after it
    /// are one unaligned 16-byte load, transposed into lanes.
    @inline(__always)
    static func wave4(_ table: UnsafePointer<Float>, _ phase: SIMD4<UInt32>, _ brightness: SIMD4<Float>)
        -> SIMD4<Float>
    {
        let shift = UInt32(32 - Wavetable.bits)
        // Below 2^21, so the signed conversion is exact (and cheaper than the unsigned one).
        let low = SIMD4<Int32>(truncatingIfNeeded: phase & ((1 << shift) - 1))
        let fraction = SIMD4<Float>(low) * (1 / Float(1 << shift))
        let index = phase &>> shift
        let raw = UnsafeRawPointer(table)
        let q0 = raw.loadUnaligned(fromByteOffset: Int(index[0]) &* 8, as: SIMD4<Float>.self)
        let q1 = raw.loadUnaligned(fromByteOffset: Int(index[1]) &* 8, as: SIMD4<Float>.self)
        let q2 = raw.loadUnaligned(fromByteOffset: Int(index[2]) &* 8, as: SIMD4<Float>.self)
        let q3 = raw.loadUnaligned(fromByteOffset: Int(index[3]) &* 8, as: SIMD4<Float>.self)
        let s0 = SIMD4(q0[0], q1[0], q2[0], q3[0])
        let h0 = SIMD4(q0[1], q1[1], q2[1], q3[1])
        let s1 = SIMD4(q0[2], q1[2], q2[2], q3[2])
        let h1 = SIMD4(q0[3], q1[3], q2[3], q3[3])
        let s = s0 + fraction * (s1 - s0)
        let h = h0 + fraction * (h1 - h0)
        return s + brightness * h
    }

    /// The part of an oscillator voice both channel layouts share: the envelope recurrence, the
    /// phase and the brightness ramp, advanced four frames or one frame at a time.
    struct Oscillator {
        var phase: UInt32
        let increment: UInt32
        var env: Float
        let k: Float
        let d: Float
        let brightness: Float
        let brightnessStep: Float
        let phaseLanes: SIMD4<UInt32>
        let table: UnsafePointer<Float>

        @inline(__always)
        init(_ v: Voice, _ table: UnsafePointer<Float>) {
            phase = v.phase
            increment = v.increment
            env = v.env
            k = v.envK
            d = v.envD
            brightness = v.brightness
            brightnessStep = v.brightnessStep
            phaseLanes = SIMD4<UInt32>(0, 1, 2, 3) &* v.increment
            self.table = table
        }

        /// The waveform and the envelope at four frames whose ramp positions are `t`.
        @inline(__always)
        mutating func next4(_ t: SIMD4<Float>) -> (wave: SIMD4<Float>, env: SIMD4<Float>) {
            let e0 = env
            let e1 = e0 * k + d
            let e2 = e1 * k + d
            let e3 = e2 * k + d
            env = e3 * k + d
            let w = wave4(table, SIMD4(repeating: phase) &+ phaseLanes, brightness + brightnessStep * t)
            phase &+= increment &* 4
            return (w, SIMD4(e0, e1, e2, e3))
        }

        /// The waveform and the envelope at one frame whose ramp position is `t`.
        @inline(__always)
        mutating func next(_ t: Float) -> (wave: Float, env: Float) {
            let w = wave(table, phase, brightness + brightnessStep * t)
            let e = env
            env = env * k + d
            phase &+= increment
            return (w, e)
        }

        /// Leaves the voice where the oscillator stopped.
        @inline(__always)
        func store(into v: inout Voice) {
            v.phase = phase
            v.env = env
        }
    }

    /// The ramp positions of frames `j ..< j + 4` of a span that starts `ramp` frames after the
    /// ramps' origin (exact integers in floating point, as in the scalar tails).
    @inline(__always)
    static func ramp4(_ ramp: Float, _ j: Int) -> SIMD4<Float> {
        SIMD4(repeating: ramp + Float(j)) + SIMD4(0, 1, 2, 3)
    }

    static func oscillatorMono(
        _ v: inout Voice, _ out: UnsafeMutablePointer<Float>, _ n: Int, _ table: UnsafePointer<Float>, ramp: Float
    ) {
        var oscillator = Oscillator(v, table)
        let gain = v.gainLeft
        let gainStep = v.gainLeftStep
        let raw = UnsafeMutableRawPointer(out)
        var j = 0
        while j &+ 4 <= n {
            let t = ramp4(ramp, j)
            let (w, e) = oscillator.next4(t)
            let o = raw.loadUnaligned(fromByteOffset: j &* 4, as: SIMD4<Float>.self)
            raw.storeBytes(of: o + w * (e * (gain + gainStep * t)), toByteOffset: j &* 4, as: SIMD4<Float>.self)
            j &+= 4
        }
        while j < n {
            let t = ramp + Float(j)
            let (w, e) = oscillator.next(t)
            out[j] += w * (e * (gain + gainStep * t))
            j &+= 1
        }
        oscillator.store(into: &v)
    }

    static func oscillatorStereo(
        _ v: inout Voice, _ out: UnsafeMutablePointer<Float>, _ n: Int, _ table: UnsafePointer<Float>, ramp: Float
    ) {
        var oscillator = Oscillator(v, table)
        let left = v.gainLeft
        let leftStep = v.gainLeftStep
        let right = v.gainRight
        let rightStep = v.gainRightStep
        let raw = UnsafeMutableRawPointer(out)
        var j = 0
        while j &+ 4 <= n {
            let t = ramp4(ramp, j)
            let (w, e) = oscillator.next4(t)
            let x = w * e
            let l = x * (left + leftStep * t)
            let r = x * (right + rightStep * t)
            let o = raw.loadUnaligned(fromByteOffset: j &* 8, as: SIMD8<Float>.self)
            let lr = SIMD8(l[0], r[0], l[1], r[1], l[2], r[2], l[3], r[3])
            raw.storeBytes(of: o + lr, toByteOffset: j &* 8, as: SIMD8<Float>.self)
            j &+= 4
        }
        while j < n {
            let t = ramp + Float(j)
            let (w, e) = oscillator.next(t)
            let x = w * e
            out[2 &* j] += x * (left + leftStep * t)
            out[2 &* j &+ 1] += x * (right + rightStep * t)
            j &+= 1
        }
        oscillator.store(into: &v)
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

    static func clip(
        _ v: inout Voice, _ out: UnsafeMutablePointer<Float>, _ n: Int, channels: Int, lowPass a: Float, ramp: Float
    ) {
        guard let clip = v.clip else { return }
        let frames = Double(clip.frames)
        var position = v.position
        let step = v.step
        var env = v.env
        let k = v.envK
        let d = v.envD
        let left = v.gainLeft
        let leftStep = v.gainLeftStep
        let right = v.gainRight
        let rightStep = v.gainRightStep
        let tilt = v.tilt
        let tiltStep = v.tiltStep
        var lowLeft = v.lowLeft
        var lowRight = v.lowRight
        let stereoClip = clip.channels == 2
        for j in 0..<n {
            let t = ramp + Float(j)
            let tiltNow = tilt + tiltStep * t
            var x = clipSample(clip, position, 0, v.loops)
            var y = stereoClip ? clipSample(clip, position, 1, v.loops) : x
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
            env = env * k + d
            position += step
            if position >= frames && v.loops { position -= frames }
        }
        v.position = position
        v.env = env
        v.lowLeft = lowLeft
        v.lowRight = lowRight
    }
}
