package import Foundation
@_spi(Tooling) import HapticsEngine
import SensoryFeedback
import SystemPackage

#if canImport(Glibc)
    import Glibc
#endif

/// One line of a session's event log.
///
/// ```json
/// {"change":"quantity","feedback":"increase","new":"4","old":"3","t":1.204}
/// ```
package struct OrderEvent: Codable, Hashable, Sendable {
    /// Seconds since the session started.
    package var t: Double
    /// What changed: `quantity`, `type`, `special`, `frosting`, `sprinkles`, `name`, `street`,
    /// `city`, `zip` or `checkout`.
    package var change: String
    package var old: String?
    package var new: String?
    /// The feedback played (`SensoryFeedback.description`), nil when none was.
    package var feedback: String?

    package init(t: Double, change: String, old: String?, new: String?, feedback: String?) {
        self.t = t
        self.change = change
        self.old = old
        self.new = new
        self.feedback = feedback
    }
}

/// Why a log could not be written or read.
package struct EventLogError: Error, Hashable, Sendable, CustomStringConvertible {
    package var description: String
}

/// Appends a session's events to its log file, one JSON line per `write()`, as they happen.
package final class EventLogWriter {
    package let path: String
    private let fd: Int32
    private let encoder: JSONEncoder
    /// Lines appended since the last ``sync()``.
    private var unsynced = false
    /// Says that a log dropped without ``sync()`` could not be flushed.
    private let report: (String) -> Void

    /// Creates (or appends to) the log at `path`, making its folder if needed. `report` is told
    /// when a log dropped without ``sync()`` cannot be flushed (standard error by default).
    package init(
        path: String,
        report: @escaping (String) -> Void = { FileHandle.standardError.write(Data(("haptic: " + $0 + "\n").utf8)) }
    ) throws(EventLogError) {
        self.path = path
        self.report = report
        let folder = URL(filePath: path).deletingLastPathComponent()
        do {
            try OrderStore.makeDurableDirectory(folder)
        } catch {
            throw EventLogError(description: error.description)
        }
        do {
            fd = try systemCall("open", path: path) { open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644) }
        } catch {
            throw EventLogError(description: "cannot open \(path): \(error.errno)")
        }
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    /// A log dropped with lines not yet synced is flushed, and a failure is reported: the lines
    /// were written but may not survive a crash of the system.
    deinit {
        if unsynced {
            do {
                try systemCall("fsync", path: path) { fsync(fd) }
            } catch {
                report("cannot sync \(path): \(error.errno)")
            }
        }
        close(fd)
    }

    /// A fresh log path in `directory`: `sessions/session-YYYYMMDD-HHMMSS-PID.jsonl`.
    package static func defaultPath(in directory: URL, now: Date = Date()) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyyMMdd-HHmmss"
        let name = "session-\(formatter.string(from: now))-\(getpid()).jsonl"
        return directory.appending(path: "sessions").appending(path: name).path(percentEncoded: false)
    }

    /// Appends `event` as one line.
    package func append(_ event: OrderEvent) throws(EventLogError) {
        var bytes: [UInt8]
        do {
            bytes = Array(try encoder.encode(event))
        } catch {
            throw EventLogError(description: "cannot encode event: \(error)")
        }
        bytes.append(UInt8(ascii: "\n"))
        // One write() of the whole line with O_APPEND, so concurrent writers never interleave lines.
        let written: Int
        do {
            written = try bytes.withUnsafeBytes { buffer in
                Result { () throws(SystemCallError) in
                    try systemCall("write", path: path) { write(fd, buffer.baseAddress, buffer.count) }
                }
            }.get()
        } catch {
            throw EventLogError(description: "cannot write to \(path): \(error.errno)")
        }
        unsynced = true
        guard written == bytes.count else {
            throw EventLogError(description: "cannot write to \(path): \(Errno.noSpace)")
        }
    }

    /// Flushes the log to the disk.
    package func sync() throws(EventLogError) {
        unsynced = false  // reported here if it fails, not again when the log is dropped
        do {
            try systemCall("fsync", path: path) { fsync(fd) }
        } catch {
            throw EventLogError(description: "cannot sync \(path): \(error.errno)")
        }
    }
}

