package import Foundation
package import SensoryFeedback

/// Something a customer does to an order: a key in the terminal screen, a line of a script.
package enum OrderAction: Hashable, Sendable {
    /// `+1` or `-1`: the stepper's buttons.
    case stepQuantity(Int)
    case setQuantity(Int)
    case nextType
    case setType(Int)
    /// nil toggles.
    case special(Bool?)
    case frosting(Bool?)
    case sprinkles(Bool?)
    case name(String)
    case street(String)
    case city(String)
    case zip(String)
    case submit
}

/// What came of an action.
package enum ActionOutcome: Equatable, Sendable {
    /// The order changed (feedback played where the app plays one).
    case changed
    /// Nothing changed (a press at a bound, a toggle to its current value); nothing played.
    case unchanged
    /// Not possible now, with the reason (e.g. frosting while special requests are off).
    case notAllowed(String)
    /// Checked out: the receipt. `.success` played.
    case checkedOut(Receipt)
    /// Checkout refused or failed, with the reason. `.error` played.
    case rejected(String)
}

/// A checked-out order, as the customer is told about it.
package struct Receipt: Equatable, Sendable {
    package var id: String
    package var quantity: Int
    package var typeName: String
    package var cost: Decimal
    /// Where the order went: the store's file or the endpoint's URL.
    package var destination: String

    package init(id: String, quantity: Int, typeName: String, cost: Decimal, destination: String) {
        self.id = id
        self.quantity = quantity
        self.typeName = typeName
        self.cost = cost
        self.destination = destination
    }

    /// "Your order for 6x strawberry cupcakes is on its way!"
    package var message: String { "Your order for \(quantity)x \(typeName.lowercased()) cupcakes is on its way!" }
}

/// Where a valid order goes at checkout.
package protocol OrderCheckout: AnyObject {
    /// Sends or saves `order`; throws a customer-readable reason when it cannot.
    func submit(_ order: Order) throws(CheckoutError) -> Receipt
}

/// Why a checkout failed, in words for the customer.
package struct CheckoutError: Error, Equatable, Sendable, CustomStringConvertible {
    package var description: String
    package init(_ description: String) { self.description = description }
}

/// Checkout into the local ``OrderStore``.
package final class StoreCheckout: OrderCheckout {
    package let store: OrderStore
    package init(store: OrderStore) { self.store = store }

    package func submit(_ order: Order) throws(CheckoutError) -> Receipt {
        let record: StoredOrder
        do {
            record = try store.append(StoredOrder(order: order.copy()))
        } catch {
            throw CheckoutError("could not save the order: \(error.description)")
        }
        return Receipt(
            id: record.id, quantity: order.quantity, typeName: order.typeName, cost: record.cost,
            destination: store.file.path(percentEncoded: false))
    }
}

