import Dispatch
import HapticsCore
import HapticsSynthesis

/// A request from a player, applied on the tick at its frame.
enum Command: Sendable {
    /// Play `pattern` on the layer from `offset` seconds into it.
    case start(layer: Int, pattern: PreparedPattern, offset: Double, loop: LoopSpec?)
    /// Play `pattern` on the layer as if it had started at frame `origin`, `offset` seconds in:
    /// a piece of a longer pattern (``PreparedPattern/Pieces``), started on the frame its
    /// window begins, plays what the whole pattern started at `origin` plays there.
    case startPiece(layer: Int, pattern: PreparedPattern, origin: Int64, offset: Double)
    /// Fade the layer out.
    case stop(layer: Int)
    /// Stop where it is and remember the place (advanced players).
    case pause(layer: Int)
    /// Play on from where `pause` left off.
    case resume(layer: Int)
    /// Jump to `offset` seconds into the pattern (playing or not).
    case seek(layer: Int, offset: Double)
    case control(layer: Int, id: DynamicParameterID, value: Float)
    case curve(layer: Int, curve: ParameterCurve)
    case mute(layer: Int, muted: Bool)
    /// Replace what later starts, resumes and loops play (a new playback rate or loop end).
    case replace(layer: Int, pattern: PreparedPattern, loop: LoopSpec?)
    case completion(layer: Int, handler: (@Sendable ((any Error)?) -> Void)?)
    /// The player is gone: silence the layer and return it for reuse.
    case release(layer: Int)
}

/// When a command takes effect: as soon as possible, or on an exact output frame.
/// Immediate commands sort before every frame.
enum CommandTime: Comparable, Sendable {
    case immediate
    case frame(Int64)

    /// The frame the command lands on when the tick is at `now`: now, for an immediate or a
    /// late command.
    func frame(from now: Int64) -> Int64 {
        switch self {
        case .immediate: now
        case .frame(let frame): max(frame, now)
        }
    }
}

/// How a looping layer repeats: on reaching `endFrames` into the pattern it starts again from
/// `startFrames` into it (0: the beginning), one iteration every `endFrames - startFrames` frames.
struct LoopSpec: Sendable {
    var startFrames: Int64 = 0
    var endFrames: Int64

    /// Frames per iteration (at least 1).
    var lengthFrames: Int64 { max(1, endFrames - startFrames) }
}

/// What the tick knows about one player's layer.
struct LayerState {
    var active = false
    var pattern: PreparedPattern?
    var startFrame: Int64 = 0
    var startOffset = 0.0
    var endFrame: Int64 = .max
    var loop: LoopSpec?
    var nextLoopFrame: Int64 = .max
    var pausedOffset: Double?
    var pendingSeek: Double?
    var completion: (@Sendable ((any Error)?) -> Void)?
}

/// Everything the tick owns: the synthesizer, the layers and the block buffers.
/// Only the tick (and start/stop) touch it, under a lock no app thread takes.
///
/// On a channel-mapped output (``ChannelMap``) the synthesizer renders the haptic signal into a
/// block of its own, a second synthesizer the preview (when the map has preview channels), and
/// ``spread(frames:)`` interleaves both into the device's channels in ``buffer``; every buffer is
/// allocated here, so the render path stays free of allocation.
struct RenderState: ~Copyable {
    var synthesizer: Synthesizer
    /// The audible preview of a mapped output; used only when ``hasPreview``.
    var preview: Synthesizer
    let hasPreview: Bool
    /// Audio events on the preview only, haptic events on the haptic channels only
    /// (``HapticEngine/Configuration/audioOnPreviewOnly``; set only when there is a preview).
    var audioOnPreviewOnly = false
    var running = false
    var lastHeard: Int64 = 0
    /// When (engine clock) and at which frame the current run first handed audio to the output.
    var firstWriteNanoseconds: UInt64 = 0
    var firstWriteFrame: Int64 = 0
    var idleSinceNanoseconds: UInt64 = 0
    var due: [(deadline: CommandTime, command: Command)] = []
    var layers: [LayerState]
    var released: [Int] = []
    /// The device's channels: samples per frame in ``buffer`` and ``pending``.
    let channels: Int
    var buffer: [Float]
    var pending: [Float]
    var pendingFrames = 0
    /// The first error a write threw since the tick last looked (``HapticEngine`` stops on it).
    var writeFailure: AudioOutputError?
    /// Mapped output only: device channels (0-based) of the haptic and preview channels.
    let hapticTargets: [Int]
    let previewTargets: [Int]
    /// Mapped output only: one block of the haptic signal and one of the preview, as rendered.
    let hapticBlock: UnsafeMutablePointer<Float>
    let previewBlock: UnsafeMutablePointer<Float>

