import CupcakeCorner
import Foundation
import SensoryFeedback
import Synchronization
import Testing

/// Records every feedback played, in order.
final class RecordingSink: FeedbackSink {
    private let played = Mutex<[SensoryFeedback]>([])
    var feedback: [SensoryFeedback] { played.withLock { $0 } }
    func play(_ feedback: SensoryFeedback) { played.withLock { $0.append(feedback) } }
}

/// A checkout that fails like a broken disk or server would.
final class FailingCheckout: OrderCheckout {
    func submit(_ order: Order) throws(CheckoutError) -> Receipt { throw CheckoutError("disk full") }
}

/// A scratch folder removed when the test ends.
final class Scratch {
    let url = FileManager.default.temporaryDirectory.appending(path: "cupcake-\(UUID().uuidString)")
    deinit { try? FileManager.default.removeItem(at: url) }
}

@Suite struct OrderModelTests {
    @Test func defaultsAndClamping() {
        let order = Order()
        #expect(order.type == 0 && order.quantity == 3 && !order.specialRequestEnabled)
        order.quantity = 2
        #expect(order.quantity == 3)
        order.quantity = 25
        #expect(order.quantity == 20)
        order.type = 9
        #expect(order.typeName == "Rainbow")
    }

    @Test func turningSpecialRequestsOffClearsTheExtras() {
        let order = Order()
        order.specialRequestEnabled = true
        order.extraFrosting = true
        order.addSprinkles = true
        order.specialRequestEnabled = false
        #expect(!order.extraFrosting && !order.addSprinkles)
    }

    @Test func addressNeedsAllFourFieldsBesidesWhitespace() {
        let order = Order()
        order.name = "Ada"
        order.streetAddress = "1 Loop"
        order.city = "Cupertino"
        order.zip = "   \t"
        #expect(!order.hasValidAddress)
        #expect(order.missingAddressFields == ["zip"])
        order.zip = "95014"
        #expect(order.hasValidAddress)
    }

    // The tutorial's formula: $2 a cake, type/2 once, $1 a cake frosting, $0.50 a cake sprinkles.
    @Test(arguments: [
        (0, 3, false, false, "6"), (1, 6, false, true, "15.5"), (3, 20, true, true, "71.5"), (2, 5, true, false, "16"),
    ])
    func costFollowsTheTutorial(type: Int, quantity: Int, frosting: Bool, sprinkles: Bool, expected: String) {
        let order = Order()
        order.type = type
        order.quantity = quantity
        order.specialRequestEnabled = true
        order.extraFrosting = frosting
        order.addSprinkles = sprinkles
        #expect(order.cost == Decimal(string: expected)!)
    }

    @Test func dollarsHaveTwoDecimals() {
        #expect(Decimal(string: "15.5")!.dollars == "$15.50")
        #expect(Decimal(6).dollars == "$6.00")
    }

    @Test func jsonHasExactlyTheNineKeys() throws {
        let order = Order()
        order.type = 2
        order.quantity = 7
        order.specialRequestEnabled = true
        order.addSprinkles = true
        order.name = "Ada"
        order.streetAddress = "1 Loop"
        order.city = "Cupertino"
        order.zip = "95014"
        let json = String(decoding: try OrderStore.encoder().encode(order), as: UTF8.self)
        #expect(
            json == #"{"addSprinkles":true,"city":"Cupertino","extraFrosting":false,"name":"Ada","quantity":7,"#
                + #""specialRequestEnabled":true,"streetAddress":"1 Loop","type":2,"zip":"95014"}"#)
        let decoded = try JSONDecoder().decode(Order.self, from: Data(json.utf8))
        #expect(String(decoding: try OrderStore.encoder().encode(decoded), as: UTF8.self) == json)
    }

    @Test func decodingRejectsAQuantityOutOfRange() {
        let json =
            #"{"addSprinkles":false,"city":"","extraFrosting":false,"name":"","quantity":50,"specialRequestEnabled":false,"streetAddress":"","type":0,"zip":""}"#
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Order.self, from: Data(json.utf8)) }
    }
}

