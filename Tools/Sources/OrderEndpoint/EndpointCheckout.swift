import AsyncHTTPClient
package import CupcakeCorner
package import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

/// How orders are POSTed: the overall deadline of one checkout and whom to trust for https://.
package struct EndpointOptions: Sendable {
    /// One deadline for the whole exchange: connect, TLS, send, answer, body.
    package var timeoutSeconds: Double
    /// A PEM file of certificate authorities trusted besides the system's (a self-signed server).
    package var caFile: String?

    package init(timeoutSeconds: Double = 10, caFile: String? = nil) {
        self.timeoutSeconds = timeoutSeconds
        self.caFile = caFile
    }

    /// "10 s", "2.5 s".
    var timeoutText: String {
        timeoutSeconds == timeoutSeconds.rounded()
            ? "\(Int(timeoutSeconds)) s" : "\(String(format: "%g", timeoutSeconds)) s"
    }
}

/// The answer of an endpoint to one POST.
package struct EndpointAnswer: Sendable {
    package var status: Int
    package var location: String?
    package var body: [UInt8]
}

/// POSTs orders with AsyncHTTPClient (SwiftNIO's HTTP/1.1 parser, BoringSSL through swift-nio-ssl):
/// one overall deadline, redirects never followed (an order is not re-sent elsewhere), answers
/// over 4 MiB refused, and an `Idempotency-Key` header on every POST so a server can tell a
/// retry from a new order. See docs/ARCHITECTURE.md for why not URLSession.
package final class OrderPoster: @unchecked Sendable {
    package let options: EndpointOptions
    private let client: HTTPClient
    static let maxAnswerBytes = 4 << 20

    package init(options: EndpointOptions = EndpointOptions()) throws(CheckoutError) {
        self.options = options
        var tls = TLSConfiguration.makeClientConfiguration()
        if let caFile = options.caFile {
            guard FileManager.default.isReadableFile(atPath: caFile) else {
                throw CheckoutError("cannot read the certificate file \(caFile)")
            }
            do {
                let certificates = try NIOSSLCertificate.fromPEMFile(caFile)
                guard !certificates.isEmpty else { throw CheckoutError("\(caFile) holds no PEM certificate") }
                tls.additionalTrustRoots = [.certificates(certificates)]
            } catch let error as CheckoutError {
                throw error
            } catch {
                throw CheckoutError("\(caFile) is not a PEM certificate file (\(error))")
            }
        }
        let deadline = TimeAmount.nanoseconds(Int64(options.timeoutSeconds * 1e9))
        let configuration = HTTPClient.Configuration(
            tlsConfiguration: tls, redirectConfiguration: .disallow,
            timeout: HTTPClient.Configuration.Timeout(connect: deadline, read: deadline),
            decompression: .disabled)
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    deinit { try? client.syncShutdown() }

    /// POSTs `body` as JSON to `url`, keyed by `idempotencyKey`; the answer, whatever its status.
    package func post(_ body: [UInt8], to url: URL, idempotencyKey: String) throws(CheckoutError) -> EndpointAnswer {
        let host = url.host().map { h in url.port.map { "\(h):\($0)" } ?? h } ?? url.absoluteString
        let request: HTTPClient.Request
        do {
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "application/json")
            headers.add(name: "Accept", value: "application/json")
            headers.add(name: "Idempotency-Key", value: idempotencyKey)
            request = try HTTPClient.Request(url: url, method: .POST, headers: headers, body: .bytes(body))
        } catch {
            throw CheckoutError("cannot POST to \(url.absoluteString): \(error)")
        }
        let start = ContinuousClock.now
        let limit = Duration.nanoseconds(Int64(options.timeoutSeconds * 1e9))
        let task = client.execute(
            request: request, delegate: ResponseAccumulator(request: request, maxBodySize: Self.maxAnswerBytes),
            deadline: .now() + .nanoseconds(Int64(options.timeoutSeconds * 1e9)))
        // The deadline covers the body too, whatever the client's own timers do.
        let guardTimer = DispatchWorkItem { task.cancel() }
        DispatchQueue.global().asyncAfter(deadline: .now() + options.timeoutSeconds + 0.05, execute: guardTimer)
        defer { guardTimer.cancel() }
        do {
            let response = try task.wait()
            return EndpointAnswer(
                status: Int(response.status.code), location: response.headers.first(name: "Location"),
                body: response.body.map { Array($0.readableBytesView) } ?? [])
        } catch {
            let timeouts: [HTTPClientError] = [.deadlineExceeded, .cancelled, .readTimeout, .connectTimeout]
            let timedOut = (error as? HTTPClientError).map { timeouts.contains($0) } ?? false
            if timedOut && ContinuousClock.now - start >= limit - .milliseconds(50) {
                throw CheckoutError("the server did not answer within \(options.timeoutText)")
            }
            throw CheckoutError(Self.describe(error, host: host))
        }
    }

    /// A failed exchange in words.
    static func describe(_ error: any Error, host: String) -> String {
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .remoteConnectionClosed: return "\(host) closed the connection before answering"
            case .connectTimeout: return "cannot connect to \(host) (timed out)"
            case .tlsHandshakeTimeout: return "the TLS handshake with \(host) timed out"
            default: return "the exchange with \(host) failed (\(error))"
            }
        case let error as HTTPParserError:
            return "\(host) sent a malformed HTTP answer (\(error))"
        case let error as NIOSSLError:
            return "the TLS handshake with \(host) failed (\(error))"
        case let error as NIOSSLExtraError:
            return "the TLS handshake with \(host) failed (\(error))"
        case let error as BoringSSLError:
            return "the TLS connection with \(host) failed (\(error))"
        case is ResponseAccumulator.ResponseTooBigError:
            return "the answer from \(host) is over 4 MiB"
        case let error as IOError:
            return "the connection to \(host) failed: \(error.description)"
        default:
            return "the exchange with \(host) failed (\(error))"
        }
    }
}

