import CAlsa
import Dispatch
import Foundation
import Glibc
public import HapticsEngine
public import HapticsSynthesis
import Synchronization

#if _endian(big)
    #error("HapticsALSA writes little-endian samples (FLOAT_LE, S32_LE, S16_LE) straight from memory")
#endif

/// How samples travel to an ALSA device. We convert our float blocks to whichever one the device takes.
public enum ALSASampleFormat: String, CaseIterable, Hashable, Sendable {
    /// 32-bit IEEE float, little-endian: our blocks go to the device unconverted.
    case float32 = "FLOAT_LE"
    /// 32-bit signed integer, little-endian; -1...1 maps to -2147483647...2147483647.
    case signed32 = "S32_LE"
    /// 16-bit signed integer, little-endian; -1...1 maps to -32767...32767.
    case signed16 = "S16_LE"

    /// Bytes per sample.
    public var bytesPerSample: Int {
        switch self {
        case .float32, .signed32: 4
        case .signed16: 2
        }
    }

    var alsaFormat: snd_pcm_format_t {
        switch self {
        case .float32: SND_PCM_FORMAT_FLOAT_LE
        case .signed32: SND_PCM_FORMAT_S32_LE
        case .signed16: SND_PCM_FORMAT_S16_LE
        }
    }
}

/// Plays through an ALSA PCM device in real time, without ever blocking the caller's thread.
///
/// Opening negotiates everything with the device: the sample format (float, then 32-bit, then 16-bit
/// integer, converting our float blocks into a buffer allocated once), the rate (the requested one if
/// the device has it; ``format`` reports what it got), one or two channels (exactly a channel map's
/// count and rate when it has one, see ``Configuration/channelMap``), and a buffer of about
/// `latencyMilliseconds` split into periods of a quarter of that. Playback starts once a period has
/// been written; an underrun or a system suspend is recovered on the next call and counted.
///
/// A device that stops taking frames (its sound server is stopped or hung) never holds the caller:
/// opening waits at most ``Configuration/stallSeconds`` for the device to answer, ``drain()`` polls
/// instead of blocking in ALSA, and once the device has taken no frames for that long every call
/// throws ``AudioOutputError/Code/deviceStalled`` and ``close()`` leaves the handle to a thread of
/// its own. ``stallError`` reports the stall to a watchdog on any thread.
///
/// ```swift
/// let output = try ALSAOutput(.init(device: "default", latencyMilliseconds: 20))
/// try output.start()
/// var block = [Float](repeating: 0, count: output.bufferFrames * output.format.channels)
/// let room = try output.availableFrames()          // render `room` frames into block, then:
/// _ = try block.withUnsafeBufferPointer { try output.write(UnsafeBufferPointer(rebasing: $0[..<room])) }
/// try output.drain()
/// output.close()
/// ```
///
/// Call it from one serial queue (the engine's); ``framesWritten``, ``underrunCount`` and
/// ``suspendCount`` may be read from anywhere.
public final class ALSAOutput: AudioOutput {
    /// What to open and how.
    public struct Configuration: Hashable, Sendable {
        /// The ALSA PCM name: `"default"`, `"hw:0,0"`, `"plughw:1"`, `"pulse"`, `"null"`, ...
        public var device: String
        /// The rate and channels to ask for; the device may give a different rate.
        public var format: AudioFormat
        /// Target device buffer, in milliseconds: the delay between a write and the loudspeaker.
        public var latencyMilliseconds: Int
        /// Sample formats to try, in order of preference.
        public var sampleFormats: [ALSASampleFormat]
        /// How long the device may take no frames (or take to open) before it counts as stalled.
        public var stallSeconds: Double
        /// How many periods the buffer is split into. The device (and a sound server's client
        /// thread, such as PulseAudio's ALSA plugin) wakes once per period, and the engine ticks
        /// once per period: fewer periods, fewer wake-ups, less slack for a late tick.
        public var periodsPerBuffer: Int
        /// Where the haptic signal (and the preview) go on a device with more channels than the
        /// render (a DualSense: ``ChannelMap/dualSense(preview:)``); nil: mono or stereo as
        /// `format` asks. With a map the device must take exactly its channel count and
        /// `format`'s rate: ALSA may neither mix the channels down nor resample (the actuator
        /// would get a different signal), so a device that cannot is refused with a message.
        public var channelMap: ChannelMap?

