import Foundation

/// Runs blocking work (a socket read, a semaphore or pipe wait, a CPU-bound check) on a thread of
/// its own and awaits its result.
///
/// Not `DispatchQueue.global()`: on Linux, Swift's global executor runs its jobs on those same
/// Dispatch root-queue threads, and the pool grows to only twice the cores while threads block.
/// Three tests blocked in `recv` on a server whose handlers were queued behind them held a
/// 2-core test process still for a minute (CI, session 19), until their time limits ran out.
package func onOwnThread<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try work() }) }
        thread.stackSize = 8 << 20
        thread.start()
    }
}
