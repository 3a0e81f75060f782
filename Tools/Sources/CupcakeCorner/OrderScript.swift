import Foundation

/// A scripted session: one action per line, checked as a whole before anything runs.
///
/// ```text
/// # six strawberry cakes with sprinkles
/// quantity 6
/// type Strawberry
/// special on
/// sprinkles on
/// name Ada
/// street 1 Infinite Loop
/// city Cupertino
/// zip 95014
/// wait 0.5
/// submit
/// ```
///
/// Lines: `quantity +1`, `quantity -1`, `quantity N` (3...20), `type NAME` (any case),
/// `special|frosting|sprinkles on|off`, `name|street|city|zip TEXT`, `wait SECONDS`, `submit`.
/// Blank lines and `#` comments are ignored. ``parse(_:file:)`` rejects the whole script at
/// its first bad line, naming it (`FILE:LINE: error: ...`), so a broken script submits nothing;
/// that includes lines valid alone but impossible where they stand (frosting before `special on`).
package struct OrderScript: Sendable {
    /// One line that does something.
    package enum Step: Hashable, Sendable {
        case action(OrderAction)
        case wait(Double)
    }

    /// The steps, each with its 1-based line number.
    package var steps: [(line: Int, step: Step)]

    /// Why a script was rejected: `FILE:LINE: error: message`.
    package struct ParseError: Error, Hashable, Sendable, CustomStringConvertible {
        package var file: String
        package var line: Int
        package var message: String
        /// `FILE:LINE: error: message`, or `FILE: error: message` for the script as a whole (line 0).
        package var description: String { "\(file)\(line > 0 ? ":\(line)" : ""): error: \(message)" }
    }

    /// The largest script read, 4 MiB (about 300,000 lines): a script is typed or generated, and
    /// without a bound `yes | haptic order --script -` was read until memory ran out, and a 200 MB
    /// file of comments took over a minute to check.
    package static let maxBytes = 4 << 20
    /// The longest line, 1,024 bytes: ample for an address, and what an error may quote. A 50 MB
    /// name took 26 s to take in; a 20 MB cake type was quoted whole in the error.
    package static let maxLineBytes = 1_024

    /// Reads the script at `path` (`-`: standard input), at most ``maxBytes``: the bytes past the
    /// bound are never read, so an endless input (a pipe, `/dev/zero`) is refused, not awaited.
    package static func read(_ path: String) throws(ParseError) -> String {
        var bytes: [UInt8] = []
        do {
            try BoundedRead.chunks(of: path, dashIsStandardInput: true, chunkBytes: 64 << 10, bound: maxBytes) {
                bytes.append(contentsOf: $0)
            }
        } catch {
            let message =
                switch error {
                case .cannotOpen(let reason): "cannot open it: \(reason)"
                case .cannotRead(let reason): "cannot read it: \(reason)"
                case .overBound: "the script is over \(maxBytes >> 20) MiB; a script is at most \(maxBytes >> 20) MiB"
                }
            throw ParseError(file: path, line: 0, message: message)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `text` as an error quotes it: control characters escaped (`\u{0}`), at most 64
    /// characters and an ellipsis.
    package static func shown(_ text: String) -> String {
        var out = ""
        for (count, scalar) in text.unicodeScalars.enumerated() {
            guard count < 64 else { return out + "…" }
            out += scalar.properties.generalCategory == .control ? scalar.escaped(asASCII: true) : String(scalar)
        }
        return out
    }

    /// Parses and checks `text` (named `file` in errors).
    package static func parse(_ text: String, file: String) throws(ParseError) -> OrderScript {
        var steps: [(line: Int, step: Step)] = []
        let dryRun = Order()
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            func fail(_ message: String) -> ParseError { ParseError(file: file, line: number, message: message) }
            guard raw.utf8.count <= maxLineBytes else {
                throw fail("the line is \(raw.utf8.count) bytes long; a script line is at most \(maxLineBytes)")
            }
            let line = raw.trimmingCharacters(in: .whitespaces.union(CharacterSet(charactersIn: "\r")))
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let parts = line.split(separator: " ", maxSplits: 1).map(String.init)
            let word = parts[0].lowercased()
            let argument = parts.count > 1 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            let step: Step
            switch word {
            case "quantity":
                if argument == "+1" || argument == "-1" {
                    step = .action(.stepQuantity(argument == "+1" ? 1 : -1))
                } else if let value = Int(argument) {
                    guard Order.quantityRange.contains(value) else {
                        throw fail("quantity \(value) is outside 3...20")
                    }
                    step = .action(.setQuantity(value))
                } else {
                    throw fail("quantity needs +1, -1 or a number of cakes 3...20 (got '\(shown(argument))')")
                }
            case "type":
                guard let index = Order.types.firstIndex(where: { $0.lowercased() == argument.lowercased() }) else {
                    throw fail(
                        "unknown cake type '\(shown(argument))'; choose one of: \(Order.types.joined(separator: ", "))")
                }
                step = .action(.setType(index))
            case "special", "frosting", "sprinkles":
                guard argument == "on" || argument == "off" else {
                    throw fail("\(word) needs on or off (got '\(shown(argument))')")
                }
                let on = argument == "on"
                if word != "special" && on && !dryRun.specialRequestEnabled {
                    throw fail("\(word) on needs 'special on' first")
                }
                step = .action(word == "special" ? .special(on) : word == "frosting" ? .frosting(on) : .sprinkles(on))
            case "name", "street", "city", "zip":
                let value = argument
                if word == "zip", let refusal = Order.zipRefusal(value) { throw fail(refusal) }
                step = .action(
                    word == "name"
                        ? .name(value) : word == "street" ? .street(value) : word == "city" ? .city(value) : .zip(value)
                )
            case "wait":
                guard let seconds = Double(argument), seconds.isFinite, (0...3600).contains(seconds) else {
                    throw fail("wait needs a number of seconds 0...3600 (got '\(shown(argument))')")
                }
                step = .wait(seconds)
            case "submit":
                guard argument.isEmpty else { throw fail("submit takes nothing after it (got '\(shown(argument))')") }
                step = .action(.submit)
            default:
                throw fail(
                    "unknown action '\(shown(parts[0]))'; expected quantity, type, special, frosting, sprinkles, name, street, city, zip, wait or submit"
                )
            }
            if case .action(let action) = step { apply(action, to: dryRun) }
            steps.append((number, step))
        }
        return OrderScript(steps: steps)
    }

    /// The state changes a dry run needs to check later lines (feedback and checkout aside).
    private static func apply(_ action: OrderAction, to order: Order) {
        switch action {
        case .special(let on): order.specialRequestEnabled = on ?? !order.specialRequestEnabled
        case .frosting(let on): order.extraFrosting = on ?? !order.extraFrosting
        case .sprinkles(let on): order.addSprinkles = on ?? !order.addSprinkles
        default: break
        }
    }
}
