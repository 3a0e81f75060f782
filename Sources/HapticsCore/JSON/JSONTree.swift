import OrderedCollections

/// A parsed JSON document, flat: every value is one fixed-size slot in a single array, an
/// array's elements are consecutive slots, and an object's members (key, key location, value)
/// are consecutive entries of a second array. Strings are not copied out: a slot names its
/// bytes in the source (or, when the string had escapes, in one side buffer of unescaped
/// bytes). So a whole tree is a handful of allocations, built without a `String` per value and
/// freed at once.
///
/// Values are addressed by index (`Int`); the AHAP decoder walks the tree through these
/// accessors, other readers through `JSONNode`, a view of one slot.
///
/// - Complexity: every accessor is O(1) except `string`, `key` and `value(_:)`, which build
///   what they return.
package final class JSONTree: Sendable {
    /// What a slot holds.
    package enum Tag: UInt8, Sendable, BitwiseCopyable {
        case null, `false`, `true`, number, string, array, object
    }

    /// One value: 24 bytes, no references.
    struct Slot: Sendable, BitwiseCopyable {
        /// number: the `Double`'s bits; string: where its bytes start; array: the first
        /// element's index; object: the first member's index.
        var payload: UInt64
        var line: Int32
        var column: Int32
        /// string: its length in UTF-8 bytes; array, object: how many elements or members.
        var count: Int32
        var tag: Tag
        /// Strings: `escaped`, `nonASCII`.
        var flags: UInt8
    }

    /// One `"key": value` pair of an object: 24 bytes (`valueTag` sits in the key's padding).
    struct Member: Sendable, BitwiseCopyable {
        var key: StringRef
        /// The value's tag, kept here too, so that a walk over an object's members (the decoder's
        /// key matching) need not read each value's slot, far away in `slots` by then.
        var valueTag: Tag
        var line: Int32
        var column: Int32
        /// The value's index in `slots`.
        var value: Int32
    }

    /// Where a string's bytes are.
    struct StringRef: Sendable, BitwiseCopyable {
        var offset: Int32
        var length: Int32
        var flags: UInt8
    }

    /// The bytes are in `text` (the string had escapes), not in `source`.
    static let escaped: UInt8 = 1
    /// The string has a byte past ASCII: compared as `String`s (canonical equivalence), never as bytes.
    static let nonASCII: UInt8 = 2

    let source: [UInt8]
    let text: [UInt8]
    /// The parser's buffers, handed over; freed in `deinit`.
    let slots: OwnedBuffer<Slot>
    let members: OwnedBuffer<Member>
    /// The top-level value's index.
    package let root: Int

    init(source: [UInt8], text: [UInt8], slots: OwnedBuffer<Slot>, members: OwnedBuffer<Member>, root: Int) {
        self.source = source
        self.text = text
        self.slots = slots
        self.members = members
        self.root = root
    }

    deinit {
        slots.base.deallocate()
        members.base.deallocate()
    }

    // MARK: Values

    @inline(__always) package func tag(_ node: Int) -> Tag { slots[node].tag }

    package func location(_ node: Int) -> SourceLocation {
        let slot = slots[node]
        return SourceLocation(line: Int(slot.line), column: Int(slot.column))
    }

    /// The number in `node`, if it is one.
    package func number(_ node: Int) -> Double? {
        let slot = slots[node]
        return slot.tag == .number ? Double(bitPattern: slot.payload) : nil
    }

    /// The Boolean in `node`, if it is one.
    package func bool(_ node: Int) -> Bool? {
        switch slots[node].tag {
        case .true: true
        case .false: false
        default: nil
        }
    }

    /// The string in `node`, if it is one.
    package func string(_ node: Int) -> String? { stringRef(node).map(string) }

    /// Where the bytes of the string in `node` are, if it is one.
    @inline(__always) func stringRef(_ node: Int) -> StringRef? {
        let slot = slots[node]
        guard slot.tag == .string else { return nil }
        return StringRef(offset: Int32(truncatingIfNeeded: slot.payload), length: slot.count, flags: slot.flags)
    }

    /// The indices of an array's elements; empty for anything else.
    package func elements(_ node: Int) -> Range<Int> {
        let slot = slots[node]
        guard slot.tag == .array else { return 0..<0 }
        let first = Int(slot.payload)
        return first..<first + Int(slot.count)
    }

    /// The indices of an object's members (for `key`, `keyLocation`, `value`); empty for anything else.
    package func members(_ node: Int) -> Range<Int> {
        let slot = slots[node]
        guard slot.tag == .object else { return 0..<0 }
        let first = Int(slot.payload)
        return first..<first + Int(slot.count)
    }

    // MARK: Members

    package func key(_ member: Int) -> String { string(members[member].key) }

    /// Where the member's key (its opening quote) is.
    package func keyLocation(_ member: Int) -> SourceLocation {
        let m = members[member]
        return SourceLocation(line: Int(m.line), column: Int(m.column))
    }

    /// The index of the member's value.
    @inline(__always) package func value(_ member: Int) -> Int { Int(members[member].value) }

    /// The tag of the member's value (`tag(value(member))`, read from the member).
    @inline(__always) package func valueTag(_ member: Int) -> Tag { members[member].valueTag }

    /// Whether the member's key is `literal` (compared as Swift compares `String`s).
    package func keyIs(_ member: Int, _ literal: StaticString) -> Bool { equals(members[member].key, literal) }

    /// The value of the member named `key` unless that value is null (Core Haptics reads a null as absent).
    package func field(_ node: Int, _ key: StaticString) -> Int? {
        for m in members(node) where equals(members[m].key, key) {
            let value = Int(members[m].value)
            return slots[value].tag == .null ? nil : value
        }
        return nil
    }

    // MARK: Strings

    func string(_ ref: StringRef) -> String {
        let buffer = ref.flags & Self.escaped != 0 ? text : source
        return buffer.withUnsafeBufferPointer { b in
            String(
                decoding: UnsafeBufferPointer(rebasing: b[Int(ref.offset)..<Int(ref.offset) + Int(ref.length)]),
                as: UTF8.self)
        }
    }

    @inline(__always) func equals(_ ref: StringRef, _ literal: StaticString) -> Bool {
        if ref.flags & Self.nonASCII != 0 { return string(ref) == literal.description }
        guard Int(ref.length) == literal.utf8CodeUnitCount else { return false }
        return sameBytes(ref, literal.utf8Start)
    }

    /// Whether the ASCII string `ref` has the bytes at `bytes` (as many as it has).
    @inline(__always) func sameBytes(_ ref: StringRef, _ bytes: UnsafePointer<UInt8>) -> Bool {
        let start = Int(ref.offset)
        let count = Int(ref.length)
        if count == 0 { return true }
        if ref.flags & Self.escaped != 0 {
            return text.withUnsafeBufferPointer { b in Self.same(b.baseAddress! + start, bytes, count) }
        }
        return source.withUnsafeBufferPointer { b in Self.same(b.baseAddress! + start, bytes, count) }
    }

    /// Whether `count` bytes at `a` and `b` are the same, eight at a time.
    @inline(__always) static func same(_ a: UnsafePointer<UInt8>, _ b: UnsafePointer<UInt8>, _ count: Int) -> Bool {
        var k = 0
        while k + 8 <= count {
            let x = UnsafeRawPointer(a + k).loadUnaligned(as: UInt64.self)
            let y = UnsafeRawPointer(b + k).loadUnaligned(as: UInt64.self)
            if x != y { return false }
            k += 8
        }
        while k < count {
            if a[k] != b[k] { return false }
            k += 1
        }
        return true
    }

    /// `T(rawValue:)` of the string in `node` (nil when it is not a string), comparing bytes
    /// against `names` (the raw values of `T`'s cases, as `JSONTree.names` makes them) when it is ASCII.
    package func named<T: RawRepresentable>(_ node: Int, _ names: [(name: [UInt8], value: T)]) -> T?
    where T.RawValue == String {
        guard let ref = stringRef(node) else { return nil }
        if ref.flags & Self.nonASCII != 0 { return T(rawValue: string(ref)) }
        for entry in names where entry.name.count == Int(ref.length) {
            if entry.name.isEmpty || entry.name.withUnsafeBufferPointer({ sameBytes(ref, $0.baseAddress!) }) {
                return entry.value
            }
        }
        return nil
    }

    /// The table `named` reads: each case's raw value as bytes.
    package static func names<T: CaseIterable & RawRepresentable>(_: T.Type) -> [(name: [UInt8], value: T)]
    where T.RawValue == String {
        T.allCases.map { (Array($0.rawValue.utf8), $0) }
    }

    // MARK: Plain values

    /// The plain value of `node`, without locations.
    ///
    /// - Complexity: O(n) in the size of the subtree.
    package func value(of node: Int) -> JSONValue {
        let slot = slots[node]
        switch slot.tag {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .number: return .number(Double(bitPattern: slot.payload))
        case .string: return .string(string(node)!)
        case .array: return .array(elements(node).map { value(of: $0) })
        case .object:
            let range = members(node)
            var dict = OrderedDictionary<String, JSONValue>(minimumCapacity: range.count)
            for m in range { dict[key(m)] = value(of: value(m)) }
            return .object(dict)
        }
    }
}