/// Checkout by POSTing the order's JSON to an endpoint, as the tutorial's app did with
/// reqres.in; the endpoint echoes the order back.
///
/// Store first, then send: the order is durably in the store as `pending` before any byte goes
/// out, and afterwards marked `sent` or `failed` with the reason. A kill at any moment leaves it
/// in the outbox (`haptic order outbox`), and a retry sends it with the same idempotency key.
package final class EndpointCheckout: OrderCheckout {
    package let url: URL
    package let store: OrderStore
    private let poster: OrderPoster

    package init(url: URL, store: OrderStore, options: EndpointOptions = EndpointOptions()) throws(CheckoutError) {
        self.url = url
        self.store = store
        self.poster = try OrderPoster(options: options)
    }

    package func submit(_ order: Order) throws(CheckoutError) -> Receipt {
        let record: StoredOrder
        do {
            record = try store.append(StoredOrder(order: order.copy(), endpoint: url.absoluteString))
        } catch {
            throw CheckoutError("could not save the order, so nothing was sent: \(error.description)")
        }
        let echoed = try OrderSender(store: store, poster: poster).send(record)
        return Receipt(
            id: record.id, quantity: echoed.quantity, typeName: echoed.typeName, cost: echoed.cost,
            destination: url.absoluteString)
    }
}

/// Sends one stored order and records the outcome; shared by checkout and the outbox's retry.
package struct OrderSender {
    package let store: OrderStore
    package let poster: OrderPoster

    package init(store: OrderStore, poster: OrderPoster) {
        self.store = store
        self.poster = poster
    }

    /// POSTs `record` to its endpoint and marks it `sent` (returning the echoed order) or
    /// `failed` (throwing the reason, which says where the order is kept).
    package func send(_ record: StoredOrder) throws(CheckoutError) -> Order {
        let file = store.file.path(percentEncoded: false)
        let kept = "the order is kept in the outbox as \(record.id) in \(file) (haptic order outbox --retry sends it)"
        guard let endpoint = record.endpoint, let url = URL(string: endpoint) else {
            throw CheckoutError("order \(record.id) has no endpoint to send it to")
        }
        let body: [UInt8]
        do {
            body = Array(try OrderStore.encoder().encode(record.order))
            try store.mark(OrderStatusUpdate(id: record.id, state: .pending, attempt: true))
        } catch let error as OrderStoreError {
            throw CheckoutError("could not record the attempt, so nothing was sent: \(error.description); \(kept)")
        } catch {
            throw CheckoutError("cannot encode the order: \(error); \(kept)")
        }
        let outcome: Result<Order, CheckoutError>
        do {
            let answer = try poster.post(body, to: url, idempotencyKey: record.id)
            outcome = Self.judge(answer, url: url)
        } catch {
            outcome = .failure(error)
        }
        switch outcome {
        case .success(let echoed):
            do {
                try store.mark(OrderStatusUpdate(id: record.id, state: .sent, reason: "accepted"))
            } catch {
                // Sent, but not recorded: the outbox keeps it as pending, and a retry carries the
                // same idempotency key, so the server can tell it is the same order.
                throw CheckoutError(
                    "\(endpoint) accepted order \(record.id), but marking it sent failed (\(error.description)); "
                        + "it stays in the outbox as pending")
            }
            return echoed
        case .failure(let error):
            do {
                try store.mark(OrderStatusUpdate(id: record.id, state: .failed, reason: error.description))
            } catch {
                throw CheckoutError("\(error.description); marking order \(record.id) failed did not work either")
            }
            throw CheckoutError("\(error.description); \(kept)")
        }
    }

    static func judge(_ answer: EndpointAnswer, url: URL) -> Result<Order, CheckoutError> {
        if (300..<400).contains(answer.status) {
            let target = answer.location.map { " to \($0)" } ?? ""
            return .failure(
                CheckoutError(
                    "\(url.absoluteString) answered HTTP \(answer.status) (a redirect\(target), not followed: an order is never re-sent elsewhere)"
                ))
        }
        guard (200..<300).contains(answer.status) else {
            return .failure(CheckoutError("\(url.absoluteString) answered HTTP \(answer.status)"))
        }
        do {
            return .success(try JSONDecoder().decode(Order.self, from: Data(answer.body)))
        } catch {
            return .failure(
                CheckoutError(
                    "\(url.absoluteString) answered with something that is not the order (\(OrderStore.describe(error)))"
                ))
        }
    }
}
