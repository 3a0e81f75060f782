import Foundation
import HapticsAudioAnalysis
import HapticsCore
@_spi(Tooling) import HapticsEngine
import Hummingbird
import HummingbirdWebSocket
import NIOCore
import OrderedCollections
import Synchronization

// `struct stat`'s members: see StudioFiles.swift.
#if canImport(CDispatch)
    import CDispatch
#endif

/// Audio to haptics in the studio (docs/studio.md, "Audio"): an audio file in a served folder is
/// analysed as `haptic convert` analyses it (``AudioHaptics``), with the options the page sets; the
/// page gets the generated pattern's view beside the audio's waveform, plays the audio and the
/// pattern's render, and saves the pattern as an `.ahap` beside the audio.
///
/// The audio file is opened as every studio file is (``StudioFiles/open(_:audio:)``: `openat` from
/// the held folder, no link followed) and decoded from that open file (`/proc/self/fd/N`, the
/// same file, never its name again), block by block: memory is the decoder's block and a min/max
/// summary of the sound (16 frames a pair), not the file.
extension Studio {
    // MARK: - Requests and responses

    /// The conversion options as the page sends them; every member is optional (the library's
    /// default) and checked before use (a 400 naming it).
    package struct AudioOptionsJSON: Codable, Sendable, Equatable {
        /// Decibels, -60...60.
        package var gain: Double?
        /// 0...1.
        package var resolution: Double?
        /// 0...1.
        package var sensitivity: Double?
        /// `both`, `transients` or `continuous`.
        package var content: String?
        /// Seconds, 0...10.
        package var minimumGap: Double?
        /// Hz; null or absent: the whole spectrum.
        package var band: AudioBandJSON?
        /// A whole number, 1...1000 (a number in the JSON, so that 2.5 is named as the others are).
        package var maxEventsPerSecond: Double?

        package init(
            gain: Double? = nil, resolution: Double? = nil, sensitivity: Double? = nil, content: String? = nil,
            minimumGap: Double? = nil, band: AudioBandJSON? = nil, maxEventsPerSecond: Double? = nil
        ) {
            (self.gain, self.resolution, self.sensitivity, self.content) = (gain, resolution, sensitivity, content)
            (self.minimumGap, self.band, self.maxEventsPerSecond) = (minimumGap, band, maxEventsPerSecond)
        }
    }

    package struct AudioBandJSON: Codable, Sendable, Equatable {
        package var low: Double?
        package var high: Double?
    }

    /// `POST /api/audio/convert`.
    package struct AudioConvertRequest: Codable, Sendable {
        /// The audio file's studio path.
        package var path: String?
        package var options: AudioOptionsJSON?
        /// The stretch the page shows: the audio's and the render's waveform columns and the
        /// effective curves are sent for it only (absent: the whole sound, in 2,000 columns).
        package var window: Window?
    }

    /// `POST /api/audio/save`.
    package struct AudioSaveRequest: Codable, Sendable {
        /// The audio file's studio path.
        package var path: String?
        /// The new file's name, in the audio file's folder; it must end in `.ahap`.
        package var name: String?
        package var options: AudioOptionsJSON?
        /// Replace a file of that name (otherwise an existing one is a 409).
        package var overwrite: Bool?
        /// Add an AudioCustom event that plays the sound (by its name: the pattern is saved
        /// beside it), so that sound and haptics play together: `haptic convert --with-audio`.
        package var withAudio: Bool?
        /// The page that saves (in the `changed` message).
        package var tab: String?
    }

    /// What the audio file is.
    package struct AudioInfo: Codable, Sendable, Equatable {
        /// `wav`, `flac`, `ogg` (Vorbis or Opus) or `mp3`, by the file's first bytes.
        package var container: String
        package var sampleRate: Int
        package var channels: Int
        /// Frames decoded.
        package var frames: Int
        package var seconds: Double
        package var bytes: Int
    }

    /// Min and max columns of a stretch of the sound (channels mixed, as it is analysed).
    package struct AudioColumns: Codable, Sendable, Equatable {
        package var start: Double
        package var seconds: Double
        /// Frames each column covers (at least ``audioSummaryFrames``).
        package var framesPerColumn: Double
        package var min: [Double]
        package var max: [Double]
    }

