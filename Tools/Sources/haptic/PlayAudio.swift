import ArgumentParser
import Foundation
import HapticsAudioAnalysis
import HapticsCore
import HapticsEngine
import HapticsSynthesis

extension HapticCommand.Play {
    /// The most audio frames `play` holds beside the haptics: the sound plays from memory (as an
    /// AudioCustom waveform), so a longer file is refused rather than filling it (23 min at 48 kHz).
    static let maxAudioFrames = 1 << 26

    /// `haptic play song.wav`: the pattern `haptic convert` makes of the sound with these options,
    /// plus an AudioCustom event at 0 that plays the sound itself (mixed to mono), so both start
    /// on the same frame.
    func audioFile() throws -> PatternFile {
        var options: AudioHapticsOptions
        do {
            options = try audio.options()
        } catch {
            throw Terminal.failure(error.message, status: 64)
        }
        let name = URL(filePath: pattern).lastPathComponent
        options.audioPath = name
        do {
            let result = try AudioHaptics.convert(AudioFileReader(path: pattern), options: options)
            let clip = try Self.clip(AudioFileReader(path: pattern))
            return PatternFile(path: pattern, pattern: result.pattern, clips: [name: clip])
        } catch {
            throw Terminal.failure(error.description)
        }
    }

    /// The whole of `reader` as a mono clip at its own rate.
    static func clip(_ reader: AudioFileReader) throws(AudioDecodeError) -> AudioClip {
        var samples: [Float] = []
        samples.reserveCapacity(min(max(reader.declaredFrames, 0), maxAudioFrames))
        let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: AudioHaptics.blockFrames)
        defer { block.deallocate() }
        while case let n = reader.read(into: block), n > 0 {
            guard samples.count + n <= maxAudioFrames else {
                let minutes = maxAudioFrames / reader.sampleRate / 60
                throw AudioDecodeError(
                    file: reader.name,
                    "too long to play beside its haptics (more than \(minutes) min at \(reader.sampleRate) Hz); "
                        + "convert it with `haptic convert` and play the pattern")
            }
            samples.append(contentsOf: UnsafeBufferPointer(rebasing: block[0..<n]))
        }
        return AudioClip(sampleRate: reader.sampleRate, channels: 1, samples: samples)
    }
}
