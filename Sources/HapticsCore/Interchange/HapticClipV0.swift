import OrderedCollections

/// Lofelt's data model v0.2 ("VIJ", what Lofelt Studio Desktop exported before `.haptic` v1):
/// `metadata` (`editor`, `format`, `duration`), `variation`, and `voices` with `envelopes` (a list
/// of breakpoint lists: the first is the amplitude, the second the frequency, each breakpoint a
/// `time` and an `amplitude`), `bands`, and `transients` (two lists: amplitudes and frequencies,
/// paired by position and time).
///
/// It is read with the strictness of Lofelt's own v0 validation, and upgraded to a v1 clip the way
/// Lofelt's upgrade does it (docs/formats.md): the amplitude envelope gets a last breakpoint at
/// `metadata.duration` holding the last amplitude, and a transient becomes the emphasis of the
/// amplitude breakpoint at its time. A transient at no breakpoint's time, which Lofelt's upgrade
/// drops, is kept here as an impulse (so it is heard) and reported as `transient-unmatched`.
extension HapticClipDecoder {
    mutating func decodeV0(_ root: JSONNode) -> HapticClip? {
        guard
            let members = object(
                root, name: "the top level of a v0 (VIJ) clip", known: ["version", "metadata", "variation", "voices"])
        else { return nil }
        report(
            .clipUpgraded,
            "a v0 (VIJ) clip: read as Lofelt's upgrade to data model v1 reads it (the amplitude envelope is held to metadata.duration; transients become emphasis)",
            at: root.location)
        if let version = members.last(where: { $0.key == "version" }), case .object(let fields) = version.value.kind,
            let major = fields.last(where: { $0.key == "major" }), case .number(let n) = major.value.kind, n != 0
        {
            at(.key("version")) { d in
                d.at(.key("major")) { d in
                    d.report(
                        .clipVersion,
                        "version \(Describe.number(n)) with \"voices\": only v0 (VIJ) clips have voices; v1 clips have \"signals\"",
                        at: major.value.location)
                }
            }
        }
        var editor: JSONValue?
        var duration: Double?
        if let metadata = members.last(where: { $0.key == "metadata" }) {
            at(.key("metadata")) { d in
                guard let fields = d.object(metadata.value, name: "metadata", known: ["editor", "format", "duration"])
                else { return }
                if let e = fields.last(where: { $0.key == "editor" }) {
                    if case .string = e.value.kind {
                        editor = e.value.value
                    } else {
                        d.at(.key("editor")) { d in
                            d.report(
                                .wrongType, "editor must be a string, found \(Describe.node(e.value))",
                                at: e.value.location)
                        }
                    }
                }
                if let node = d.required("duration", in: fields, of: "metadata", at: metadata.value.location) {
                    duration = d.at(.key("duration")) { $0.time(node) }
                }
            }
        } else {
            report(
                .missingKey, "the top level has no \"metadata\" (a v0 clip's length is metadata.duration)",
                at: root.location)
        }
        guard let voices = required("voices", in: members, of: "the top level", at: root.location) else { return nil }
        return at(.key("voices")) { d -> HapticClip? in
            guard let fields = d.object(voices, name: "voices", known: ["envelopes", "bands", "transients"]),
                let envelopesNode = d.required("envelopes", in: fields, of: "voices", at: voices.location)
            else { return nil }
            let envelopes = d.at(.key("envelopes")) { d in d.v0Lists(envelopesNode, name: "envelopes") }
            guard let envelopes else { return nil }
            if envelopes.isEmpty || envelopes[0].points.isEmpty {
                d.at(.key("envelopes")) { d in
                    d.report(
                        .emptyEnvelope,
                        envelopes.isEmpty
                            ? "envelopes is empty; a v0 clip needs an amplitude envelope (its first list)"
                            : "the amplitude envelope (envelopes[0]) has no breakpoints; a clip needs at least one",
                        at: envelopesNode.location)
                }
                return nil
            }
            if let duration {
                for (i, list) in envelopes.enumerated() {
                    guard let last = list.points.last, last.time > duration else { continue }
                    d.at(.key("envelopes")) { d in
                        d.at(.index(i)) { d in
                            d.report(
                                .breakpointOrder,
                                "a breakpoint at \(Describe.number(last.time)) s is after metadata.duration (\(Describe.number(duration)) s)",
                                at: list.node.location)
                        }
                    }
                }
            }
            var transients: [(point: V0Point, frequency: Float)] = []
            if let node = fields.last(where: { $0.key == "transients" }), node.value.kind != .null {
                transients = d.at(.key("transients")) { d in d.v0Transients(node.value) }
            }
            return d.upgrade(
                amplitude: envelopes[0].points, frequency: envelopes.count > 1 ? envelopes[1].points : [],
                transients: transients, duration: duration, editor: editor)
        }
    }