    /// Frames rendered per synthesizer call.
    static let blockFrames = 1024

    /// - Parameters:
    ///   - preview: the preview's synthesizer, nil without a preview.
    ///   - map: where the haptic signal and preview go; nil: the synthesizer's channels are the device's.
    init(
        synthesizer: consuming Synthesizer, preview: consuming Synthesizer?, maxPlayers: Int, channels: Int,
        map: ChannelMap? = nil
    ) {
        self.synthesizer = synthesizer
        hasPreview = preview != nil
        self.preview = preview ?? Synthesizer(format: AudioFormat(), voicing: .standard, maxVoices: 1, maxLayers: 1)
        self.channels = channels
        hapticTargets = map?.hapticChannels.map { $0 - 1 } ?? []
        previewTargets = map?.previewChannels.map { $0 - 1 } ?? []
        hapticBlock = .allocate(capacity: Self.blockFrames * 2)
        hapticBlock.initialize(repeating: 0, count: Self.blockFrames * 2)
        previewBlock = .allocate(capacity: Self.blockFrames * 2)
        previewBlock.initialize(repeating: 0, count: Self.blockFrames * 2)
        layers = Array(repeating: LayerState(), count: maxPlayers)
        buffer = Array(repeating: 0, count: Self.blockFrames * channels)
        pending = []
        pending.reserveCapacity(Self.blockFrames * channels * 64)
        due.reserveCapacity(4096)
        released.reserveCapacity(maxPlayers)
        activeLayers.reserveCapacity(maxPlayers)
    }

    deinit {
        hapticBlock.deallocate()
        previewBlock.deallocate()
    }

    /// Whether the synthesizer's blocks are spread over a wider device.
    var isMapped: Bool { !hapticTargets.isEmpty }

    // MARK: Both synthesizers

    /// Stops `layer` on the synthesizer and the preview.
    mutating func stopSynthesizers(layer: Int, atFrame frame: Int64) {
        synthesizer.stop(layer: layer, atFrame: frame)
        if hasPreview { preview.stop(layer: layer, atFrame: frame) }
    }

    /// Starts `pattern` on `layer` on the synthesizer and the preview.
    mutating func startSynthesizers(
        _ pattern: PreparedPattern, layer: Int, atFrame frame: Int64, asIfStartedAt origin: Int64? = nil, offset: Double
    ) {
        synthesizer.start(pattern, layer: layer, atFrame: frame, asIfStartedAt: origin, offset: offset)
        if hasPreview { preview.start(pattern, layer: layer, atFrame: frame, asIfStartedAt: origin, offset: offset) }
    }

    /// Mutes haptic or audio events on the synthesizer and the preview.
    mutating func setMuted(haptics: Bool, audio: Bool) {
        synthesizer.setMuted(haptics: haptics, audio: audio || audioOnPreviewOnly)
        if hasPreview { preview.setMuted(haptics: haptics || audioOnPreviewOnly, audio: audio) }
    }

    /// Fades every voice of both synthesizers out over `frames` from `frame`.
    mutating func fadeOutAll(atFrame frame: Int64, frames: Int) {
        synthesizer.fadeOutAll(atFrame: frame, frames: frames)
        if hasPreview { preview.fadeOutAll(atFrame: frame, frames: frames) }
    }

    /// Whether neither synthesizer has anything playing or scheduled.
    var synthesizersIdle: Bool { synthesizer.isIdle && (!hasPreview || preview.isIdle) }

    /// The layers now playing, so per-tick work scales with players in use, not `maxPlayers`.
    var activeLayers: [Int] = []

    var hasActiveLayers: Bool { !activeLayers.isEmpty }

    mutating func setActive(_ layer: Int, _ active: Bool) {
        guard layers[layer].active != active else { return }
        layers[layer].active = active
        if active {
            activeLayers.append(layer)
        } else if let index = activeLayers.firstIndex(of: layer) {
            activeLayers.swapAt(index, activeLayers.count - 1)
            activeLayers.removeLast()
        }
    }

    /// Applies the due commands, in (deadline, insertion) order, each at its own frame.
    mutating func applyDue() {
        let now = synthesizer.currentFrame
        for (deadline, command) in due {
            apply(command, at: deadline.frame(from: now))
        }
        due.removeAll(keepingCapacity: true)
    }

