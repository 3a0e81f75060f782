// The session log reader: any bytes give events and one problem per unreadable line, never a
// crash; every event has a finite, non-negative time and a known feedback (or none).
import CupcakeCorner
import FuzzSupport

let status = runFuzzer { data, count in
    let input = bytes(data, count)
    let result = EventLogReader.parse(input, file: "fuzz.jsonl")
    let lines = input.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).count
    require(result.events.count + result.problems.count <= lines, "more results than lines")
    for problem in result.problems { require(problem.hasPrefix("fuzz.jsonl:"), problem) }
    for event in result.events {
        require(event.t.isFinite && event.t >= 0, "event time \(event.t)")
        require(event.feedback.map { FeedbackName.feedback(named: $0) != nil } ?? true, "feedback \(event.feedback!)")
    }
    _ = FeedbackTimeline(events: result.events)
    return 0
}
exit(status)