        public init(
            device: String = "default",
            format: AudioFormat = AudioFormat(),
            latencyMilliseconds: Int = 20,
            sampleFormats: [ALSASampleFormat] = ALSASampleFormat.allCases,
            stallSeconds: Double = 2,
            periodsPerBuffer: Int = 4,
            channelMap: ChannelMap? = nil
        ) {
            precondition((1...2_000).contains(latencyMilliseconds), "latency must be 1...2000 ms")
            precondition((2...16).contains(periodsPerBuffer), "a buffer holds 2...16 periods")
            precondition(!sampleFormats.isEmpty, "at least one sample format to try")
            precondition(stallSeconds > 0 && stallSeconds.isFinite, "the stall bound is a positive time")
            self.device = device
            self.format = format
            self.latencyMilliseconds = latencyMilliseconds
            self.sampleFormats = sampleFormats
            self.stallSeconds = stallSeconds
            self.periodsPerBuffer = periodsPerBuffer
            self.channelMap = channelMap
        }
    }

    public let name: String
    public let format: AudioFormat
    public let bufferFrames: Int
    public let periodFrames: Int
    /// The sample format negotiated with the device.
    public let sampleFormat: ALSASampleFormat
    /// The configuration's channel map: ``format`` then has its device channels.
    public let channelMap: ChannelMap?

    /// The PCM handle and what belongs to it; ALSA handles are not thread-safe.
    // @unchecked Sendable: the raw pointers are only ever touched inside `device`'s Mutex.
    private struct Device: @unchecked Sendable {
        var pcm: OpaquePointer?
        /// Whether the device is in a system suspend we have counted but not yet left.
        var suspended = false
        /// Frames the device had taken off its queue at the last check: it moves while the device plays.
        var position: Int64 = .min
        /// Conversion target for integer formats: `conversionFrames` frames of `sampleFormat`.
        let conversion: UnsafeMutableRawBufferPointer
    }

    private let device: Mutex<Device>
    private let call: ALSACall
    private let conversionFrames: Int
    private let written = Atomic<Int64>(0)
    private let underruns = Atomic<Int>(0)
    private let suspends = Atomic<Int>(0)
    /// The stall bound in nanoseconds.
    private let stallNanoseconds: UInt64
    /// When the device last took frames while playing (monotonic ns); 0 while it is not playing.
    private let lastProgress = Atomic<UInt64>(0)
    /// When the oldest ALSA call still running began (monotonic ns); 0 when none runs.
    private let callSince = Atomic<UInt64>(0)
    /// Set once the device has stalled: from then on nothing talks to it.
    private let stalled = Atomic<Bool>(false)

    /// Opens `configuration.device` for playback and negotiates its parameters.
    ///
    /// Throws ``AudioOutputError`` with code `deviceNotFound`, `deviceBusy`, `permissionDenied` or
    /// `unsupportedConfiguration` (none of our formats, or more than two channels; with a channel
    /// map, fewer channels than it needs or not the exact rate) and a message saying what to do.
    public init(_ configuration: Configuration = Configuration()) throws(AudioOutputError) {
        let call = ALSACall(device: configuration.device)
        let (pcm, negotiated) = try Self.openBounded(configuration, call)
        self.call = call
        self.stallNanoseconds = UInt64(configuration.stallSeconds * 1e9)
        self.name = configuration.device
        self.format = negotiated.format
        self.sampleFormat = negotiated.sampleFormat
        self.channelMap = configuration.channelMap
        self.bufferFrames = negotiated.bufferFrames
        self.periodFrames = negotiated.periodFrames
        let conversionFrames = negotiated.sampleFormat == .float32 ? 0 : negotiated.bufferFrames
        self.conversionFrames = conversionFrames
        let conversion = UnsafeMutableRawBufferPointer.allocate(
            byteCount: conversionFrames * negotiated.format.channels * negotiated.sampleFormat.bytesPerSample,
            alignment: 16)
        self.device = Mutex(Device(pcm: pcm, conversion: conversion))
    }

    deinit {
        close()
        device.withLock { $0.conversion.deallocate() }
    }

    // MARK: Counters

    public var framesWritten: Int64 { written.load(ordering: .relaxed) }

    public var underrunCount: Int { underruns.load(ordering: .relaxed) }

    /// How often the system suspended the device (e.g. the laptop slept) while it was open.
    public var suspendCount: Int { suspends.load(ordering: .relaxed) }

    // MARK: Playback

