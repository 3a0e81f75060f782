import Foundation
import HTTPTypes
import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore
import OrderedCollections
import Synchronization

/// hummingbird-websocket's HTTP/1 channel (with the `/ws` upgrade), with the first request's
/// head bounded before the HTTP parser sees it.
///
/// Until the first head is parsed, the upgrade negotiation owns the connection: a head the parser
/// refuses (llhttp stops at 80 KB) failed the negotiation with nobody left to answer or close, so
/// the connection stayed open with no reply (issue 32). Here a request line longer than
/// ``FirstHeadLimit/maxRequestLine`` gets `414 URI Too Long`, a longer head `431`, and every
/// connection is closed once its handling ends. Later requests on a kept-alive connection are
/// Hummingbird's own: a head it cannot parse gets `400` and the connection is closed.
///
/// Every connection is admitted by ``StudioConnections`` first: at most a bounded number are open
/// at once, and one that has not sent its first head within ``FirstHeadLimit/headSeconds`` is
/// answered 408 and closed, so connections that send nothing (or a byte now and then) cannot
/// use up the process's file descriptors.
struct StudioHTTPChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value
    let inner: HTTP1WebSocketUpgradeChannel
    let connections: StudioConnections

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            let admitted = connections.admit(channel)
            try channel.pipeline.syncOperations.addHandler(
                FirstHeadLimit(connections: admitted ? connections : nil))
        } catch {
            return channel.eventLoop.makeFailedFuture(error)
        }
        return inner.setup(channel: channel, logger: logger)
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
        // After a failed negotiation nothing else would close it.
        try? await value.channel.close()
    }
}

/// Counts the bytes of the connection's first request head on their way to the HTTP parser and
/// answers, instead of the parser, a head that is too long; then removes itself.
///
/// A connection the studio has no room for (`connections` nil) is answered 503 as soon as it is
/// active; one whose head has not ended within ``headSeconds`` is answered 408.
final class FirstHeadLimit: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundOut = ByteBuffer

    /// The longest request line, in bytes (the studio's own are under 5 KB).
    static let maxRequestLine = 64 << 10
    /// The longest head, request line included, in bytes.
    static let maxHead = 64 << 10
    /// How long a refused connection may keep sending before it is closed anyway.
    static let lingerSeconds: Int64 = 2

    var seen = 0
    var lineEnded = false
    /// Line ends in a row (a `\r` does not break the run): two end the head.
    var newlines = 0
    var refused = false
    /// The admission this head counts for (nil: refused for want of room).
    let connections: StudioConnections?
    /// How long the first head may take to arrive, in seconds.
    static let headSeconds: Int64 = 10
    var deadline: Scheduled<Void>?

    init(connections: StudioConnections?) {
        self.connections = connections
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { start(context) }
    }

    func channelActive(context: ChannelHandlerContext) {
        start(context)
        context.fireChannelActive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        deadline?.cancel()
        deadline = nil
    }

    /// Refuses a connection with no room at once, and starts the head's deadline for the others.
    private func start(_ context: ChannelHandlerContext) {
        guard !refused, deadline == nil else { return }
        guard connections != nil else {
            return refuse(
                context, 503, "Service Unavailable",
                "the studio has \(StudioConnections.limit) connections open; try again when some have closed")
        }
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        deadline = context.eventLoop.scheduleTask(in: .seconds(Self.headSeconds)) {
            let (handler, context) = loopBound.value
            guard !handler.refused else { return }
            handler.refuse(
                context, 408, "Request Timeout", "the request head did not arrive within \(Self.headSeconds) s")
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !refused else { return }  // what a refused client still sends is dropped
        let buffer = unwrapInboundIn(data)
        var ended = false
        for byte in buffer.readableBytesView {
            seen += 1
            if byte == UInt8(ascii: "\n") {
                lineEnded = true
                newlines += 1
                if newlines == 2 {
                    ended = true
                    break
                }
            } else if byte != UInt8(ascii: "\r") {
                newlines = 0
            }
            if !lineEnded && seen > Self.maxRequestLine {
                return refuse(
                    context, 414, "URI Too Long", "the request line is longer than \(Self.maxRequestLine) bytes")
            }
            if seen > Self.maxHead {
                return refuse(
                    context, 431, "Request Header Fields Too Large",
                    "the request head is longer than \(Self.maxHead) bytes")
            }
        }
        context.fireChannelRead(data)
        if ended {
            connections?.headArrived(context.channel)
            context.pipeline.syncOperations.removeHandler(self, promise: nil)
        }
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        if refused {
            context.read()  // keep draining until the client closes or the linger ends
        } else {
            context.fireChannelReadComplete()
        }
    }

    /// Answers `status` with the studio's JSON error, closes the output at once and the whole
    /// connection when the client closes or after ``lingerSeconds`` (closing with unread input
    /// would reset the connection and could lose the answer).
    func refuse(_ context: ChannelHandlerContext, _ status: Int, _ reason: String, _ message: String) {
        refused = true
        let body = Studio.jsonText(Studio.ErrorResponse(error: message))
        let text =
            "HTTP/1.1 \(status) \(reason)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n" + body
        let channel = context.channel
        let written = context.eventLoop.makePromise(of: Void.self)
        context.writeAndFlush(wrapOutboundOut(ByteBuffer(string: text)), promise: written)
        written.futureResult.whenComplete { _ in channel.close(mode: .output, promise: nil) }
        context.eventLoop.scheduleTask(in: .seconds(Self.lingerSeconds)) { channel.close(promise: nil) }
        context.read()
    }
}

