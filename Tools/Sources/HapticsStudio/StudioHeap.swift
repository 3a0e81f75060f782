import Foundation
import Hummingbird
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Gives the memory a large request freed back to the system.
///
/// glibc keeps what a process frees for its next allocations: after the hostile probes (files of
/// 14 MB opened, 16 MiB bodies decoded) the studio stayed at its high-water mark of 345 MB
/// resident while idling. A request that took ``slowRequest`` or longer (the large ones; an
/// ordinary answer takes a few milliseconds) is followed by `malloc_trim(0)`, which returns the
/// free pages of every arena. It runs on a thread of its own, one at a time, after the answer
/// is built, so no request waits for it; requests that end while it runs share the next one.
struct StudioHeapTrim<Context: RequestContext>: RouterMiddleware {
    /// What counts as a large request.
    static var slowRequest: Duration { .milliseconds(50) }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        let start = ContinuousClock.now
        defer { if ContinuousClock.now - start >= Self.slowRequest { HeapTrim.soon() } }
        return try await next(request, context)
    }
}

/// `malloc_trim(0)` on a thread of its own, coalesced: at most one running and one pending.
enum HeapTrim {
    private static let state = Mutex<(running: Bool, again: Bool)>((false, false))

    /// glibc's `malloc_trim`, looked up at run time: `malloc.h` is not part of the Glibc module,
    /// and another C library may not have it (then nothing is trimmed).
    private static let trim: (@convention(c) (Int) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "malloc_trim") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (Int) -> Int32).self)
    }()

    /// Trims once the current trim, if any, has ended.
    static func soon() {
        let start = state.withLock { state -> Bool in
            if state.running {
                state.again = true
                return false
            }
            state.running = true
            return true
        }
        guard start else { return }
        let thread = Thread {
            repeat {
                _ = trim?(0)
            } while state.withLock { state -> Bool in
                if state.again {
                    state.again = false
                    return true
                }
                state.running = false
                return false
            }
        }
        thread.name = "swift-haptics.studio.trim"
        thread.start()
    }
}
