package import Foundation
import Observation

/// One cupcake order, as in the "Cupcake Corner" app of Hacking with Swift's 100 Days of SwiftUI.
///
/// Observable, so a view (or the terminal screen) redraws when it changes, and Codable with
/// exactly the keys `type`, `quantity`, `specialRequestEnabled`, `extraFrosting`,
/// `addSprinkles`, `name`, `streetAddress`, `city` and `zip`:
///
/// ```swift
/// let order = Order()
/// order.quantity = 6
/// order.type = 1          // Strawberry
/// order.cost              // 12.5
/// ```
@Observable
package final class Order: Codable {
    /// The cake types, in menu order; `type` indexes this list.
    package static let types = ["Vanilla", "Strawberry", "Chocolate", "Rainbow"]
    /// How many cakes one order may hold.
    package static let quantityRange = 3...20

    /// Why `text` cannot be a zip code (it holds something other than the digits 0-9), or nil
    /// when it can. A numeric field refuses the rest as it is typed, as a number field does.
    package static func zipRefusal(_ text: String) -> String? {
        guard let bad = text.first(where: { !("0"..."9").contains($0) }) else { return nil }
        return "zip takes digits only, not '\(bad)' (got '\(text)')"
    }

    private var storedType = 0
    private var storedQuantity = 3
    private var storedSpecialRequestEnabled = false

    /// Index into ``types``; values outside it are clamped to the nearest type.
    package var type: Int {
        get { storedType }
        set { storedType = min(max(newValue, 0), Self.types.count - 1) }
    }

    /// Number of cakes, clamped to ``quantityRange``.
    package var quantity: Int {
        get { storedQuantity }
        set { storedQuantity = min(max(newValue, Self.quantityRange.lowerBound), Self.quantityRange.upperBound) }
    }

    /// Whether the special requests section is open; turning it off clears both extras.
    package var specialRequestEnabled: Bool {
        get { storedSpecialRequestEnabled }
        set {
            storedSpecialRequestEnabled = newValue
            if !newValue {
                extraFrosting = false
                addSprinkles = false
            }
        }
    }

    /// $1 more per cake.
    package var extraFrosting = false
    /// $0.50 more per cake.
    package var addSprinkles = false

    package var name = ""
    package var streetAddress = ""
    package var city = ""
    package var zip = ""

    /// A fresh order: 3 vanilla cakes, no extras, no address.
    package init() {}

    /// The name of the chosen cake type, e.g. `"Strawberry"`.
    package var typeName: String { Self.types[type] }

    /// True when name, street, city and zip all hold something besides whitespace.
    package var hasValidAddress: Bool {
        [name, streetAddress, city, zip].allSatisfy { !$0.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
    }

    /// The address fields still empty, by their labels, e.g. `["name", "zip"]`.
    package var missingAddressFields: [String] {
        [("name", name), ("street", streetAddress), ("city", city), ("zip", zip)]
            .filter { $0.1.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty }
            .map(\.0)
    }

    /// The price, as the tutorial computes it: $2 per cake, plus `type / 2` dollars once per
    /// order ("complicated cakes cost more"), plus $1 per cake for extra frosting and $0.50 per
    /// cake for sprinkles.
    package var cost: Decimal {
        var cost = Decimal(quantity) * 2
        cost += Decimal(type) / 2
        if extraFrosting { cost += Decimal(quantity) }
        if addSprinkles { cost += Decimal(quantity) / 2 }
        return cost
    }

    /// A copy with the same values (and its own observers).
    package func copy() -> Order {
        let order = Order()
        order.type = type
        order.quantity = quantity
        order.specialRequestEnabled = specialRequestEnabled
        order.extraFrosting = extraFrosting
        order.addSprinkles = addSprinkles
        order.name = name
        order.streetAddress = streetAddress
        order.city = city
        order.zip = zip
        return order
    }

    enum CodingKeys: String, CodingKey {
        case type, quantity, specialRequestEnabled, extraFrosting, addSprinkles, name, streetAddress, city, zip
    }

    /// Decodes the nine keys; a `type` outside ``types`` or a `quantity` outside
    /// ``quantityRange`` is a `DecodingError.dataCorrupted` naming the key.
    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decode(Int.self, forKey: .type)
        guard Self.types.indices.contains(type) else {
            throw DecodingError.dataCorruptedError(
                forKey: .type, in: c, debugDescription: "type must be 0...\(Self.types.count - 1), got \(type)")
        }
        let quantity = try c.decode(Int.self, forKey: .quantity)
        guard Self.quantityRange.contains(quantity) else {
            throw DecodingError.dataCorruptedError(
                forKey: .quantity, in: c, debugDescription: "quantity must be 3...20, got \(quantity)")
        }
        storedType = type
        storedQuantity = quantity
        storedSpecialRequestEnabled = try c.decode(Bool.self, forKey: .specialRequestEnabled)
        extraFrosting = try c.decode(Bool.self, forKey: .extraFrosting) && storedSpecialRequestEnabled
        addSprinkles = try c.decode(Bool.self, forKey: .addSprinkles) && storedSpecialRequestEnabled
        name = try c.decode(String.self, forKey: .name)
        streetAddress = try c.decode(String.self, forKey: .streetAddress)
        city = try c.decode(String.self, forKey: .city)
        zip = try c.decode(String.self, forKey: .zip)
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(type, forKey: .type)
        try c.encode(quantity, forKey: .quantity)
        try c.encode(specialRequestEnabled, forKey: .specialRequestEnabled)
        try c.encode(extraFrosting, forKey: .extraFrosting)
        try c.encode(addSprinkles, forKey: .addSprinkles)
        try c.encode(name, forKey: .name)
        try c.encode(streetAddress, forKey: .streetAddress)
        try c.encode(city, forKey: .city)
        try c.encode(zip, forKey: .zip)
    }
}

extension Decimal {
    /// Dollars with two decimals: `12.5` → `"$12.50"`.
    package var dollars: String {
        var value = self
        var rounded = Decimal()
        NSDecimalRound(&rounded, &value, 2, .bankers)
        let text = NSDecimalNumber(decimal: rounded).stringValue
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        let cents = parts.count > 1 ? String(parts[1]).padding(toLength: 2, withPad: "0", startingAt: 0) : "00"
        return "$\(parts[0]).\(cents)"
    }
}