    public func start() throws(AudioOutputError) {
        try withPCM { (pcm, device) throws(AudioOutputError) in
            switch snd_pcm_state(pcm) {
            case SND_PCM_STATE_SETUP:
                break  // Prepared below, outside the lock: PulseAudio's plugin waits for the server.
            case SND_PCM_STATE_XRUN:
                _ = try recover(pcm, &device, EPIPE)
            case SND_PCM_STATE_SUSPENDED:
                _ = try recover(pcm, &device, ESTRPIPE)
            case SND_PCM_STATE_DISCONNECTED:
                throw call.error(errorNumber: ENODEV, "start playing")
            default:
                break  // PREPARED, RUNNING, DRAINING, PAUSED: already able to take frames.
            }
        }
        let setUp = try withPCM { (pcm, _) in snd_pcm_state(pcm) == SND_PCM_STATE_SETUP }
        if setUp { try bounded("get ready to play") { snd_pcm_prepare($0.pcm) } }
    }

    /// Frames the device can take now (`snd_pcm_avail`, synchronised with the hardware pointer).
    public func availableFrames() throws(AudioOutputError) -> Int {
        try query("report its free room") { pcm in snd_pcm_avail(pcm) }
    }

    /// Frames written but not yet heard, including what the sound server still holds; 0 after an
    /// underrun. See ``timing()``.
    public func delayFrames() throws(AudioOutputError) -> Int {
        try timing().delayFrames
    }

    /// Free room and delay in one `snd_pcm_avail_delay` call, so both describe the same instant.
    ///
    /// Before playback has started nothing has been heard, so the delay is exactly the frames
    /// queued; we compute it from the free room instead of asking the device, because some PCMs
    /// (PulseAudio's) cannot report a delay until they run.
    public func timing() throws(AudioOutputError) -> OutputTiming {
        try withPCM { (pcm, device) throws(AudioOutputError) -> OutputTiming in
            var attempts = 0
            while true {
                attempts += 1
                if snd_pcm_state(pcm) == SND_PCM_STATE_PREPARED {
                    let available = try call.check(snd_pcm_avail(pcm), "report its free room")
                    try checkProgress(pcm, &device, available: available)
                    return OutputTiming(
                        availableFrames: available, delayFrames: max(0, bufferFrames - available))
                }
                var available: snd_pcm_sframes_t = 0
                var delay: snd_pcm_sframes_t = 0
                let result = snd_pcm_avail_delay(pcm, &available, &delay)
                if (result == -EPIPE || result == -ESTRPIPE) && attempts < 3 {
                    guard try recover(pcm, &device, -result) else {
                        return OutputTiming(availableFrames: 0, delayFrames: 0)  // Still suspended.
                    }
                    continue
                }
                try call.check(result, "report its free room and delay")
                try checkProgress(pcm, &device, available: available)
                return OutputTiming(availableFrames: available, delayFrames: max(0, delay))
            }
        }
    }

    /// Writes interleaved float frames without blocking; returns how many the device accepted.
    ///
    /// Float devices get the samples as they are; integer devices get them clamped to -1...1
    /// (NaN becomes 0) and scaled, in chunks of up to ``bufferFrames``.
    /// - Complexity: O(`samples.count`); never allocates.
    public func write(_ samples: UnsafeBufferPointer<Float>) throws(AudioOutputError) -> Int {
        let channels = format.channels
        precondition(samples.count % channels == 0, "a write holds whole frames")
        let frames = samples.count / channels
        guard frames > 0, let base = samples.baseAddress else { return 0 }
        let accepted = try withPCM { (pcm, device) throws(AudioOutputError) -> Int in
            var done = 0
            var recoveries = 0
            while done < frames {
                let chunk: Int
                let source: UnsafeRawPointer
                if sampleFormat == .float32 {
                    chunk = frames - done
                    source = UnsafeRawPointer(base + done * channels)
                } else {
                    chunk = min(frames - done, conversionFrames)
                    convert(base + done * channels, count: chunk * channels, into: device.conversion)
                    source = UnsafeRawPointer(device.conversion.baseAddress!)
                }
                let result = snd_pcm_writei(pcm, source, snd_pcm_uframes_t(chunk))
                if result >= 0 {
                    done += result
                    if result < chunk { break }  // The device is full.
                    continue
                }
                let errorNumber = Int32(truncatingIfNeeded: -result)
                if errorNumber == EAGAIN { break }
                if (errorNumber == EPIPE || errorNumber == ESTRPIPE) && recoveries < 2 {
                    recoveries += 1
                    if try recover(pcm, &device, errorNumber) { continue }
                    break  // Still suspended: nothing can be written yet.
                }
                try call.check(result, "play \(chunk) frames")
            }
            return done
        }
        written.add(Int64(accepted), ordering: .relaxed)
        if accepted > 0 && lastProgress.load(ordering: .relaxed) != 0 {
            lastProgress.store(Self.now(), ordering: .releasing)
        }
        return accepted
    }

