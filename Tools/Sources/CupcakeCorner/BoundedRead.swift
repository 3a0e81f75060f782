#if canImport(Glibc)
    import Glibc
#endif

/// Why ``BoundedRead`` stopped before the end of its input.
package enum BoundedReadError: Error, Hashable, Sendable {
    /// It could not be opened: the system's reason (`strerror`).
    case cannotOpen(String)
    /// A read failed: the system's reason (`strerror`).
    case cannotRead(String)
    /// More than the bound arrived; the bytes past it were never passed on.
    case overBound
}

/// Reads a file, or standard input, a chunk at a time up to a bound.
///
/// The order scripts and the session logs are both read this way: a chunk at a time, so an
/// endless input (`yes |`, `/dev/zero`, a pipe) stops at the bound with an error instead of
/// being read until memory runs out, and a read interrupted by a signal is retried.
package enum BoundedRead {
    /// Passes each chunk read from `path` (`-` is standard input when `dashIsStandardInput`) to
    /// `body`, at most `bound` bytes in all, in chunks of at most `chunkBytes`.
    package static func chunks(
        of path: String, dashIsStandardInput: Bool = false, chunkBytes: Int, bound: Int,
        _ body: (UnsafeBufferPointer<UInt8>) -> Void
    ) throws(BoundedReadError) {
        let standardInput = dashIsStandardInput && path == "-"
        let descriptor = standardInput ? STDIN_FILENO : open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .cannotOpen(String(cString: strerror(errno))) }
        defer { if !standardInput { close(descriptor) } }
        var chunk = [UInt8](repeating: 0, count: chunkBytes)
        var total = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .cannotRead(String(cString: strerror(errno)))
            }
            if count == 0 { return }
            total += count
            guard total <= bound else { throw .overBound }
            chunk.withUnsafeBufferPointer { body(UnsafeBufferPointer(rebasing: $0[..<count])) }
        }
    }
}
