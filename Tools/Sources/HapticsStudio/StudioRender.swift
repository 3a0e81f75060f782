import Foundation
import HapticsCore
import HapticsSynthesis
import Hummingbird
import NIOCore
import Synchronization

extension Studio {
    /// Frames rendered, encoded and sent at a time by `/api/render`.
    static let renderBlockFrames = 16_384

    /// The most renders in flight at once: four, or one a core on a larger machine. A legal
    /// pattern can keep a core busy for a minute (512 voices for an hour), and every connection
    /// the studio takes could ask for one, so past this a render is refused at once (503,
    /// `Retry-After: 1`) rather than queued behind the others on the cores every other request
    /// needs; a few at once (a designer comparing variants) are served.
    package static let renderLimit = max(4, ProcessInfo.processInfo.activeProcessorCount)

    /// The renders in flight: a place is taken before a render starts and given back when its
    /// response is done with (finished, failed or abandoned by its client).
    final class RenderPlaces: Sendable {
        private let taken = Mutex(0)

        /// One place, or nil when all ``Studio/renderLimit`` are taken.
        func take() -> Place? {
            let got = taken.withLock { count in
                guard count < Studio.renderLimit else { return false }
                count += 1
                return true
            }
            return got ? Place(self) : nil
        }

        fileprivate func giveBack() { taken.withLock { $0 -= 1 } }

        /// A taken place, given back when the last reference to it goes.
        final class Place: Sendable {
            private let places: RenderPlaces
            fileprivate init(_ places: RenderPlaces) { self.places = places }
            deinit { places.giveBack() }
        }
    }

    /// `/api/render`'s answer: the pattern as a 16-bit mono 48 kHz WAV file, streamed.
    ///
    /// The length is known before anything is rendered (the renderer's frame count, release
    /// tails and clips included), so the header goes first with a `Content-Length`, then each
    /// block as it is rendered. The server holds one block at a time, not the render: a legal
    /// 1-hour pattern is 345 MB of WAV that used to be built whole, three times over.
    static func wav(_ play: StudioPlayback.Request, holding place: RenderPlaces.Place) throws(StudioError) -> Response {
        var pattern = play.pattern
        if play.rate != 1 { pattern = pattern.scaled(by: Double(play.rate)) }
        let stream: WAVStream
        do {
            stream = try WAVStream(pattern: pattern, clips: play.clips, voicing: play.voicing)
        } catch {
            throw StudioError(422, "cannot render: \(error)")
        }
        return Response(
            status: .ok, headers: [.contentType: "audio/wav"],
            body: ResponseBody(contentLength: stream.byteCount) { writer in
                // The place is held as long as the body can still be written.
                withExtendedLifetime(place) {}
                try await stream.write(to: &writer)
                try await writer.finish(nil)
                withExtendedLifetime(place) {}
            })
    }

    /// One render on its way out as WAV bytes. Only the response body's writer uses it, one
    /// block after another, so the renderer it holds is never touched by two tasks at once.
    final class WAVStream: @unchecked Sendable {
        private var renderer: PatternRenderer
        private let header: WAVHeader
        private let encoder: WAVEncoder

        init(pattern: HapticPattern, clips: [String: AudioClip], voicing: VoicingProfile) throws(FrameRangeError) {
            let format = AudioFormat(sampleRate: 48_000, channels: 1)
            renderer = try PatternRenderer(pattern: pattern, format: format, voicing: voicing, clips: clips)
            header = WAVHeader(format: format, sampleFormat: .s16, frameCount: renderer.frameCount)
            encoder = WAVEncoder(format: format, sampleFormat: .s16)
        }

        /// Header, samples and trailer: the whole file's size.
        var byteCount: Int { header.bytes.count + Int(header.dataByteCount) + header.trailer.count }

        func write(to writer: inout any ResponseBodyWriter) async throws {
            try await writer.write(ByteBuffer(bytes: header.bytes))
            var block = [Float](repeating: 0, count: Studio.renderBlockFrames)
            let bytesPerBlock = Studio.renderBlockFrames * encoder.sampleFormat.bytesPerSample
            while true {
                let frames = block.withUnsafeMutableBufferPointer { renderer.render(into: $0) }
                guard frames > 0 else { break }
                var buffer = ByteBufferAllocator().buffer(capacity: bytesPerBlock)
                let bytes = frames * encoder.sampleFormat.bytesPerSample
                block.withUnsafeBufferPointer { samples in
                    _ = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: bytes) { out in
                        encoder.encode(
                            UnsafeBufferPointer(rebasing: samples[..<frames]),
                            to: UnsafeMutableRawBufferPointer(rebasing: out[..<bytes]))
                        return bytes
                    }
                }
                // Waits while the connection cannot take more, so a slow reader holds the
                // render back instead of making the server queue it.
                try await writer.write(buffer)
                try Task.checkCancellation()
            }
            if !header.trailer.isEmpty { try await writer.write(ByteBuffer(bytes: header.trailer)) }
        }
    }
}
