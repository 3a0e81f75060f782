import HapticsCore

/// The checks every API input passes before it is used (docs/studio.md, "API"): a member of the
/// wrong JSON type, a number that is not finite or outside what the studio can act on, is a 400
/// naming the member, never a default silently taken or a crash later.
extension Studio {
    /// The string member `key` (required).
    static func text(_ body: JSONValue, _ key: String) throws(StudioError) -> String {
        guard let value = try member(body, key).string else { throw .badRequest("\"\(key)\" must be a string") }
        return value
    }

    /// The member `key` when present and not null, as `kind` requires (`string`, `number` or
    /// `boolean`); a number must be finite and within `range`.
    static func optional(
        _ body: JSONValue, _ key: String, _ kind: Kind, in range: ClosedRange<Double>? = nil
    ) throws(StudioError) -> JSONValue? {
        guard case .object = body else { throw .badRequest("the request body must be a JSON object") }
        guard let value = body[key], value != .null else { return nil }
        switch (kind, value) {
        case (.string, .string), (.boolean, .bool): return value
        case (.number, .number(let number)):
            guard number.isFinite, range.map({ $0.contains(number) }) ?? true else {
                let bounds = range.map { " from \($0.lowerBound) to \($0.upperBound)" } ?? ""
                throw .badRequest("\"\(key)\" must be a finite number\(bounds)")
            }
            return value
        default:
            throw .badRequest("\"\(key)\" must be a \(kind)")
        }
    }

    enum Kind: String, CustomStringConvertible {
        case string, number, boolean
        var description: String { rawValue }
    }

    /// The range of pattern seconds a play may start or end at: the longest pattern the studio opens.
    static var seconds: ClosedRange<Double> { 0...AHAPLimits.default.maxDuration }
}
