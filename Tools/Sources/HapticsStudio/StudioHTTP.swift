import HummingbirdCore
import HummingbirdWebSocket
import Logging
import NIOCore

/// hummingbird-websocket's HTTP/1 channel (with the `/ws` upgrade), with the first request's
/// head bounded before the HTTP parser sees it.
///
/// Until the first head is parsed, the upgrade negotiation owns the connection: a head the parser
/// refuses (llhttp stops at 80 KB) failed the negotiation with nobody left to answer or close, so
/// the connection stayed open with no reply (issue 32). Here a request line longer than
/// ``FirstHeadLimit/maxRequestLine`` gets `414 URI Too Long`, a longer head `431`, and every
/// connection is closed once its handling ends. Later requests on a kept-alive connection are
/// Hummingbird's own: a head it cannot parse gets `400` and the connection is closed.
struct StudioHTTPChannel: ServerChildChannel {
    typealias Value = HTTP1WebSocketUpgradeChannel.Value
    let inner: HTTP1WebSocketUpgradeChannel

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        do {
            try channel.pipeline.syncOperations.addHandler(FirstHeadLimit())
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
        if ended { context.pipeline.syncOperations.removeHandler(self, promise: nil) }
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
