import Foundation

extension Studio {
    /// `POST /api/analyze`'s answer as JSON, the same bytes as ``jsonText(_:)`` writes (members in
    /// sorted order, numbers as JSONEncoder writes them). The effective curves' and the waveform's
    /// numbers, most of an answer, are written here directly: JSONEncoder builds a value per
    /// number before writing, which cost as much as the analysis itself on a 10-minute pattern.
    /// The other members are written by JSONEncoder; a number that is not finite, which
    /// JSONEncoder refuses, makes the whole answer JSONEncoder's.
    package static func analyzeJSON(_ answer: AnalyzeResponse) -> String {
        let waveform = answer.waveform
        guard answer.analyzeMilliseconds.isFinite, answer.duration.isFinite, waveform.seconds.isFinite,
            waveform.start.isFinite
        else { return jsonText(answer) }
        var out = ""
        out.reserveCapacity(32 * (answer.effective.times.count * 3 + answer.waveform.min.count * 2) + 4096)
        func member(_ key: String, _ json: String) {
            out += out.isEmpty ? "{\"" : ",\""
            out += key
            out += "\":"
            out += json
        }
        func numbers(_ key: String, _ values: [Double], first: Bool = false) -> Bool {
            out += first ? "\"" : ",\""
            out += key
            out += "\":["
            // A curve holds its value across columns and silence is 0: a run of one number is
            // written from the text of its first, not formatted (and allocated) again each time.
            var last = Double.nan
            var lastText = Substring("")
            for (index, value) in values.enumerated() {
                guard value.isFinite else { return false }
                if index > 0 { out += "," }
                if value != last || value.sign != last.sign {
                    let text = value.description
                    lastText = text.hasSuffix(".0") ? text.dropLast(2) : Substring(text)
                    last = value
                }
                out += lastText
            }
            out += "]"
            return true
        }
        member("analyzeMilliseconds", jsonText(answer.analyzeMilliseconds))
        member("curvesCount", jsonText(answer.curvesCount))
        if let diagnostics = answer.diagnostics { member("diagnostics", jsonText(diagnostics)) }
        member("duration", jsonText(answer.duration))
        let effective = answer.effective
        out += ",\"effective\":{"
        guard numbers("intensity", effective.intensity, first: true), numbers("sharpness", effective.sharpness),
            numbers("times", effective.times)
        else { return jsonText(answer) }
        out += "}"
        member("eventsCount", jsonText(answer.eventsCount))
        member("findingsKey", jsonText(answer.findingsKey))
        if let patch = answer.findingsPatch { member("findingsPatch", jsonText(patch)) }
        member("format", jsonText(answer.format))
        member("metadata", jsonText(answer.metadata))
        member("parametersCount", jsonText(answer.parametersCount))
        member("path", jsonText(answer.path))
        member("version", jsonText(answer.version))
        out += ",\"waveform\":{"
        guard numbers("max", waveform.max, first: true), numbers("min", waveform.min) else { return jsonText(answer) }
        out += ",\"seconds\":" + jsonText(waveform.seconds) + ",\"start\":" + jsonText(waveform.start)
        out += ",\"truncated\":" + (waveform.truncated ? "true" : "false") + "}}"
        return out
    }
}
