package import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOEmbedded

extension Studio {
    /// The router the server runs: the heap trim around everything, the guard, then every route.
    func makeRouter() -> Router<BasicWebSocketRequestContext> {
        let router = Router(context: BasicWebSocketRequestContext.self)
        router.middlewares.add(StudioHeapTrim())
        router.middlewares.add(StudioGuard(studio: self))
        routes(router)
        return router
    }

    /// The studio's router answering requests in this process, without a socket: what the route
    /// fuzzer (Fuzz/Sources/fuzz-studio) drives. The guard runs as it does for a served request
    /// (Host, Origin, token); the port is the one the server listens on, 0 when it does not.
    package func inProcess() -> InProcessStudio { InProcessStudio(responder: makeRouter().buildResponder()) }
}

/// ``Studio/inProcess()``'s answerer.
package struct InProcessStudio: Sendable {
    let responder: RouterResponder<BasicWebSocketRequestContext>
    /// The channel every request's context names (a context needs one; nothing is written to it),
    /// one for all, so that a run of millions of requests keeps none per request.
    let channel = NIOAsyncTestingChannel()

    /// The response the server would send to `request` (an error the guard did not turn into a
    /// response becomes a 500, which the fuzzer reports).
    package func respond(to request: Request) async -> Response {
        var logger = Logger(label: "haptic-studio")
        logger.logLevel = .critical
        let context = BasicWebSocketRequestContext(source: .init(channel: channel, logger: logger))
        do {
            return try await responder.respond(to: request, context: context)
        } catch {
            return StudioGuard<BasicWebSocketRequestContext>.errorResponse(StudioError(500, "unanswered: \(error)"))
        }
    }
}
