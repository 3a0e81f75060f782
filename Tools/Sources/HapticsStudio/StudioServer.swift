import Foundation
import HapticsCore
import HapticsEngine
import HapticsReview
import HapticsSynthesis
import Hummingbird
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import NIOWebSocket
import OrderedCollections
import Synchronization

/// `haptic studio`: a local web app to audition, edit and review the pattern files under some
/// folders. docs/studio.md is the contract between this server and the page in `Web/`.
///
/// ```swift
/// let studio = try Studio(folders: ["Patterns"], playback: StudioPlayback { try selection.open() })
/// try await studio.run { url in print(url) }   // until cancelled
/// ```
package final class Studio: Sendable {
    package let files: StudioFiles
    package let playback: StudioPlayback
    /// The renders in flight (``renderLimit``).
    let renders = RenderPlaces()
    /// The secret every request carries (`X-Studio-Token`): 32 random bytes in hex.
    package let token: String
    let requestedPort: Int
    let boundPort = Atomic<Int>(0)
    let hub = StudioHub()
    let watcher: StudioWatcher
    /// Edited texts and waveforms kept between requests (see `sourcePatch`, `editedWaveform`).
    let cache = StudioCache()
    /// Test-only: see ``beforeSaveWrite(_:)`` and ``afterSaveWrite(_:)``.
    let saveWriteHooks = Mutex<(before: SaveHook?, after: SaveHook?)>((nil, nil))
    typealias SaveHook = @Sendable (_ path: String) -> Void

    /// - Parameters:
    ///   - folders: what is served (studio paths start with each one's label).
    ///   - port: the port on 127.0.0.1; 0 takes a free one.
    ///   - token: the secret (default: fresh random).
    package init(folders: [String], port: Int = 0, playback: StudioPlayback, token: String? = nil) throws(StudioError) {
        files = try StudioFiles(folders: folders)
        self.playback = playback
        self.token = token ?? Self.randomToken()
        requestedPort = port
        watcher = StudioWatcher(files: files, hub: hub)
    }

    static func randomToken() -> String {
        var generator = SystemRandomNumberGenerator()
        return (0..<32).map { _ in
            let byte = UInt8.random(in: 0...255, using: &generator)
            return String(byte >> 4, radix: 16) + String(byte & 15, radix: 16)
        }.joined()
    }

    /// Test-only: `hook` is called with the path after each save's write, before the save
    /// returns, so that a test can make the watcher look at the file there
    /// (``checkWatcher(_:)``), as an inotify event arriving at that moment does.
    package func afterSaveWrite(_ hook: (@Sendable (_ path: String) -> Void)?) {
        saveWriteHooks.withLock { $0.after = hook }
    }

    /// Test-only: `hook` is called with the path in each save just before its write, once the
    /// watcher knows the version to be written, so that a test can open the file for another page
    /// there (``open(path:withText:)``), as a `GET /api/pattern` handled at that moment does.
    package func beforeSaveWrite(_ hook: (@Sendable (_ path: String) -> Void)?) {
        saveWriteHooks.withLock { $0.before = hook }
    }

    /// Test-only: the watcher's check of `path` now, as on an inotify event: the messages it
    /// announces (sent to the pages too).
    package func checkWatcher(_ path: String) -> [String] {
        let messages = watcher.changes([path])
        Task { [hub] in for message in messages { await hub.broadcast(message) } }
        return messages
    }

    /// The WebSockets subscribed to the studio's messages now.
    package func openSockets() async -> Int { await hub.count }

    /// The most WebSockets kept open at once (``StudioHub/maxSockets``).
    package static var maxSockets: Int { StudioHub.maxSockets }

    /// The port the server listens on (0 until it does).
    package var port: Int { boundPort.load(ordering: .acquiring) }

    /// The address to open: the page, with the token in the fragment (which the browser keeps
    /// to the page and never sends to any server).
    package var url: String { "http://127.0.0.1:\(port)/#token=\(token)" }

    /// Serves until the task is cancelled; `ready` is called with the URL once listening.
    package func run(ready: @escaping @Sendable (String) -> Void = { _ in }) async throws {
        let router = makeRouter()
        var logger = Logger(label: "haptic-studio")
        // Hummingbird logs a cancelled connection (Ctrl-C) as an error; the studio reports its own.
        logger.logLevel = .critical
        let webSocketResponder = router.buildResponder()
        let connections = StudioConnections()
        let app = Application(
            router: router,
            server: HTTPServerBuilder { responder in
                StudioHTTPChannel(
                    inner: HTTP1WebSocketUpgradeChannel(
                        responder: responder, webSocketResponder: webSocketResponder,
                        configuration: .init(http1: .init(idleTimeout: .seconds(StudioConnections.idleSeconds)))),
                    connections: connections)
            },
            configuration: .init(address: .hostname("127.0.0.1", port: requestedPort), serverName: nil),
            onServerRunning: { [self] channel in
                boundPort.store(channel.localAddress?.port ?? 0, ordering: .releasing)
                ready(url)
            },
            logger: logger
        )
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await self.watcher.run() }
            group.addTask { await self.publishPlayhead() }
            group.addTask { try await app.run() }
            defer { group.cancelAll() }
            try await group.next()
        }
        playback.shutdown()
    }

    // MARK: - Routes

    func routes(_ router: Router<BasicWebSocketRequestContext>) {
        router.get("/") { _, _ in Self.asset(PackageResources.studio_html, "text/html; charset=utf-8") }
        router.get("/studio.js") { _, _ in Self.asset(PackageResources.studio_js, "text/javascript; charset=utf-8") }
        router.get("/studio-worker.js") { _, _ in
            Self.asset(PackageResources.studio_worker_js, "text/javascript; charset=utf-8")
        }
        router.get("/studio.css") { _, _ in Self.asset(PackageResources.studio_css, "text/css; charset=utf-8") }
        router.get("/api/files") { [self] _, _ in
            let (list, truncated) = files.list()
            return Self.encoded(
                FilesResponse(
                    roots: files.roots.map(\.label),
                    files: list.map { .init(path: $0.path, format: $0.format, bytes: $0.bytes) }, truncated: truncated))
        }
        router.get("/api/pattern") { [self] request, _ in
            let path = try Self.query(request, "path")
            let json = try patternJSON(path: path, withText: request.uri.queryParameters.get("text") == "1")
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: json))
        }
        router.post("/api/analyze") { [self] request, _ in
            var timing = ServerTiming()
            let raw = try await Self.bodyBytes(request)
            timing.mark("body")
            if let json = try analyzeAnswer(raw, mark: { timing.mark($0) }) {
                var response = Self.encoded(json: json)
                response.headers[ServerTiming.header] = timing.value
                return response
            }
            let body = try Self.jsonBody(raw)
            let path = try Self.text(body, "path")
            let bytes = try files.read(path)
            let edited = try Self.member(body, "ahap")
            guard case .object = edited else { throw StudioError.badRequest("\"ahap\" must be an AHAP object") }
            return Self.encoded(try view(path: path, fileBytes: bytes, edited: edited))
        }
        router.put("/api/pattern") { [self] request, _ in
            let path = try Self.query(request, "path")
            return Self.encoded(try saveEdits(path: path, request: try await Self.decode(EditRequest.self, request)))
        }
        router.post("/api/render") { [self] request, _ in
            let play = try playRequest(try await Self.decode(PlayRequest.self, request))
            guard let place = renders.take() else {
                var busy = StudioError(
                    503, "the studio is rendering \(Self.renderLimit) patterns already; try again when one has finished"
                )
                busy.retryAfter = 1
                throw busy
            }
            return try Self.wav(play, holding: place)
        }
        router.post("/api/play") { [self] request, _ in
            let play = try playRequest(try await Self.decode(PlayRequest.self, request))
            do {
                let id = try playback.play(play)
                return Self.encoded(PlayingResponse(playing: true, id: id))
            } catch {
                throw StudioError(503, "cannot play through the studio's output: \(error)")
            }
        }
        router.post("/api/stop") { [self] _, _ in
            playback.stop()
            return Self.encoded(PlayingResponse(playing: false))
        }
        router.get("/api/git") { [self] request, _ in
            let path = try Self.query(request, "path")
            let place = try files.resolve(path)
            let bytes = try await files.committed(path)
            let analysis = PatternView.analyze(bytes, path: place.realPath)
            if let pattern = analysis.pattern { try Self.checkAnalysable(pattern) }
            var out = view(path: path, fileBytes: nil, edited: nil, analysis: analysis, locatesLines: true)
            out.version = "HEAD"
            return Self.encoded(out)
        }
        router.post("/api/diff") { [self] request, _ in
            let raw = try await Self.bodyBytes(request)
            if let edited = try Self.editRequest(raw), edited.against != nil {
                return Self.encoded(try await diffEdits(path: edited.path ?? "", request: edited))
            }
            let body = try Self.decode(DiffRequest.self, raw)
            guard let a = body.a else { throw StudioError.badRequest("the request has no \"a\"") }
            guard let b = body.b else { throw StudioError.badRequest("the request has no \"b\"") }
            return Self.encoded(
                DiffResponse(
                    PatternDiff.compare(try Self.pattern(a.value, what: "a"), try Self.pattern(b.value, what: "b"))))
        }
        router.ws("/ws") { [self] inbound, outbound, _ in
            let (stream, id) = await hub.subscribe()
            // However the socket ends (a close, a reset by the peer, a frame the protocol refuses:
            // the inbound stream then throws), its subscription goes with it; before, each socket
            // reset by its page kept its subscriber and sender for good (9 KB each, BENCHMARKS.md).
            // When newer sockets push this one out (StudioHub.maxSockets), its stream ends: it is
            // told so and the handler returns at once, which closes the connection whether or not
            // the peer answers the close, so its place goes to requests.
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    do {
                        // Said once registered, so a client can tell when broadcasts start reaching it.
                        try await outbound.write(.text(Self.jsonText(SubscribedMessage())))
                        for await text in stream { try await outbound.write(.text(text)) }
                        if !Task.isCancelled {
                            try await outbound.close(.goingAway, reason: "too many WebSockets are open")
                        }
                    } catch {}
                }
                group.addTask {
                    do {
                        for try await _ in inbound {}
                    } catch {}
                }
                await group.next()
                group.cancelAll()
            }
            await hub.unsubscribe(id)
        }
        audioRoutes(router)
    }

    /// The view of the file at `path`, or of an edit of it (`edited`, the page's AHAP JSON).
    func view(path: String, fileBytes: [UInt8]?, edited: JSONValue?, withText: Bool = false) throws(StudioError)
        -> PatternViewResponse
    {
        let started = ContinuousClock.now
        let bytes = edited.map { Array($0.jsonText.utf8) } ?? fileBytes ?? []
        // An edit is always AHAP JSON, whatever the file's format.
        let analysis = PatternView.analyze(bytes, path: edited == nil ? path : "edit.ahap")
        if let pattern = analysis.pattern { try Self.checkAnalysable(pattern) }
        let elapsed = ContinuousClock.now - started
        return view(
            path: path, fileBytes: fileBytes, edited: edited, analysis: analysis, locatesLines: edited == nil,
            withText: withText,
            milliseconds: Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
    }

    func view(
        path: String, fileBytes: [UInt8]?, edited: JSONValue?, analysis: PatternView.Analysis, locatesLines: Bool,
        withText: Bool = false, milliseconds: Double = 0
    ) -> PatternViewResponse {
        PatternView.make(
            path: path,
            file: fileBytes.map { (StudioFiles.version(of: $0), withText ? String(decoding: $0, as: UTF8.self) : nil) },
            analysis: analysis, fallback: edited, locatesLines: locatesLines, milliseconds: milliseconds)
    }

    let saveLock = Mutex(())

    /// What `body` asks to play or render: the file at `path` with `edits`, the compared `ahap`,
    /// or the file as it is; each member checked before anything is scaled or rendered.
    func playRequest(_ body: PlayRequest) throws -> StudioPlayback.Request {
        let path = body.path
        let pattern: HapticPattern
        if let edits = body.edits, let path {
            let request = EditRequest(path: path, baseVersion: body.baseVersion, edits: edits)
            pattern = try editedPattern(path: path, request: request)
        } else if let ahap = body.ahap, ahap.value != .null {
            pattern = try Self.pattern(ahap.value, what: "ahap")
        } else if let path {
            let bytes = try files.read(path)
            guard let decoded = PatternView.analyze(bytes, path: path).pattern else {
                throw StudioError(422, "\(path): does not decode; see its findings")
            }
            pattern = decoded
        } else {
            throw StudioError.badRequest("give \"ahap\" or \"path\"")
        }
        // What the studio will not show it will not play or render either: beyond the engine's
        // voices each frame costs every event sounding (an hour of 860 at once took 68 s).
        try Self.checkAnalysable(pattern)
        var play = StudioPlayback.Request(pattern: pattern)
        if let path, let place = try? files.resolve(path) {
            play.clips = PatternView.waveforms(of: pattern, at: place).clips
        }
        if let name = body.voice {
            guard let voice = VoicingProfile.named(name) else { throw StudioError.badRequest("no voice named \(name)") }
            play.voicing = voice
        }
        if let rate = body.rate {
            // Checked before any time is scaled by it: the slowed pattern must be one the
            // studio could open (AHAPLimits.maxDuration), so no rate can ask for more.
            guard rate >= Self.rates.lowerBound, rate <= Self.rates.upperBound else {
                throw StudioError.badRequest(
                    "rate must be a number from \(Self.rates.lowerBound) to \(Self.rates.upperBound)")
            }
            if let problem = pattern.rateProblem(rate, maxSeconds: AHAPLimits.default.maxDuration) {
                throw StudioError.badRequest(problem)
            }
            play.rate = Float(rate)
        }
        if let from = try Self.seconds(body.from, "from") { play.from = from }
        if let to = try Self.seconds(body.to, "to") {
            guard to >= play.from else { throw StudioError.badRequest("\"to\" must not be before \"from\"") }
            play.to = to
        }
        play.loop = body.loop ?? false
        // A loop of nothing (an empty selection, or one past the end) has nothing to repeat.
        if play.loop, min(play.to ?? pattern.duration, pattern.duration) - play.from < 0.001 {
            throw StudioError.badRequest("a loop needs at least 1 ms of the pattern between \"from\" and \"to\"")
        }
        return play
    }

    /// The playback rates a play or render may ask for.
    static let rates = 0.001...16.0

    /// Pushes the playhead to every page about every 16 ms while something plays, and sleeps
    /// until the next play while nothing does (a 16 ms poll of an idle studio woke its threads
    /// hundreds of times a second).
    func publishPlayhead() async {
        var starts = playback.starts.makeAsyncIterator()
        let clock = ContinuousClock()
        let period = Duration.milliseconds(16)
        // The next message's deadline: the cadence does not stretch by the time a broadcast
        // takes, and a late wake-up (a loaded machine) is not made up with a burst.
        var next = clock.now
        while !Task.isCancelled {
            guard let position = playback.position() else {
                // Ends with the task: the stream's iterator returns nil once it is cancelled.
                guard await starts.next() != nil else { return }
                next = clock.now
                continue
            }
            let message = PlayheadMessage(
                id: position.id, time: (position.time * 1e6).rounded() / 1e6,
                engineTime: (position.engineTime * 1e6).rounded() / 1e6, playing: position.playing)
            await hub.broadcast(Self.jsonText(message))
            if !position.playing { playback.clear(id: position.id) }
            next = max(next + period, clock.now)
            try? await Task.sleep(until: next, tolerance: .milliseconds(1), clock: clock)
        }
    }

    // MARK: - Helpers

    static func asset(_ bytes: [UInt8], _ type: String) -> Response {
        Response(status: .ok, headers: [.contentType: type], body: .init(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func json(_ value: JSONValue, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status, headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(string: value.jsonText)))
    }

    static func query(_ request: Request, _ name: String) throws(StudioError) -> String {
        guard let value = request.uri.queryParameters.get(name) else { throw .badRequest("missing ?\(name)=") }
        return value
    }

    static func member(_ body: JSONValue, _ key: String) throws(StudioError) -> JSONValue {
        guard let value = body[key] else { throw .badRequest("the request has no \"\(key)\"") }
        return value
    }

    /// A pattern from the page's AHAP JSON; an edit that has errors is refused with the first.
    static func pattern(_ ahap: JSONValue, what: String) throws(StudioError) -> HapticPattern {
        guard case .object = ahap else { throw .badRequest("\"\(what)\" must be an AHAP object") }
        do {
            return try AHAP.decode(Array(ahap.jsonText.utf8)).pattern
        } catch {
            throw StudioError(422, "\(what): \(error.diagnostic.formatted(file: nil))")
        }
    }
}
