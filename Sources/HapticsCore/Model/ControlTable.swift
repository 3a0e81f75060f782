/// One value per ``DynamicParameterID``, stored inline (no heap allocation, no reference
/// counting) and subscripted by the ID itself.
///
/// The synthesizer keeps its per-player cursors and live-control counts in these, so a control
/// is looked up by its typed ID rather than by a hand-kept integer.
///
/// ```swift
/// var sent = ControlTable<Float>(repeating: 0)
/// sent[.hapticIntensityControl] = 0.5
/// let neutral = ControlTable { $0.neutralValue }  // 1 for multipliers, 0 for offsets
/// ```
public struct ControlTable<Element> {
    /// `DynamicParameterID.allCases.count`, which a test keeps in step.
    public static var count: Int { 12 }

    @usableFromInline var storage: InlineArray<12, Element>

    /// A table holding `value` for every ID.
    @inlinable
    public init(repeating value: Element) {
        storage = InlineArray(repeating: value)
    }

    /// A table holding `make(id)` for every ID.
    @inlinable
    public init(_ make: (DynamicParameterID) -> Element) {
        storage = InlineArray { make(DynamicParameterID.all[$0]) }
    }

    /// The value for `id`.
    @inlinable
    public subscript(id: DynamicParameterID) -> Element {
        get { storage[id.index] }
        // In place: a cursor moved through `table[id]` must not copy the whole table.
        _modify { yield &storage[id.index] }
    }

    /// The table's values in `DynamicParameterID.allCases` order.
    public var values: [Element] { DynamicParameterID.all.map { self[$0] } }
}

extension ControlTable: Sendable where Element: Sendable {}

extension ControlTable: Equatable where Element: Equatable {
    public static func == (a: Self, b: Self) -> Bool {
        DynamicParameterID.all.allSatisfy { a[$0] == b[$0] }
    }
}

extension ControlTable: Hashable where Element: Hashable {
    public func hash(into hasher: inout Hasher) {
        for id in DynamicParameterID.all { hasher.combine(self[id]) }
    }
}

extension DynamicParameterID {
    /// Every ID, in `allCases` order, built once (`allCases` builds a new array per call).
    public static let all: [DynamicParameterID] = allCases

    /// The ID's position in `allCases`: a dense index for ``ControlTable``.
    ///
    /// A payload-free enum's in-memory tag is its case's declaration position, which is also
    /// the order of the synthesized `allCases`; a test checks the two agree.
    @inlinable
    public var index: Int { Int(unsafeBitCast(self, to: UInt8.self)) }
}
