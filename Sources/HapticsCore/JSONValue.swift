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