/// Reads a session log back: the events, and a `FILE:LINE: error:` line for each one it could not read.
///
/// The log is read a chunk at a time and each line decoded as it is found, so what is held is the
/// events, never the file: a 100 MB log peaked at 879 MB when it was read whole and split.
package enum EventLogReader {
    package struct Result: Sendable {
        package var events: [OrderEvent]
        package var problems: [String]
    }

    /// The longest line read; a longer one is skipped unread, with a problem. A line the log
    /// writes is one event of a few hundred bytes at most (a script's line is at most 1,024).
    package static let maxLineBytes = 1 << 20
    /// The most bytes read from one log: a day's replay (the longest there is) at ten feedbacks a
    /// second is about 70 MB; an endless input (`/dev/zero`, a pipe) stops here with an error.
    package static let maxBytes = 256 << 20
    /// The most problems listed one by one; the rest are counted in one last line, so a file that
    /// is no log at all says so in a screenful, not in a line per line of it.
    package static let maxProblemsListed = 100

    /// Reads the log at `path`.
    package static func read(path: String) throws(EventLogError) -> Result {
        var lines = LineSplitter(file: path)
        do {
            try BoundedRead.chunks(of: path, chunkBytes: 1 << 20, bound: maxBytes) { lines.take($0) }
        } catch {
            let reason =
                switch error {
                case .cannotOpen(let reason), .cannotRead(let reason): reason
                case .overBound: "it is over \(maxBytes >> 20) MiB; a session log is at most \(maxBytes >> 20) MiB"
                }
            throw EventLogError(description: "cannot read \(path): \(reason)")
        }
        return lines.finish()
    }

    /// Parses log bytes; blank lines are skipped.
    package static func parse(_ bytes: [UInt8], file: String) -> Result {
        var lines = LineSplitter(file: file)
        bytes.withUnsafeBufferPointer { lines.take($0) }
        return lines.finish()
    }

    /// Cuts bytes arriving in pieces into lines and decodes each as it completes.
    package struct LineSplitter {
        let file: String
        let decoder = JSONDecoder()
        var result = Result(events: [], problems: [])
        /// The start of a line whose end has not arrived yet.
        var partial: [UInt8] = []
        /// The current line is over ``maxLineBytes``: its bytes are dropped until its end.
        var overlong = false
        var overlongBytes = 0
        var number = 1
        /// Problems past ``maxProblemsListed``, counted.
        var unlisted = 0

        package init(file: String) { self.file = file }

        /// Takes the next bytes; each line they complete is decoded now.
        package mutating func take(_ bytes: UnsafeBufferPointer<UInt8>) {
            var start = 0
            while start < bytes.count {
                let end = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))
                let piece = UnsafeBufferPointer(rebasing: bytes[start..<(end ?? bytes.count)])
                append(piece)
                guard let end else { return }
                endLine()
                start = end + 1
            }
        }

        /// Ends the input: a last line without its newline is decoded too.
        package mutating func finish() -> Result {
            if !partial.isEmpty || overlong { endLine() }
            if unlisted > 0 {
                result.problems.append(
                    "\(file): error: \(unlisted) more line\(unlisted == 1 ? "" : "s") could not be read; skipped")
            }
            return result
        }

        private mutating func problem(_ text: String) {
            if result.problems.count < maxProblemsListed { result.problems.append(text) } else { unlisted += 1 }
        }

        private mutating func append(_ piece: UnsafeBufferPointer<UInt8>) {
            if overlong {
                overlongBytes += piece.count
            } else if partial.count + piece.count > maxLineBytes {
                overlong = true
                overlongBytes = partial.count + piece.count
                partial.removeAll()
            } else {
                partial.append(contentsOf: piece)
            }
        }

        private mutating func endLine() {
            defer {
                partial.removeAll(keepingCapacity: partial.capacity <= 64 << 10)
                overlong = false
                number += 1
            }
            let where_ = "\(file):\(number): error:"
            if overlong {
                problem(
                    "\(where_) the line is over \(maxLineBytes >> 20) MiB (\(overlongBytes) bytes); line skipped")
                return
            }
            guard !partial.allSatisfy({ $0 == 0x20 || $0 == 0x09 || $0 == 0x0D }) else { return }
            do {
                let event = try decoder.decode(OrderEvent.self, from: Data(partial))
                guard event.t.isFinite, event.t >= 0 else {
                    problem("\(where_) time \(event.t) is not a number of seconds ≥ 0; line skipped")
                    return
                }
                if let name = event.feedback, SensoryFeedback(name) == nil {
                    problem("\(where_) unknown feedback '\(OrderScript.shown(name))'; line skipped")
                    return
                }
                result.events.append(event)
            } catch {
                problem("\(where_) not an event (\(OrderStore.describe(error))); line skipped")
            }
        }
    }
}
