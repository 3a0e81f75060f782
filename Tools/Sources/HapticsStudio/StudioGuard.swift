import Foundation
import HTTPTypes
import HapticsCore
import Hummingbird
import OrderedCollections

/// Every request passes here first (docs/studio.md, "Security"):
///
/// - `Host` must be `127.0.0.1:PORT` or `localhost:PORT` (no DNS rebinding);
/// - `Origin`, when present, must be this server; requests that change anything and the
///   WebSocket upgrade must carry it (no cross-site requests);
/// - the page's three static assets need nothing more (they hold no data); every other request
///   must carry the token in the `X-Studio-Token` header, and the WebSocket upgrade, which a
///   browser cannot give headers, as `/ws?token=…`. No cookie is set or accepted: a browser sends
///   a cookie to every port of a host, so it would reach any other local server the browser
///   visits, and a second studio's would replace the first's. The page keeps the token (from the
///   address's `#token=`, which the browser never sends) in its `sessionStorage`, which belongs
///   to this origin, port included;
/// - every response, refusals and errors included, carries the strict CSP and no-store headers,
///   and errors are `{"error": "message"}`.
struct StudioGuard<Context: RequestContext>: RouterMiddleware {
    let studio: Studio

    static var tokenHeader: HTTPField.Name { HTTPField.Name("X-Studio-Token")! }

    static var securityHeaders: [(HTTPField.Name, String)] {
        [
            (
                .contentSecurityPolicy,
                "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                    + "media-src 'self' blob:; connect-src 'self'; base-uri 'none'; form-action 'none'; "
                    + "frame-ancestors 'none'"
            ),
            (HTTPField.Name("X-Content-Type-Options")!, "nosniff"),
            (HTTPField.Name("Referrer-Policy")!, "no-referrer"),
            (.cacheControl, "no-store"),
            (HTTPField.Name("X-Frame-Options")!, "DENY"),
        ]
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        var response: Response
        do {
            if let early = try check(request) {
                response = early
            } else {
                response = try await next(request, context)
            }
        } catch let error as StudioError {
            response = Self.errorResponse(error)
        } catch let error as any HTTPResponseError {
            let message = error.status == .notFound ? "no such page: \(request.uri.path)" : "\(error.status)"
            response = Self.errorResponse(StudioError(Int(error.status.code), message))
        } catch {
            response = Self.errorResponse(StudioError(500, "\(error)"))
        }
        for (name, value) in Self.securityHeaders { response.headers[name] = value }
        return response
    }

    /// Refuses what must be refused; returns the redirect for a first load with the token.
    func check(_ request: Request) throws(StudioError) -> Response? {
        let port = studio.port
        let allowedHosts = ["127.0.0.1:\(port)", "localhost:\(port)"]
        guard let host = request.head.authority?.lowercased(), allowedHosts.contains(host) else {
            throw .forbidden("refused: Host must be 127.0.0.1:\(port) or localhost:\(port)")
        }
        let origin = request.headers[.origin]
        let changes = request.method != .get && request.method != .head
        let upgrade = request.headers[.upgrade]?.lowercased() == "websocket"
        if let origin {
            guard allowedHosts.map({ "http://\($0)" }).contains(origin.lowercased()) else {
                throw .forbidden("refused: requests from \(origin) are not allowed")
            }
        } else if changes || upgrade {
            throw .forbidden("refused: \(upgrade ? "a WebSocket" : "a \(request.method)") request needs an Origin")
        }
        if request.method == .get || request.method == .head, Self.assets.contains(request.uri.path) {
            return nil
        }
        var presented = request.headers[Self.tokenHeader]
        if presented == nil, upgrade, request.uri.path == "/ws" {
            presented = request.uri.queryParameters.get("token")
        }
        guard let presented, Self.equal(presented, studio.token) else {
            throw .forbidden(
                "refused: no studio token; open the address `haptic studio` printed (it carries #token=)")
        }
        return nil
    }

    /// The page's static files: the same for every studio, no data in them.
    static var assets: Set<String> { ["/", "/studio.js", "/studio-worker.js", "/studio.css"] }

    /// Compares in time that does not depend on where the strings differ.
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        guard x.count == y.count else { return false }
        var difference: UInt8 = 0
        for i in 0..<x.count { difference |= x[i] ^ y[i] }
        return difference == 0
    }

    static func errorResponse(_ error: StudioError) -> Response {
        var headers: HTTPFields = [.contentType: "application/json"]
        if let seconds = error.retryAfter { headers[.retryAfter] = "\(seconds)" }
        return Response(
            status: HTTPResponse.Status(code: error.status), headers: headers,
            body: .init(byteBuffer: ByteBuffer(string: Studio.jsonText(error.response))))
    }
}
