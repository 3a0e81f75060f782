/// A pattern file decoded one `Pattern` entry at a time, for a tool that keeps each entry's
/// result and decodes again only the entries an edit changes (the studio, on a 10-minute pattern).
///
/// Each function gives exactly what ``AHAP/decode(_:file:limits:)`` gives for the same entry in
/// its file: the same element, the same findings with the same paths, locations and messages.
/// The rules that look across entries (the `inaudible-event` note under the controls, the
/// pattern's length) are offered as parts, so that the caller puts them together.
@_spi(Tooling) public enum AHAPEntries {
    /// One entry's element and findings.
    public struct Entry: Sendable {
        /// Nil when the entry does not decode (an error), or holds no element (a warning).
        public var element: PatternElement?
        /// The entry's own findings, in document order; the `inaudible-event` note is not among
        /// them (it depends on the other entries).
        public var diagnostics: [Diagnostic]
    }

    /// Decodes `bytes`, the text of the entry `Pattern[index]` of a file whose first byte is at
    /// `start` in that file. Nil when the text is not one JSON value within `limits` (the whole
    /// file is then refused, which the caller must find by decoding it).
    public static func decode(_ bytes: [UInt8], index: Int, start: SourceLocation, limits: AHAPLimits = .default)
        -> Entry?
    {
        // The entry is two levels down in its file (the top-level object, the Pattern array).
        guard limits.maxNestingDepth > 2,
            let document = try? JSONParser.parse(
                bytes, maxDepth: limits.maxNestingDepth - 2, maxStringBytes: limits.maxStringBytes, start: start)
        else { return nil }
        let prefix: [JSONPath.Component] = [.key("Pattern"), .index(index)]
        var decoder = AHAPDecoder(limits: limits, tree: document.tree)
        decoder.diagnostics = document.warnings.map { warning in
            var warning = warning
            warning.path = JSONPath(prefix + warning.path.components)
            return warning
        }
        decoder.path = [.key("Pattern"), .index(index)]
        let element = decoder.decodeElement(document.tree.root)
        return Entry(element: element, diagnostics: AHAPDecoder.documentOrder(decoder.diagnostics))
    }

    /// The effective intensity (haptic) or volume (audio) under which an event is noted as
    /// inaudible.
    public static var inaudibleLevel: Float { AHAPDecoder.inaudibleLevel }

    /// The highest effective intensity (haptic events) or volume (audio events) of `event` over
    /// its span under `controls`.
    public static func loudest(of event: HapticEvent, under controls: ParameterTimelines) -> Float {
        AHAPDecoder.loudest(of: event, under: controls)
    }

    /// The `inaudible-event` note of the event of `Pattern[index]`, whose entry starts at
    /// `location`, when `loudest` is under ``inaudibleLevel``.
    public static func inaudibleNote(_ event: HapticEvent, loudest: Float, index: Int, location: SourceLocation)
        -> Diagnostic?
    {
        guard loudest < AHAPDecoder.inaudibleLevel else { return nil }
        return AHAPDecoder.inaudibleNote(
            event, loudest: loudest, at: JSONPath([.key("Pattern"), .index(index)]), location: location)
    }

    /// The error for a pattern longer than `limits` allow, at the `Pattern` array's location.
    public static func durationFinding(_ duration: Double, location: SourceLocation, limits: AHAPLimits = .default)
        -> Diagnostic?
    {
        AHAPDecoder.durationFinding(duration, location: location, limits: limits)
    }
}
