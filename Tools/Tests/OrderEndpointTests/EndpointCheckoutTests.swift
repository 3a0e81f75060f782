import CupcakeCorner
import Foundation
import OrderEndpoint
import SensoryFeedback
import Synchronization
import Testing

/// Records every feedback played, in order.
final class RecordingSink: FeedbackSink {
    private let played = Mutex<[SensoryFeedback]>([])
    var feedback: [SensoryFeedback] { played.withLock { $0 } }
    func play(_ feedback: SensoryFeedback) { played.withLock { $0.append(feedback) } }
}

/// A scratch folder removed when the test ends.
final class Scratch {
    let url = FileManager.default.temporaryDirectory.appending(path: "endpoint-\(UUID().uuidString)")
    init() { try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true) }
    deinit { try? FileManager.default.removeItem(at: url) }
}

func filledSession(_ checkout: any OrderCheckout) -> (OrderSession, RecordingSink) {
    let sink = RecordingSink()
    let session = OrderSession(order: Order(), sink: sink, checkout: checkout)
    for action in [
        OrderAction.setQuantity(5), .setType(3), .name("Ada"), .street("1 Loop"), .city("Cupertino"), .zip("95014"),
    ] {
        session.perform(action)
    }
    return (session, sink)
}

/// One misbehaviour of the server and what the customer must see.
struct Fault: CustomTestStringConvertible, Sendable {
    var path: String
    /// The start of the reason after the URL, or nil when the order must go through.
    var reason: String?
    var testDescription: String { path }
}

@Suite(.serialized) struct EndpointCheckoutTests {
    static let faults: [Fault] = [
        Fault(path: "ok", reason: nil),
        Fault(path: "500", reason: "answered HTTP 500"),
        Fault(path: "302", reason: "answered HTTP 302 (a redirect to /ok, not followed"),
        Fault(path: "307", reason: "answered HTTP 307 (a redirect to /ok, not followed"),
        Fault(path: "neg-length", reason: "sent a malformed HTTP answer (invalid character in content-length header)"),
        Fault(path: "chunk-empty", reason: "sent a malformed HTTP answer (invalid character in chunk size header)"),
        Fault(path: "chunk-neg", reason: "sent a malformed HTTP answer (invalid character in chunk size header)"),
        Fault(path: "chunk-huge", reason: "sent a malformed HTTP answer (stream ended at an unexpected time)"),
        Fault(path: "garbage", reason: "sent a malformed HTTP answer"),
        Fault(path: "close", reason: "closed the connection before answering"),
        Fault(path: "reset", reason: "the connection to 127.0.0.1"),
        Fault(path: "short", reason: "sent a malformed HTTP answer (stream ended at an unexpected time)"),
        Fault(path: "stall", reason: "the server did not answer within 1 s"),
        Fault(path: "drip", reason: "the server did not answer within 1 s"),
    ]

