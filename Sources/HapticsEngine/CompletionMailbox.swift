import Dispatch
import Synchronization

/// Hands the completion handlers of players that finished from the tick to the callback queue
/// without an allocation on the tick: the handlers go into an array reserved for every player at
/// once, and a Dispatch user-data source (whose event is an atomic add and a wake-up, not a
/// block) runs the drain on the callback queue. `DispatchQueue.async` would allocate a block per
/// finished player on the tick thread.
///
/// Each handler is stored inside a struct (``Waiting``), not as a bare function value: an array is
/// generic, and a function stored as a generic element is re-abstracted, a thunk whose context is
/// allocated at every append.
///
/// The source is pushed onto the callback queue when the tick posts, so what the tick queues
/// after a post (the "all players finished" handler) runs after the completions it posted.
// @unchecked Sendable: `source` is a Dispatch source, thread-safe though not marked Sendable; the
// rest is immutable or behind the Mutex.
final class CompletionMailbox: @unchecked Sendable {
    typealias Completion = @Sendable ((any Error)?) -> Void

    /// A completion as the array holds it (see above: no re-abstraction thunk).
    private struct Waiting {
        let completion: Completion
    }

    private let pending: Mutex<[Waiting]>
    private let source: any DispatchSourceUserDataAdd

    /// - Parameter capacity: how many completions can wait at once without the tick allocating
    ///   (one per player).
    init(capacity: Int, queue: DispatchQueue) {
        var reserved: [Waiting] = []
        reserved.reserveCapacity(capacity)
        pending = Mutex(reserved)
        source = DispatchSource.makeUserDataAddSource(queue: queue)
        source.setEventHandler { [weak self] in self?.drain() }
        source.activate()
    }

    deinit { source.cancel() }

    /// Queues `completion` to be called with no error on the callback queue. Allocation-free while
    /// fewer than `capacity` completions wait.
    func post(_ completion: @escaping Completion) {
        pending.withLock { $0.append(Waiting(completion: completion)) }
        source.add(data: 1)
    }

    /// On the callback queue: calls every waiting completion, in the order posted. The handlers are
    /// copied out (an allocation here, off the tick) so the reserved array keeps its storage.
    private func drain() {
        let batch = pending.withLock { waiting -> [Waiting] in
            let copy = waiting.map { $0 }
            waiting.removeAll(keepingCapacity: true)
            return copy
        }
        for waiting in batch { waiting.completion(nil) }
    }
}
