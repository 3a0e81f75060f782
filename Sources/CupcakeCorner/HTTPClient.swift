public import Foundation

/// A minimal HTTP/1.1 client for `http://` URLs over a blocking socket: one request per
/// connection (`Connection: close`), with a timeout on connect, send and receive.
public enum HTTPClient {
    /// A response: status code and body (de-chunked).
    public struct Response: Sendable {
        public var status: Int
        public var body: [UInt8]
    }

    /// POSTs `body` as `application/json` to `url`.
    public static func postJSON(_ body: [UInt8], to url: URL, timeoutSeconds: Int = 10) throws(CheckoutError)
        -> Response
    {
        guard url.scheme?.lowercased() == "http", let host = url.host(), !host.isEmpty else {
            throw CheckoutError("only http:// endpoints are supported (got \(url.absoluteString))")
        }
        let port = url.port ?? 80
        var path = url.path(percentEncoded: true)
        if path.isEmpty { path = "/" }
        if let query = url.query(percentEncoded: true) { path += "?" + query }
        let fd = try connect(host: host, port: port, timeoutSeconds: timeoutSeconds)
        defer { close(fd) }
        let hostHeader = url.port.map { "\(host):\($0)" } ?? host
        var request = Array(
            ("POST \(path) HTTP/1.1\r\nHost: \(hostHeader)\r\nContent-Type: application/json\r\n"
                + "Accept: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n").utf8)
        request += body
        var sent = 0
        while sent < request.count {
            let n = request.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else {
                throw CheckoutError("sending to \(hostHeader) failed: \(String(cString: strerror(errno)))")
            }
            sent += n
        }
        var reply: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16_384)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n < 0 && errno == EINTR { continue }
            if n < 0 {
                throw CheckoutError("no answer from \(hostHeader): \(String(cString: strerror(errno)))")
            }
            if n == 0 { break }
            reply += chunk[..<n]
            guard reply.count <= 4 << 20 else { throw CheckoutError("the answer from \(hostHeader) is over 4 MiB") }
        }
        return try parse(reply, from: hostHeader)
    }

    static func connect(host: String, port: Int, timeoutSeconds: Int) throws(CheckoutError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &list)
        guard status == 0, let first = list else {
            throw CheckoutError("cannot resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(list) }
        var lastError = ECONNREFUSED
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let info = entry {
            entry = info.pointee.ai_next
            let fd = socket(
                info.pointee.ai_family, info.pointee.ai_socktype | Int32(SOCK_CLOEXEC.rawValue),
                info.pointee.ai_protocol)
            guard fd >= 0 else { lastError = errno; continue }
            var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            if Glibc.connect(fd, info.pointee.ai_addr, info.pointee.ai_addrlen) == 0 { return fd }
            lastError = errno
            close(fd)
        }
        throw CheckoutError("cannot connect to \(host):\(port): \(String(cString: strerror(lastError)))")
    }

    static func parse(_ reply: [UInt8], from host: String) throws(CheckoutError) -> Response {
        let separator: [UInt8] = Array("\r\n\r\n".utf8)
        guard let headerEnd = reply.firstRange(of: separator) else {
            throw CheckoutError("\(host) sent no complete HTTP answer (\(reply.count) bytes)")
        }
        let head = String(decoding: reply[..<headerEnd.lowerBound], as: UTF8.self)
        let lines = head.components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ", maxSplits: 2)
        guard statusParts.count >= 2, statusParts[0].hasPrefix("HTTP/1."), let status = Int(statusParts[1]) else {
            throw CheckoutError("\(host) sent no HTTP status line (\(lines[0].prefix(60)))")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        var body = Array(reply[headerEnd.upperBound...])
        if headers["transfer-encoding"]?.lowercased().contains("chunked") == true {
            body = try dechunk(body, from: host)
        } else if let length = headers["content-length"].flatMap(Int.init) {
            guard body.count >= length else {
                throw CheckoutError("\(host) closed the connection after \(body.count) of \(length) bytes")
            }
            body = Array(body[..<length])
        }
        return Response(status: status, body: body)
    }

    static func dechunk(_ bytes: [UInt8], from host: String) throws(CheckoutError) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        let crlf: [UInt8] = [13, 10]
        while true {
            guard let end = bytes[index...].firstRange(of: crlf),
                let size = Int(
                    String(decoding: bytes[index..<end.lowerBound], as: UTF8.self).split(separator: ";")[0], radix: 16)
            else { throw CheckoutError("\(host) sent a malformed chunked body") }
            if size == 0 { return out }
            let start = end.upperBound
            guard start + size <= bytes.count else { throw CheckoutError("\(host) sent a truncated chunked body") }
            out += bytes[start..<(start + size)]
            index = start + size + 2
            guard index <= bytes.count else { throw CheckoutError("\(host) sent a truncated chunked body") }
        }
    }
}

/// Checkout by POSTing the order's JSON to an endpoint, as the tutorial's app did with
/// reqres.in; the endpoint echoes the order back. When that fails, the order is saved in
/// the local store (never lost) and the checkout reports the failure.
public final class EndpointCheckout: OrderCheckout {
    public let url: URL
    public let fallback: OrderStore

    public init(url: URL, fallback: OrderStore) {
        self.url = url
        self.fallback = fallback
    }

    public func submit(_ order: Order) throws(CheckoutError) -> Receipt {
        let record = StoredOrder(order: order.copy())
        do {
            let body = Array(try OrderStore.encoder().encode(order))
            let response = try HTTPClient.postJSON(body, to: url)
            guard (200..<300).contains(response.status) else {
                throw CheckoutError("\(url.absoluteString) answered HTTP \(response.status)")
            }
            let echoed: Order
            do {
                echoed = try JSONDecoder().decode(Order.self, from: Data(response.body))
            } catch {
                throw CheckoutError(
                    "\(url.absoluteString) answered with something that is not the order (\(OrderStore.describe(error)))"
                )
            }
            return Receipt(
                id: record.id, quantity: echoed.quantity, typeName: echoed.typeName, cost: echoed.cost,
                destination: url.absoluteString)
        } catch let error as CheckoutError {
            throw keepLocally(record, because: error.description)
        } catch {
            throw keepLocally(record, because: "cannot encode the order: \(error)")
        }
    }

    private func keepLocally(_ record: StoredOrder, because reason: String) -> CheckoutError {
        do {
            try fallback.append(record)
            return CheckoutError(
                "\(reason); the order is kept locally as \(record.id) in \(fallback.file.path(percentEncoded: false))")
        } catch {
            return CheckoutError("\(reason); keeping it locally failed too: \(error.description)")
        }
    }
}
