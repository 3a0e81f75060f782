public import HapticsSynthesis

/// The first frame where two prepared patterns, each started at `offset` on a synthesizer of its
/// own, render different samples (bit for bit), or nil when the first `frames` are the same.
///
/// Rendered in blocks of an odd size (`block`), so that block boundaries fall anywhere in the
/// patterns' events and curves.
public func firstDifference(
    _ a: PreparedPattern, _ b: PreparedPattern, format: AudioFormat, offset: Double, frames: Int,
    layer: Int = 0, block: Int = 1_001
) -> Int? {
    var first = Synthesizer(format: format, voicing: .standard)
    var second = Synthesizer(format: format, voicing: .standard)
    first.start(a, layer: layer, atFrame: 0, offset: offset)
    second.start(b, layer: layer, atFrame: 0, offset: offset)
    let channels = format.channels
    var x = [Float](repeating: 0, count: block * channels)
    var y = x
    var done = 0
    while done < frames {
        let n = min(block, frames - done)
        x.withUnsafeMutableBufferPointer {
            first.render(into: UnsafeMutableBufferPointer(rebasing: $0[0..<n * channels]))
        }
        y.withUnsafeMutableBufferPointer {
            second.render(into: UnsafeMutableBufferPointer(rebasing: $0[0..<n * channels]))
        }
        if let i = (0..<n * channels).first(where: { x[$0].bitPattern != y[$0].bitPattern }) {
            return done + i / channels
        }
        done += n
    }
    return nil
}
