import Dispatch
import Synchronization

/// `items.map(transform)` on every core, the results in the items' order. The work runs under
/// `DispatchQueue.concurrentPerform` (as many at once as there are cores) while the calling thread
/// waits and calls `finished` with the count done after each item, so a progress bar that is not
/// thread-safe stays on the calling thread. `lint`, `review` and `render` of many files use it.
func parallelMap<Item: Sendable, Result: Sendable>(
    _ items: [Item], finished: (Int) -> Void = { _ in }, _ transform: @escaping @Sendable (Item) -> Result
) -> [Result] {
    guard items.count > 1 else {
        return items.map { item in
            defer { finished(1) }
            return transform(item)
        }
    }
    let slots = Slots<Result>(count: items.count)
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        DispatchQueue.concurrentPerform(iterations: items.count) { index in
            let result = transform(items[index])
            slots.values.withLock { $0[index] = result }
            done.signal()
        }
    }
    for count in 1...items.count {
        done.wait()
        finished(count)
    }
    return slots.values.withLock { $0.map { $0! } }
}

/// One slot per item, each written once by the worker that made it.
private final class Slots<Result: Sendable>: Sendable {
    let values: Mutex<[Result?]>

    init(count: Int) { values = Mutex(Array(repeating: nil, count: count)) }
}

/// Runs `body` on Swift's concurrency pool and waits for it on this thread: for the synchronous
/// commands (ArgumentParser's `run()` on the main thread, never a pool thread, so the pool stays
/// free for `body`) that call an async API such as swift-subprocess.
func waitOnThisThread<Result: Sendable>(_ body: @escaping @Sendable () async throws -> Result) throws -> Result {
    let outcome = Slots<Swift.Result<Result, any Error>>(count: 1)
    let done = DispatchSemaphore(value: 0)
    Task {
        do {
            let value = try await body()
            outcome.values.withLock { $0[0] = .success(value) }
        } catch {
            outcome.values.withLock { $0[0] = .failure(error) }
        }
        done.signal()
    }
    done.wait()
    return try outcome.values.withLock { $0[0]! }.get()
}
