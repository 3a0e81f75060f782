import ArgumentParser
import Foundation
import HapticsALSA
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

    /// The pattern `haptic convert` makes of the sound with these options, plus an AudioCustom
    /// event at 0 that plays the sound itself (mixed to mono), so both start on the same frame;
    /// made whole, for `--loop` and the preview (no device), which play the sound from memory
    /// (``withWholeSound(_:)`` attaches it).
    func audioFile() throws -> PatternFile {
        let options = try analysisOptions()
        do {
            let result = try AudioHaptics.convert(AudioFileReader(path: pattern), options: options)
            return PatternFile(path: pattern, pattern: result.pattern)
        } catch {
            throw Terminal.failure(error.description)
        }
    }

    /// The sound's length in frames as it decodes (a header's count may be wrong): one pass of
    /// the decoder alone, before playback, so the sound's event knows its length.
    func decodedFrames() throws -> Int {
        do {
            let reader = try AudioFileReader(path: pattern)
            let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: AudioHaptics.blockFrames)
            defer { block.deallocate() }
            while reader.read(into: block) > 0 {}
            // As the analysis says it (`AudioHaptics.convert`), before any device opens.
            guard reader.framesRead > 0 else {
                throw AudioDecodeError(file: reader.name, "no audio: the file holds 0 samples")
            }
            return reader.framesRead
        } catch {
            throw Terminal.failure("\(error)")
        }
    }

    /// Makes the sound's haptics on a thread of its own while they play, in pieces
    /// (``PreparedPattern/Pieces``) handed to `queue`: the analysis waits while the queue is
    /// full, so it runs a few pieces ahead of the listener, and what is held is the analysis
    /// window and a few pieces, whatever the sound's length.
    func makeSoundHaptics(
        options: AudioHapticsOptions, format: AudioFormat, feed: ClipFeed, into queue: PieceQueue
    ) {
        let path = pattern
        let voicing = voice.voicing
        let thread = Thread {
            let pieces = PreparedPattern.Pieces(
                format: format, voicing: voicing, feeds: [Self.soundName(path): feed])
            var failure: String?
            var over = false
            func hand(_ made: [PreparedPattern.Pieces.Piece]) {
                for piece in made where !over { over = !queue.put(piece) }
            }
            do {
                let reader = try AudioFileReader(path: path)
                _ = try AudioHaptics.convert(reader, options: options) { element in
                    guard failure == nil, !over else { return }
                    do {
                        hand(try pieces.add(element))
                    } catch {
                        failure = "\(path): its haptics cannot be played: \(error)"
                    }
                }
                if failure == nil { hand(try pieces.finish()) }
            } catch {
                failure = failure ?? "\(error)"
            }
            queue.end(failure: failure)
        }
        thread.name = "swift-haptics.play.analysis"
        thread.start()
    }

    /// The analysis options, with the AudioCustom event that plays the sound.
    private func analysisOptions() throws -> AudioHapticsOptions {
        var options: AudioHapticsOptions
        do {
            options = try audio.options()
        } catch {
            throw Terminal.failure(error.message, status: 64)
        }
        options.audioPath = Self.soundName(pattern)
        return options
    }

    /// `haptic play song.wav` on a device (without `--loop`): the sound's haptics made in
    /// pieces while it plays (``makeSoundHaptics(options:format:feed:into:)``), the sound read
    /// while it plays (``SoundFeeder``).
    func playSound() throws {
        let analysis = try analysisOptions()
        // Read through once before the device opens: a file that cannot be read is one line, no playback.
        let frames = try decodedFrames()
        var device = self.device
        // On a haptic device the sound goes on the channels the actuators leave free.
        device.previewAudio = true
        let output: ALSAOutput
        do {
            output = try device.open()
        } catch {
            // Asked for actuators: a preview file is no substitute.
            if device.wantsHaptics { throw Terminal.failure(error.description) }
            try Terminal.writePreview(of: try withWholeSound(audioFile()), voicing: voice.voicing, because: error)
            return
        }
        var options = self.options
        options.audioOnPreviewOnly = true
        // A sound's haptics last as long as the sound, which may be hours: no pattern file's
        // limit applies to them, as none does in Apple's players.
        options.maxPatternSeconds = .infinity
        let feeder: SoundFeeder
        do {
            feeder = try SoundFeeder(reader: AudioFileReader(path: pattern), frames: frames, from: from)
        } catch {
            throw Terminal.failure(error.description)
        }
        feeder.start()
        defer { feeder.stop() }
        // The sound cut short under it (its file truncated): playback stops where it runs out.
        options.sourceFailure = { feeder.failure }
        let queue = PieceQueue()
        makeSoundHaptics(options: analysis, format: output.format, feed: feeder.feed, into: queue)
        try perform(LivePlayback(pieces: queue, output: output, options: options))
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
