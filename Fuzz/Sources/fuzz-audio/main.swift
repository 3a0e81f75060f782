// Audio to haptics: any bytes (WAV, FLAC, Ogg, MP3 or none) convert or throw one AudioDecodeError
// naming the input, never crash; a pattern's events lie within the audio, intensities in 0...1,
// curves of at most 16 points.
import FuzzSupport
import Glibc
import HapticsAudioAnalysis
import HapticsCore

let status = runFuzzer { data, count in
    let input = bytes(data, count)
    do throws(AudioDecodeError) {
        let reader = try AudioFileReader(bytes: input, name: "fuzz")
        let result = try AudioHaptics.convert(reader, options: AudioHapticsOptions())
        for event in result.pattern.events {
            require(event.time >= 0 && event.time <= result.duration + 0.2, "event at \(event.time) s")
            require(
                (0...1).contains(event.value(of: .hapticIntensity)), "intensity \(event.value(of: .hapticIntensity))")
        }
        for curve in result.pattern.parameterCurves {
            require(curve.controlPoints.count <= 16, "\(curve.controlPoints.count) points")
        }
    } catch {
        require(error.file == "fuzz" && !error.message.isEmpty, "unnamed error: \(error)")
    }
    return 0
}
exit(status)