    /// What `POST /api/audio/convert` answers.
    package struct AudioConvertResponse: Codable, Sendable {
        package var path: String
        /// The audio file's version (inode, size and modification time): another one means the
        /// file changed.
        package var version: String
        package var audio: AudioInfo
        /// Every option as used (defaults filled in).
        package var options: AudioOptionsJSON
        package var transients: Int
        package var continuous: Int
        /// Onsets found before the events-per-second cap thinned them.
        package var onsets: Int
        package var droppedForBudget: Int
        /// The size of the `.ahap` a save writes.
        package var ahapBytes: Int
        /// The sound's waveform for the window.
        package var waveform: AudioColumns
        /// The generated pattern's view, as `GET /api/pattern` has it (its `ahap`, effective
        /// curves, render waveform and findings).
        package var pattern: PatternViewResponse
        package var analyzeMilliseconds: Double
    }

    /// What `POST /api/audio/save` answers.
    package struct AudioSaveResponse: Codable, Sendable, Equatable {
        /// The saved file's studio path.
        package var path: String
        /// Its version, as `GET /api/pattern` gives it.
        package var version: String
        package var bytes: Int
        package var events: Int
        /// Whether a file of that name was replaced.
        package var replaced: Bool
    }

    // MARK: - Limits

    /// The largest audio file the studio opens (`haptic convert` reads any size).
    package static let maxAudioBytes = 256 << 20
    /// The longest sound the studio analyses, seconds: each option change analyses it again.
    package static let maxAudioSeconds = 600.0
    /// Frames per min/max pair of the summary the waveform is drawn from.
    package static let audioSummaryFrames = 16

    // MARK: - Routes