/// The studio's open connections: at most ``limit`` at once. When a new one would pass the limit,
/// the oldest that has not yet sent its first head makes room (it is closed); when every open
/// connection has sent one (pages, kept-alive requests, WebSockets), the new one is refused.
/// Without a bound, connections that send nothing used up the file descriptors: at the usual
/// soft limit of 1,024 the studio could open no file, and libdispatch trapped (SIGILL) when it
/// could not read `/proc` for its thread pool.
final class StudioConnections: Sendable {
    /// A quarter of the process's file descriptors, from 16 to 256 (a page uses about 7).
    static let limit: Int = {
        var limits = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limits) == 0 else { return 64 }
        let soft = Int(clamping: limits.rlim_cur)  // unlimited is the largest value
        return min(256, max(16, soft / 4))
    }()

    /// How long a kept-alive connection may wait between requests before it is closed, in
    /// seconds (a browser opens another when it needs one), so that idle connections cannot
    /// hold every place either.
    static let idleSeconds: Int64 = 15

    private struct State {
        var open = 0
        /// Connections still waiting for their first head, oldest first.
        var waiting: OrderedDictionary<ObjectIdentifier, any Channel> = [:]
    }
    private let state = Mutex(State())

    /// Counts `channel` in (until it closes) and returns true, making room if need be; false
    /// when there is none.
    func admit(_ channel: any Channel) -> Bool {
        let id = ObjectIdentifier(channel)
        let (admitted, evicted): (Bool, (any Channel)?) = state.withLock { state in
            var evicted: (any Channel)?
            if state.open >= Self.limit {
                guard !state.waiting.isEmpty else { return (false, nil) }
                evicted = state.waiting.removeFirst().value
            }
            state.open += 1
            state.waiting[id] = channel
            return (true, evicted)
        }
        evicted?.close(promise: nil)
        guard admitted else { return false }
        channel.closeFuture.whenComplete { [self] _ in
            state.withLock { state in
                state.open -= 1
                state.waiting.removeValue(forKey: id)
            }
        }
        return true
    }

    /// `channel` has sent its first head: it is no longer closed to make room.
    func headArrived(_ channel: any Channel) {
        _ = state.withLock { $0.waiting.removeValue(forKey: ObjectIdentifier(channel)) }
    }
}

/// A `Server-Timing` header (W3C Server Timing): where a request's time went on the server, in
/// stages, so the page's performance entries, DevTools and `haptic-bench studio` can tell the
/// analysis from decoding the edits and writing the answer.
///
/// ```swift
/// var timing = ServerTiming()
/// decode(); timing.mark("decode")
/// analyze(); timing.mark("analyze")
/// response.headers[ServerTiming.header] = timing.value   // decode;dur=1.204, analyze;dur=12.917
/// ```
struct ServerTiming {
    static let header = HTTPField.Name("Server-Timing")!
    private var last = ContinuousClock.now
    private var stages: [(name: String, duration: Duration)] = []

    /// Ends the stage named `name` now; the next stage starts here.
    mutating func mark(_ name: String) {
        let now = ContinuousClock.now
        stages.append((name, now - last))
        last = now
    }

    /// The header's value: each stage and its milliseconds, three decimals.
    var value: String {
        stages.map { stage in
            let milliseconds =
                Double(stage.duration.components.seconds) * 1000
                + Double(stage.duration.components.attoseconds) / 1e15
            return "\(stage.name);dur=\(String(format: "%.3f", milliseconds))"
        }.joined(separator: ", ")
    }
}