/// One customer's session: applies actions to an ``Order``, plays the feedback the app plays,
/// logs every change with its time, and checks out.
///
/// Feedback follows SwiftUI's `sensoryFeedback(_:trigger:)`: it plays only when the value
/// actually changes. The stepper plays `.increase` / `.decrease`, the type picker and the
/// toggles `.selection`, a checkout `.success`, a refused or failed one `.error`.
///
/// ```swift
/// let session = OrderSession(order: Order(), sink: sink, checkout: StoreCheckout(store: store))
/// session.perform(.stepQuantity(1))   // plays .increase
/// ```
package final class OrderSession {
    package let order: Order
    package let sink: any FeedbackSink
    package let checkout: any OrderCheckout
    package let log: EventLogWriter?
    /// Every event of the session, as written to the log.
    package private(set) var events: [OrderEvent] = []
    /// The first log write failure, if any (the session goes on; the CLI reports it).
    package private(set) var logFailure: EventLogError?
    private let started: ContinuousClock.Instant
    private let now: () -> ContinuousClock.Instant

    /// - Parameter now: the clock (tests pass a fixed one).
    package init(
        order: Order, sink: any FeedbackSink, checkout: any OrderCheckout, log: EventLogWriter? = nil,
        now: @escaping () -> ContinuousClock.Instant = { ContinuousClock.now }
    ) {
        self.order = order
        self.sink = sink
        self.checkout = checkout
        self.log = log
        self.now = now
        started = now()
    }

    /// Seconds since the session started.
    package var elapsed: Double {
        let d = now() - started
        return Double(d.components.seconds) + Double(d.components.attoseconds) * 1e-18
    }

    /// Applies `action`, plays its feedback and logs it.
    @discardableResult
    package func perform(_ action: OrderAction) -> ActionOutcome {
        switch action {
        case .stepQuantity(let step):
            return setQuantity(order.quantity + step)
        case .setQuantity(let value):
            return setQuantity(value)
        case .nextType:
            return setType((order.type + 1) % Order.types.count)
        case .setType(let value):
            return setType(value)
        case .special(let on):
            let old = order.specialRequestEnabled
            let new = on ?? !old
            guard new != old else { return .unchanged }
            let frosting = order.extraFrosting, sprinkles = order.addSprinkles
            order.specialRequestEnabled = new
            record("special", old, new, .selection)
            if frosting != order.extraFrosting { record("frosting", frosting, order.extraFrosting, nil) }
            if sprinkles != order.addSprinkles { record("sprinkles", sprinkles, order.addSprinkles, nil) }
            return .changed
        case .frosting(let on):
            return toggle("frosting", \.extraFrosting, on)
        case .sprinkles(let on):
            return toggle("sprinkles", \.addSprinkles, on)
        case .name(let text): return setText("name", \.name, text)
        case .street(let text): return setText("street", \.streetAddress, text)
        case .city(let text): return setText("city", \.city, text)
        case .zip(let text):
            if let refusal = Order.zipRefusal(text) {
                record("zip", nil, "refused: \(refusal)", .error)
                return .notAllowed(refusal)
            }
            return setText("zip", \.zip, text)
        case .submit:
            return submit()
        }
    }

    private func setQuantity(_ value: Int) -> ActionOutcome {
        let old = order.quantity
        order.quantity = value
        guard order.quantity != old else { return .unchanged }
        record("quantity", old, order.quantity, order.quantity > old ? .increase : .decrease)
        return .changed
    }

    private func setType(_ value: Int) -> ActionOutcome {
        let old = order.type
        order.type = value
        guard order.type != old else { return .unchanged }
        record("type", Order.types[old], order.typeName, .selection)
        return .changed
    }

    private func toggle(_ change: String, _ key: ReferenceWritableKeyPath<Order, Bool>, _ on: Bool?) -> ActionOutcome {
        guard order.specialRequestEnabled else {
            return .notAllowed("\(change) needs special requests on")
        }
        let old = order[keyPath: key]
        let new = on ?? !old
        guard new != old else { return .unchanged }
        order[keyPath: key] = new
        record(change, old, new, .selection)
        return .changed
    }

    private func setText(_ change: String, _ key: ReferenceWritableKeyPath<Order, String>, _ text: String)
        -> ActionOutcome
    {
        let old = order[keyPath: key]
        guard text != old else { return .unchanged }
        order[keyPath: key] = text
        record(change, old, text, nil)
        return .changed
    }

    private func submit() -> ActionOutcome {
        guard order.hasValidAddress else {
            let reason =
                "please fill in the address first (missing: \(order.missingAddressFields.joined(separator: ", ")))"
            record("checkout", nil, "rejected: \(reason)", .error)
            return .rejected(reason)
        }
        do {
            let receipt = try checkout.submit(order)
            record("checkout", nil, "order \(receipt.id) \(receipt.cost.dollars)", .success)
            return .checkedOut(receipt)
        } catch {
            record("checkout", nil, "failed: \(error.description)", .error)
            return .rejected(error.description)
        }
    }

    private func record<Value>(_ change: String, _ old: Value?, _ new: Value?, _ feedback: SensoryFeedback?) {
        // Feedback first: it is what the customer notices; the log line follows.
        if let feedback { sink.play(feedback) }
        let event = OrderEvent(
            t: (elapsed * 1_000_000).rounded() / 1_000_000, change: change, old: old.map { "\($0)" },
            new: new.map { "\($0)" }, feedback: feedback.map(\.description))
        events.append(event)
        guard let log, logFailure == nil else { return }
        do {
            try log.append(event)
        } catch {
            logFailure = error
        }
    }
}