    /// Blocks (`snd_pcm_wait`) until the device has room for a period, or `timeoutMilliseconds` pass.
    ///
    /// A device that has not started (less than a period written) never frees room: write first.
    public func waitForRoom(timeoutMilliseconds: Int) throws(AudioOutputError) -> Bool {
        try withPCM { (pcm, device) throws(AudioOutputError) -> Bool in
            let result = snd_pcm_wait(pcm, Int32(clamping: timeoutMilliseconds))
            if result == -EPIPE || result == -ESTRPIPE {
                return try recover(pcm, &device, -result)
            }
            return try call.check(result, "wait for free room") > 0
        }
    }

    /// Plays out everything queued (waiting until it has been heard), then stops.
    ///
    /// Polls the device every 2 ms instead of blocking in `snd_pcm_drain`, which waits for the
    /// sound server however long it takes: a device that stops taking frames ends the wait after
    /// ``Configuration/stallSeconds`` with ``AudioOutputError/Code/deviceStalled``.
    /// Call ``start()`` to play again afterwards.
    public func drain() throws(AudioOutputError) {
        while true {
            // Microseconds to wait before looking again (negative: wait, then stop); nil: done.
            let wait = try withPCM { (pcm, device) throws(AudioOutputError) -> Int? in
                switch snd_pcm_state(pcm) {
                case SND_PCM_STATE_PREPARED:
                    // Less than a period was written, so it never started: start it to hear that.
                    let available = try call.check(snd_pcm_avail(pcm), "report its free room")
                    guard available < bufferFrames else { return nil }
                    try call.check(snd_pcm_start(pcm), "start playing what is queued")
                    return 0
                case SND_PCM_STATE_RUNNING, SND_PCM_STATE_DRAINING:
                    var available: snd_pcm_sframes_t = 0
                    var delay: snd_pcm_sframes_t = 0
                    let result = snd_pcm_avail_delay(pcm, &available, &delay)
                    if result == -EPIPE { return nil }  // It ran dry: everything queued was heard.
                    try call.check(result, "report how much it still has to play")
                    try checkProgress(pcm, &device, available: available)
                    guard delay > 0 else { return nil }
                    // Our buffer is empty and the rest sits in the sound server: wait it out once.
                    if available >= bufferFrames {
                        return -min(delay * 1_000_000 / format.sampleRate, 500_000)
                    }
                    return 2_000
                default:
                    return nil  // Ran dry, suspended or never set up: nothing more will be heard.
                }
            }
            guard let wait else { break }
            usleep(UInt32(abs(wait)))
            if wait < 0 { break }
        }
        lastProgress.store(0, ordering: .releasing)
        try withPCM { (_, device) in device.position = .min }
        // PulseAudio's plugin waits for the server to confirm a drop.
        try bounded("stop after draining") { snd_pcm_drop($0.pcm) }
    }

    /// Stops at once, discarding queued frames, and releases the device. Closing twice is harmless.
    ///
    /// A stalled device is not waited for: its handle goes to a thread of its own, which closes it
    /// if the sound server ever answers again (ALSA's close waits for the server).
    public func close() {
        // A call stuck in the device may hold the lock; then that call's thread keeps the handle.
        var handle: PCMHandle?
        while true {
            if let taken = device.withLockIfAvailable({ device -> PCMHandle? in
                defer { device.pcm = nil }
                return device.pcm.map(PCMHandle.init)
            }) {
                handle = taken
                break
            }
            if stalled.load(ordering: .acquiring) { return }
            usleep(50)
        }
        guard let handle else { return }
        // ALSA's close drops what is queued, and PulseAudio's plugin waits for the server to
        // confirm: close on a thread of its own and wait at most the stall bound.
        let closed = DispatchSemaphore(value: 0)
        let thread = Thread {
            snd_pcm_close(handle.pcm)
            closed.signal()
        }
        thread.name = "swift-haptics.alsa.close"
        thread.start()
        if stalled.load(ordering: .acquiring) { return }
        if closed.wait(timeout: .now() + Double(stallNanoseconds) / 1e9) == .timedOut {
            stalled.store(true, ordering: .releasing)
        }
    }

    // MARK: Stalls

