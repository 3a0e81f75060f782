public import Foundation

/// An order as the store keeps it: one JSON object per line of `orders.jsonl`.
public struct StoredOrder: Codable {
    /// A UUID, printed to the customer.
    public var id: String
    /// When the order was checked out.
    public var time: Date
    public var cost: Decimal
    public var order: Order

    public init(id: String = UUID().uuidString, time: Date = Date(), order: Order) {
        self.id = id
        self.time = time
        self.cost = order.cost
        self.order = order
    }
}

/// A line of `orders.jsonl` the store could not read back, with its 1-based line number.
public struct StoreProblem: Hashable, Sendable, CustomStringConvertible {
    public var file: String
    public var line: Int
    public var message: String
    /// True for an unfinished last line: a write cut short by a crash or power loss.
    public var isTornTail: Bool

    /// `FILE:LINE: warning: message`, the linter's form.
    public var description: String { "\(file):\(line): warning: \(message)" }
}

/// Why the store could not save an order.
public struct OrderStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    public var description: String
}

/// Orders kept on the local disk, so a checked-out order is never lost.
///
/// Each order is one line of `DIR/orders.jsonl`, appended with `O_APPEND` in a single
/// `write()` while holding an exclusive `flock`, then `fsync`ed before ``append(_:)``
/// returns: once it returns, the order survives a crash of the process or the machine, and
/// concurrent processes never interleave their lines. A line left unfinished by a crash is
/// reported by ``load()`` and never glued to the next order.
///
/// ```swift
/// let store = try OrderStore(directory: OrderStore.defaultDirectory)
/// let saved = try store.append(StoredOrder(order: order))
/// ```
public final class OrderStore {
    /// The folder holding `orders.jsonl`.
    public let directory: URL
    /// `DIR/orders.jsonl`.
    public let file: URL
    private let fd: Int32

    /// `$XDG_DATA_HOME/swift-haptics/orders`, else `~/.local/share/swift-haptics/orders`.
    public static var defaultDirectory: URL {
        let environment = ProcessInfo.processInfo.environment
        let base: URL
        if let xdg = environment["XDG_DATA_HOME"], xdg.hasPrefix("/") {
            base = URL(filePath: xdg, directoryHint: .isDirectory)
        } else {
            base = FileManager.default.homeDirectoryForCurrentUser.appending(path: ".local/share")
        }
        return base.appending(path: "swift-haptics/orders", directoryHint: .isDirectory)
    }

