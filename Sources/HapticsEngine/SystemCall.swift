public import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// A system call that failed: which call, on what, and the `errno` it set, kept as swift-system's
/// typed `Errno` (the cause), never flattened into a string.
///
/// ```swift
/// do { try systemCall("fsync", path: path) { fsync(fd) } }
/// catch { print(error) }           // fsync /tmp/out.wav: No space left on device (errno 28)
/// catch let error where error.errno == .noSpace { ... }
/// ```
public struct SystemCallError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The call, as libc names it (`open`, `write`, `fsync`, `rename`, ...).
    public var call: String
    /// The file it acted on, when there is one.
    public var path: String?
    /// What the system said.
    public var errno: Errno

    public init(call: String, path: String? = nil, errno: Errno) {
        self.call = call
        self.path = path
        self.errno = errno
    }

    public var description: String {
        "\(call)\(path.map { " \($0)" } ?? ""): \(errno.description) (errno \(errno.rawValue))"
    }
}

/// Runs one libc call that returns -1 and sets `errno` on failure, retrying when a signal
/// interrupted it (`EINTR`), and throws the failure with the call's name and path: the one funnel
/// for POSIX calls, in the shape of NIO's `syscall(blocking:where:)`.
///
/// The tool package (Tools/) reaches it as SPI (`@_spi(Tooling) import HapticsEngine`): one funnel
/// for both packages, without making a libc helper part of the engine's public API.
///
/// - Complexity: O(1) plus the call (and its retries after `EINTR`).
@_spi(Tooling) @discardableResult
public func systemCall<Result: FixedWidthInteger>(
    _ call: String, path: String? = nil, _ body: () -> Result
) throws(SystemCallError) -> Result {
    while true {
        let result = body()
        guard result == -1 else { return result }
        let code = Errno(rawValue: Glibc.errno)
        if code == .interrupted { continue }
        throw SystemCallError(call: call, path: path, errno: code)
    }
}