    func audioRoutes(_ router: Router<BasicWebSocketRequestContext>) {
        router.post("/api/audio/convert") { [self] request, _ in
            Self.encoded(try convertAudio(try await Self.decode(AudioConvertRequest.self, request)))
        }
        router.post("/api/audio/save") { [self] request, _ in
            Self.encoded(try saveAudioPattern(try await Self.decode(AudioSaveRequest.self, request)))
        }
        router.get("/api/audio/file") { [self] request, _ in
            let path = try Self.query(request, "path")
            let opened = try openAudio(path)
            let bytes = try StudioFiles.read(opened, path: path, limit: Self.maxAudioBytes)
            let type =
                switch AudioContainer.sniff(bytes) {
                case .wav: "audio/wav"
                case .flac: "audio/flac"
                case .ogg: "audio/ogg"
                case .mp3: "audio/mpeg"
                case nil: "application/octet-stream"
                }
            return Response(
                status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
        }
    }

    // MARK: - Converting

    /// `POST /api/audio/convert`.
    func convertAudio(_ request: AudioConvertRequest) throws(StudioError) -> AudioConvertResponse {
        let started = ContinuousClock.now
        guard let path = request.path else { throw .badRequest("the request has no \"path\"") }
        let options = try Self.audioOptions(request.options)
        let window = try Window.checked(request.window)
        let (sound, made) = try conversion(path: path, options: options)
        let elapsed = ContinuousClock.now - started
        let milliseconds = Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000
        var view = PatternView.make(
            path: path, file: (StudioFiles.version(of: made.ahap), nil), analysis: made.analysis, locatesLines: true,
            milliseconds: milliseconds, window: window)
        view.format = "ahap"
        let events = made.result.pattern.events
        return AudioConvertResponse(
            path: path, version: sound.version, audio: sound.info, options: Self.json(options),
            transients: events.count { $0.type == .hapticTransient },
            continuous: events.count { $0.type == .hapticContinuous }, onsets: made.result.onsets.count,
            droppedForBudget: made.result.droppedForBudget, ahapBytes: made.ahap.count,
            waveform: sound.columns(window), pattern: view,
            analyzeMilliseconds: (milliseconds * 1000).rounded() / 1000)
    }

    /// `POST /api/audio/save`: the pattern the options make, written beside the audio.
    func saveAudioPattern(_ request: AudioSaveRequest) throws(StudioError) -> AudioSaveResponse {
        guard let path = request.path else { throw .badRequest("the request has no \"path\"") }
        guard let name = request.name else { throw .badRequest("the request has no \"name\"") }
        try Self.checkName(name)
        var options = try Self.audioOptions(request.options)
        if request.withAudio == true { options.audioPath = path.split(separator: "/").last.map(String.init) }
        let (_, made) = try conversion(path: path, options: options)
        let folderPath = path.split(separator: "/").dropLast().joined(separator: "/")
        let target = folderPath + "/" + name
        let result: Result<AudioSaveResponse, StudioError> = saveLock.withLock { _ in
            do throws(StudioError) {
                // Opened again for the write: the folder the audio is in now, from the held root.
                let opened = try openAudio(path)
                let existing = try? StudioFiles.status(of: name, in: opened.folder)
                let exists = existing != nil
                if let status = existing {
                    guard (status.st_mode & S_IFMT) == S_IFREG else {
                        throw .forbidden("\(target): exists and is not a regular file")
                    }
                    guard request.overwrite == true else {
                        var error = StudioError(409, "\(target) exists; send \"overwrite\": true to replace it")
                        error.path = target
                        throw error
                    }
                }
                let version = StudioFiles.version(of: made.ahap)
                // A page may have the file open: the watcher is told of the write, as for a save.
                let current = exists ? try? files.open(target) : nil
                watcher.willWrite(
                    target, version: version,
                    over: current.flatMap { opened in
                        (try? StudioFiles.read(opened, path: target, limit: 16 << 20)).map {
                            .init(opened: opened, version: StudioFiles.version(of: $0))
                        }
                    })
                do throws(SystemCallError) {
                    try writeAtomically(made.ahap, to: name, in: opened.folder.fd)
                } catch {
                    watcher.writeFailed(target, version: version)
                    throw StudioError(500, "\(target): could not be written (\(error.errno))")
                }
                return .success(
                    AudioSaveResponse(
                        path: target, version: version, bytes: made.ahap.count,
                        events: made.result.pattern.events.count, replaced: exists))
            } catch {
                return .failure(error)
            }
        }
        let response = try result.get()
        Task { [hub] in await hub.announceSave(path: response.path, version: response.version, tab: request.tab) }
        return response
    }

    /// A new file's name: one component, not hidden, ending in `.ahap`.
    static func checkName(_ name: String) throws(StudioError) {
        guard !name.isEmpty else { throw .badRequest("\"name\" must not be empty") }
        guard !name.contains("/"), !name.contains("\\"), !name.contains("\0") else {
            throw .badRequest("\"name\" must be a file name, without '/', '\\' or NUL")
        }
        guard !name.hasPrefix(".") else { throw .badRequest("\"name\" must not start with '.'") }
        guard name.lowercased().hasSuffix(".ahap"), name.count > 5 else {
            throw .badRequest("\"name\" must end in .ahap")
        }
        guard name.utf8.count <= 255 else { throw .badRequest("\"name\" must be at most 255 bytes") }
    }

    /// The audio file at `path`, opened, within ``maxAudioBytes``.
    func openAudio(_ path: String) throws(StudioError) -> StudioFiles.Opened {
        let opened = try files.open(path, audio: true)
        guard Int(opened.status.st_size) <= Self.maxAudioBytes else {
            throw StudioError(
                413,
                "\(path): \(opened.status.st_size) bytes; the studio opens audio files up to "
                    + "\(Self.maxAudioBytes >> 20) MiB (haptic convert reads any size)")
        }
        return opened
    }

    /// The sound at `path` and what `options` make of it, from the cache when the file has not changed.
    func conversion(path: String, options: AudioHapticsOptions) throws(StudioError) -> (AudioSound, AudioMade) {
        let opened = try openAudio(path)
        let s = opened.status
        let version = "\(s.st_ino)-\(s.st_size)-\(s.st_mtim.tv_sec).\(s.st_mtim.tv_nsec)"
        let key = path + "\n" + version
        let cached: (AudioSound?, AudioMade?) = cache.audio.withLock { entry in
            guard let entry, entry.key == key else { return (nil, nil) }
            return (entry.sound, entry.made.first { $0.options == options })
        }
        if let sound = cached.0, let made = cached.1 { return (sound, made) }
        let (sound, result) = try Self.analyse(opened, path: path, version: version, options: options, sound: cached.0)
        let ahap = AHAP.encode(result.pattern)
        let analysis = PatternView.analyze(ahap, path: "generated.ahap")
        if let pattern = analysis.pattern { try Self.checkAnalysable(pattern) }
        let made = AudioMade(options: options, result: result, ahap: ahap, analysis: analysis)
        cache.audio.withLock { entry in
            if entry?.key != key { entry = StudioAudioCache(key: key, sound: sound, made: []) }
            entry!.made.removeAll { $0.options == options }
            entry!.made.append(made)
            if entry!.made.count > 4 { entry!.made.removeFirst() }
        }
        return (sound, made)
    }

    /// Decodes the open file block by block into the analyser (and, unless `sound` is known, the
    /// waveform summary).
    static func analyse(
        _ opened: StudioFiles.Opened, path: String, version: String, options: AudioHapticsOptions, sound: AudioSound?
    ) throws(StudioError) -> (AudioSound, AudioHapticsResult) {
        let reader: AudioFileReader
        do {
            // The file this request opened (the descriptor), not its name again.
            reader = try AudioFileReader(path: "/proc/self/fd/\(opened.file.fd)")
        } catch {
            throw StudioError(422, "\(path): \(error.message)")
        }
        let rate = Double(reader.sampleRate)
        let limit = Int(maxAudioSeconds * rate)
        func tooLong(_ seconds: Double) -> StudioError {
            StudioError(
                413,
                "\(path): \(String(format: "%.1f", seconds)) s of audio; the studio analyses at most "
                    + "\(Int(maxAudioSeconds)) s (haptic convert reads any length)")
        }
        guard reader.declaredFrames <= limit else { throw tooLong(Double(reader.declaredFrames) / rate) }
        if let problem = options.problem { throw .badRequest(problem) }
        let analyzer = AudioHapticsAnalyzer(sampleRate: reader.sampleRate, options: options)
        var summary = sound == nil ? AudioSummary() : nil
        let block = UnsafeMutableBufferPointer<Float>.allocate(capacity: AudioHaptics.blockFrames)
        defer { block.deallocate() }
        while case let n = reader.read(into: block), n > 0 {
            // A declared length can be an estimate (MP3): the frames read count.
            guard reader.framesRead <= limit else { throw tooLong(Double(reader.framesRead) / rate) }
            let read = UnsafeBufferPointer(rebasing: block[0..<n])
            analyzer.process(read)
            summary?.add(read)
        }
        guard reader.framesRead > 0 else { throw StudioError(422, "\(path): no audio: the file holds 0 samples") }
        let info = AudioInfo(
            container: reader.container.rawValue, sampleRate: reader.sampleRate, channels: reader.channels,
            frames: reader.framesRead, seconds: Double(reader.framesRead) / rate,
            bytes: Int(opened.status.st_size))
        let known = sound ?? AudioSound(version: version, info: info, summary: summary!)
        return (known, analyzer.finish())
    }

    // MARK: - Checking the request

    /// The library's options from the page's, each member checked (a 400 naming it).
    static func audioOptions(_ json: AudioOptionsJSON?) throws(StudioError) -> AudioHapticsOptions {
        var options = AudioHapticsOptions()
        guard let json else { return options }
        func number(_ value: Double?, _ name: String, _ range: ClosedRange<Double>) throws(StudioError) -> Double? {
            guard let value else { return nil }
            guard value.isFinite, range.contains(value) else {
                throw .badRequest(
                    "\"options.\(name)\" must be a finite number from \(range.lowerBound) to \(range.upperBound)")
            }
            return value
        }
        if let gain = try number(json.gain, "gain", -60...60) { options.gain = gain }
        if let resolution = try number(json.resolution, "resolution", 0...1) { options.resolution = resolution }
        if let sensitivity = try number(json.sensitivity, "sensitivity", 0...1) { options.sensitivity = sensitivity }
        if let gap = try number(json.minimumGap, "minimumGap", 0...10) { options.minimumGap = gap }
        if let content = json.content {
            guard let parsed = AudioHapticsOptions.Content(rawValue: content) else {
                throw .badRequest("\"options.content\" must be \"both\", \"transients\" or \"continuous\"")
            }
            options.content = parsed
        }
        if let band = json.band {
            guard let low = try number(band.low, "band.low", 1...100_000) else {
                throw .badRequest("the request has no \"options.band.low\"")
            }
            guard let high = try number(band.high, "band.high", 1...100_000) else {
                throw .badRequest("the request has no \"options.band.high\"")
            }
            guard low < high else { throw .badRequest("\"options.band.high\" must be above \"options.band.low\"") }
            options.band = .init(low: low, high: high)
        }
        if let cap = json.maxEventsPerSecond {
            guard (1...1_000).contains(cap), cap.rounded() == cap else {
                throw .badRequest("\"options.maxEventsPerSecond\" must be a whole number from 1 to 1000")
            }
            options.maxEventsPerSecond = Int(cap)
        }
        return options
    }

    /// Every option as used, for the page.
    static func json(_ options: AudioHapticsOptions) -> AudioOptionsJSON {
        AudioOptionsJSON(
            gain: options.gain, resolution: options.resolution, sensitivity: options.sensitivity,
            content: options.content.rawValue, minimumGap: options.minimumGap,
            band: options.band.map { AudioBandJSON(low: $0.low, high: $0.high) },
            maxEventsPerSecond: Double(options.maxEventsPerSecond))
    }
}

/// A sound the studio has read: what it is and its min/max summary.
struct AudioSound: Sendable {
    var version: String
    var info: Studio.AudioInfo
    var summary: AudioSummary

