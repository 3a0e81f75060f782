package import Foundation
@_spi(Tooling) import HapticsEngine
package import SystemPackage

/// Where an order stands. The store is append-only: an order is written once, as `pending` when
/// it is to be sent to an endpoint, and each later change of state is a line of its own.
package enum OrderState: String, Codable, Hashable, Sendable {
    /// Kept in the store: the store is where the order goes (no endpoint).
    case stored
    /// In the store, to be sent (or being sent) to its endpoint; the answer has not been recorded.
    case pending
    /// The endpoint accepted it.
    case sent
    /// Sending failed (the reason says why); `haptic order outbox --retry` sends it again.
    case failed
}

/// An order as the store keeps it: one JSON object per line of `orders.jsonl`.
package struct StoredOrder: Codable {
    /// A UUID, printed to the customer; also the idempotency key of every POST of this order.
    package var id: String
    /// When the order was checked out.
    package var time: Date
    package var cost: Decimal
    package var order: Order
    /// The URL the order is sent to; nil when the store is its destination.
    package var endpoint: String?
    /// The state as last recorded (lines written before states existed read as `stored`).
    package var state: OrderState
    /// Why the last send failed, or what the last answer was.
    package var reason: String?
    /// How many POSTs of this order were started.
    package var attempts: Int

    package init(
        id: String = UUID().uuidString, time: Date = Date(), order: Order, endpoint: String? = nil
    ) {
        self.id = id
        self.time = time
        self.cost = order.cost
        self.order = order
        self.endpoint = endpoint
        self.state = endpoint == nil ? .stored : .pending
        self.reason = nil
        self.attempts = 0
    }

    enum CodingKeys: String, CodingKey {
        case id, time, cost, order, endpoint, state, reason, attempts
    }

    package init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        time = try container.decode(Date.self, forKey: .time)
        cost = try container.decode(Decimal.self, forKey: .cost)
        order = try container.decode(Order.self, forKey: .order)
        endpoint = try container.decodeIfPresent(String.self, forKey: .endpoint)
        state = try container.decodeIfPresent(OrderState.self, forKey: .state) ?? .stored
        reason = try container.decodeIfPresent(String.self, forKey: .reason)
        attempts = try container.decodeIfPresent(Int.self, forKey: .attempts) ?? 0
    }

    package func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(time, forKey: .time)
        try container.encode(cost, forKey: .cost)
        try container.encode(order, forKey: .order)
        try container.encodeIfPresent(endpoint, forKey: .endpoint)
        try container.encode(state, forKey: .state)
        try container.encodeIfPresent(reason, forKey: .reason)
        if attempts > 0 { try container.encode(attempts, forKey: .attempts) }
    }
}

/// A later line about an order already in the store: its new state.
///
/// `{"status":{"id":"…","state":"sent","time":"…","reason":"HTTP 201"}}`
package struct OrderStatusUpdate: Codable, Hashable, Sendable {
    package var id: String
    package var state: OrderState
    package var time: Date
    package var reason: String?
    /// True when this line records the start of a POST (the state stays `pending`).
    package var attempt: Bool?

    package init(id: String, state: OrderState, time: Date = Date(), reason: String? = nil, attempt: Bool? = nil) {
        self.id = id
        self.state = state
        self.time = time
        self.reason = reason
        self.attempt = attempt
    }
}

/// A line of `orders.jsonl` the store could not read back, with its 1-based line number.
package struct StoreProblem: Hashable, Sendable, CustomStringConvertible {
    package var file: String
    package var line: Int
    package var message: String
    /// True for an unfinished last line: a write cut short by a crash or power loss.
    package var isTornTail: Bool

    /// `FILE:LINE: warning: message`, the linter's form.
    package var description: String { "\(file):\(line): warning: \(message)" }
}

/// Why the store could not save an order: what was being done, to which file, and the system's
/// error number when a system call failed.
package struct OrderStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The failing system call's error, when there was one (`.noSpace` on a full disk).
    package var errno: Errno?
    package var description: String

    package init(_ what: String, _ errno: Errno? = nil) {
        self.errno = errno
        self.description = errno.map { "\(what): \($0.description)" } ?? what
    }
}