    /// A list of breakpoint lists (`envelopes` or `transients`), each breakpoint `time` and
    /// `amplitude` in 0...1, each list in ascending time.
    mutating func v0Lists(_ node: JSONNode, name: String) -> [(node: JSONNode, points: [V0Point])]? {
        guard case .array(let lists) = node.kind else {
            report(
                .wrongType, "\(name) must be an array of breakpoint lists, found \(Describe.node(node))",
                at: node.location)
            return nil
        }
        var result: [(node: JSONNode, points: [V0Point])] = []
        for (i, list) in lists.enumerated() {
            let points = at(.index(i)) { d in
                d.envelope(
                    list, name: name, known: ["time", "amplitude"],
                    { d, fields, item, t -> V0Point? in
                        guard let an = d.required("amplitude", in: fields, of: "the breakpoint", at: item.location),
                            let a = d.at(.key("amplitude"), { $0.unit(an, name: "amplitude") })
                        else { return nil }
                        return V0Point(time: t, value: a, path: JSONPath(d.path), location: item.location)
                    }, time: \.time)
            }
            result.append((list, points))
        }
        return result
    }

    /// `transients`: an amplitude list and a frequency list whose breakpoints pair up one to one,
    /// at the same times (Lofelt's v0 validation).
    mutating func v0Transients(_ node: JSONNode) -> [(point: V0Point, frequency: Float)] {
        guard let lists = v0Lists(node, name: "transients"), !lists.isEmpty else { return [] }
        guard lists.count == 2 else {
            report(
                .transientMismatch,
                "transients has \(lists.count) list\(lists.count == 1 ? "" : "s"); it needs two, amplitudes then frequencies",
                at: node.location)
            return []
        }
        let (amplitudes, frequencies) = (lists[0].points, lists[1].points)
        guard amplitudes.count == frequencies.count else {
            report(
                .transientMismatch,
                "transients has \(amplitudes.count) amplitudes and \(frequencies.count) frequencies; they must pair up",
                at: node.location)
            return []
        }
        var result: [(point: V0Point, frequency: Float)] = []
        for (i, (a, f)) in zip(amplitudes, frequencies).enumerated() {
            guard a.time == f.time else {
                at(.index(1)) { d in
                    d.at(.index(i)) { d in
                        d.report(
                            .transientMismatch,
                            "transient \(i)'s frequency is at \(Describe.number(f.time)) s but its amplitude at \(Describe.number(a.time)) s",
                            at: lists[1].node.location)
                    }
                }
                return []
            }
            result.append((a, f.value))
        }
        return result
    }

    /// The v1 clip Lofelt's upgrade makes of a v0 clip, with unmatched transients kept as impulses.
    mutating func upgrade(
        amplitude: [V0Point], frequency: [V0Point], transients: [(point: V0Point, frequency: Float)],
        duration: Double?, editor: JSONValue?
    ) -> HapticClip {
        var points = amplitude.map { HapticClip.AmplitudeBreakpoint(time: $0.time, amplitude: $0.value) }
        if let duration, let last = points.last, duration > last.time {
            points.append(HapticClip.AmplitudeBreakpoint(time: duration, amplitude: last.amplitude))
        }
        var impulses: [HapticClip.Impulse] = []
        for (point, frequency) in transients {
            if let i = points.firstIndex(where: { $0.time == point.time && $0.emphasis == nil }) {
                points[i].emphasis = HapticClip.Emphasis(amplitude: point.value, frequency: frequency)
            } else {
                impulses.append(HapticClip.Impulse(time: point.time, amplitude: point.value, frequency: frequency))
                diagnostics.append(
                    Diagnostic(
                        .transientUnmatched,
                        "the transient at \(Describe.number(point.time)) s is at no amplitude breakpoint's time; Lofelt's upgrade drops it, here it plays as an impulse",
                        at: point.path, location: point.location))
            }
        }
        var metadata: OrderedDictionary<String, JSONValue> = [:]
        if let editor { metadata["editor"] = editor }
        return HapticClip(
            metadata: metadata, amplitude: points,
            frequency: frequency.map { HapticClip.FrequencyBreakpoint(time: $0.time, frequency: $0.value) },
            impulses: impulses)
    }
}

/// One breakpoint of a v0 list, with where it stands (for findings about it after the walk).
struct V0Point {
    var time: Double
    var value: Float
    var path: JSONPath
    var location: SourceLocation
}
