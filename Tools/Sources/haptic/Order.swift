import ArgumentParser
import CupcakeCorner
import Foundation
import HapticsEngine
import OrderEndpoint
import SensoryFeedback

extension HapticCommand {
    struct OrderFlow: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "order",
            abstract: "Order cupcakes in the terminal (Cupcake Corner), with haptic feedback you hear.",
            discussion: """
                Without --script: a full-screen order form. Keys: + / - (or the up and down arrows) \
                change the number of cakes, t the cake type, s special requests, f extra frosting, \
                p sprinkles, a edits the address, Enter checks out, q quits.

                --script FILE (- for standard input) runs one action per line instead: quantity +1, \
                quantity -1, quantity N, type NAME, special|frosting|sprinkles on|off, \
                name|street|city|zip TEXT, wait SECONDS, submit. Blank lines and # comments are \
                ignored; a script is at most 4 MiB and a line at most 1,024 bytes. The whole script \
                is checked before anything runs: a bad line is reported as FILE:LINE: error: ... \
                and nothing is submitted (exit status 1). A refused or failed \
                checkout also ends with exit status 1.

                Orders are appended durably to DIR/orders.jsonl (--store); every session writes \
                its events to a log (--log, default DIR/sessions/) that `haptic order replay` plays back.

                With --endpoint URL (http:// or https://) each order is stored first, as pending, then \
                POSTed with an Idempotency-Key header (the order's ID) and marked sent or failed. \
                The whole exchange has one deadline (--timeout, default 10 s); redirects are not \
                followed. Unsent orders stay in the outbox: `haptic order outbox` lists them and \
                `haptic order outbox --retry` sends them again with the same key.
                """,
            subcommands: [Replay.self, Outbox.self])

        @Option(
            help: ArgumentHelp("Where orders are kept (default $XDG_DATA_HOME/swift-haptics/orders).", valueName: "dir")
        )
        var store: String?

        @Option(
            help: ArgumentHelp(
                "The session's event log (default: a new file under the store's sessions/).", valueName: "file"))
        var log: String?

        @OptionGroup var device: DeviceOptions

        @Option(
            help: ArgumentHelp(
                "Run the actions in FILE (- for standard input) instead of the screen.", valueName: "file"))
        var script: String?

        @Option(
            help: ArgumentHelp(
                "POST orders to this http:// or https:// URL (each is stored first; unsent ones stay in the outbox).",
                valueName: "url"))
        var endpoint: String?

        @OptionGroup var http: EndpointFlags

        @Option(help: "The customer's name.") var name: String?
        @Option(help: "Street address.") var street: String?
        @Option(help: "City.") var city: String?
        @Option(help: "Zip code.") var zip: String?

        func validate() throws {
            if let endpoint { _ = try EndpointFlags.url(endpoint) }
        }

        func run() throws {
            // Check the script before opening anything: a bad script changes nothing.
            let parsed = try script.map(Self.loadScript)
            if parsed == nil && (isatty(STDIN_FILENO) != 1 || isatty(STDOUT_FILENO) != 1) {
                throw Terminal.failure("the order screen needs a terminal; use --script FILE (or - for standard input)")
            }
            // The device next: one that cannot play the actuators it was asked for ends the run
            // before the store or a session log is touched.
            let sink = try EngineFeedbackSink.make(device: device)
            let storeDirectory =
                store.map { URL(filePath: $0, directoryHint: .isDirectory) } ?? OrderStore.defaultDirectory
            let orders: OrderStore
            let logWriter: EventLogWriter
            do {
                orders = try OrderStore(directory: storeDirectory)
            } catch {
                throw Terminal.failure(error.description)
            }
            do {
                logWriter = try EventLogWriter(path: log ?? EventLogWriter.defaultPath(in: storeDirectory))
            } catch {
                throw Terminal.failure(error.description)
            }
            let checkout: any OrderCheckout
            if let endpoint {
                do {
                    checkout = try EndpointCheckout(
                        url: try EndpointFlags.url(endpoint), store: orders, options: http.options)
                } catch let error as CheckoutError {
                    throw Terminal.failure(error.description)
                }
            } else {
                checkout = StoreCheckout(store: orders)
            }
            let order = CupcakeCorner.Order()
            order.name = name ?? ""
            order.streetAddress = street ?? ""
            order.city = city ?? ""
            order.zip = zip ?? ""
            let session = OrderSession(order: order, sink: sink, checkout: checkout, log: logWriter)
            let failed: Bool
            if let parsed {
                failed = Self.run(parsed, file: script ?? "-", session: session)
            } else {
                failed = try OrderScreen(session: session, sink: sink).run()
            }
            sink.finish()
            if let problem = session.logFailure { Terminal.printError("haptic: \(problem)") }
            do {
                try logWriter.sync()
            } catch {
                Terminal.printError("haptic: \(error)")
            }
            Terminal.printError("session log: \(logWriter.path)")
            if Interrupts.wasRequested { throw Interrupts.exitCode }
            if failed { throw ExitCode.failure }
        }

        static func loadScript(_ path: String) throws -> OrderScript {
            do {
                return try OrderScript.parse(try OrderScript.read(path), file: path)
            } catch {
                throw Terminal.failure(located: error.description)
            }
        }

        /// Runs the script's steps; true when a checkout was refused or failed.
        static func run(_ script: OrderScript, file: String, session: OrderSession) -> Bool {
            var failed = false
            for (line, step) in script.steps {
                switch step {
                case .wait(let seconds):
                    Thread.sleep(forTimeInterval: seconds)
                case .action(let action):
                    switch session.perform(action) {
                    case .changed, .unchanged: break
                    case .notAllowed(let reason):
                        Terminal.printError("\(file):\(line): warning: \(reason); line ignored")
                    case .checkedOut(let receipt):
                        printLine(
                            "\(receipt.message) Total \(receipt.cost.dollars). Order \(receipt.id) saved in \(receipt.destination)"
                        )
                    case .rejected(let reason):
                        failed = true
                        Terminal.printError("\(file):\(line): error: checkout refused: \(reason)")
                    }
                }
            }
            return failed
        }
    }
}

/// `--timeout` and `--ca-file`, shared by `order` and `order outbox --retry`.
struct EndpointFlags: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "One deadline in seconds for each order's whole exchange with the endpoint.", valueName: "seconds"))
    var timeout: Double = 10

    @Option(
        name: .customLong("ca-file"),
        help: ArgumentHelp(
            "Also trust the certificate authorities in this PEM file for https:// (e.g. a self-signed server).",
            valueName: "pem"))
    var caFile: String?

    func validate() throws {
        guard timeout > 0, timeout <= 600 else {
            throw ValidationError("--timeout must be more than 0 and at most 600 seconds (got \(timeout))")
        }
    }

    var options: EndpointOptions { EndpointOptions(timeoutSeconds: timeout, caFile: caFile) }

    static func url(_ text: String) throws -> URL {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = url.host(), !host.isEmpty
        else {
            throw ValidationError("--endpoint must be an http:// or https:// URL (got \(text))")
        }
        return url
    }
}

/// Writes a line to standard output at once (never held in a buffer), so a reader sees
/// each order as soon as it is durable.
func printLine(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}