    /// Why the device counts as stalled now, or nil. Lock-free: safe from a watchdog on any thread.
    ///
    /// The device is stalled once it has taken no frames for ``Configuration/stallSeconds`` while
    /// playing, or one call to it has not returned for that long.
    public var stallError: AudioOutputError? {
        if stalled.load(ordering: .acquiring) { return stallError(cause: "took no frames") }
        let now = Self.now()
        let since = callSince.load(ordering: .acquiring)
        // A call or a progress note may come in on another thread after `now` was read: a time
        // later than `now` is no time at all, never a wrapped-around eternity.
        if since != 0 && Self.nanoseconds(from: since, to: now) > stallNanoseconds {
            return stallError(cause: "did not answer")
        }
        let progress = lastProgress.load(ordering: .acquiring)
        if progress != 0 && Self.nanoseconds(from: progress, to: now) > stallNanoseconds {
            return stallError(cause: "took no frames")
        }
        return nil
    }

    /// `end - start`, or 0 when `start` is later (read on another thread after `end`).
    static func nanoseconds(from start: UInt64, to end: UInt64) -> UInt64 {
        end > start ? end - start : 0
    }

    private func stallError(cause: String) -> AudioOutputError {
        Self.stallError(device: name, cause: cause, seconds: Double(stallNanoseconds) / 1e9)
    }

    static func stallError(device: String, cause: String, seconds: Double) -> AudioOutputError {
        AudioOutputError(
            code: .deviceStalled, device: device,
            message: """
                device '\(device)' stalled: it \(cause) for \(String(format: "%.1f", seconds)) s \
                (is its sound server stopped or hung?)
                """)
    }

    /// Notes whether the playing device took frames since the last check; throws once it has not
    /// for longer than the bound, and from then on the output is stalled for good.
    private func checkProgress(
        _ pcm: OpaquePointer, _ device: inout Device, available: Int
    ) throws(AudioOutputError) {
        let state = snd_pcm_state(pcm)
        guard state == SND_PCM_STATE_RUNNING || state == SND_PCM_STATE_DRAINING else {
            // Waiting for us (prepared), or ran dry: nothing to blame the device for.
            lastProgress.store(0, ordering: .releasing)
            device.position = .min
            return
        }
        let position = written.load(ordering: .relaxed) - Int64(bufferFrames - available)
        let now = Self.now()
        if position > device.position || lastProgress.load(ordering: .relaxed) == 0 {
            device.position = position
            lastProgress.store(now, ordering: .releasing)
        } else if Self.nanoseconds(from: lastProgress.load(ordering: .relaxed), to: now) > stallNanoseconds {
            stalled.store(true, ordering: .releasing)
            throw stallError(cause: "took no frames")
        }
    }

    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    // MARK: Internals

    /// Runs `body` with the open PCM under the lock; throws `closed` after ``close()``.
    private func withPCM<Result>(
        _ body: (OpaquePointer, inout Device) throws(AudioOutputError) -> Result
    ) throws(AudioOutputError) -> Result {
        guard !stalled.load(ordering: .acquiring) else { throw stallError(cause: "took no frames") }
        // Note when the oldest call began, so a watchdog sees a call that never returns.
        let began = Self.now()
        let oldest = callSince.compareExchange(expected: 0, desired: began, ordering: .acquiringAndReleasing)
        defer { if oldest.exchanged { callSince.store(0, ordering: .releasing) } }
        // Never queue behind a call stuck in the device: poll the lock, giving up once it stalled.
        while true {
            let result = try device.withLockIfAvailable { (device) throws(AudioOutputError) -> Result in
                guard let pcm = device.pcm else { throw AudioOutputError.closed(device: name) }
                return try body(pcm, &device)
            }
            if let result { return result }
            guard !stalled.load(ordering: .acquiring) else { throw stallError(cause: "did not answer") }
            usleep(50)
        }
    }

    /// Runs an ALSA call that may wait for the sound server (prepare, drop, close) on a thread of
    /// its own, and waits for it at most the stall bound. A call that takes longer marks the
    /// device stalled and is left to finish, or to wait for ever, on its thread.
    @discardableResult
    private func bounded(
        _ what: String, _ body: @escaping @Sendable (PCMHandle) -> Int32
    ) throws(AudioOutputError) -> Int32 {
        guard !stalled.load(ordering: .acquiring) else { throw stallError(cause: "took no frames") }
        let answer = Mutex<Int32?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread { [self] in
            do throws(AudioOutputError) {
                let result = try withPCM { (pcm, _) throws(AudioOutputError) in body(PCMHandle(pcm: pcm)) }
                answer.withLock { $0 = result }
            } catch {
                answer.withLock { $0 = -EBADFD }
            }
            done.signal()
        }
        thread.name = "swift-haptics.alsa.call"
        thread.start()
        guard done.wait(timeout: .now() + Double(stallNanoseconds) / 1e9) == .success,
            let result = answer.withLock({ $0 })
        else {
            stalled.store(true, ordering: .releasing)
            throw stallError(cause: "did not answer")
        }
        return try call.check(result, what)
    }

