public import OrderedCollections

/// A JSON value, as the AHAP reader sees it. Objects keep their key order.
///
/// Used for `Metadata` (kept verbatim and written back) and as the tree the
/// AHAP decoder walks.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object(OrderedDictionary<String, JSONValue>)
}

extension JSONValue {
    /// Parses a JSON text with the AHAP reader's parser (as lenient as Core Haptics: comments,
    /// trailing commas, a byte order mark and duplicate keys are read; docs/ahap-support.md).
    ///
    /// ```swift
    /// let body = try JSONValue(parsing: Array(#"{"rate": 2}"#.utf8))
    /// ```
    ///
    /// - Throws: `JSONSyntaxError`, located, when `bytes` is not JSON.
    /// - Complexity: O(n) in the input size.
    public init(parsing bytes: [UInt8]) throws(JSONSyntaxError) {
        self = try JSONParser.parse(bytes).root.value
    }
}
