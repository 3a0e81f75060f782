import CAlsa
import Dispatch
import Foundation
import Glibc
public import HapticsEngine
import Synchronization

/// A playback device ALSA knows about.
public struct DeviceInfo: Hashable, Sendable {
    /// The name to open it by, e.g. `"default"`, `"hw:CARD=PCH,DEV=0"`.
    public var name: String
    /// ALSA's human description, its lines joined with ", " (e.g. "HDA Intel PCH, ALC3246 Analog").
    public var description: String

    public init(name: String, description: String) {
        self.name = name
        self.description = description
    }
}

/// The PCM devices ALSA offers on this machine.
public enum ALSADevices {
    /// Every playback-capable PCM, in ALSA's order (`snd_device_name_hint` for "pcm", keeping the
    /// hints whose direction is unset or "Output").
    ///
    /// ```swift
    /// for device in try ALSADevices.list() { print(device.name, "-", device.description) }
    /// ```
    /// - Complexity: one scan of ALSA's configuration and the sound cards.
    public static func list() throws(AudioOutputError) -> [DeviceInfo] {
        let call = ALSACall(device: "pcm")
        call.clearDiagnostic()
        var hints: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
        try call.check(snd_device_name_hint(-1, "pcm", &hints), "list its devices")
        guard let hints else { return [] }
        defer {
            snd_device_name_free_hint(hints)
            call.clearDiagnostic()  // Cards that failed to answer are skipped, not reported later.
        }

        var devices: [DeviceInfo] = []
        var cursor = hints
        while let hint = cursor.pointee {
            defer { cursor += 1 }
            let direction = hintValue(hint, "IOID")
            guard direction == nil || direction == "Output", let name = hintValue(hint, "NAME") else {
                continue
            }
            let description = (hintValue(hint, "DESC") ?? "")
                .split(separator: "\n").map { $0.trimmingSpaces() }.joined(separator: ", ")
            devices.append(DeviceInfo(name: name, description: description))
        }
        return devices
    }

    /// The playback channel counts `name` offers (e.g. 2...2, or 1...10000 for a converting
    /// plugin), or nil when it cannot be opened now (busy, missing) or takes longer than
    /// `timeoutSeconds` to answer (a stopped sound server).
    ///
    /// Opens the device without blocking, asks, and closes it again.
    public static func channels(of name: String, timeoutSeconds: Double = 1) -> ClosedRange<Int>? {
        let answer = Mutex<ClosedRange<Int>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            _ = ALSACall.installErrorCapture
            defer { calsa_clear_last_message() }
            var handle: OpaquePointer?
            guard snd_pcm_open(&handle, name, SND_PCM_STREAM_PLAYBACK, SND_PCM_NONBLOCK) >= 0, let pcm = handle
            else {
                done.signal()
                return
            }
            defer { snd_pcm_close(pcm) }
            var parameters: OpaquePointer?
            guard snd_pcm_hw_params_malloc(&parameters) >= 0, let hardware = parameters else {
                done.signal()
                return
            }
            defer { snd_pcm_hw_params_free(hardware) }
            var fewest: UInt32 = 0
            var most: UInt32 = 0
            if snd_pcm_hw_params_any(pcm, hardware) >= 0, snd_pcm_hw_params_get_channels_min(hardware, &fewest) >= 0,
                snd_pcm_hw_params_get_channels_max(hardware, &most) >= 0, fewest <= most
            {
                answer.withLock { $0 = Int(fewest)...Int(most) }
            }
            done.signal()
        }
        thread.name = "swift-haptics.alsa.channels"
        thread.start()
        guard done.wait(timeout: .now() + timeoutSeconds) == .success else { return nil }
        return answer.withLock { $0 }
    }

    /// One field of a hint, or nil if absent. ALSA returns a copy we must free.
    private static func hintValue(_ hint: UnsafeMutableRawPointer, _ field: String) -> String? {
        guard let value = snd_device_name_get_hint(hint, field) else { return nil }
        defer { free(value) }
        return String(cString: value)
    }
}

extension Substring {
    fileprivate func trimmingSpaces() -> String {
        String(drop(while: { $0 == " " }).reversed().drop(while: { $0 == " " }).reversed())
    }
}