    /// The waveform's columns for `window` (nil: the whole sound in 2,000 columns).
    func columns(_ window: Studio.Window?) -> Studio.AudioColumns {
        let rate = Double(info.sampleRate)
        let step = Studio.audioSummaryFrames
        let start = max(0, min(window?.start ?? 0, info.seconds))
        let end = max(start, min(window?.end ?? info.seconds, info.seconds))
        let first = Int((start * rate).rounded(.down))
        let last = min(info.frames, Int((end * rate).rounded(.up)))
        let frames = max(0, last - first)
        // No column narrower than a summary pair.
        let count = min(window?.columns ?? 2_000, max(frames > 0 ? 1 : 0, frames / step))
        var low = [Double](repeating: 0, count: count)
        var high = [Double](repeating: 0, count: count)
        for column in 0..<count {
            let a = first + column * frames / count
            let b = first + (column + 1) * frames / count
            let lowPair = a / step
            let highPair = Swift.max(lowPair + 1, (b + step - 1) / step)
            var lo: Float = 0
            var hi: Float = 0
            for pair in lowPair..<Swift.min(highPair, summary.low.count) {
                lo = Swift.min(lo, summary.low[pair])
                hi = Swift.max(hi, summary.high[pair])
            }
            low[column] = (Double(lo) * 1000).rounded() / 1000
            high[column] = (Double(hi) * 1000).rounded() / 1000
        }
        return Studio.AudioColumns(
            start: Double(first) / rate, seconds: Double(frames) / rate,
            framesPerColumn: count > 0 ? Double(frames) / Double(count) : 0, min: low, max: high)
    }
}

/// The minimum and maximum of every ``Studio/audioSummaryFrames`` frames of a sound.
struct AudioSummary: Sendable {
    var low: [Float] = []
    var high: [Float] = []
    /// Frames of the last, unfinished pair.
    var pending = 0

    mutating func add(_ samples: UnsafeBufferPointer<Float>) {
        for sample in samples {
            if pending == 0 {
                low.append(sample)
                high.append(sample)
            } else {
                low[low.count - 1] = Swift.min(low[low.count - 1], sample)
                high[high.count - 1] = Swift.max(high[high.count - 1], sample)
            }
            pending = (pending + 1) % Studio.audioSummaryFrames
        }
    }
}

/// A pattern made from a sound with some options.
struct AudioMade: Sendable {
    var options: AudioHapticsOptions
    var result: AudioHapticsResult
    /// The `.ahap` a save writes (what `haptic convert` writes for the same options).
    var ahap: [UInt8]
    var analysis: PatternView.Analysis
}

/// The last sound the studio read and the last few patterns made from it.
struct StudioAudioCache: Sendable {
    var key: String
    var sound: AudioSound
    var made: [AudioMade]
}
