import CupcakeCorner
import Foundation
import HapticsCore
import SensoryFeedback
import Testing

@Suite struct OrderStoreTests {
    func order(_ name: String) -> Order {
        let order = Order()
        order.name = name
        return order
    }

    @Test func appendsOneLinePerOrderAndReadsThemBack() throws {
        let scratch = Scratch()
        let store = try OrderStore(directory: scratch.url.appending(path: "a/b"))
        try store.append(StoredOrder(id: "one", order: order("Ada")))
        try store.append(StoredOrder(id: "two", order: order("Grace")))
        let bytes = try Data(contentsOf: store.file)
        #expect(bytes.filter { $0 == UInt8(ascii: "\n") }.count == 2)
        let loaded = try store.load()
        #expect(loaded.orders.map(\.id) == ["one", "two"])
        #expect(loaded.orders.map(\.order.name) == ["Ada", "Grace"])
    }

    @Test func aTornLastLineIsReportedAndTheNextOrderStartsOnItsOwnLine() throws {
        let scratch = Scratch()
        let store = try OrderStore(directory: scratch.url)
        try store.append(StoredOrder(id: "one", order: order("Ada")))
        // A crash in the middle of a write leaves half a record without its newline.
        let handle = try FileHandle(forWritingTo: store.file)
        try handle.seekToEnd()
        try handle.write(contentsOf: Data(#"{"cost":6,"id":"half","ord"#.utf8))
        try handle.close()
        var loaded = try store.load()
        #expect(loaded.orders.map(\.id) == ["one"])
        #expect(loaded.problems.count == 1)
        #expect(loaded.problems[0].isTornTail && loaded.problems[0].line == 2)
        #expect(
            loaded.problems[0].description.hasSuffix(
                "orders.jsonl:2: warning: torn record (26 bytes without an ending newline): a write cut short by a crash; skipped"
            ))
        try store.append(StoredOrder(id: "three", order: order("Grace")))
        loaded = try store.load()
        #expect(loaded.orders.map(\.id) == ["one", "three"])
        #expect(loaded.problems.map(\.line) == [2])
        #expect(loaded.problems[0].description.contains("unreadable record (26 bytes)"))
    }
}

@Suite struct EventLogTests {
    /// A log dropped with lines not synced is flushed, and a failed flush is said, once: fsync on
    /// /dev/null fails (EINVAL). A log whose `sync()` was called (and reported there) says nothing
    /// more when it is dropped.
    @Test func aLogDroppedWithoutSyncReportsAFailedFlush() throws {
        final class Said: @unchecked Sendable { var lines: [String] = [] }
        let said = Said()
        let event = OrderEvent(t: 0.5, change: "quantity", old: "3", new: "4", feedback: "increase")
        do {
            let log = try EventLogWriter(path: "/dev/null") { said.lines.append($0) }
            try log.append(event)
        }
        #expect(said.lines == ["cannot sync /dev/null: Invalid argument"])
        do {
            let log = try EventLogWriter(path: "/dev/null") { said.lines.append($0) }
            try log.append(event)
            #expect(throws: EventLogError.self) { try log.sync() }
        }
        do { _ = try EventLogWriter(path: "/dev/null") { said.lines.append($0) } }
        #expect(said.lines.count == 1)
    }

    @Test func aCorruptedLineIsReportedByNumberAndTheRestIsRead() {
        let text = """
            {"change":"quantity","feedback":"increase","new":"4","old":"3","t":0.5}
            {"change":"quantity","feedback":"incr
            {"change":"type","feedback":"wobble","new":"Rainbow","old":"Vanilla","t":1}

            {"change":"type","feedback":"selection","new":"Rainbow","old":"Vanilla","t":1.25}
            """
        let result = EventLogReader.parse(Array(text.utf8), file: "log.jsonl")
        #expect(result.events.map(\.t) == [0.5, 1.25])
        #expect(result.problems.count == 2)
        #expect(result.problems[0].hasPrefix("log.jsonl:2: error: not an event"))
        #expect(result.problems[1] == "log.jsonl:3: error: unknown feedback 'wobble'; line skipped")
    }

    /// A feedback name is quoted as an order script's value is: a terminal's escape sequence in a
    /// log reaches the terminal escaped, not raw.
    @Test func anUnknownFeedbackIsQuotedWithItsControlCharactersEscaped() {
        let text = #"{"change":"type","feedback":"\u001b[2J\u0000bell\u0007","t":1}"#
        let result = EventLogReader.parse(Array(text.utf8), file: "log.jsonl")
        #expect(result.events.isEmpty)
        #expect(result.problems == [#"log.jsonl:1: error: unknown feedback '\u{1B}[2J\0bell\u{07}'; line skipped"#])
    }

