import CupcakeCorner
import Foundation
import SensoryFeedback
import Testing

/// A one-request HTTP server on 127.0.0.1: answers with `status` and, for 2xx, echoes the body.
final class LoopbackServer: Sendable {
    let port: UInt16
    private let fd: Int32
    private let done = DispatchSemaphore(value: 0)

    init(status: Int) throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.fd = fd
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
        }
        guard bound == 0, listen(fd, 1) == 0 else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        port = UInt16(bigEndian: address.sin_port)
        let listener = fd, finished = done
        Thread.detachNewThread {
            defer { finished.signal() }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            defer { close(client) }
            var request: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let n = recv(client, &buffer, buffer.count, 0)
                if n <= 0 { break }
                request += buffer[..<n]
                if let end = request.firstRange(of: Array("\r\n\r\n".utf8)) {
                    let head = String(decoding: request[..<end.lowerBound], as: UTF8.self).lowercased()
                    let length =
                        head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
                        .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
                        ?? 0
                    if request.count - end.upperBound >= length {
                        let body = (200..<300).contains(status) ? Array(request[end.upperBound...]) : Array("no".utf8)
                        let reply =
                            Array(
                                "HTTP/1.1 \(status) X\r\nContent-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
                                    .utf8) + body
                        _ = reply.withUnsafeBytes { send(client, $0.baseAddress, $0.count, 0) }
                        break
                    }
                }
            }
        }
    }

    func wait() {
        done.wait()
        close(fd)
    }
}

@Suite struct EndpointCheckoutTests {
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

    @Test func postsTheOrderAndReadsTheEcho() throws {
        let server = try LoopbackServer(status: 201)
        let scratch = Scratch()
        let store = try OrderStore(directory: scratch.url)
        let (session, sink) = filledSession(
            EndpointCheckout(url: URL(string: "http://127.0.0.1:\(server.port)/api/cupcakes")!, fallback: store))
        let outcome = session.perform(.submit)
        server.wait()
        guard case .checkedOut(let receipt) = outcome else {
            Issue.record("checkout failed: \(outcome)")
            return
        }
        #expect(receipt.message == "Your order for 5x rainbow cupcakes is on its way!")
        #expect(receipt.cost == Decimal(string: "11.5")!)
        #expect(sink.feedback.last == .success)
        // Sent, so not kept in the local store.
        #expect(try store.load().orders.isEmpty)
    }

    @Test func aFailingEndpointPlaysErrorAndKeepsTheOrderLocally() throws {
        let server = try LoopbackServer(status: 500)
        let scratch = Scratch()
        let store = try OrderStore(directory: scratch.url)
        let (session, sink) = filledSession(
            EndpointCheckout(url: URL(string: "http://127.0.0.1:\(server.port)/")!, fallback: store))
        let outcome = session.perform(.submit)
        server.wait()
        guard case .rejected(let reason) = outcome else {
            Issue.record("a failed POST was reported as \(outcome)")
            return
        }
        #expect(reason.hasPrefix("http://127.0.0.1:\(server.port)/ answered HTTP 500; the order is kept locally as "))
        #expect(sink.feedback.last == .error && !sink.feedback.contains(.success))
        let kept = try store.load().orders
        #expect(kept.count == 1 && kept[0].order.quantity == 5 && kept[0].order.type == 3)
    }
}
