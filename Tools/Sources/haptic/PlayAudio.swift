import ArgumentParser
import Foundation
import HapticsAudioAnalysis
import HapticsCore
import HapticsEngine
import HapticsSynthesis
import Synchronization

extension HapticCommand.Play {
    /// The most audio frames the preview (no device) or `--loop` holds beside the haptics: they
    /// play the sound from memory, so a longer file is refused there rather than filling it (23 min
    /// at 48 kHz). Otherwise, played on a device, the sound is read while it plays (``SoundFeeder``).
    static let maxAudioFrames = 1 << 26

    /// `haptic play song.wav`: the pattern `haptic convert` makes of the sound with these options,
    /// plus an AudioCustom event at 0 that plays the sound itself (mixed to mono), so both start
    /// on the same frame. The sound is not in it yet: ``withFedSound(_:frames:)`` (a device) or
    /// ``withWholeSound(_:)`` (the preview, `--loop`) attach it. `frames`: the sound's length as decoded.
    func audioFile() throws -> (file: PatternFile, frames: Int) {
        var options: AudioHapticsOptions
        do {
            options = try audio.options()
        } catch {
            throw Terminal.failure(error.message, status: 64)
        }
        options.audioPath = Self.soundName(pattern)
        do {
            let reader = try AudioFileReader(path: pattern)
            let result = try AudioHaptics.convert(reader, options: options)
            return (PatternFile(path: pattern, pattern: result.pattern), reader.framesRead)
        } catch {
            throw Terminal.failure(error.description)
        }
    }

    static func soundName(_ path: String) -> String { URL(filePath: path).lastPathComponent }

    /// `file` with its sound decoded whole, for the preview render and `--loop`.
    func withWholeSound(_ file: PatternFile) throws -> PatternFile {
        do {
            let clip = try Self.clip(AudioFileReader(path: pattern))
            return PatternFile(path: file.path, pattern: file.pattern, clips: [Self.soundName(pattern): clip])
        } catch {
            throw Terminal.failure(error.description)
        }
    }

    /// `file` with its sound read while it plays, from `from` seconds: the feeder has filled
    /// its ring and reads on on a thread of its own until stopped.
    func withFedSound(_ file: PatternFile, frames: Int) throws -> (PatternFile, SoundFeeder) {
        let feeder: SoundFeeder
        do {
            feeder = try SoundFeeder(reader: AudioFileReader(path: pattern), frames: frames, from: from)
        } catch {
            throw Terminal.failure(error.description)
        }
        var fed = file
        fed.feeds = [Self.soundName(pattern): feeder.feed]
        feeder.start()
        return (fed, feeder)
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
                    "too long to hold whole beside its haptics, as a preview or --loop does (more than "
                        + "\(minutes) min at \(reader.sampleRate) Hz); play it on a device without --loop, "
                        + "or convert it with `haptic convert` and play the pattern")
            }
            samples.append(contentsOf: UnsafeBufferPointer(rebasing: block[0..<n]))
        }
        return AudioClip(sampleRate: reader.sampleRate, channels: 1, samples: samples)
    }
}

/// Reads a sound into a ``ClipFeed`` while it plays: the ring is filled before playback starts,
/// then topped up from a thread of its own every few milliseconds (the decoder is far faster than
/// real time), so memory is the ring and one block, whatever the sound's length. The render side
/// only reads the ring (no lock, no allocation there).
final class SoundFeeder: @unchecked Sendable {  // the reader and block are used by one thread at a time
    let feed: ClipFeed
    private let reader: AudioFileReader
    private let block: UnsafeMutableBufferPointer<Float>
    /// Frames of `block` read but not yet in the ring.
    private var pending: Range<Int> = 0..<0
    private let stopped = Atomic(false)
    /// The frame the reader stopped at short of the sound's end (the file was cut short or
    /// unreadable under it), or -1.
    private let failedAt = Atomic(-1)
    private let done = DispatchSemaphore(value: 0)
    private var thread: Thread?

    /// A sound of `frames` frames (as the analysis read them); skips to `from` seconds (a few
    /// frames before, for the interpolation) and fills the ring.
    init(reader: AudioFileReader, frames: Int, from: Double) {
        self.reader = reader
        feed = ClipFeed(sampleRate: reader.sampleRate, frames: frames)
        block = .allocate(capacity: AudioHaptics.blockFrames)
        var skip = min(frames, max(0, Int(from * Double(reader.sampleRate)) - 4))
        while skip > 0 {
            let n = reader.read(into: UnsafeMutableBufferPointer(rebasing: block[0..<min(skip, block.count)]))
            guard n > 0 else { break }
            skip -= n
        }
        feed.start(at: reader.framesRead)
        fill()
    }

    deinit { block.deallocate() }

    /// Moves frames into the ring while there is room; false once the sound is all in.
    @discardableResult
    func fill() -> Bool {
        while true {
            if pending.isEmpty {
                guard feed.framesWritten < feed.frames else { return false }
                let n = reader.read(into: block)
                guard n > 0 else {
                    failedAt.store(feed.framesWritten, ordering: .releasing)
                    return false
                }
                pending = 0..<n
            }
            let taken = feed.write(UnsafeBufferPointer(rebasing: block[pending]))
            pending = pending.dropFirst(taken)
            if taken == 0 { return true }
        }
    }

    /// Once playback has reached the frame where reading the sound failed: why it stops there,
    /// naming the file and the time (until then the frames read before it play).
    var failure: String? {
        let frame = failedAt.load(ordering: .acquiring)
        guard frame >= 0, feed.framesReleased >= frame else { return nil }
        let rate = Double(feed.sampleRate)
        let seconds = { (frames: Int) in String(format: "%.3f s", Double(frames) / rate) }
        return "\(reader.name): reading failed at \(seconds(frame)) of \(seconds(feed.frames)) "
            + "(the file was cut short or became unreadable while it played); playback stopped there"
    }

    /// Reads on in the background until the sound is in or ``stop()``.
    func start() {
        let thread = Thread { [self] in
            while !stopped.load(ordering: .relaxed), fill() { usleep(2_000) }
            done.signal()
        }
        thread.name = "swift-haptics.play.sound"
        self.thread = thread
        thread.start()
    }

    /// Stops reading and waits for the thread.
    func stop() {
        stopped.store(true, ordering: .relaxed)
        if thread != nil { done.wait() }
        thread = nil
    }
}
