// Meta/Lofelt clips (.haptic v1 and .vij v0) read, linted, summarised and converted: any bytes
// decode or throw an AHAPError that names the input, and lint finds an error exactly when decode
// throws. A clip that decodes has finite values in 0...1; its AHAP (the mapping) lies within the
// clip's length, decodes again, and goes back to a .haptic that decodes; its Android waveform
// lasts no longer than the clip; what `haptic info` and `convert --check` render of it (the
// mapping, and both of ClipPlayback's layers, one of the three per input) is finite.
import FuzzSupport
import Glibc
import HapticsCore
import HapticsSynthesis

/// How far past a clip's last breakpoint its AHAP may reach: the carrier's pause and ramp around
/// an emphasis on the last breakpoint.
let slack = HapticClip.emphasisHold + 2 * HapticClip.emphasisRamp + 1e-6

/// Renders `pattern`'s first 50 ms at 48 kHz mono and requires finite samples within ±1.
func renderHead(_ pattern: HapticPattern, _ what: String) {
    let format = AudioFormat(sampleRate: 48_000, channels: 1)
    var renderer: PatternRenderer
    do {
        renderer = try PatternRenderer(pattern: pattern, format: format)
    } catch {
        require(false, "\(what) has a time that is no frame position: \(error)")
        return
    }
    var block = [Float](repeating: 0, count: 512)
    var left = format.sampleRate / 20
    while left > 0 {
        let frames = block.withUnsafeMutableBufferPointer { renderer.render(into: $0) }
        if frames == 0 { break }
        for sample in block[..<frames] { require(sample.isFinite && abs(sample) <= 1, "\(what): sample \(sample)") }
        left -= frames
    }
}

/// Events, curves and parameters of `pattern`: finite, values in range, within `end` seconds.
func checkPattern(_ pattern: HapticPattern, end: Double, _ what: String) {
    for event in pattern.events {
        let last = event.time + (event.type == .hapticContinuous ? event.duration ?? 0 : 0)
        require(
            event.time.isFinite && event.time >= 0 && last <= end + slack,
            "\(what): an event at \(event.time)-\(last) of \(end) s")
        for parameter in event.parameters {
            require(parameter.value.isFinite && (0...1).contains(parameter.value), "\(what): \(parameter)")
        }
    }
    for curve in pattern.parameterCurves {
        for point in curve.controlPoints {
            let t = curve.time + point.time
            require(t.isFinite && t >= 0 && t <= end + slack, "\(what): a curve point at \(t) of \(end) s")
            require(point.value.isFinite, "\(what): a curve value \(point.value)")
        }
    }
}

let status = runFuzzer { data, count in
    let input = bytes(data, count)
    let name = input.first.map { $0 & 1 == 0 } == true ? "fuzz.haptic" : "fuzz.vij"
    let diagnostics = HapticClip.lint(input)
    for diagnostic in diagnostics { _ = diagnostic.formatted(file: name) }
    let document: HapticClipDocument
    do throws(AHAPError) {
        document = try HapticClip.decode(input, file: name)
    } catch {
        require(diagnostics.contains { $0.severity == .error }, "decode threw where lint found no error")
        require(error.description.contains(name), "an error that does not name the file: \(error.description)")
        return 0
    }
    require(!diagnostics.contains { $0.severity == .error }, "decode succeeded where lint found an error")
    let clip = document.clip
    let end = clip.duration
    require(end.isFinite && end > 0, "a clip of length \(end)")
    for point in clip.amplitude {
        require(point.time.isFinite && (0...1).contains(point.amplitude), "breakpoint \(point)")
        if let e = point.emphasis { require((0...1).contains(e.amplitude) && (0...1).contains(e.frequency), "\(e)") }
    }
    for point in clip.frequency { require(point.time.isFinite && (0...1).contains(point.frequency), "\(point)") }
    for impulse in clip.impulses {
        require(impulse.time.isFinite && (0...1).contains(impulse.amplitude), "impulse \(impulse)")
    }

    // To AHAP: the mapping, its losses, the bytes written and read back.
    let pattern = clip.pattern
    checkPattern(pattern, end: end, "the clip's AHAP")
    for loss in clip.ahapLosses { require(loss.count > 0 && !loss.kind.isEmpty, "loss \(loss)") }
    let ahap: HapticPattern
    do {
        ahap = try AHAP.decode(AHAP.encode(pattern), file: "out.ahap").pattern
    } catch {
        require(false, "the clip's AHAP does not decode: \(error)")
        return 0
    }
    // What `haptic info` measures (the mapping's length and render) and `convert --check` (both
    // of ClipPlayback's layers).
    // One of the three is rendered, picked by the input, to keep each run short.
    require(pattern.duration.isFinite && pattern.duration <= end + slack, "duration \(pattern.duration) of \(end)")
    let pick = input.reduce(0) { ($0 &* 31) &+ Int($1) } & 3
    let layers = ClipPlayback.layers(clip)
    if pick == 0 { renderHead(pattern, "the clip's AHAP") }
    if let continuous = layers.continuous {
        checkPattern(continuous, end: end, "the continuous layer")
        if pick == 1 { renderHead(continuous, "the continuous layer") }
    }
    if let emphases = layers.emphases {
        checkPattern(emphases, end: end, "the emphasis layer")
        if pick == 2 { renderHead(emphases, "the emphasis layer") }
    }

    // The AHAP back to .haptic, written and read again.
    var losses: [ConversionLoss] = []
    let back = HapticClip(pattern: ahap, losses: &losses)
    require(back.duration <= end + slack, "the AHAP back to .haptic lasts \(back.duration) of \(end) s")
    do {
        let again = try HapticClip.decode(HapticClip.encode(back), file: "back.haptic").clip
        require(again.duration <= end + slack, "back.haptic read again lasts \(again.duration) of \(end) s")
    } catch {
        require(false, "the AHAP back to .haptic writes a clip that does not decode: \(error)")
    }

    // To Android.
    let effect = AndroidVibration(pattern)
    _ = AndroidVibration.losses(of: pattern, as: effect)
    _ = effect.json
    _ = effect.kotlin
    switch effect {
    case .waveform(let timings, let amplitudes):
        require(timings.count == amplitudes.count, "\(timings.count) timings, \(amplitudes.count) amplitudes")
        require(timings.allSatisfy { $0 > 0 } && amplitudes.allSatisfy { (0...255).contains($0) }, "a bad step")
        let total = Double(timings.reduce(0, +)) / 1000
        let step = Double(AndroidVibration.stepMilliseconds) / 1000
        require(total <= end + slack + step, "the waveform lasts \(total) s of the clip's \(end) s")
    case .composition(let primitives):
        for p in primitives {
            require(p.scale.isFinite && (0...1).contains(p.scale) && p.delayMilliseconds >= 0, "primitive \(p)")
        }
        let total = Double(primitives.reduce(0) { $0 + $1.delayMilliseconds }) / 1000
        require(total <= end + 0.001, "the composition's delays sum to \(total) s of the clip's \(end) s")
    }
    return 0
}
exit(status)