    /// Opens (creating as needed, durably) the store in `directory`.
    public init(directory: URL) throws(OrderStoreError) {
        self.directory = directory
        file = directory.appending(path: "orders.jsonl")
        try Self.makeDurableDirectory(directory)
        let path = file.path(percentEncoded: false)
        var created = false
        var fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC)
        if fd < 0, errno == ENOENT {
            fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
            created = true
        }
        guard fd >= 0 else { throw OrderStoreError(description: "cannot open \(path): \(Self.errorText())") }
        self.fd = fd
        if created {
            // The new file's directory entry must reach the disk too.
            fsync(fd)
            try Self.syncDirectory(directory)
        }
    }

    deinit { close(fd) }

    /// Creates `directory` and any missing parents, fsyncing each parent after a creation.
    public static func makeDurableDirectory(_ directory: URL) throws(OrderStoreError) {
        let path = directory.standardizedFileURL.path(percentEncoded: false)
        var missing: [URL] = []
        var folder = URL(filePath: path, directoryHint: .isDirectory)
        while !FileManager.default.fileExists(atPath: folder.path(percentEncoded: false)),
            folder.pathComponents.count > 1
        {
            missing.append(folder)
            folder = folder.deletingLastPathComponent()
        }
        for folder in missing.reversed() {
            if mkdir(folder.path(percentEncoded: false), 0o755) != 0, errno != EEXIST {
                throw OrderStoreError(
                    description: "cannot create \(folder.path(percentEncoded: false)): \(errorText())")
            }
            try syncDirectory(folder.deletingLastPathComponent())
        }
    }

    static func syncDirectory(_ directory: URL) throws(OrderStoreError) {
        let dfd = open(directory.path(percentEncoded: false), O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else {
            throw OrderStoreError(description: "cannot open \(directory.path(percentEncoded: false)): \(errorText())")
        }
        defer { close(dfd) }
        guard fsync(dfd) == 0 else {
            throw OrderStoreError(description: "cannot sync \(directory.path(percentEncoded: false)): \(errorText())")
        }
    }

    static func errorText() -> String { String(cString: strerror(errno)) }

    /// The encoder every record goes through: sorted keys, ISO 8601 times, one line.
    public static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// Appends `record` durably; when this returns, the order is on disk.
    ///
    /// - Complexity: one `write()` and one `fsync()`.
    @discardableResult
    public func append(_ record: StoredOrder) throws(OrderStoreError) -> StoredOrder {
        var bytes: [UInt8]
        do {
            bytes = Array(try Self.encoder().encode(record))
        } catch {
            throw OrderStoreError(description: "cannot encode order \(record.id): \(error)")
        }
        bytes.append(UInt8(ascii: "\n"))
        while flock(fd, LOCK_EX) != 0 {
            guard errno == EINTR else {
                throw OrderStoreError(description: "cannot lock \(file.path): \(Self.errorText())")
            }
        }
        defer { flock(fd, LOCK_UN) }
        // A crash may have left a last line without its newline: start on a fresh line, in the same write.
        var stats = stat()
        if fstat(fd, &stats) == 0, stats.st_size > 0 {
            var last: UInt8 = 0
            let readFD = open(file.path(percentEncoded: false), O_RDONLY | O_CLOEXEC)
            if readFD >= 0 {
                if pread(readFD, &last, 1, off_t(stats.st_size - 1)) == 1, last != UInt8(ascii: "\n") {
                    bytes.insert(UInt8(ascii: "\n"), at: 0)
                }
                close(readFD)
            }
        }
        let written = bytes.withUnsafeBytes { buffer in
            var result: Int
            repeat { result = write(fd, buffer.baseAddress, buffer.count) } while result < 0 && errno == EINTR
            return result
        }
        guard written == bytes.count else {
            throw OrderStoreError(
                description: written < 0
                    ? "cannot write to \(file.path(percentEncoded: false)): \(Self.errorText())"
                    : "short write to \(file.path(percentEncoded: false)) (\(written) of \(bytes.count) bytes)")
        }
        guard fsync(fd) == 0 else {
            throw OrderStoreError(description: "cannot sync \(file.path(percentEncoded: false)): \(Self.errorText())")
        }
        return record
    }

    /// Every order readable in the store, and a problem for each line that is not.
    public func load() throws(OrderStoreError) -> (orders: [StoredOrder], problems: [StoreProblem]) {
        let data: Data
        do {
            data = try Data(contentsOf: file)
        } catch {
            throw OrderStoreError(
                description: "cannot read \(file.path(percentEncoded: false)): \(error.localizedDescription)")
        }
        return Self.parse(Array(data), file: file.path(percentEncoded: false))
    }

    /// Parses `orders.jsonl` bytes; see ``load()``.
    public static func parse(_ bytes: [UInt8], file: String) -> (orders: [StoredOrder], problems: [StoreProblem]) {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var orders: [StoredOrder] = []
        var problems: [StoreProblem] = []
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let endsClean = bytes.last == UInt8(ascii: "\n") || bytes.isEmpty
        for (index, line) in lines.enumerated() where !line.isEmpty {
            let isLast = index == lines.count - 1
            do {
                orders.append(try decoder.decode(StoredOrder.self, from: Data(line)))
            } catch {
                if isLast && !endsClean {
                    problems.append(
                        StoreProblem(
                            file: file, line: index + 1,
                            message:
                                "torn record (\(line.count) bytes without an ending newline): a write cut short by a crash; skipped",
                            isTornTail: true))
                } else {
                    problems.append(
                        StoreProblem(
                            file: file, line: index + 1,
                            message: "unreadable record (\(line.count) bytes): \(describe(error)); skipped",
                            isTornTail: false))
                }
            }
        }
        return (orders, problems)
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return context.debugDescription
        case DecodingError.keyNotFound(let key, _): return "missing key '\(key.stringValue)'"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return
                "wrong type at \(context.codingPath.map(\.stringValue).joined(separator: ".")): \(context.debugDescription)"
        default: return "\(error)"
        }
    }
}
