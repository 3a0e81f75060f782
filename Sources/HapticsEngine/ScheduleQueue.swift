public import HeapModule

/// Work waiting for its moment: pops in deadline order, and in insertion order among
/// equal deadlines, so two commands for the same frame apply in the order they were sent.
///
/// ```swift
/// var queue = ScheduleQueue<Int64, String>()
/// queue.insert("b", deadline: 10)
/// queue.insert("a", deadline: 5)
/// queue.insert("c", deadline: 10)
/// queue.popFirst(dueBy: 10)?.element  // "a", then "b", then "c"
/// ```
///
/// - Complexity: insert and pop are O(log n) (a min-heap from swift-collections).
public struct ScheduleQueue<Deadline: Comparable, Element> {
    @usableFromInline
    struct Entry: Comparable {
        @usableFromInline var deadline: Deadline
        @usableFromInline var sequence: UInt64
        @usableFromInline var element: Element

        @usableFromInline
        static func < (a: Entry, b: Entry) -> Bool {
            (a.deadline, a.sequence) < (b.deadline, b.sequence)
        }

        @usableFromInline
        static func == (a: Entry, b: Entry) -> Bool {
            (a.deadline, a.sequence) == (b.deadline, b.sequence)
        }
    }

    @usableFromInline var heap = Heap<Entry>()
    @usableFromInline var nextSequence: UInt64 = 0

    public init() {}

    /// Adds `element`, due at `deadline`.
    public mutating func insert(_ element: Element, deadline: Deadline) {
        heap.insert(Entry(deadline: deadline, sequence: nextSequence, element: element))
        nextSequence &+= 1
    }

    /// Removes and returns the earliest element whose deadline is at or before `deadline`,
    /// with its own deadline.
    @inlinable
    public mutating func popFirst(dueBy deadline: Deadline) -> (deadline: Deadline, element: Element)? {
        guard let first = heap.min, first.deadline <= deadline else { return nil }
        let entry = heap.removeMin()
        return (entry.deadline, entry.element)
    }

    /// The earliest deadline waiting, if any.
    public var nextDeadline: Deadline? { heap.min?.deadline }

    public var count: Int { heap.count }
    public var isEmpty: Bool { heap.isEmpty }

    /// Removes every element for which `shouldRemove` is true (e.g. a cancelled player's commands).
    /// - Complexity: O(n log n).
    public mutating func removeAll(where shouldRemove: (Element) -> Bool) {
        var kept = Heap<Entry>()
        for entry in heap.unordered where !shouldRemove(entry.element) { kept.insert(entry) }
        heap = kept
    }
}

extension ScheduleQueue: Sendable where Deadline: Sendable, Element: Sendable {}
extension ScheduleQueue.Entry: Sendable where Deadline: Sendable, Element: Sendable {}
