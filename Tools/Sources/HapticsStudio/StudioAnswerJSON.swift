import Foundation

extension Studio {
    /// `POST /api/analyze`'s answer as JSON, the same bytes as ``jsonText(_:)`` writes (members in
    /// sorted order, numbers as JSONEncoder writes them). The effective curves' and the waveform's
    /// numbers, most of an answer, are written here directly: JSONEncoder builds a value per
    /// number before writing, which cost as much as the analysis itself on a 10-minute pattern.
    /// The other members are written by JSONEncoder; a number that is not finite, which
    /// JSONEncoder refuses, makes the whole answer JSONEncoder's.
    package static func analyzeJSON(_ answer: AnalyzeResponse) -> String {
        var kept: AnswerNumbers? = nil
        return analyzeJSON(answer, numbers: &kept)
    }

    /// ``analyzeJSON(_:)``, writing each array of numbers from `kept`'s text where the array
    /// starts and ends as `kept`'s did (a drag's answers differ from the one before in a short
    /// stretch of each array); `kept` becomes this answer's numbers.
    package static func analyzeJSON(_ answer: AnalyzeResponse, numbers kept: inout AnswerNumbers?) -> String {
        let waveform = answer.waveform
        guard answer.analyzeMilliseconds.isFinite, answer.duration.isFinite, waveform.seconds.isFinite,
            waveform.start.isFinite
        else { return jsonText(answer) }
        let arrays = [
            answer.effective.intensity, answer.effective.sharpness, answer.effective.times, waveform.max, waveform.min,
        ]
        var made: [NumbersText] = []
        for (index, values) in arrays.enumerated() {
            guard let text = NumbersText(values, from: kept?.arrays[index]) else { return jsonText(answer) }
            made.append(text)
        }
        kept = AnswerNumbers(arrays: made)
        var out: [UInt8] = []
        out.reserveCapacity(made.reduce(4096) { $0 + $1.text.count })
        func member(_ key: String, _ json: String) {
            out.append(contentsOf: (out.isEmpty ? "{\"" : ",\"").utf8)
            out.append(contentsOf: key.utf8)
            out.append(contentsOf: "\":".utf8)
            out.append(contentsOf: json.utf8)
        }
        func numbers(_ key: String, _ text: NumbersText, first: Bool = false) {
            out.append(contentsOf: (first ? "\"" : ",\"").utf8)
            out.append(contentsOf: key.utf8)
            out.append(contentsOf: "\":[".utf8)
            out.append(contentsOf: text.text)
            out.append(UInt8(ascii: "]"))
        }
        member("analyzeMilliseconds", jsonText(answer.analyzeMilliseconds))
        member("curvesCount", jsonText(answer.curvesCount))
        if let diagnostics = answer.diagnostics { member("diagnostics", jsonText(diagnostics)) }
        member("duration", jsonText(answer.duration))
        out.append(contentsOf: ",\"effective\":{".utf8)
        numbers("intensity", made[0], first: true)
        numbers("sharpness", made[1])
        numbers("times", made[2])
        out.append(UInt8(ascii: "}"))
        member("eventsCount", jsonText(answer.eventsCount))
        member("findingsKey", jsonText(answer.findingsKey))
        if let patch = answer.findingsPatch { member("findingsPatch", jsonText(patch)) }
        member("format", jsonText(answer.format))
        member("metadata", jsonText(answer.metadata))
        member("parametersCount", jsonText(answer.parametersCount))
        member("path", jsonText(answer.path))
        member("version", jsonText(answer.version))
        out.append(contentsOf: ",\"waveform\":{".utf8)
        numbers("max", made[3], first: true)
        numbers("min", made[4])
        out.append(
            contentsOf: (",\"seconds\":" + jsonText(waveform.seconds) + ",\"start\":" + jsonText(waveform.start)).utf8)
        out.append(contentsOf: (",\"truncated\":" + (waveform.truncated ? "true" : "false") + "}}").utf8)
        return String(decoding: out, as: UTF8.self)
    }
}

/// The numbers of an answer (``Studio/analyzeJSON(_:numbers:)``) as written: the effective
/// intensity, sharpness and times, the waveform's max and min.
package struct AnswerNumbers: Sendable {
    var arrays: [NumbersText]
}

/// An array of numbers as JSONEncoder writes its inside (`0.5,1,-0`), with where each number's
/// text ends.
struct NumbersText: Sendable {
    var values: [Double] = []
    var text: [UInt8] = []
    var ends: [Int] = []

    init() {}

    /// `values` written, the numbers `kept` starts and ends with (the same bits) copied from its
    /// text; nil when a number is not finite (JSONEncoder refuses it).
    init?(_ values: [Double], from kept: NumbersText?) {
        let old = kept ?? NumbersText()
        let shorter = min(values.count, old.values.count)
        var prefix = 0
        while prefix < shorter && values[prefix].bitPattern == old.values[prefix].bitPattern { prefix += 1 }
        var suffix = 0
        while suffix < shorter - prefix
            && values[values.count - 1 - suffix].bitPattern == old.values[old.values.count - 1 - suffix].bitPattern
        {
            suffix += 1
        }
        self.values = values
        text.reserveCapacity(old.text.count + 64)
        ends.reserveCapacity(values.count)
        if prefix > 0 {
            text.append(contentsOf: old.text[..<old.ends[prefix - 1]])
            ends.append(contentsOf: old.ends[..<prefix])
        }
        // A curve holds its value across columns and silence is 0: a run of one number is
        // written from the text of its first, not formatted (and allocated) again each time.
        var last = Double.nan
        var lastText = Substring("")
        for value in values[prefix..<(values.count - suffix)] {
            guard value.isFinite else { return nil }
            if !ends.isEmpty { text.append(UInt8(ascii: ",")) }
            if value != last || value.sign != last.sign {
                let description = value.description
                lastText = description.hasSuffix(".0") ? description.dropLast(2) : Substring(description)
                last = value
            }
            text.append(contentsOf: lastText.utf8)
            ends.append(text.count)
        }
        if suffix > 0 {
            let first = old.values.count - suffix
            let start = first == 0 ? 0 : old.ends[first - 1] + 1
            if !ends.isEmpty { text.append(UInt8(ascii: ",")) }
            let shift = text.count - start
            text.append(contentsOf: old.text[start...])
            for end in old.ends[first...] { ends.append(end + shift) }
        }
    }
}
