// The WAV decoder: any bytes decode or throw a WAVError, never crash; a decoded clip has 1 or 2
// channels, whole frames, no more samples than input bytes, and finite samples.
import FuzzSupport
import HapticsSynthesis

let status = runFuzzer { data, count in
    let input = bytes(data, count)
    do {
        let clip = try WAV.decode(input)
        require(clip.channels == 1 || clip.channels == 2, "\(clip.channels) channels")
        require(clip.samples.count % clip.channels == 0, "a partial frame")
        require(clip.samples.count <= input.count, "\(clip.samples.count) samples from \(input.count) bytes")
        for sample in clip.samples { require(sample.isFinite, "sample \(sample)") }
    } catch {
        _ = error.description
    }
    return 0
}
exit(status)
