import Foundation

/// HTTP/1.1 over a plain socket, so a test controls every byte: a forged Host, a foreign Origin,
/// no token at all. One request per connection.
package enum RawHTTP {
    package struct Response: Sendable {
        package var status: Int
        package var headers: [(String, String)]
        package var body: [UInt8]

        package var text: String { String(decoding: body, as: UTF8.self) }

        package func header(_ name: String) -> String? {
            headers.first { $0.0.lowercased() == name.lowercased() }?.1
        }

        package func headers(_ name: String) -> [String] {
            headers.filter { $0.0.lowercased() == name.lowercased() }.map(\.1)
        }
    }

    package struct Failure: Error, CustomStringConvertible {
        package var description: String
        package init(description: String) { self.description = description }
    }

    /// ``send(port:method:target:headers:body:)`` on a thread of its own: the socket calls block,
    /// and blocking the test's cooperative threads would starve the server's handlers, which run
    /// on the same pool.
    package static func request(
        port: Int, method: String, target: String, headers: [(String, String)], body: [UInt8]? = nil
    ) async throws -> Response {
        try await onOwnThread { try send(port: port, method: method, target: target, headers: headers, body: body) }
    }

    package static func send(
        port: Int, method: String, target: String, headers: [(String, String)], body: [UInt8]? = nil
    ) throws -> Response {
        let fd = try connect(port: port, timeoutSeconds: 30)
        defer { close(fd) }
        var request = "\(method) \(target) HTTP/1.1\r\n"
        for (name, value) in headers { request += "\(name): \(value)\r\n" }
        if let body { request += "Content-Length: \(body.count)\r\n" }
        if !headers.contains(where: { $0.0.lowercased() == "connection" }) { request += "Connection: close\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8) + (body ?? [])
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, 0) }
            guard n > 0 else { throw Failure(description: "send: \(errno)") }
            sent += n
        }
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let began = ContinuousClock.now
        var ending: Int32 = 0
        while true {
            let n = recv(fd, &chunk, chunk.count, 0)
            if n < 0 { ending = errno }
            if n <= 0 { break }
            received.append(contentsOf: chunk[0..<n])
        }
        do {
            return try parse(received)
        } catch let failure as Failure {
            // Which request, and whether the server closed it or the 30 s ran out.
            let end = ending == EAGAIN || ending == EWOULDBLOCK ? "no answer in 30 s" : "closed (errno \(ending))"
            throw Failure(
                description: "\(method) \(target): \(failure.description), \(end) after \(ContinuousClock.now - began)")
        }
    }

    /// A TCP connection to 127.0.0.1:`port` whose reads give up after `timeoutSeconds`.
    package static func connect(port: Int, timeoutSeconds: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw Failure(description: "socket: \(errno)") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            close(fd)
            throw Failure(description: "connect to \(port): \(errno)")
        }
        return fd
    }

    static func parse(_ bytes: [UInt8]) throws -> Response {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            throw Failure(description: "no HTTP response (\(bytes.count) bytes)")
        }
        let head = String(decoding: bytes[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(head[0].split(separator: " ")[1]) ?? 0
        let headers = head.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = Array(bytes[(end + 4)...])
        if headers.contains(where: { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased() == "chunked" }) {
            body = dechunk(body)
        }
        return Response(status: status, headers: headers, body: body)
    }

    static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var i = 0
        while i < bytes.count {
            guard let lineEnd = (i..<bytes.count - 1).first(where: { bytes[$0] == 13 && bytes[$0 + 1] == 10 }) else {
                break
            }
            let size = Int(String(decoding: bytes[i..<lineEnd], as: UTF8.self), radix: 16) ?? 0
            if size == 0 { break }
            out.append(contentsOf: bytes[(lineEnd + 2)..<min(bytes.count, lineEnd + 2 + size)])
            i = lineEnd + 2 + size + 2
        }
        return out
    }
}