    /// Runs a query that returns a frame count or a negative error, recovering from an underrun or
    /// suspend once. While the device stays suspended the answer is 0.
    private func query(
        _ what: @autoclosure () -> String, _ body: (OpaquePointer) -> Int
    ) throws(AudioOutputError) -> Int {
        try withPCM { (pcm, device) throws(AudioOutputError) -> Int in
            var result = body(pcm)
            if result == -Int(EPIPE) || result == -Int(ESTRPIPE) {
                guard try recover(pcm, &device, Int32(-result)) else { return 0 }
                result = body(pcm)
            }
            return try call.check(result, what())
        }
    }

    /// Brings the device back after an underrun (`EPIPE`) or a suspend (`ESTRPIPE`) and counts it.
    ///
    /// Returns `false` if the device is still suspended (the system has not resumed it yet); the
    /// next call tries again. Never sleeps, unlike `snd_pcm_recover`.
    private func recover(
        _ pcm: OpaquePointer, _ device: inout Device, _ errorNumber: Int32
    ) throws(AudioOutputError) -> Bool {
        if errorNumber == EPIPE {
            underruns.add(1, ordering: .relaxed)
            try call.check(snd_pcm_prepare(pcm), "restart after an underrun")
            return true
        }
        if !device.suspended {
            device.suspended = true
            suspends.add(1, ordering: .relaxed)
        }
        let resumed = snd_pcm_resume(pcm)
        if resumed == -EAGAIN { return false }
        if resumed < 0 {
            // The device cannot resume where it stopped: start it afresh.
            try call.check(snd_pcm_prepare(pcm), "restart after a system suspend")
        }
        device.suspended = false
        return true
    }

    /// Converts `count` float samples into `conversion` in the device's integer format.
    private func convert(
        _ source: UnsafePointer<Float>, count: Int, into conversion: UnsafeMutableRawBufferPointer
    ) {
        switch sampleFormat {
        case .float32:
            break
        case .signed32:
            let target = conversion.baseAddress!.assumingMemoryBound(to: Int32.self)
            for index in 0..<count {
                target[index] =
                    Int32((Double(Self.clamp(source[index])) * 2_147_483_647).rounded()).littleEndian
            }
        case .signed16:
            let target = conversion.baseAddress!.assumingMemoryBound(to: Int16.self)
            for index in 0..<count {
                target[index] = Int16((Self.clamp(source[index]) * 32_767).rounded()).littleEndian
            }
        }
    }

    /// `sample` limited to -1...1; NaN becomes silence.
    @inline(__always)
    private static func clamp(_ sample: Float) -> Float {
        sample > 1 ? 1 : sample < -1 ? -1 : sample == sample ? sample : 0
    }
}

// MARK: - Opening without hanging

/// A PCM handle handed between threads; the receiving thread is its only user.
// @unchecked Sendable: the handle is used by one thread at a time, passed on under a Mutex.
struct PCMHandle: @unchecked Sendable {
    let pcm: OpaquePointer
}

