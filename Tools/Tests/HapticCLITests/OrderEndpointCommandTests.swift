import CupcakeCorner
import Foundation
import Testing
import _ToolTestSupport

/// The fault server of OrderEndpointTests (Tests/OrderEndpointTests/fault-server.py) on 127.0.0.1.
final class CLIFaultServer {
    let port: Int
    let log: URL
    private let child: ChildProcess

    init(folder: URL) async throws {
        log = folder.appending(path: "server.jsonl")
        _ = FileManager.default.createFile(atPath: log.path(percentEncoded: false), contents: nil)
        let script = Haptic.packageRoot.appending(path: "Tools/Tests/OrderEndpointTests/fault-server.py")
        child = try await ChildProcess.start(
            "python3", [script.path(percentEncoded: false), log.path(percentEncoded: false), "--lifetime", "300"])
        // The server writes its port to LOG.port once it listens.
        var port: Int?
        for _ in 0..<200 where port == nil {
            port = (try? String(contentsOfFile: log.path(percentEncoded: false) + ".port", encoding: .utf8)).flatMap {
                Int($0)
            }
            if port == nil { try await Task.sleep(for: .milliseconds(50)) }
        }
        guard let port else {
            await child.kill()
            throw CocoaError(.fileReadCorruptFile)
        }
        self.port = port
    }

    // SIGKILL, not waited for; the server's own --lifetime bounds it in any case.
    deinit { child.signal(SIGKILL) }

    struct Received: Decodable {
        var key: String?
        var replay: Bool
    }

    var received: [Received] {
        let bytes = (try? Data(contentsOf: log)) ?? Data()
        return bytes.split(separator: UInt8(ascii: "\n")).compactMap {
            try? JSONDecoder().decode(Received.self, from: Data($0))
        }
    }
}

@Suite(.serialized) struct OrderEndpointCommandTests {
    static let address = "name Ada\nstreet 1 Loop\ncity Cupertino\nzip 95014\n"

