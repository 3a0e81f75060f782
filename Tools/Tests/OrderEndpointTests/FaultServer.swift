import Foundation
import Synchronization
import _ToolTestSupport

/// The fault server (fault-server.py beside this file) on 127.0.0.1, over http or https, ended
/// with the test; its log of every POST it received.
final class FaultServer {
    let port: Int
    let scheme: String
    let logPath: String
    private let child: ChildProcess

    /// The folder of this file: the server script and nothing else the test needs.
    static let folder = URL(filePath: #filePath).deletingLastPathComponent()

    init(folder scratch: URL, tls: Certificate? = nil, lifetime: Int = 120) async throws {
        logPath = scratch.appending(path: "server-\(UUID().uuidString).jsonl").path(percentEncoded: false)
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        var arguments = [Self.folder.appending(path: "fault-server.py").path(percentEncoded: false), logPath]
        if let tls { arguments += ["--tls", tls.certificate, tls.key] }
        child = try await ChildProcess.start("python3", arguments + ["--lifetime", "\(lifetime)"])
        // The server writes its port to LOG.port once it listens.
        var port: Int?
        for _ in 0..<200 where port == nil {
            port = (try? String(contentsOfFile: logPath + ".port", encoding: .utf8)).flatMap { Int($0) }
            if port == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        guard let port else {
            await child.kill()
            throw CocoaError(.fileReadCorruptFile)
        }
        self.port = port
        scheme = tls == nil ? "http" : "https"
    }

    // SIGKILL, not waited for; the server's own --lifetime bounds it in any case.
    deinit { child.signal(SIGKILL) }

    func url(_ path: String, host: String = "127.0.0.1") -> URL {
        URL(string: "\(scheme)://\(host):\(port)/\(path)")!
    }

    /// One received POST.
    struct Received: Decodable {
        var path: String
        var key: String?
        var replay: Bool
        var body: String
    }

    var received: [Received] {
        let bytes = (try? Data(contentsOf: URL(filePath: logPath))) ?? Data()
        return bytes.split(separator: UInt8(ascii: "\n")).compactMap {
            try? JSONDecoder().decode(Received.self, from: Data($0))
        }
    }
}

/// A self-signed certificate for 127.0.0.1 (and a second name, to test a name mismatch), made
/// with openssl in `folder`.
struct Certificate {
    var certificate: String
    var key: String

    init(in folder: URL, name: String = "127.0.0.1") async throws {
        certificate = folder.appending(path: "cert-\(name).pem").path(percentEncoded: false)
        key = folder.appending(path: "key-\(name).pem").path(percentEncoded: false)
        let san = name.first?.isNumber == true ? "IP:\(name)" : "DNS:\(name)"
        let openssl = try await ChildProcess.run(
            "openssl",
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", certificate, "-days", "2",
                "-subj", "/CN=\(name)", "-addext", "subjectAltName=\(san)",
            ])
        guard openssl.status == 0 else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSLocalizedDescriptionKey: "openssl failed"])
        }
    }
}
