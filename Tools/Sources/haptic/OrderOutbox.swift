import ArgumentParser
import CupcakeCorner
import Foundation
import OrderEndpoint

extension HapticCommand.OrderFlow {
    struct Outbox: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "outbox",
            abstract: "List the orders not yet sent to their endpoint; --retry sends them.",
            discussion: """
                An order for an endpoint is stored as pending before it is sent, and marked sent or \
                failed afterwards. This lists the pending and failed ones, oldest first: ID, state, \
                attempts, endpoint and the last reason. A pending order whose process ended \
                mid-send may have reached the server: --retry sends it with the same Idempotency-Key, \
                so the server can tell it is the same order. --retry exits 1 when any order is still \
                unsent.
                """)

        @Option(
            help: ArgumentHelp("Where orders are kept (default $XDG_DATA_HOME/swift-haptics/orders).", valueName: "dir")
        )
        var store: String?

        @Flag(help: "Send every unsent order again, each to its own endpoint.")
        var retry = false

        @OptionGroup var http: EndpointFlags

        // `haptic order --store DIR outbox` and `haptic order outbox --store DIR` alike.
        @ParentCommand var parent: HapticCommand.OrderFlow

        func run() throws {
            let directory =
                (store ?? parent.store).map { URL(filePath: $0, directoryHint: .isDirectory) }
                ?? OrderStore.defaultDirectory
            let orders: OrderStore
            let waiting: [StoredOrder]
            do {
                orders = try OrderStore(directory: directory)
                waiting = try orders.outbox()
            } catch {
                throw Terminal.failure(error.description)
            }
            guard retry else {
                for record in waiting { printLine(Self.line(record)) }
                Terminal.printError(
                    waiting.isEmpty
                        ? "outbox: empty (every order was sent)"
                        : "outbox: \(waiting.count) unsent order\(waiting.count == 1 ? "" : "s"); --retry sends them")
                return
            }
            var unsent = 0
            do {
                try orders.withOutboxLock {
                    // Read again under the lock: another retry may have sent some meanwhile.
                    let current = try orders.outbox()
                    guard !current.isEmpty else { return }
                    let sender = OrderSender(store: orders, poster: try OrderPoster(options: http.options))
                    for record in current {
                        let resent =
                            record.state == .pending ? " (resent with its key: it may have arrived before)" : ""
                        do {
                            _ = try sender.send(record)
                            printLine("sent \(record.id) to \(record.endpoint ?? "?")\(resent)")
                        } catch {
                            unsent += 1
                            Terminal.printError("haptic: \(record.id): \(error)")
                        }
                    }
                }
            } catch let error as OrderStoreError {
                throw Terminal.failure(error.description)
            } catch let error as CheckoutError {
                throw Terminal.failure(error.description)
            }
            Terminal.printError(
                unsent == 0
                    ? "outbox: empty (every order was sent)"
                    : "outbox: \(unsent) order\(unsent == 1 ? "" : "s") still unsent")
            if unsent > 0 { throw ExitCode.failure }
        }

        /// `ID  failed  2 attempts  URL  reason`.
        static func line(_ record: StoredOrder) -> String {
            let reason = record.reason.map { "  \($0)" } ?? (record.attempts > 0 ? "  (no answer recorded)" : "")
            return
                "\(record.id)  \(record.state.rawValue)  \(record.attempts) attempt\(record.attempts == 1 ? "" : "s")  \(record.endpoint ?? "-")\(reason)"
        }
    }
}