    /// `haptic order --endpoint` killed with SIGKILL at random moments (24 rounds, before, during
    /// and after the server's answer), then `haptic order outbox --retry`: every order the store
    /// holds reaches the server, the server holds nothing the store does not, every order is
    /// marked sent, and the only repeats are retries carrying the same Idempotency-Key.
    @Test func killNineAtRandomMomentsLosesNothingAndDuplicatesNothingSilently() async throws {
        let scratch = try ScratchFolder()
        let server = try await CLIFaultServer(folder: scratch.url)
        let store = scratch.path("store")
        var random = SplitMix64(seed: 11)
        var reportedSent: Set<String> = []
        let rounds = 24
        for round in 0..<rounds {
            let delay = Int.random(in: 0...250, using: &random)
            let script = try scratch.write(
                "round-\(round).txt", Self.address + "submit\nwait 0.05\nsubmit\nsubmit\n")
            let process = try await ChildProcess.start(
                Haptic.executable.path(percentEncoded: false),
                [
                    "order", "--store", store, "--device", "null", "--script", script, "--endpoint",
                    "http://127.0.0.1:\(server.port)/slow?ms=\(delay)", "--timeout", "5",
                ])
            try await Task.sleep(for: .milliseconds(Int.random(in: 20...900, using: &random)))
            process.signal(SIGKILL)
            let text = try await process.wait().output
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                if let index = words.firstIndex(of: "Order"), index + 1 < words.count {
                    reportedSent.insert(String(words[index + 1]))
                }
            }
        }
        let before = try OrderStore(directory: URL(filePath: store)).load().orders
        let unsentBefore = Set(before.filter { $0.state != .sent }.map(\.id))
        #expect(before.count >= rounds, "only \(before.count) orders were stored in \(rounds) rounds")
        let listed = try await Haptic.run(["order", "outbox", "--store", store])
        #expect(listed.status == 0)
        #expect(Set(listed.output.split(separator: "\n").map { String($0.split(separator: " ")[0]) }) == unsentBefore)
        let retried = try await Haptic.run(["order", "outbox", "--store", store, "--retry", "--timeout", "5"])
        #expect(retried.status == 0, "\(retried.stderr)")
        #expect(retried.stderr.hasSuffix("outbox: empty (every order was sent)\n"))
        let after = try OrderStore(directory: URL(filePath: store)).load()
        let stored = Set(after.orders.map(\.id))
        #expect(
            after.orders.allSatisfy { $0.state == .sent },
            "unsent: \(after.orders.filter { $0.state != .sent }.map(\.id))")
        #expect(reportedSent.isSubset(of: stored))
        let received = server.received
        let firstTimes = received.filter { !$0.replay }.compactMap(\.key)
        // Nothing lost: the server has every stored order. Store first: it has nothing else.
        #expect(Set(firstTimes) == stored)
        #expect(firstTimes.count == Set(firstTimes).count)
        // Repeats only for orders that were unsent when the retry began, each with the same key.
        let replays = Set(received.filter(\.replay).compactMap(\.key))
        #expect(replays.isSubset(of: unsentBefore))
        // A torn line from a kill is reported, never fatal.
        #expect(after.problems.allSatisfy { $0.description.contains("orders.jsonl:") })
        let empty = try await Haptic.run(["order", "outbox", "--store", store])
        #expect(empty.output.isEmpty && empty.stderr == "outbox: empty (every order was sent)\n")
    }

    /// A store whose file cannot grow past 4 KiB (a full disk, to the process): the orders that fit
    /// are saved, the next ones are refused with the system's error, and no partial record stays.
    @Test func aFullDiskRefusesOrdersAndLeavesNoTornRecord() async throws {
        let scratch = try ScratchFolder()
        let store = scratch.path("store")
        let script = try scratch.write("many.txt", Self.address + String(repeating: "submit\n", count: 40))
        let haptic = Haptic.executable.path(percentEncoded: false)
        // The log goes elsewhere, so only the store meets the limit.
        let result = try await Haptic.runShell(
            "trap '' XFSZ; ulimit -f 4; exec '\(haptic)' order --store '\(store)' --log /dev/null --device null --script '\(script)'"
        )
        #expect(result.status == 1)
        let saved = result.output.split(separator: "\n").count
        let refusals = result.stderr.split(separator: "\n").filter { $0.contains("checkout refused") }
        #expect(saved > 5 && saved + refusals.count == 40)
        #expect(
            refusals.allSatisfy {
                $0.hasSuffix("could not save the order: cannot write to \(store)/orders.jsonl: File too large")
            }, "\(refusals.first ?? "")")
        let loaded = try OrderStore(directory: URL(filePath: store)).load()
        #expect(loaded.orders.count == saved && loaded.problems.isEmpty)
        let size = try FileManager.default.attributesOfItem(atPath: "\(store)/orders.jsonl")[.size] as? Int ?? 0
        #expect(size <= 4096)
        #expect(try Data(contentsOf: URL(filePath: "\(store)/orders.jsonl")).last == UInt8(ascii: "\n"))
    }

    @Test func anHttpsEndpointWithCaFileAndATimeoutMessage() async throws {
        let scratch = try ScratchFolder()
        let server = try await CLIFaultServer(folder: scratch.url)
        let store = scratch.path("store")
        let script = try scratch.write("one.txt", Self.address + "submit\n")
        let result = try await Haptic.run([
            "order", "--store", store, "--device", "null", "--script", script, "--endpoint",
            "http://127.0.0.1:\(server.port)/stall", "--timeout", "1",
        ])
        #expect(result.status == 1)
        #expect(
            result.stderr.contains(
                ": error: checkout refused: the server did not answer within 1 s; the order is kept in the outbox as "))
        let bad = try await Haptic.run(["order", "--store", store, "--script", script, "--endpoint", "ftp://x/"])
        #expect(bad.status == 64 && bad.stderr.contains("--endpoint must be an http:// or https:// URL (got ftp://x/)"))
    }
}
