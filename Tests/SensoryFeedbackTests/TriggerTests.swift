import Foundation
import Observation
import SensoryFeedback
import Synchronization
import Testing

/// A sink that remembers what it was asked to play.
final class RecordingSink: FeedbackSink {
    private let played = Mutex<[SensoryFeedback]>([])
    var feedbacks: [SensoryFeedback] { played.withLock { $0 } }
    func play(_ feedback: SensoryFeedback) { played.withLock { $0.append(feedback) } }
}

@Observable final class Order {
    var quantity = 3
    var name = "cupcake"
}

@MainActor @Suite struct TriggerTests {
    @Test func playsOnChangeNeverOnFirstObservation() {
        let sink = RecordingSink(), updates = ManualUpdates(), order = Order()
        let trigger = FeedbackTrigger(sink: sink, feedback: .increase, updates: .manual(updates)) { order.quantity }
        updates.run()
        #expect(sink.feedbacks == [])
        order.quantity += 1
        #expect(sink.feedbacks == [], "nothing plays before the update pass")
        updates.run()
        #expect(sink.feedbacks == [.increase])
        order.quantity += 1
        updates.run()
        #expect(sink.feedbacks == [.increase, .increase], "re-armed after each change")
        #expect(trigger.playCount == 2)
    }

    @Test func changesBetweenUpdatePassesCoalesce() {
        let sink = RecordingSink(), updates = ManualUpdates(), order = Order()
        let trigger = FeedbackTrigger(sink: sink, feedback: .selection, updates: .manual(updates)) { order.quantity }
        order.quantity = 4
        order.quantity = 5
        updates.run()
        #expect(sink.feedbacks == [.selection])
        order.quantity = 6
        order.quantity = 5
        updates.run()
        #expect(sink.feedbacks == [.selection], "back to the value last seen: no change")
        _ = trigger
    }

    @Test func untrackedPropertiesDoNotTrigger() {
        let sink = RecordingSink(), updates = ManualUpdates(), order = Order()
        let trigger = FeedbackTrigger(sink: sink, feedback: .success, updates: .manual(updates)) { order.quantity }
        order.name = "muffin"
        #expect(updates.pendingCount == 0)
        updates.run()
        #expect(sink.feedbacks == [])
        _ = trigger
    }

    @Test func conditionSeesOldAndNew() {
        let sink = RecordingSink(), updates = ManualUpdates(), order = Order()
        var seen: [[Int]] = []
        let trigger = FeedbackTrigger(
            sink: sink, feedback: .increase, updates: .manual(updates), value: { order.quantity },
            condition: { old, new in
                seen.append([old, new])
                return new > old
            })
        order.quantity = 7
        updates.run()
        order.quantity = 2
        updates.run()
        #expect(seen == [[3, 7], [7, 2]])
        #expect(sink.feedbacks == [.increase])
        _ = trigger
    }

    @Test func closureChoosesTheFeedback() {
        let sink = RecordingSink(), updates = ManualUpdates(), order = Order()
        let trigger = FeedbackTrigger(sink: sink, updates: .manual(updates)) {
            order.quantity
        } feedback: { old, new in
            new == 0 ? .error : (new > old ? .increase : .decrease)
        }
        for quantity in [4, 2, 0] {
            order.quantity = quantity
            updates.run()
        }
        #expect(sink.feedbacks == [.increase, .decrease, .error])
        _ = trigger
    }

    @Test func nilFeedbackPlaysNothingButRearms() {
        let sink = RecordingSink(), updates = ManualUpdates(), order = Order()
        let trigger = FeedbackTrigger(sink: sink, updates: .manual(updates)) {
            order.quantity
        } feedback: { _, new in
            new.isMultiple(of: 2) ? .impact(weight: .light, intensity: 0.5) : nil
        }
        order.quantity = 5
        updates.run()
        order.quantity = 6
        updates.run()
        #expect(sink.feedbacks == [.impact(weight: .light, intensity: 0.5)])
        _ = trigger
    }

    @Test func cancelledTriggerStaysQuiet() {
        let sink = RecordingSink(), updates = ManualUpdates(), order = Order()
        let trigger = FeedbackTrigger(sink: sink, feedback: .success, updates: .manual(updates)) { order.quantity }
        trigger.cancel()
        order.quantity = 9
        updates.run()
        #expect(sink.feedbacks == [])
    }

    @Test func mainActorUpdatesPlayAfterTheChangingCodeReturns() async {
        let sink = RecordingSink(), order = Order()
        let trigger = FeedbackTrigger(sink: sink, feedback: .success) { order.quantity }
        order.quantity = 10
        #expect(sink.feedbacks == [])
        // The update job is queued on the main actor behind this test; wait for it without sleeping.
        await withCheckedContinuation { continuation in
            Task { @MainActor in continuation.resume() }
        }
        #expect(sink.feedbacks == [.success])
        _ = trigger
    }
}
