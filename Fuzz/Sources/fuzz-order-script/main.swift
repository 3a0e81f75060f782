// The order script parser: any text parses or names its bad line (FILE:LINE: error: ...) within
// the script; a script that parses runs against a session without a crash.
import CupcakeCorner
import FuzzSupport
import SensoryFeedback

final class SilentSink: FeedbackSink {
    func play(_ feedback: SensoryFeedback) {}
}

final class RefusingCheckout: OrderCheckout {
    func submit(_ order: Order) throws(CheckoutError) -> Receipt { throw CheckoutError("fuzz") }
}

let status = runFuzzer { data, count in
    let text = String(decoding: bytes(data, count), as: UTF8.self)
    let lines = text.split(separator: "\n", omittingEmptySubsequences: false).count
    do {
        let script = try OrderScript.parse(text, file: "fuzz.txt")
        let session = OrderSession(order: Order(), sink: SilentSink(), checkout: RefusingCheckout())
        for (line, step) in script.steps {
            require(line >= 1 && line <= lines, "step on line \(line) of \(lines)")
            if case .action(let action) = step { session.perform(action) }
        }
        require(Order.quantityRange.contains(session.order.quantity), "quantity \(session.order.quantity)")
    } catch {
        require(error.line >= 1 && error.line <= lines, "error on line \(error.line) of \(lines)")
        require(error.description.hasPrefix("fuzz.txt:\(error.line): error: "), error.description)
    }
    return 0
}
exit(status)