    mutating func apply(_ command: Command, at frame: Int64) {
        switch command {
        case .start(let layer, let pattern, let offset, let loop):
            layers[layer].pattern = pattern
            layers[layer].loop = loop
            begin(layer: layer, at: frame, offset: offset)
        case .startPiece(let layer, let pattern, let origin, let offset):
            layers[layer].pattern = pattern
            layers[layer].loop = nil
            begin(layer: layer, at: frame, offset: offset, asIfStartedAt: origin)
        case .stop(let layer):
            stopSynthesizers(layer: layer, atFrame: frame)
            finish(layer: layer, at: frame)
        case .pause(let layer):
            guard layers[layer].active else { return }
            layers[layer].pausedOffset = offset(of: layer, at: frame)
            stopSynthesizers(layer: layer, atFrame: frame)
            setActive(layer, false)
            layers[layer].nextLoopFrame = .max
        case .resume(let layer):
            guard let paused = layers[layer].pausedOffset else { return }
            layers[layer].pausedOffset = nil
            begin(layer: layer, at: frame, offset: paused)
        case .seek(let layer, let offset):
            if layers[layer].active {
                stopSynthesizers(layer: layer, atFrame: frame)
                begin(layer: layer, at: frame, offset: offset)
            } else if layers[layer].pausedOffset != nil {
                layers[layer].pausedOffset = offset
            } else {
                layers[layer].pendingSeek = offset
            }
        case .control(let layer, let id, let value):
            synthesizer.setControl(id, value, layer: layer, atFrame: frame)
            if hasPreview { preview.setControl(id, value, layer: layer, atFrame: frame) }
        case .curve(let layer, let curve):
            synthesizer.scheduleCurve(curve, layer: layer, atFrame: frame)
            if hasPreview { preview.scheduleCurve(curve, layer: layer, atFrame: frame) }
        case .mute(let layer, let muted):
            synthesizer.setMuted(muted, layer: layer)
            if hasPreview { preview.setMuted(muted, layer: layer) }
        case .replace(let layer, let pattern, let loop):
            layers[layer].pattern = pattern
            layers[layer].loop = loop
            if layers[layer].active, let loop {
                let into = synthesizer.format.clampedFrame(at: layers[layer].startOffset)
                layers[layer].nextLoopFrame = layers[layer].startFrame + max(1, loop.endFrames - into)
            } else if loop == nil {
                layers[layer].nextLoopFrame = .max
            }
        case .completion(let layer, let handler):
            layers[layer].completion = handler
        case .release(let layer):
            stopSynthesizers(layer: layer, atFrame: frame)
            setActive(layer, false)
            layers[layer] = LayerState()
            released.append(layer)
        }
    }

    /// Starts the layer's pattern at `frame`, `offset` seconds in (a pending seek wins), or, with
    /// `origin`, as if it had started at frame `origin` (a piece: a pending seek is dropped).
    mutating func begin(layer: Int, at frame: Int64, offset requested: Double, asIfStartedAt origin: Int64? = nil) {
        guard let pattern = layers[layer].pattern else { return }
        let offset = origin == nil ? layers[layer].pendingSeek ?? requested : requested
        layers[layer].pendingSeek = nil
        startSynthesizers(pattern, layer: layer, atFrame: frame, asIfStartedAt: origin, offset: offset)
        // A seek may name any finite offset: past the frame range it saturates (nothing is left).
        let into = synthesizer.format.clampedFrame(at: offset)
        let remaining = max(0, pattern.frameCount - into)
        let start = origin ?? frame
        setActive(layer, true)
        layers[layer].startFrame = start
        layers[layer].startOffset = offset
        if let loop = layers[layer].loop {
            let first = max(1, loop.endFrames - into)
            layers[layer].nextLoopFrame = start + first
            layers[layer].endFrame = .max
        } else {
            layers[layer].nextLoopFrame = .max
            layers[layer].endFrame = max(frame, start + remaining)
        }
    }

    /// Seconds into the pattern the layer has reached at `frame`.
    func offset(of layer: Int, at frame: Int64) -> Double {
        let state = layers[layer]
        return state.startOffset + Double(frame - state.startFrame) / Double(synthesizer.format.sampleRate)
    }

    mutating func finish(layer: Int, at frame: Int64) {
        layers[layer].endFrame = min(layers[layer].endFrame, frame)
        layers[layer].nextLoopFrame = .max
        layers[layer].loop = nil
    }

    /// Renders `frames` frames, starting loop iterations on their exact frames, and writes them.
    mutating func renderAndWrite(frames: Int, to output: any AudioOutput) {
        var left = frames
        while left > 0 {
            let chunk = min(left, Self.blockFrames)
            let end = synthesizer.currentFrame + Int64(chunk)
            restartLoops(before: end)
            if isMapped {
                synthesizer.render(
                    into: UnsafeMutableBufferPointer(start: hapticBlock, count: chunk * synthesizer.format.channels))
                if hasPreview {
                    preview.render(
                        into: UnsafeMutableBufferPointer(start: previewBlock, count: chunk * preview.format.channels))
                }
                spread(frames: chunk)
            } else {
                buffer.withUnsafeMutableBufferPointer { all in
                    synthesizer.render(into: UnsafeMutableBufferPointer(rebasing: all[0..<chunk * channels]))
                }
            }
            write(count: chunk * channels, to: output)
            left -= chunk
        }
    }

