import Foundation
import HapticsStudio
import Testing

/// `POST /api/analyze` writes its answer's numbers directly (``Studio/analyzeJSON(_:)``); the
/// bytes are JSONEncoder's (``Studio/jsonText(_:)``) for every number and every optional member.
@Suite struct StudioAnswerJSONTests {
    static let answer = #"""
        {"analyzeMilliseconds":1.25,"curvesCount":2,"diagnostics":[{"code":"x","line":3,"path":"a/b"}],
        "duration":600,"effective":{"intensity":[0,0.5,1],"sharpness":[0.5,0.5,0.25],"times":[0,1,2]},
        "eventsCount":3,"findingsKey":"K","findingsPatch":{"from":"F","insert":[{"message":"é \"q\" /"}],
        "remove":1,"start":2},"format":"ahap","metadata":{"Project":"p/q","Version":1},"parametersCount":1,
        "path":"pats/a b.ahap","version":"V","waveform":{"max":[0.5],"min":[-0.5],"seconds":0.0005,
        "start":1.5,"truncated":true}}
        """#

    @Test func theAnswerIsJSONEncodersBytes() throws {
        var answer = try JSONDecoder().decode(Studio.AnalyzeResponse.self, from: Data(Self.answer.utf8))
        #expect(Studio.analyzeJSON(answer) == Studio.jsonText(answer))
        // Numbers of every kind: integers, fractions, tiny and huge ones, negative zero.
        var state: UInt64 = 0x5EED
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
        func number() -> Double {
            switch next() % 6 {
            case 0: Double(Int64(bitPattern: next()) % 100_000)
            case 1: Double(next() % 1_000_000) / 1000
            case 2: Double(bitPattern: next() & 0x7FEF_FFFF_FFFF_FFFF) * (next() % 2 == 0 ? 1 : -1)
            case 3: -0.0
            case 4: Double(next() % 1000) * 1e-9
            default: Double(next()) / Double(UInt64.max)
            }
        }
        for round in 0..<50 {
            let count = Int(next() % 300)
            answer.effective.times = (0..<count).map { _ in number() }
            answer.effective.intensity = (0..<count).map { _ in number() }
            answer.effective.sharpness = (0..<count).map { _ in number() }
            answer.waveform.min = (0..<count / 2).map { _ in number() }
            answer.waveform.max = (0..<count / 2).map { _ in number() }
            answer.waveform.seconds = number()
            answer.duration = number()
            answer.analyzeMilliseconds = number()
            answer.waveform.truncated = round % 2 == 0
            answer.diagnostics = round % 3 == 0 ? nil : answer.diagnostics
            answer.findingsPatch = round % 4 == 0 ? nil : answer.findingsPatch
            #expect(Studio.analyzeJSON(answer) == Studio.jsonText(answer), "round \(round)")
        }
        // Runs of one number are written from its first text: zero and minus zero stay apart.
        answer.effective.times = [0, 0, -0.0, -0.0, 0, 1.5, 1.5, 1.5000000000000002, 2, 2]
        answer.effective.intensity = answer.effective.times.reversed()
        answer.effective.sharpness = answer.effective.times
        #expect(Studio.analyzeJSON(answer) == Studio.jsonText(answer))
        #expect(Studio.analyzeJSON(answer).contains(#""times":[0,0,-0,-0,0,1.5,1.5,1.5000000000000002,2,2]"#))
        // A number JSONEncoder refuses: the whole answer is JSONEncoder's (`{}`).
        answer.effective.times = [1, .nan]
        #expect(Studio.analyzeJSON(answer) == Studio.jsonText(answer))
    }
    /// A drag's answers are written from the answer before where their arrays start and end
    /// alike: the bytes are still JSONEncoder's, over arrays that grow, shrink, change in the
    /// middle, at either end, in the sign of a zero, or become one that JSONEncoder refuses.
    @Test func answersWrittenFromTheOneBeforeAreJSONEncodersBytes() throws {
        var answer = try JSONDecoder().decode(Studio.AnalyzeResponse.self, from: Data(Self.answer.utf8))
        var state: UInt64 = 0xD4A6
        func next(_ n: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        func edited(_ values: [Double]) -> [Double] {
            var values = values
            switch next(7) {
            case 0: values = (0..<next(40)).map { Double($0) / 8 }
            case 1 where !values.isEmpty: values[next(values.count)] = Double(next(1000)) / 1000
            case 2: values.insert(0.25 * Double(next(9)), at: next(values.count + 1))
            case 3 where !values.isEmpty: values.remove(at: next(values.count))
            case 4 where !values.isEmpty: values[values.count - 1] = -0.0
            case 5 where !values.isEmpty: values[0] = values[0] == 0 ? -0.0 : 0
            default: break
            }
            return values
        }
        var kept: AnswerNumbers? = nil
        var reused = 0
        for round in 0..<400 {
            answer.effective.times = edited(answer.effective.times)
            answer.effective.intensity = edited(answer.effective.intensity)
            answer.effective.sharpness = edited(answer.effective.sharpness)
            answer.waveform.min = edited(answer.waveform.min)
            answer.waveform.max = edited(answer.waveform.max)
            if round % 50 == 49 { answer.effective.times.append(.infinity) }
            if kept != nil { reused += 1 }
            #expect(Studio.analyzeJSON(answer, numbers: &kept) == Studio.jsonText(answer), "round \(round)")
            if round % 50 == 49 {
                // Refused: written by JSONEncoder, and the numbers kept are the last written.
                answer.effective.times.removeLast()
            }
        }
        #expect(reused >= 399)
    }
}
