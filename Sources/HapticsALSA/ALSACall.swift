import CAlsa
import Foundation
import Glibc
import HapticsEngine

/// The one place where an ALSA return code becomes a Swift error.
///
/// Every ALSA call goes through ``check(_:_:)-(Int32,_)``: a negative result becomes an
/// ``AudioOutputError`` whose message names the device, says what we were doing, quotes ALSA
/// (`snd_strerror` plus ALSA's own diagnostic, which the C shim captures instead of printing it),
/// and says how to fix it.
struct ALSACall {
    /// The device every error is about.
    let device: String

    /// Installs the capturing error handler once per process (ALSA's default one prints to stderr).
    static let installErrorCapture: Void = {
        _ = calsa_install_error_capture()
    }()

    init(device: String) {
        _ = ALSACall.installErrorCapture
        self.device = device
    }

    /// Returns `result` if it is not negative; otherwise throws the error it stands for.
    ///
    /// - Parameter what: what we were doing, as a verb phrase ("set the sample rate to 48000 Hz").
    @discardableResult
    func check(_ result: Int32, _ what: @autoclosure () -> String) throws(AudioOutputError) -> Int32 {
        if result >= 0 {
            calsa_clear_last_message()  // Whatever ALSA said on the way to a success is not news.
            return result
        }
        throw error(errorNumber: -result, what())
    }

    /// Frame-count flavour of ``check(_:_:)-(Int32,_)`` for calls returning `snd_pcm_sframes_t`.
    @discardableResult
    func check(_ result: Int, _ what: @autoclosure () -> String) throws(AudioOutputError) -> Int {
        if result >= 0 {
            calsa_clear_last_message()  // Whatever ALSA said on the way to a success is not news.
            return result
        }
        throw error(errorNumber: Int32(truncatingIfNeeded: -result), what())
    }

    /// Forgets ALSA's last diagnostic on this thread, so the next error quotes only its own.
    func clearDiagnostic() {
        calsa_clear_last_message()
    }

    /// What ``ALSAOutput`` says it was doing when opening fails: a device missing then was never there.
    static let opening = "be opened for playback"

    /// The error for ALSA error number `errorNumber` (positive) while doing `what`.
    func error(errorNumber: Int32, _ what: String) -> AudioOutputError {
        let says = String(cString: snd_strerror(-errorNumber))
        // Plugins end their messages with a newline (PulseAudio's "Unable to connect: ...\n"):
        // one line, so the error reads as one.
        let detail = String(cString: calsa_last_message())
            .split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
        calsa_clear_last_message()
        let quote = detail.isEmpty || detail == says ? "'\(says)'" : "'\(says)' (\(detail))"
        let code: AudioOutputError.Code
        let message: String
        switch errorNumber {
        case ENODEV where what != Self.opening:
            // Open, then gone: a USB device (a controller) unplugged while it played.
            code = .deviceNotFound
            message = "device '\(device)' went away while in use (unplugged?): ALSA says \(quote)"
        case ENOENT, ENODEV, ENXIO:
            code = .deviceNotFound
            message = "device '\(device)' not found: ALSA says \(quote); list devices with `haptic devices`"
        case EBUSY:
            code = .deviceBusy
            message = """
                device '\(device)' is busy: another program is using it (ALSA says \(quote)); \
                close that program\(device == "default" ? "" : ", or play through 'default', which can share the device")
                """
        case EACCES, EPERM:
            code = .permissionDenied
            message = """
                device '\(device)' may not be opened by this user: ALSA says \(quote); \
                add the user to the 'audio' group or play through 'default'
                """
        case EINVAL:
            code = .unsupportedConfiguration
            message = """
                device '\(device)' could not \(what): ALSA says \(quote); \
                try another device (`haptic devices`) or the 'plug' wrapper (plughw: instead of hw:)
                """
        default:
            code = .deviceFailure
            message = "device '\(device)' could not \(what): ALSA says \(quote)"
        }
        return AudioOutputError(code: code, device: device, message: message, systemErrorNumber: errorNumber)
    }
}
