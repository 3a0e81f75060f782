package import Foundation
@_spi(Tooling) import HapticsEngine
import SensoryFeedback
import SystemPackage

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
package enum EventLogReader {
    package struct Result: Sendable {
        package var events: [OrderEvent]
        package var problems: [String]
    }

    /// Reads the log at `path`.
    package static func read(path: String) throws(EventLogError) -> Result {
        let data: Data
        do {
            data = try Data(contentsOf: URL(filePath: path))
        } catch {
            throw EventLogError(description: "cannot read \(path): \(error.localizedDescription)")
        }
        return parse(Array(data), file: path)
    }

    /// Parses log bytes; blank lines are skipped.
    package static func parse(_ bytes: [UInt8], file: String) -> Result {
        let decoder = JSONDecoder()
        var result = Result(events: [], problems: [])
        for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
            let text = String(decoding: line, as: UTF8.self)
            guard !text.allSatisfy(\.isWhitespace) else { continue }
            let where_ = "\(file):\(index + 1): error:"
            do {
                let event = try decoder.decode(OrderEvent.self, from: Data(line))
                guard event.t.isFinite, event.t >= 0 else {
                    result.problems.append("\(where_) time \(event.t) is not a number of seconds ≥ 0; line skipped")
                    continue
                }
                if let name = event.feedback, SensoryFeedback(name) == nil {
                    result.problems.append("\(where_) unknown feedback '\(name)'; line skipped")
                    continue
                }
                result.events.append(event)
            } catch {
                result.problems.append("\(where_) not an event (\(OrderStore.describe(error))); line skipped")
            }
        }
        return result
    }
}