    @Test func timelinePlacesEachPresetAtItsCueOverSpeed() {
        let events = [
            OrderEvent(t: 0.5, change: "quantity", old: "3", new: "4", feedback: "increase"),
            OrderEvent(t: 0.7, change: "name", old: "", new: "Ada", feedback: nil),
            OrderEvent(t: 1.5, change: "checkout", old: nil, new: "order x", feedback: "success"),
        ]
        let timeline = FeedbackTimeline(events: events)
        #expect(timeline.cues.map(\.feedback) == [.increase, .success])
        let pattern = timeline.pattern(speed: 2) { feedback in
            HapticPattern(elements: [
                .event(HapticEvent(time: 0, type: .hapticTransient)),
                .event(HapticEvent(time: feedback == .success ? 0.1 : 0.05, type: .hapticTransient)),
            ])
        }
        #expect(pattern.events.map(\.time) == [0.25, 0.3, 0.75, 0.85])
    }

    @Test(arguments: [
        SensoryFeedback.success, .selection, .levelChange, .impact, .impact(weight: .heavy, intensity: 0.8),
        .impact(flexibility: .soft, intensity: 0.25),
    ])
    func feedbackNamesRoundTrip(feedback: SensoryFeedback) {
        #expect(SensoryFeedback(feedback.description) == feedback)
    }
}

/// Session logs read as a stream (issue 28): what a line is does not depend on how the bytes
/// arrive, a line over 1 MiB is skipped by number, and an endless input stops with an error.
@Suite struct EventLogStreamTests {
    static let text = """
        {"change":"quantity","feedback":"increase","new":"4","old":"3","t":0.5}
        {"change":"quantity","feedback":"incr
        {"change":"type","feedback":"\(String(repeating: "w", count: 100))","t":1}
        \t\r
        {"change":"type","feedback":"selection","new":"Rainbow","old":"Vanilla","t":1.25}
        """

    @Test func linesAreTheSameHoweverTheBytesArrive() throws {
        let whole = EventLogReader.parse(Array(Self.text.utf8), file: "log.jsonl")
        #expect(whole.events.map(\.t) == [0.5, 1.25])
        #expect(whole.problems.count == 2)
        #expect(
            whole.problems[1]
                == "log.jsonl:3: error: unknown feedback '\(String(repeating: "w", count: 64))…'; line skipped")
        let bytes = Array(Self.text.utf8)
        for size in [1, 2, 7, 64] {
            var lines = EventLogReader.LineSplitter(file: "log.jsonl")
            for start in stride(from: 0, to: bytes.count, by: size) {
                bytes[start..<min(start + size, bytes.count)].withUnsafeBufferPointer { lines.take($0) }
            }
            let pieces = lines.finish()
            #expect(pieces.events == whole.events, "\(size)-byte pieces")
            #expect(pieces.problems == whole.problems, "\(size)-byte pieces")
        }
    }

    /// A file that is no log says so in 101 lines, not in one per line of it.
    @Test func problemsPastAHundredAreCounted() {
        let text = String(repeating: "not json\n", count: 150) + "{\"change\":\"zip\",\"t\":3}\n"
        let result = EventLogReader.parse(Array(text.utf8), file: "log.jsonl")
        #expect(result.events.map(\.t) == [3])
        #expect(result.problems.count == 101)
        #expect(result.problems[99].hasPrefix("log.jsonl:100: error: not an event"))
        #expect(result.problems.last == "log.jsonl: error: 50 more lines could not be read; skipped")
    }

    @Test func aLineOverOneMiBIsSkippedByNumberAndTheRestIsRead() throws {
        let scratch = FileManager.default.temporaryDirectory.appending(path: "log-\(UUID().uuidString).jsonl")
        defer { try? FileManager.default.removeItem(at: scratch) }
        let long = "{\"change\":\"name\",\"new\":\"" + String(repeating: "x", count: 3 << 20) + "\",\"t\":0}"
        try Data(
            ("{\"change\":\"quantity\",\"feedback\":\"increase\",\"t\":0.5}\n" + long + "\n" + long
                + "\n{\"change\":\"checkout\",\"feedback\":\"success\",\"t\":2}").utf8
        ).write(to: scratch)
        let read = try EventLogReader.read(path: scratch.path)
        #expect(read.events.map(\.t) == [0.5, 2])
        let size = long.utf8.count
        #expect(
            read.problems == [
                "\(scratch.path):2: error: the line is over 1 MiB (\(size) bytes); line skipped",
                "\(scratch.path):3: error: the line is over 1 MiB (\(size) bytes); line skipped",
            ])
    }
}
