// AHAP read + lint + render: any bytes are linted and decoded without a crash; a pattern that
// decodes renders its first 0.25 s (44.1, 48 or 96 kHz, mono or stereo, picked by the input) to
// finite samples within the limiter's bound, and encodes to AHAP that decodes to the same pattern.
import FuzzSupport
import Glibc
import HapticsCore
import HapticsSynthesis

let status = runFuzzer { data, count in
    let input = bytes(data, count)
    let diagnostics = AHAP.lint(input, file: "fuzz.ahap")
    for diagnostic in diagnostics { _ = diagnostic.formatted(file: "fuzz.ahap") }
    guard let document = try? AHAP.decode(input, file: "fuzz.ahap") else { return 0 }
    require(!diagnostics.contains { $0.severity == .error }, "decode succeeded where lint found an error")
    let again = try? AHAP.decode(AHAP.encode(document.pattern))
    require(again?.pattern == document.pattern, "encode/decode round trip changed the pattern")
    let pick = input.reduce(0) { ($0 &* 31) &+ Int($1) }
    let rates = AudioFormat.supportedSampleRates
    let format = AudioFormat(sampleRate: rates[abs(pick % rates.count)], channels: 1 + abs(pick / 7 % 2))
    var renderer: PatternRenderer
    do {
        renderer = try PatternRenderer(pattern: document.pattern, format: format)
    } catch {
        require(false, "a decoded pattern has a time that is no frame position: \(error)")
        return 0
    }
    var block = [Float](repeating: 0, count: 512 * format.channels)
    var left = format.sampleRate / 4
    while left > 0 {
        let frames = block.withUnsafeMutableBufferPointer { renderer.render(into: $0) }
        if frames == 0 { break }
        for sample in block[..<(frames * format.channels)] {
            require(sample.isFinite && abs(sample) <= 1, "sample \(sample) at \(format)")
        }
        left -= frames
    }
    return 0
}
exit(status)