/// A parsed JSON value together with where it starts in the source: a view of one value of a
/// `JSONTree`.
///
/// Object members keep their order; a duplicate key has already been resolved (the last
/// value wins, at the first key's position). Two nodes are equal when their locations and
/// contents are, whichever trees they are in.
package struct JSONNode: Hashable, Sendable {
    package let tree: JSONTree
    /// The value's index in `tree`.
    package let index: Int

    package init(tree: JSONTree, index: Int) {
        self.tree = tree
        self.index = index
    }

    /// Where the value's first character is.
    package var location: SourceLocation { tree.location(index) }

    /// What a node holds.
    package enum Kind: Hashable, Sendable {
        case null
        case bool(Bool)
        case number(Double)
        case string(String)
        case array([JSONNode])
        case object([Member])
    }

    /// One `"key": value` pair of an object.
    package struct Member: Hashable, Sendable {
        package var key: String
        /// Where the key's opening quote is.
        package var keyLocation: SourceLocation
        package var value: JSONNode
    }

    /// The value itself; an array's elements and an object's members are built as views.
    ///
    /// - Complexity: O(1) for a scalar, O(n) in the number of elements or members.
    package var kind: Kind {
        switch tree.tag(index) {
        case .null: return .null
        case .false: return .bool(false)
        case .true: return .bool(true)
        case .number: return .number(tree.number(index)!)
        case .string: return .string(tree.string(index)!)
        case .array: return .array(tree.elements(index).map { JSONNode(tree: tree, index: $0) })
        case .object: return .object(tree.members(index).map(member(at:)))
        }
    }

    /// The plain value, without locations.
    ///
    /// - Complexity: O(n) in the size of the subtree.
    package var value: JSONValue { tree.value(of: index) }

    /// The member named `key`, if this is an object that has it.
    package func member(_ key: String) -> Member? {
        tree.members(index).first { tree.key($0) == key }.map(member(at:))
    }

    private func member(at m: Int) -> Member {
        Member(key: tree.key(m), keyLocation: tree.keyLocation(m), value: JSONNode(tree: tree, index: tree.value(m)))
    }

    package static func == (a: JSONNode, b: JSONNode) -> Bool {
        if a.tree === b.tree && a.index == b.index { return true }
        return a.location == b.location && a.kind == b.kind
    }

    package func hash(into hasher: inout Hasher) {
        hasher.combine(location)
        hasher.combine(kind)
    }
}

/// A run of values a `JSONTree` owns (it frees it in `deinit`), read with a bounds check.
struct OwnedBuffer<Element: BitwiseCopyable>: @unchecked Sendable {
    // @unchecked: never written after the parser hands it to a tree, and freed only by that tree.
    let base: UnsafeMutablePointer<Element>
    let count: Int

    @inline(__always) subscript(i: Int) -> Element {
        precondition(UInt(bitPattern: i) < UInt(bitPattern: count), "JSONTree index out of range")
        return base[i]
    }
}
