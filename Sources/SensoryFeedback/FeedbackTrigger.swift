import Observation
import Synchronization

/// When a trigger looks at its value again after a change: SwiftUI does it at the next update
/// pass; here a job on the main actor.
///
/// ```swift
/// let updates = ManualUpdates()            // tests: run the "update pass" by hand
/// let trigger = FeedbackTrigger(sink: sink, feedback: .increase, updates: .manual(updates)) { order.quantity }
/// order.quantity += 1
/// updates.run()                            // plays .increase
/// ```
public struct FeedbackUpdates: Sendable {
    let schedule: @Sendable (@escaping @Sendable @MainActor () -> Void) -> Void

    /// A main-actor task per change: right after the code that changed the value finishes.
    public static let mainActor = FeedbackUpdates { job in Task { @MainActor in job() } }

    /// Jobs wait in `updates` until its `run()`.
    public static func manual(_ updates: ManualUpdates) -> FeedbackUpdates {
        FeedbackUpdates { job in updates.enqueue(job) }
    }
}

/// Update jobs held until the test runs them: a deterministic stand-in for SwiftUI's update pass.
public final class ManualUpdates: Sendable {
    private let jobs = Mutex<[@Sendable @MainActor () -> Void]>([])

    public init() {}

    /// How many jobs wait.
    public var pendingCount: Int { jobs.withLock { $0.count } }

    func enqueue(_ job: @escaping @Sendable @MainActor () -> Void) {
        jobs.withLock { $0.append(job) }
    }

    /// Runs the waiting jobs (and any they schedule) in order.
    @MainActor public func run() {
        while let job = jobs.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) { job() }
    }
}

/// Plays feedback when an observed value changes, with SwiftUI's `sensoryFeedback(_:trigger:)`
/// semantics on the Observation framework: never for the first value, once per change seen at
/// an update pass (changes in between coalesce), re-armed after each change.
///
/// ```swift
/// @Observable final class Order { var quantity = 3 }
/// let order = Order()
/// let trigger = FeedbackTrigger(sink: player, feedback: .increase) { order.quantity }
/// order.quantity += 1   // plays .increase on the next main-actor turn
/// ```
@MainActor
public final class FeedbackTrigger<Value: Equatable> {
    private let sink: any FeedbackSink
    private let value: @MainActor () -> Value
    private let decide: @MainActor (Value, Value) -> SensoryFeedback?
    private let updates: FeedbackUpdates
    /// The value last seen; set in init, before any change can arrive.
    private var last: Value?
    private var isCancelled = false
    /// How many feedbacks this trigger has played.
    public private(set) var playCount = 0

    /// Plays `feedback` whenever `value` changes.
    public convenience init(
        sink: any FeedbackSink, feedback: SensoryFeedback, updates: FeedbackUpdates = .mainActor,
        value: @escaping @MainActor () -> Value
    ) {
        self.init(sink: sink, updates: updates, value: value) { _, _ in feedback }
    }

    /// Plays `feedback` when `value` changes and `condition(old, new)` holds.
    public convenience init(
        sink: any FeedbackSink, feedback: SensoryFeedback, updates: FeedbackUpdates = .mainActor,
        value: @escaping @MainActor () -> Value, condition: @escaping @MainActor (Value, Value) -> Bool
    ) {
        self.init(sink: sink, updates: updates, value: value) { old, new in condition(old, new) ? feedback : nil }
    }

    /// Plays what `feedback(old, new)` returns (nothing for nil) when `value` changes.
    public init(
        sink: any FeedbackSink, updates: FeedbackUpdates = .mainActor, value: @escaping @MainActor () -> Value,
        feedback: @escaping @MainActor (Value, Value) -> SensoryFeedback?
    ) {
        self.sink = sink
        self.value = value
        decide = feedback
        self.updates = updates
        last = observe()
    }

    /// Stops watching: later changes play nothing.
    public func cancel() {
        isCancelled = true
    }

    /// Reads the value and asks to hear about its next change.
    private func observe() -> Value {
        let updates = self.updates
        return withObservationTracking {
            value()
        } onChange: { [weak self] in
            updates.schedule { self?.changed() }
        }
    }

    private func changed() {
        guard !isCancelled else { return }
        let new = observe()
        defer { last = new }
        guard let old = last, old != new, let feedback = decide(old, new) else { return }
        playCount += 1
        sink.play(feedback)
    }
}