extension ALSAOutput {
    /// Opens and negotiates on a thread of its own, waiting at most `stallSeconds`: opening a
    /// PulseAudio PCM waits for the server, forever if the server is stopped. A late answer is
    /// closed by that thread.
    private static func openBounded(
        _ configuration: Configuration, _ call: ALSACall
    ) throws(AudioOutputError) -> (OpaquePointer, Negotiated) {
        typealias Opened = Result<(PCMHandle, Negotiated), AudioOutputError>
        let attempt = Mutex<(result: Opened?, abandoned: Bool)>((nil, false))
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            let result = Opened { () throws(AudioOutputError) -> (PCMHandle, Negotiated) in
                let (pcm, negotiated) = try open(configuration, call)
                return (PCMHandle(pcm: pcm), negotiated)
            }
            let late = attempt.withLock { attempt -> Bool in
                attempt.result = result
                return attempt.abandoned
            }
            if late, case .success(let (handle, _)) = result { snd_pcm_close(handle.pcm) }
            done.signal()
        }
        thread.name = "swift-haptics.alsa.open"
        thread.start()
        if done.wait(timeout: .now() + configuration.stallSeconds) == .timedOut {
            let result = attempt.withLock { attempt -> Opened? in
                if attempt.result == nil { attempt.abandoned = true }
                return attempt.result
            }
            guard result != nil else {
                throw stallError(
                    device: configuration.device, cause: "did not answer when opened",
                    seconds: configuration.stallSeconds)
            }
        }
        let result = attempt.withLock { $0.result }!
        let (handle, negotiated) = try result.get()
        return (handle.pcm, negotiated)
    }

    /// Opens the PCM (non-blocking) and negotiates its parameters; on the calling thread.
    private static func open(
        _ configuration: Configuration, _ call: ALSACall
    ) throws(AudioOutputError) -> (OpaquePointer, Negotiated) {
        call.clearDiagnostic()
        var handle: OpaquePointer?
        // A mapped device gets exactly its channels at exactly the rate: no plugin may mix the
        // actuator channels into the others, or resample the signal made for them.
        let mode =
            SND_PCM_NONBLOCK
            | (configuration.channelMap == nil ? 0 : SND_PCM_NO_AUTO_RESAMPLE | SND_PCM_NO_AUTO_CHANNELS)
        try call.check(
            snd_pcm_open(&handle, configuration.device, SND_PCM_STREAM_PLAYBACK, mode), ALSACall.opening)
        guard let pcm = handle else {
            throw call.error(errorNumber: ENODEV, ALSACall.opening)
        }
        do {
            return (pcm, try negotiate(pcm, configuration, call))
        } catch {
            snd_pcm_close(pcm)
            throw error
        }
    }
}

// MARK: - Negotiation

extension ALSAOutput {
    /// What the device agreed to.
    struct Negotiated: Sendable {
        var format: AudioFormat
        var sampleFormat: ALSASampleFormat
        var bufferFrames: Int
        var periodFrames: Int
    }

    /// Sets hardware and software parameters on a freshly opened PCM.
    private static func negotiate(
        _ pcm: OpaquePointer, _ configuration: Configuration, _ call: ALSACall
    ) throws(AudioOutputError) -> Negotiated {
        var hardwareHandle: OpaquePointer?
        try call.check(snd_pcm_hw_params_malloc(&hardwareHandle), "allocate hardware parameters")
        guard let hardware = hardwareHandle else {
            throw call.error(errorNumber: ENOMEM, "allocate parameters")
        }
        defer { snd_pcm_hw_params_free(hardware) }

        try call.check(snd_pcm_hw_params_any(pcm, hardware), "report what it supports")
        try call.check(
            snd_pcm_hw_params_set_access(pcm, hardware, SND_PCM_ACCESS_RW_INTERLEAVED),
            "take interleaved frames")

        guard
            let sampleFormat = configuration.sampleFormats.first(where: {
                snd_pcm_hw_params_test_format(pcm, hardware, $0.alsaFormat) == 0
            })
        else {
            let tried = configuration.sampleFormats.map(\.rawValue).joined(separator: ", ")
            throw AudioOutputError(
                code: .unsupportedConfiguration, device: call.device,
                message: """
                    device '\(call.device)' takes none of the sample formats \(tried); \
                    try its 'plug' wrapper (plughw: instead of hw:) or 'default'
                    """)
        }
        try call.check(
            snd_pcm_hw_params_set_format(pcm, hardware, sampleFormat.alsaFormat),
            "use sample format \(sampleFormat.rawValue)")

        var rate = UInt32(configuration.format.sampleRate)
        var channels = UInt32(configuration.format.channels)
        if let map = configuration.channelMap {
            try negotiateExactly(map, rate: rate, pcm, hardware, call)
            channels = UInt32(map.deviceChannels)
        } else {
            var minimumChannels: UInt32 = 1
            var maximumChannels: UInt32 = 2
            try call.check(
                snd_pcm_hw_params_set_channels_minmax(pcm, hardware, &minimumChannels, &maximumChannels),
                "play mono or stereo")
            try call.check(
                snd_pcm_hw_params_set_channels_near(pcm, hardware, &channels),
                "play \(configuration.format.channels) channel(s)")

            var direction: Int32 = 0
            try call.check(
                snd_pcm_hw_params_set_rate_near(pcm, hardware, &rate, &direction),
                "play at \(configuration.format.sampleRate) Hz")
        }
        var direction: Int32 = 0

        var buffer = snd_pcm_uframes_t(max(4, Int(rate) * configuration.latencyMilliseconds / 1_000))
        try call.check(
            snd_pcm_hw_params_set_buffer_size_near(pcm, hardware, &buffer),
            "use a \(configuration.latencyMilliseconds) ms buffer")
        var period = max(1, buffer / snd_pcm_uframes_t(configuration.periodsPerBuffer))
        try call.check(
            snd_pcm_hw_params_set_period_size_near(pcm, hardware, &period, &direction),
            "use \(period)-frame periods")
        try call.check(snd_pcm_hw_params(pcm, hardware), "apply the negotiated hardware parameters")
        try call.check(snd_pcm_hw_params_get_buffer_size(hardware, &buffer), "report its buffer size")
        try call.check(snd_pcm_hw_params_get_period_size(hardware, &period, &direction), "report its period")

        var softwareHandle: OpaquePointer?
        try call.check(snd_pcm_sw_params_malloc(&softwareHandle), "allocate software parameters")
        guard let software = softwareHandle else {
            throw call.error(errorNumber: ENOMEM, "allocate parameters")
        }
        defer { snd_pcm_sw_params_free(software) }
        try call.check(snd_pcm_sw_params_current(pcm, software), "report its software parameters")
        try call.check(
            snd_pcm_sw_params_set_start_threshold(pcm, software, period),
            "start playing once a period is written")
        try call.check(snd_pcm_sw_params_set_avail_min(pcm, software, period), "wake up once per period")
        try call.check(snd_pcm_sw_params(pcm, software), "apply the software parameters")

        let wanted = configuration.channelMap.map { $0.deviceChannels...$0.deviceChannels } ?? 1...2
        guard wanted.contains(Int(channels)), rate > 0 else {
            throw call.error(errorNumber: EINVAL, "play \(wanted.lowerBound)...\(wanted.upperBound) channels")
        }
        return Negotiated(
            format: AudioFormat(sampleRate: Int(rate), channels: Int(channels)),
            sampleFormat: sampleFormat, bufferFrames: Int(buffer), periodFrames: Int(period))
    }