@Suite struct OrderSessionTests {
    func session(_ checkout: (any OrderCheckout)? = nil) throws -> (OrderSession, RecordingSink, Scratch) {
        let scratch = Scratch()
        let sink = RecordingSink()
        let store = try OrderStore(directory: scratch.url)
        return (
            OrderSession(order: Order(), sink: sink, checkout: checkout ?? StoreCheckout(store: store)), sink, scratch
        )
    }

    @Test func stepperPlaysIncreaseAndDecreaseButNothingAtItsBounds() throws {
        let (session, sink, _) = try session()
        #expect(session.perform(.stepQuantity(-1)) == .unchanged)  // already 3
        session.perform(.stepQuantity(1))
        session.perform(.stepQuantity(-1))
        session.perform(.setQuantity(20))
        #expect(session.perform(.stepQuantity(1)) == .unchanged)
        #expect(sink.feedback == [.increase, .decrease, .increase])
        #expect(session.order.quantity == 20)
    }

    @Test func zipRefusesNonDigitsWithTheErrorFeedback() throws {
        let (session, sink, _) = try session()
        #expect(session.perform(.zip("95014")) == .changed)
        #expect(session.perform(.zip("9501a")) == .notAllowed("zip takes digits only, not 'a' (got '9501a')"))
        #expect(session.order.zip == "95014")
        #expect(sink.feedback == [.error])
        #expect(session.events.last?.change == "zip" && session.events.last?.feedback == "error")
    }

    @Test func typeAndTogglesPlaySelection() throws {
        let (session, sink, _) = try session()
        session.perform(.nextType)
        #expect(session.perform(.setType(1)) == .unchanged)
        #expect(session.perform(.frosting(true)) == .notAllowed("frosting needs special requests on"))
        session.perform(.special(true))
        session.perform(.frosting(true))
        session.perform(.sprinkles(nil))
        session.perform(.special(false))
        #expect(sink.feedback == [.selection, .selection, .selection, .selection, .selection])
        #expect(!session.order.extraFrosting && !session.order.addSprinkles)
        // Turning special requests off logs the extras it cleared, without feedback of their own.
        #expect(session.events.suffix(3).map(\.change) == ["special", "frosting", "sprinkles"])
        #expect(session.events.suffix(2).allSatisfy { $0.feedback == nil })
    }

    @Test func checkoutWithoutAddressPlaysErrorNeverSuccess() throws {
        let (session, sink, _) = try session()
        session.order.name = "Ada"
        guard case .rejected(let reason) = session.perform(.submit) else {
            Issue.record("an incomplete address was accepted")
            return
        }
        #expect(reason == "please fill in the address first (missing: street, city, zip)")
        #expect(sink.feedback == [.error])
    }

    @Test func checkoutStoresTheOrderAndPlaysSuccess() throws {
        let (session, sink, scratch) = try session()
        session.perform(.setQuantity(6))
        session.perform(.setType(1))
        for action in [OrderAction.name("Ada"), .street("1 Loop"), .city("Cupertino"), .zip("95014")] {
            session.perform(action)
        }
        guard case .checkedOut(let receipt) = session.perform(.submit) else {
            Issue.record("checkout failed")
            return
        }
        #expect(receipt.message == "Your order for 6x strawberry cupcakes is on its way!")
        #expect(receipt.cost == Decimal(string: "12.5")!)
        #expect(sink.feedback.last == .success)
        let stored = try OrderStore(directory: scratch.url).load()
        #expect(stored.orders.map(\.id) == [receipt.id])
        #expect(stored.orders[0].order.quantity == 6 && stored.problems.isEmpty)
    }

    @Test func aFailingStorePlaysError() throws {
        let (session, sink, _) = try session(FailingCheckout())
        for action in [OrderAction.name("Ada"), .street("1 Loop"), .city("Cupertino"), .zip("95014")] {
            session.perform(action)
        }
        #expect(session.perform(.submit) == .rejected("disk full"))
        #expect(sink.feedback == [.error])
        #expect(session.events.last?.new == "failed: disk full")
    }
}

