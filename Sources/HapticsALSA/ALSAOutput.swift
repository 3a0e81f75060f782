import CAlsa
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
/// the device has it; ``format`` reports what it got), one or two channels, and a buffer of about
/// `latencyMilliseconds` split into periods of a quarter of that. Playback starts once a period has
/// been written; an underrun or a system suspend is recovered on the next call and counted.
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

        public init(
            device: String = "default",
            format: AudioFormat = AudioFormat(),
            latencyMilliseconds: Int = 20,
            sampleFormats: [ALSASampleFormat] = ALSASampleFormat.allCases
        ) {
            precondition((1...2_000).contains(latencyMilliseconds), "latency must be 1...2000 ms")
            precondition(!sampleFormats.isEmpty, "at least one sample format to try")
            self.device = device
            self.format = format
            self.latencyMilliseconds = latencyMilliseconds
            self.sampleFormats = sampleFormats
        }
    }

    public let name: String
    public let format: AudioFormat
    public let bufferFrames: Int
    public let periodFrames: Int
    /// The sample format negotiated with the device.
    public let sampleFormat: ALSASampleFormat

    /// The PCM handle and what belongs to it; ALSA handles are not thread-safe.
    // @unchecked Sendable: the raw pointers are only ever touched inside `device`'s Mutex.
    private struct Device: @unchecked Sendable {
        var pcm: OpaquePointer?
        /// Whether the device is in a system suspend we have counted but not yet left.
        var suspended = false
        /// Conversion target for integer formats: `conversionFrames` frames of `sampleFormat`.
        let conversion: UnsafeMutableRawBufferPointer
    }

    private let device: Mutex<Device>
    private let call: ALSACall
    private let conversionFrames: Int
    private let written = Atomic<Int64>(0)
    private let underruns = Atomic<Int>(0)
    private let suspends = Atomic<Int>(0)

    /// Opens `configuration.device` for playback and negotiates its parameters.
    ///
    /// Throws ``AudioOutputError`` with code `deviceNotFound`, `deviceBusy`, `permissionDenied` or
    /// `unsupportedConfiguration` (none of our formats, or more than two channels) and a message
    /// saying what to do.
    public init(_ configuration: Configuration = Configuration()) throws(AudioOutputError) {
        let call = ALSACall(device: configuration.device)
        call.clearDiagnostic()
        var handle: OpaquePointer?
        try call.check(
            snd_pcm_open(&handle, configuration.device, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK),
            "be opened for playback")
        guard let pcm = handle else {
            throw call.error(errorNumber: ENODEV, "be opened for playback")
        }
        let negotiated: Negotiated
        do {
            negotiated = try Self.negotiate(pcm, configuration, call)
        } catch {
            snd_pcm_close(pcm)
            throw error
        }
        self.call = call
        self.name = configuration.device
        self.format = negotiated.format
        self.sampleFormat = negotiated.sampleFormat
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
                try call.check(snd_pcm_prepare(pcm), "get ready to play")
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

    /// Plays out everything queued (blocking until it has been heard), then stops.
    ///
    /// Call ``start()`` to play again afterwards.
    public func drain() throws(AudioOutputError) {
        try withPCM { (pcm, device) throws(AudioOutputError) in
            try call.check(snd_pcm_nonblock(pcm, 0), "switch to blocking mode to drain")
            let result = snd_pcm_drain(pcm)
            try call.check(snd_pcm_nonblock(pcm, 1), "switch back to non-blocking mode")
            if result == -EPIPE {
                // It ran dry while draining: everything queued was heard. Leave the xrun state.
                try call.check(snd_pcm_drop(pcm), "stop after draining")
                return
            }
            try call.check(result, "play out the queued frames")
        }
    }

    /// Stops at once, discarding queued frames, and releases the device. Closing twice is harmless.
    public func close() {
        device.withLock { device in
            if let pcm = device.pcm {
                snd_pcm_close(pcm)
                device.pcm = nil
            }
        }
    }

    // MARK: Internals

    /// Runs `body` with the open PCM under the lock; throws `closed` after ``close()``.
    private func withPCM<Result>(
        _ body: (OpaquePointer, inout Device) throws(AudioOutputError) -> Result
    ) throws(AudioOutputError) -> Result {
        try device.withLock { (device) throws(AudioOutputError) -> Result in
            guard let pcm = device.pcm else { throw AudioOutputError.closed(device: name) }
            return try body(pcm, &device)
        }
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

// MARK: - Negotiation

extension ALSAOutput {
    /// What the device agreed to.
    private struct Negotiated {
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

        var minimumChannels: UInt32 = 1
        var maximumChannels: UInt32 = 2
        try call.check(
            snd_pcm_hw_params_set_channels_minmax(pcm, hardware, &minimumChannels, &maximumChannels),
            "play mono or stereo")
        var channels = UInt32(configuration.format.channels)
        try call.check(
            snd_pcm_hw_params_set_channels_near(pcm, hardware, &channels),
            "play \(configuration.format.channels) channel(s)")

        var rate = UInt32(configuration.format.sampleRate)
        var direction: Int32 = 0
        try call.check(
            snd_pcm_hw_params_set_rate_near(pcm, hardware, &rate, &direction),
            "play at \(configuration.format.sampleRate) Hz")

        var buffer = snd_pcm_uframes_t(max(4, Int(rate) * configuration.latencyMilliseconds / 1_000))
        try call.check(
            snd_pcm_hw_params_set_buffer_size_near(pcm, hardware, &buffer),
            "use a \(configuration.latencyMilliseconds) ms buffer")
        var period = max(1, buffer / 4)
        direction = 0
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

        guard (1...2).contains(channels), rate > 0 else {
            throw call.error(errorNumber: EINVAL, "play mono or stereo")
        }
        return Negotiated(
            format: AudioFormat(sampleRate: Int(rate), channels: Int(channels)),
            sampleFormat: sampleFormat, bufferFrames: Int(buffer), periodFrames: Int(period))
    }
}
