import CupcakeCorner
import Foundation
import Testing
import _ToolTestSupport

/// Drives the real order screen in a tmux pane, as a person at a terminal would.
@Suite(.serialized) struct OrderScreenTests {
    let socket = "haptic-test-\(UUID().uuidString.prefix(8))"

    /// Runs `tmux ARGS` on the test's own server; returns its status and standard output. The
    /// wait for it runs on a thread of its own (`onOwnThread`), off the pool the tests share.
    @discardableResult
    func tmux(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        let socket = socket
        return try await onOwnThread { try Self.tmux(socket: socket, arguments) }
    }

    /// Runs `tmux ARGS` on server `socket`, waiting for it on the calling thread.
    ///
    /// Spawned with posix_spawn and reaped with waitpid: the first call forks the tmux server,
    /// which keeps inherited descriptors open, so Foundation's Process would wait forever.
    @discardableResult
    static func tmux(socket: String, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let capture = FileManager.default.temporaryDirectory.appending(path: "\(socket)-\(UUID().uuidString).txt")
        defer { try? FileManager.default.removeItem(at: capture) }
        let argv = ["/usr/bin/tmux", "-L", socket, "-f", "/dev/null"] + arguments
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(
            &actions, 1, capture.path(percentEncoded: false), O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        // The tmux server (forked by the first call) must not inherit this test thread's blocked signals:
        // with SIGCHLD blocked it would never reap a pane's process, nor see its exit status.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK))
        var pid: pid_t = 0
        let cArguments = argv.map { strdup($0) } + [nil]
        defer { cArguments.forEach { free($0) } }
        let status = posix_spawn(&pid, argv[0], &actions, &attributes, cArguments, environ)
        guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EIO) }
        var exitStatus: Int32 = 0
        while waitpid(pid, &exitStatus, 0) < 0 && errno == EINTR {}
        let output = (try? Data(contentsOf: capture)).map { String(decoding: $0, as: UTF8.self) } ?? ""
        return ((exitStatus >> 8) & 0xFF, output)
    }

    /// The pane's text once `condition` holds (polled, up to 10 s); the last screen otherwise.
    func screen(until condition: (String) -> Bool) async throws -> String {
        let deadline = ContinuousClock.now + .seconds(10)
        var text = ""
        while ContinuousClock.now < deadline {
            text = try await tmux(["capture-pane", "-p", "-t", "order"]).output
            if condition(text) { return text }
            try await Task.sleep(for: .milliseconds(20))
        }
        return text
    }

    /// Waits (polled, up to 10 s) until the session has ended.
    func sessionEnded() async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline, try await tmux(["has-session", "-t", "order"]).status == 0 {
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
    func orderingInTheTerminal() async throws {
        let scratch = try ScratchFolder()
        let store = scratch.path("store")
        let command =
            "\(Haptic.executable.path(percentEncoded: false)) order --store \(store) --log \(scratch.path("log.jsonl")) --device null"
        try await tmux(["new-session", "-d", "-s", "order", "-x", "100", "-y", "30", command])
        defer { _ = try? Self.tmux(socket: socket, ["kill-server"]) }
        var text = try await screen { $0.contains("Number of cakes: 3") }
        #expect(text.contains("Cake type: Vanilla"))
        #expect(text.contains("Cost: $6.00"))
        try await tmux(["send-keys", "-t", "order", "+", "+", "Up", "t"])
        text = try await screen { $0.contains("Number of cakes: 6") && $0.contains("Cake type: Strawberry") }
        #expect(text.contains("Number of cakes: 6") && text.contains("Cake type: Strawberry"))
        try await tmux(["send-keys", "-t", "order", "Enter"])
        text = try await screen { $0.contains("Checkout failed") }
        #expect(text.contains("Checkout failed: please fill in the address first (missing: name, street, city, zip)"))
        try await tmux(["send-keys", "-t", "order", "a"])
        // The zip field takes digits only: the typed "a" is refused with the error feedback.
        for (index, value) in ["Ada", "1 Infinite Loop", "Cupertino", "950a14"].enumerated() {
            if index > 0 { try await tmux(["send-keys", "-t", "order", "Tab"]) }
            try await tmux(["send-keys", "-t", "order", "-l", value])
        }
        text = try await screen { $0.contains("Zip takes digits only") }
        #expect(text.contains("Zip takes digits only, not 'a' (got '950a')."))
        try await tmux(["send-keys", "-t", "order", "Enter"])
        text = try await screen { $0.contains("95014") && !$0.contains("(incomplete)") && !$0.contains("Editing") }
        try await tmux(["send-keys", "-t", "order", "Enter"])
        text = try await screen { $0.contains("on its way") }
        #expect(text.contains("Your order for 6x strawberry cupcakes is on its way!"))
        #expect(text.contains("Total $12.50"))
        try await tmux(["send-keys", "-t", "order", "q"])
        try await sessionEnded()
        let stored = try OrderStore(directory: URL(filePath: store)).load()
        #expect(stored.orders.count == 1)
        #expect(stored.orders.first?.order.name == "Ada" && stored.orders.first?.order.quantity == 6)
        let log = try EventLogReader.read(path: scratch.path("log.jsonl"))
        #expect(
            log.events.compactMap(\.feedback) == [
                "increase", "increase", "increase", "selection", "error", "error", "success",
            ])
        #expect(stored.orders.first?.order.zip == "95014")
    }

    /// SIGTERM (and SIGHUP, when the terminal closes) end the screen as `q` does: the terminal leaves
    /// the alternate screen, and the exit status is the shell's for the signal.
    @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/tmux")))
    func sigtermRestoresTheTerminalAndExits143() async throws {
        let scratch = try ScratchFolder()
        // A shell runs haptic in the foreground (so it keeps the terminal) and records its exit
        // status; tmux's own record of a pane's status proved unreliable (a zombie left unreaped).
        let statusFile = scratch.path("status")
        let command =
            "\(Haptic.executable.path(percentEncoded: false)) order --store \(scratch.path("store")) --log \(scratch.path("log.jsonl")) --device null; echo $? > \(statusFile)"
        try await tmux(["new-session", "-d", "-s", "order", "-x", "100", "-y", "30", command])
        defer { _ = try? Self.tmux(socket: socket, ["kill-server"]) }
        _ = try await tmux(["set-option", "-t", "order", "remain-on-exit", "on"])
        _ = try await screen { $0.contains("Number of cakes: 3") }
        #expect(try await tmux(["display-message", "-p", "-t", "order", "#{alternate_on}"]).output == "1\n")
        let shell = try #require(
            Int32(try await tmux(["display-message", "-p", "-t", "order", "#{pane_pid}"]).output.dropLast()))
        // haptic is the shell's only child.
        let children = try String(contentsOfFile: "/proc/\(shell)/task/\(shell)/children", encoding: .utf8)
        let pid = try #require(children.split(separator: " ").first.flatMap { Int32($0) }, "no child of \(shell)")
        kill(pid, SIGTERM)
        var status = ""
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            status = (try? String(contentsOfFile: statusFile, encoding: .utf8)) ?? ""
            if status.hasSuffix("\n") { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(status == "143\n")
        #expect(try await tmux(["display-message", "-p", "-t", "order", "#{alternate_on}"]).output == "0\n")
    }
}