    /// Every fault: the order is in the store exactly once, marked sent only when the server
    /// accepted it, else failed with the reason; the server saw it at most once, keyed by its ID.
    @Test(arguments: faults) func noServerReplyLosesOrDuplicatesAnOrder(fault: Fault) async throws {
        let scratch = Scratch()
        let server = try await FaultServer(folder: scratch.url)
        let store = try OrderStore(directory: scratch.url.appending(path: "store"))
        let url = server.url(fault.path)
        let checkout = try EndpointCheckout(url: url, store: store, options: EndpointOptions(timeoutSeconds: 1))
        let (session, sink) = filledSession(checkout)
        let started = ContinuousClock.now
        let outcome = session.perform(.submit)
        let took = ContinuousClock.now - started
        #expect(took < .milliseconds(1500), "checkout took \(took)")
        let stored = try store.load()
        #expect(stored.problems.isEmpty)
        #expect(stored.orders.count == 1)
        let record = try #require(stored.orders.first)
        #expect(record.order.quantity == 5 && record.endpoint == url.absoluteString && record.attempts == 1)
        let received = server.received
        #expect(received.count == 1 && received.allSatisfy { $0.key == record.id && !$0.replay })
        switch (outcome, fault.reason) {
        case (.checkedOut(let receipt), nil):
            #expect(receipt.id == record.id && receipt.message == "Your order for 5x rainbow cupcakes is on its way!")
            #expect(record.state == .sent)
            #expect(sink.feedback.last == .success)
            #expect(try store.outbox().isEmpty)
        case (.rejected(let reason), let expected?):
            let starts = [expected, "\(url.absoluteString) \(expected)", "127.0.0.1:\(server.port) \(expected)"]
            #expect(starts.contains { reason.hasPrefix($0) }, "\(reason)")
            #expect(
                reason.hasSuffix(
                    "the order is kept in the outbox as \(record.id) in \(store.file.path(percentEncoded: false)) (haptic order outbox --retry sends it)"
                ))
            #expect(record.state == .failed && record.reason.map { reason.hasPrefix($0) } == true)
            #expect(sink.feedback.last == .error && !sink.feedback.contains(.success))
            #expect(try store.outbox().map(\.id) == [record.id])
        default:
            Issue.record("\(fault.path): unexpected outcome \(outcome)")
        }
    }

    @Test func aRetryResendsWithTheSameKeyAndTheServerCountsItOnce() async throws {
        let scratch = Scratch()
        let server = try await FaultServer(folder: scratch.url)
        let store = try OrderStore(directory: scratch.url.appending(path: "store"))
        // Checked out while the endpoint answered 500: failed, in the outbox.
        let (session, _) = filledSession(
            try EndpointCheckout(url: server.url("500"), store: store, options: EndpointOptions(timeoutSeconds: 2)))
        guard case .rejected = session.perform(.submit) else {
            Issue.record("a 500 was not reported")
            return
        }
        // The same order as if the process had died after the server got it: pending, at /ok.
        let pending = StoredOrder(id: "pending-1", order: Order(), endpoint: server.url("ok").absoluteString)
        try store.append(pending)
        let poster = try OrderPoster(options: EndpointOptions(timeoutSeconds: 2))
        _ = try poster.post(
            Array(try OrderStore.encoder().encode(pending.order)), to: server.url("ok"), idempotencyKey: "pending-1")
        let sender = OrderSender(store: store, poster: poster)
        let echoed = try sender.send(try #require(try store.outbox().first { $0.id == "pending-1" }))
        #expect(echoed.quantity == 3)
        let keys = server.received.filter { $0.key == "pending-1" }
        #expect(keys.map(\.replay) == [false, true])
        #expect(try store.outbox().map(\.state) == [.failed])
    }

    @Test func httpsWorksWithTheServersCertificateAndFailsWithoutIt() async throws {
        let scratch = Scratch()
        let certificate = try await Certificate(in: scratch.url)
        let server = try await FaultServer(folder: scratch.url, tls: certificate)
        let store = try OrderStore(directory: scratch.url.appending(path: "store"))
        // Trusted through --ca-file: sent.
        let trusted = try EndpointCheckout(
            url: server.url("ok"), store: store,
            options: EndpointOptions(timeoutSeconds: 5, caFile: certificate.certificate))
        let (session, _) = filledSession(trusted)
        guard case .checkedOut(let receipt) = session.perform(.submit) else {
            Issue.record("https with the server's certificate failed")
            return
        }
        #expect(receipt.destination.hasPrefix("https://127.0.0.1:"))
        // Not trusted (the system's store only): refused in the handshake, nothing sent, kept.
        let untrusted = try EndpointCheckout(
            url: server.url("ok"), store: store, options: EndpointOptions(timeoutSeconds: 5))
        let (again, _) = filledSession(untrusted)
        guard case .rejected(let reason) = again.perform(.submit) else {
            Issue.record("a self-signed server was trusted without --ca-file")
            return
        }
        #expect(reason.hasPrefix("the TLS handshake with 127.0.0.1:\(server.port) failed"), "\(reason)")
        #expect(reason.contains("CERTIFICATE_VERIFY_FAILED") || reason.contains("certificate"), "\(reason)")
        // A certificate for another name: refused though its authority is trusted.
        let other = try await Certificate(in: scratch.url, name: "cupcakes.invalid")
        let misnamed = try await FaultServer(folder: scratch.url, tls: other)
        let wrongName = try EndpointCheckout(
            url: misnamed.url("ok"), store: store,
            options: EndpointOptions(timeoutSeconds: 5, caFile: other.certificate))
        let (third, _) = filledSession(wrongName)
        guard case .rejected(let mismatch) = third.perform(.submit) else {
            Issue.record("a certificate for another host name was accepted")
            return
        }
        #expect(mismatch.hasPrefix("the TLS handshake with 127.0.0.1:\(misnamed.port) failed"), "\(mismatch)")
        #expect(server.received.count == 1 && misnamed.received.isEmpty)
        let states = try store.load().orders.map(\.state)
        #expect(states == [.sent, .failed, .failed])
    }

    @Test func aPlainHTTPServerBehindHttpsFailsCleanly() async throws {
        let scratch = Scratch()
        let server = try await FaultServer(folder: scratch.url)
        let store = try OrderStore(directory: scratch.url.appending(path: "store"))
        let url = URL(string: "https://127.0.0.1:\(server.port)/ok")!
        let (session, _) = filledSession(
            try EndpointCheckout(url: url, store: store, options: EndpointOptions(timeoutSeconds: 2)))
        guard case .rejected(let reason) = session.perform(.submit) else {
            Issue.record("TLS to a plain server succeeded")
            return
        }
        // The plain server waits for a request, the client for the server's hello: the deadline ends it.
        #expect(reason.hasPrefix("the server did not answer within 2 s"), "\(reason)")
        #expect(try store.outbox().count == 1)
    }

    @Test func aMissingCertificateFileIsNamed() {
        #expect(throws: CheckoutError("cannot read the certificate file /nonexistent/ca.pem")) {
            try OrderPoster(options: EndpointOptions(caFile: "/nonexistent/ca.pem"))
        }
    }
}