/// Orders kept on the local disk, so a checked-out order is never lost.
///
/// Each order is one line of `DIR/orders.jsonl`, appended with `O_APPEND` in a single
/// `write()` while holding an exclusive `flock`, then `fsync`ed before ``append(_:)``
/// returns: once it returns, the order survives a crash of the process or the machine, and
/// concurrent processes never interleave their lines. An order for an endpoint is written as
/// `pending` before any byte goes out; ``mark(_:)`` appends its later state. A write cut short
/// (a full disk) is cut back off before the error is reported, so no half record stays behind;
/// a line left unfinished by a crash is reported by ``load()`` and never glued to the next order.
/// Every system call goes through swift-system (`FileDescriptor`) or ``OrderStore/posix(_:_:_:)`` (on `systemCall`),
/// so a failure carries its `Errno`.
///
/// ```swift
/// let store = try OrderStore(directory: OrderStore.defaultDirectory)
/// let saved = try store.append(StoredOrder(order: order))
/// ```
package final class OrderStore: @unchecked Sendable {
    /// The folder holding `orders.jsonl`.
    package let directory: URL
    /// `DIR/orders.jsonl`.
    package let file: URL
    private let fd: FileDescriptor

    /// `$XDG_DATA_HOME/swift-haptics/orders`, else `~/.local/share/swift-haptics/orders`.
    package static var defaultDirectory: URL {
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
    package init(directory: URL) throws(OrderStoreError) {
        self.directory = directory
        file = directory.appending(path: "orders.jsonl")
        try Self.makeDurableDirectory(directory)
        let path = FilePath(file.path(percentEncoded: false))
        var created = false
        do {
            do {
                fd = try FileDescriptor.open(path, .writeOnly, options: [.append, .closeOnExec])
            } catch Errno.noSuchFileOrDirectory {
                fd = try FileDescriptor.open(
                    path, .writeOnly, options: [.append, .create, .closeOnExec],
                    permissions: [.ownerReadWrite, .groupRead, .otherRead])
                created = true
            }
        } catch {
            throw OrderStoreError("cannot open \(path)", error as? Errno)
        }
        if created {
            // The new file's directory entry must reach the disk too.
            try Self.posix("fsync", "cannot sync \(path)") { fsync(fd.rawValue) }
            try Self.syncDirectory(directory)
        }
    }

    deinit { try? fd.close() }

    /// A POSIX call that swift-system does not wrap (fsync, flock, mkdir), through the one funnel
    /// (`systemCall`, which retries `EINTR`), its failure an ``OrderStoreError`` saying what the
    /// store was doing and carrying the `Errno`.
    static func posix(
        _ name: String, _ what: @autoclosure () -> String, _ call: () -> Int32
    ) throws(OrderStoreError) {
        do {
            try systemCall(name, call)
        } catch {
            throw OrderStoreError(what(), error.errno)
        }
    }

    /// Creates `directory` and any missing parents, fsyncing each parent after a creation.
    package static func makeDurableDirectory(_ directory: URL) throws(OrderStoreError) {
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
            let folderPath = folder.path(percentEncoded: false)
            do {
                try posix("mkdir", "cannot create \(folderPath)") { mkdir(folderPath, 0o755) }
            } catch  where error.errno == .fileExists {}
            try syncDirectory(folder.deletingLastPathComponent())
        }
    }

    static func syncDirectory(_ directory: URL) throws(OrderStoreError) {
        let path = FilePath(directory.path(percentEncoded: false))
        let dfd: FileDescriptor
        do {
            dfd = try FileDescriptor.open(path, .readOnly, options: [.directory, .closeOnExec])
        } catch {
            throw OrderStoreError("cannot open \(path)", error as? Errno)
        }
        defer { try? dfd.close() }
        try posix("fsync", "cannot sync \(path)") { fsync(dfd.rawValue) }
    }

    /// The encoder every record goes through: sorted keys, ISO 8601 times, one line.
    package static func encoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// Appends `record` durably; when this returns, the order is on disk.
    ///
    /// - Complexity: one `write()` and one `fsync()`.
    @discardableResult
    package func append(_ record: StoredOrder) throws(OrderStoreError) -> StoredOrder {
        let bytes: [UInt8]
        do {
            bytes = Array(try Self.encoder().encode(record))
        } catch {
            throw OrderStoreError("cannot encode order \(record.id): \(error)")
        }
        try appendLine(bytes)
        return record
    }

    /// Records a new state of an order already in the store, durably.
    package func mark(_ update: OrderStatusUpdate) throws(OrderStoreError) {
        struct Line: Encodable { var status: OrderStatusUpdate }
        let bytes: [UInt8]
        do {
            bytes = Array(try Self.encoder().encode(Line(status: update)))
        } catch {
            throw OrderStoreError("cannot encode the state of order \(update.id): \(error)")
        }
        try appendLine(bytes)
    }

    /// One line, in one `write()` under `flock`, then `fsync`. A short write is cut back off.
    private func appendLine(_ line: [UInt8]) throws(OrderStoreError) {
        let path = file.path(percentEncoded: false)
        var bytes = line
        bytes.append(UInt8(ascii: "\n"))
        try Self.posix("flock", "cannot lock \(path)") { flock(fd.rawValue, LOCK_EX) }
        defer { flock(fd.rawValue, LOCK_UN) }
        let size: Int64
        do {
            size = try fd.stat().size
        } catch {
            throw OrderStoreError("cannot read the size of \(path)", error)
        }
        // A crash may have left a last line without its newline: start on a fresh line, in the same write.
        if size > 0, let reader = try? FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec]) {
            var last: UInt8 = 0
            let read = try? withUnsafeMutableBytes(of: &last) {
                try reader.read(fromAbsoluteOffset: size - 1, into: $0)
            }
            if read == 1, last != UInt8(ascii: "\n") { bytes.insert(UInt8(ascii: "\n"), at: 0) }
            try? reader.close()
        }
        do {
            // One write() in the usual case; a short one (a full disk, a size limit) is continued,
            // so the error that stops it is the system's own.
            _ = try fd.writeAll(bytes)
        } catch {
            // Cut off whatever part of the record got in, so the store never holds half a record
            // that a later read would blame on a crash.
            do {
                try fd.resize(to: size)
            } catch let cutError {
                throw OrderStoreError(
                    "cannot write to \(path), and cutting the partial record off failed too (\(cutError))",
                    error as? Errno)
            }
            throw OrderStoreError("cannot write to \(path)", error as? Errno)
        }
        try Self.posix("fsync", "cannot sync \(path)") { fsync(fd.rawValue) }
    }

    /// Every order readable in the store, each in its last recorded state, and a problem for
    /// each line that is not readable.
    package func load() throws(OrderStoreError) -> (orders: [StoredOrder], problems: [StoreProblem]) {
        let path = file.path(percentEncoded: false)
        let bytes: [UInt8]
        do {
            let reader = try FileDescriptor.open(FilePath(path), .readOnly, options: [.closeOnExec])
            bytes = try reader.closeAfter {
                var all: [UInt8] = []
                var chunk = [UInt8](repeating: 0, count: 1 << 16)
                while true {
                    let n = try chunk.withUnsafeMutableBytes { try reader.read(into: $0) }
                    if n == 0 { break }
                    all += chunk[..<n]
                }
                return all
            }
        } catch {
            throw OrderStoreError("cannot read \(path)", error as? Errno)
        }
        return Self.parse(bytes, file: path)
    }

    /// The orders for an endpoint that are not known to be sent (`pending` or `failed`), oldest first.
    package func outbox() throws(OrderStoreError) -> [StoredOrder] {
        try load().orders.filter { $0.endpoint != nil && ($0.state == .pending || $0.state == .failed) }
    }

    /// Runs `body` holding `DIR/outbox.lock`, so two retries never send the same order at once.
    /// Checkouts are not held up: they lock `orders.jsonl`, not this file.
    package func withOutboxLock<T>(_ body: () throws -> T) throws -> T {
        let path = FilePath(directory.appending(path: "outbox.lock").path(percentEncoded: false))
        let lock: FileDescriptor
        do {
            lock = try FileDescriptor.open(
                path, .writeOnly, options: [.create, .closeOnExec],
                permissions: [.ownerReadWrite, .groupRead, .otherRead])
        } catch {
            throw OrderStoreError("cannot open \(path)", error as? Errno)
        }
        defer { try? lock.close() }
        try Self.posix("flock", "cannot lock \(path)") { flock(lock.rawValue, LOCK_EX) }
        return try body()
    }

    /// Parses `orders.jsonl` bytes; see ``load()``.
    package static func parse(_ bytes: [UInt8], file: String) -> (orders: [StoredOrder], problems: [StoreProblem]) {
        struct StatusLine: Decodable { var status: OrderStatusUpdate }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        var orders: [StoredOrder] = []
        var index: [String: Int] = [:]
        var problems: [StoreProblem] = []
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        let endsClean = bytes.last == UInt8(ascii: "\n") || bytes.isEmpty
        for (number, line) in lines.enumerated() where !line.isEmpty {
            let isLast = number == lines.count - 1
            let data = Data(line)
            do {
                if line.starts(with: Array(#"{"status":"#.utf8)) {
                    let update = try decoder.decode(StatusLine.self, from: data).status
                    guard let at = index[update.id] else {
                        problems.append(
                            StoreProblem(
                                file: file, line: number + 1,
                                message: "state '\(update.state.rawValue)' for unknown order \(update.id); skipped",
                                isTornTail: false))
                        continue
                    }
                    if update.attempt == true {
                        orders[at].attempts += 1
                    } else {
                        orders[at].state = update.state
                        orders[at].reason = update.reason
                    }
                } else {
                    let order = try decoder.decode(StoredOrder.self, from: data)
                    index[order.id] = orders.count
                    orders.append(order)
                }
            } catch {
                if isLast && !endsClean {
                    problems.append(
                        StoreProblem(
                            file: file, line: number + 1,
                            message:
                                "torn record (\(line.count) bytes without an ending newline): a write cut short by a crash; skipped",
                            isTornTail: true))
                } else {
                    problems.append(
                        StoreProblem(
                            file: file, line: number + 1,
                            message: "unreadable record (\(line.count) bytes): \(describe(error)); skipped",
                            isTornTail: false))
                }
            }
        }
        return (orders, problems)
    }

    /// A decoding error in words: "missing key 'type'".
    package static func describe(_ error: any Error) -> String {
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