@Suite struct OrderScriptTests {
    @Test func parsesEveryKindOfLine() throws {
        let script = try OrderScript.parse(
            "# comment\n\nquantity +1\nquantity -1\nquantity 7\ntype chocolate\nspecial on\nfrosting on\nsprinkles off\n"
                + "name Ada Lovelace\nstreet 1 Infinite Loop\ncity Cupertino\nzip 95014\nwait 0.25\nsubmit\n",
            file: "s.txt")
        #expect(script.steps.map(\.line) == Array(3...15))
        #expect(script.steps[3].step == .action(.setType(2)))
        #expect(script.steps[7].step == .action(.name("Ada Lovelace")))
        #expect(script.steps[11].step == .wait(0.25))
    }

    @Test(arguments: [
        (
            "quantity 3\nbake it\n",
            "s.txt:2: error: unknown action 'bake'; expected quantity, type, special, frosting, sprinkles, name, street, city, zip, wait or submit"
        ),
        ("quantity 21\n", "s.txt:1: error: quantity 21 is outside 3...20"),
        (
            "type Lemon\n",
            "s.txt:1: error: unknown cake type 'Lemon'; choose one of: Vanilla, Strawberry, Chocolate, Rainbow"
        ),
        ("# x\nfrosting on\n", "s.txt:2: error: frosting on needs 'special on' first"),
        ("wait soon\n", "s.txt:1: error: wait needs a number of seconds 0...3600 (got 'soon')"),
        ("name Ann\nzip 12a45\n", "s.txt:2: error: zip takes digits only, not 'a' (got '12a45')"),
        ("quantity 6x\n", "s.txt:1: error: quantity needs +1, -1 or a number of cakes 3...20 (got '6x')"),
        // A quoted argument shows its control characters escaped and at most 64 characters.
        (
            "quantity +1\u{0}\u{1B}[2J\n",
            "s.txt:1: error: quantity needs +1, -1 or a number of cakes 3...20 (got '+1\\0\\u{1B}[2J')"
        ),
        (
            "type " + String(repeating: "y", count: 1_000) + "\n",
            "s.txt:1: error: unknown cake type '" + String(repeating: "y", count: 64)
                + "…'; choose one of: Vanilla, Strawberry, Chocolate, Rainbow"
        ),
        // A 50 MB name took 26 s to take in; a 20 MB cake type was quoted whole.
        (
            "quantity 4\nname " + String(repeating: "x", count: 1_020) + "\n",
            "s.txt:2: error: the line is 1025 bytes long; a script line is at most 1024"
        ),
    ])
    func rejectsABadLineByNumber(text: String, message: String) {
        #expect(throws: OrderScript.ParseError.self) { try OrderScript.parse(text, file: "s.txt") }
        do {
            _ = try OrderScript.parse(text, file: "s.txt")
        } catch {
            #expect(error.description == message)
        }
    }

    /// `yes | haptic order --script -` was read until memory ran out: the read stops past 4 MiB.
    @Test func aScriptOverFourMiBIsRefusedWithoutReadingTheRest() throws {
        let scratch = FileManager.default.temporaryDirectory.appending(path: "script-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        let line = "quantity +1\n"
        let fits = String(repeating: line, count: OrderScript.maxBytes / line.utf8.count)
        let small = scratch.appending(path: "fits.txt")
        try Data(fits.utf8).write(to: small)
        #expect(try OrderScript.read(small.path) == fits)
        let big = scratch.appending(path: "big.txt")
        try Data((fits + line).utf8).write(to: big)
        #expect(throws: OrderScript.ParseError.self) { try OrderScript.read(big.path) }
        do {
            _ = try OrderScript.read(big.path)
        } catch {
            #expect(error.description == "\(big.path): error: the script is over 4 MiB; a script is at most 4 MiB")
        }
        // An endless file is refused, not awaited.
        do {
            _ = try OrderScript.read("/dev/zero")
            Issue.record("/dev/zero was read to its end")
        } catch {
            #expect(error.description == "/dev/zero: error: the script is over 4 MiB; a script is at most 4 MiB")
        }
        do {
            _ = try OrderScript.read(scratch.appending(path: "missing.txt").path)
            Issue.record("a missing file was read")
        } catch {
            #expect(error.description.hasSuffix("missing.txt: error: cannot open it: No such file or directory"))
        }
    }
}