    /// Sets exactly the map's channel count and exactly `rate`, or says in one line what the
    /// device offers instead.
    private static func negotiateExactly(
        _ map: ChannelMap, rate: UInt32, _ pcm: OpaquePointer, _ hardware: OpaquePointer, _ call: ALSACall
    ) throws(AudioOutputError) {
        var fewest: UInt32 = 0
        var most: UInt32 = 0
        snd_pcm_hw_params_get_channels_min(hardware, &fewest)
        snd_pcm_hw_params_get_channels_max(hardware, &most)
        guard snd_pcm_hw_params_test_channels(pcm, hardware, UInt32(map.deviceChannels)) == 0 else {
            let has = fewest == most ? "\(most) channel\(most == 1 ? "" : "s")" : "\(fewest)-\(most) channels"
            throw AudioOutputError(
                code: .unsupportedConfiguration, device: call.device,
                message: """
                    device '\(call.device)' has \(has), not the \(map.deviceChannels) the channel map \(map) \
                    needs; check --channels and --haptic-channels against `haptic devices`
                    """, systemErrorNumber: EINVAL)
        }
        try call.check(
            snd_pcm_hw_params_set_channels(pcm, hardware, UInt32(map.deviceChannels)),
            "play \(map.deviceChannels) channels")
        var lowest: UInt32 = 0
        var highest: UInt32 = 0
        var lowestDirection: Int32 = 0
        var highestDirection: Int32 = 0
        snd_pcm_hw_params_get_rate_min(hardware, &lowest, &lowestDirection)
        snd_pcm_hw_params_get_rate_max(hardware, &highest, &highestDirection)
        // An open end (44100 up to just below 44101) names the whole rate it stops short of.
        if lowestDirection > 0 { lowest += 1 }
        if highestDirection < 0 && highest > lowest { highest -= 1 }
        guard snd_pcm_hw_params_test_rate(pcm, hardware, rate, 0) == 0 else {
            let plays = lowest == highest ? "\(lowest) Hz" : "\(lowest)-\(highest) Hz"
            throw AudioOutputError(
                code: .unsupportedConfiguration, device: call.device,
                message: """
                    device '\(call.device)' does not play at \(rate) Hz (it plays \(plays)), and a haptic \
                    signal is not resampled: pick a device that does (`haptic devices`)
                    """, systemErrorNumber: EINVAL)
        }
        try call.check(snd_pcm_hw_params_set_rate(pcm, hardware, rate, 0), "play at \(rate) Hz")
    }
}