    /// Interleaves `frames` frames of the haptic block (and the preview's) into ``buffer``, on
    /// their mapped device channels; every other channel is silent.
    mutating func spread(frames: Int) {
        let channels = channels
        let haptic = hapticBlock, hapticTargets = hapticTargets
        let previewSamples = previewBlock, previewTargets = hasPreview ? previewTargets : []
        buffer.withUnsafeMutableBufferPointer { all in
            let out = all.baseAddress!
            out.update(repeating: 0, count: frames * channels)
            for (source, target) in hapticTargets.enumerated() {
                Self.scatter(haptic, source, hapticTargets.count, into: out + target, channels, frames)
            }
            for (source, target) in previewTargets.enumerated() {
                Self.scatter(previewSamples, source, previewTargets.count, into: out + target, channels, frames)
            }
        }
    }

    /// Copies channel `source` of `stride`-channel interleaved `samples` to every `channels`-th
    /// sample from `out`, `frames` times.
    @inline(__always)
    static func scatter(
        _ samples: UnsafeMutablePointer<Float>, _ source: Int, _ stride: Int,
        into out: UnsafeMutablePointer<Float>, _ channels: Int, _ frames: Int
    ) {
        var from = source
        var to = 0
        for _ in 0..<frames {
            out[to] = samples[from]
            from &+= stride
            to &+= channels
        }
    }

    mutating func restartLoops(before end: Int64) {
        for layer in activeLayers where layers[layer].nextLoopFrame < end {
            while layers[layer].nextLoopFrame < end, let loop = layers[layer].loop, let pattern = layers[layer].pattern
            {
                let at = layers[layer].nextLoopFrame
                let offset = Double(loop.startFrames) / Double(synthesizer.format.sampleRate)
                startSynthesizers(pattern, layer: layer, atFrame: at, offset: offset)
                layers[layer].startFrame = at
                layers[layer].startOffset = offset
                layers[layer].nextLoopFrame = at + loop.lengthFrames
            }
        }
    }

    /// Hands `count` samples of `buffer` to the output; what it does not take waits in `pending`.
    mutating func write(count: Int, to output: any AudioOutput) {
        if pendingFrames > 0 {
            pending.append(contentsOf: buffer[0..<count])
            pendingFrames += count / channels
            return
        }
        var failure: AudioOutputError?
        let accepted = buffer.withUnsafeBufferPointer { all -> Int in
            do throws(AudioOutputError) {
                return try output.write(UnsafeBufferPointer(rebasing: all[0..<count]))
            } catch {
                failure = error
                return 0
            }
        }
        // A write the device refused (it failed, or went away) is kept for the tick to report:
        // swallowed, a device whose every write fails would look like one that plays.
        if let failure, writeFailure == nil { writeFailure = failure }
        if accepted * channels < count {
            pending.append(contentsOf: buffer[(accepted * channels)..<count])
            pendingFrames += (count - accepted * channels) / channels
        }
    }

    /// Writes what an earlier tick could not.
    mutating func flushPending(to output: any AudioOutput) throws(AudioOutputError) {
        guard pendingFrames > 0 else { return }
        var failure: AudioOutputError?
        let accepted = pending.withUnsafeBufferPointer { samples -> Int in
            do throws(AudioOutputError) {
                return try output.write(samples)
            } catch {
                failure = error
                return 0
            }
        }
        if let failure { throw failure }
        pending.removeFirst(accepted * channels)
        pendingFrames -= accepted
    }

    /// Writes everything pending, waiting for room; gives up after `timeoutMilliseconds` or a failure.
    mutating func flushAll(to output: any AudioOutput, timeoutMilliseconds: Int) {
        var left = timeoutMilliseconds
        while pendingFrames > 0 && left > 0 {
            let before = pendingFrames
            do throws(AudioOutputError) {
                try flushPending(to: output)
                if pendingFrames > 0 && pendingFrames == before {
                    _ = try output.waitForRoom(timeoutMilliseconds: 5)
                    left -= 5
                }
            } catch {
                return
            }
        }
    }

    /// Calls the completion of every layer the listener has now heard to its end.
    /// - Returns: true when this tick finished the last active layer.
    mutating func collectFinished(heardFrame: Int64, completions: CompletionMailbox) -> Bool {
        var finishedAny = false
        var index = 0
        while index < activeLayers.count {
            let layer = activeLayers[index]
            guard layers[layer].endFrame <= heardFrame else {
                index += 1
                continue
            }
            setActive(layer, false)
            finishedAny = true
            if let completion = layers[layer].completion {
                completions.post(completion)
            }
        }
        return finishedAny && !hasActiveLayers
    }
}
