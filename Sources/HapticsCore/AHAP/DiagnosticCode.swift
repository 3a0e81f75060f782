extension Diagnostic {
    /// A lint rule: a stable kebab-case name (`value-clamped`), the severity it has unless a
    /// configuration changes it, and one line saying what it catches.
    ///
    /// Every rule is a static member and is listed in `all`, which `haptic lint --rules` prints
    /// and docs/ahap-support.md documents (a test keeps the two in step). A name read from a
    /// flag or a config file becomes a rule through `init?(rawValue:)`, which knows only the
    /// listed rules.
    ///
    /// ```swift
    /// if finding.code == .valueClamped { ... }
    /// Diagnostic.Code(rawValue: "value-clamped")?.defaultSeverity  // .warning
    /// ```
    public struct Code: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
        public let rawValue: String
        /// The severity a finding of this rule has unless a configuration changes it.
        public let defaultSeverity: Severity
        /// What the rule catches, for `haptic lint --rules`.
        public let summary: String

        private init(_ name: String, _ severity: Severity, _ summary: String) {
            self.rawValue = name
            self.defaultSeverity = severity
            self.summary = summary
        }

        /// The listed rule with this name, or nil.
        public init?(rawValue: String) {
            guard let rule = Self.byName[rawValue] else { return nil }
            self = rule
        }

        public var description: String { rawValue }

        public static func == (a: Code, b: Code) -> Bool { a.rawValue == b.rawValue }
        public func hash(into hasher: inout Hasher) { hasher.combine(rawValue) }
        public static func < (a: Code, b: Code) -> Bool { a.rawValue < b.rawValue }

        // MARK: JSON

        public static let jsonSyntax = Code("json-syntax", .error, "text that no JSON reader accepts")
        public static let invalidUTF8 = Code("invalid-utf8", .error, "bytes that are not UTF-8")
        public static let numberOutOfRange = Code(
            "number-out-of-range", .error, "a number that does not fit a 64-bit floating-point number")
        public static let limitExceeded = Code(
            "limit-exceeded", .error, "the file is larger, longer or deeper than AHAPLimits allows")
        public static let bom = Code("bom", .warning, "a UTF-8 byte order mark before the JSON")
        public static let duplicateKey = Code("duplicate-key", .warning, "a key given twice in one object")
        public static let trailingComma = Code(
            "trailing-comma", .warning, "a comma after the last member or element (read; strict JSON refuses it)")
        public static let comment = Code(
            "comment", .warning, "a // or /* */ comment (skipped; strict JSON refuses it)")
        public static let nullValue = Code("null-value", .note, "a key whose value is null, read as absent")
        public static let numberAsString = Code(
            "number-as-string", .warning, "a number written as a string (\"0.5\"), read as the number")

        // MARK: Structure

        public static let wrongType = Code("wrong-type", .error, "a value of the wrong JSON type")
        public static let missingKey = Code("missing-key", .error, "a required key is missing")
        public static let unknownKey = Code("unknown-key", .warning, "a key Core Haptics does not know (ignored)")
        public static let missingVersion = Code("missing-version", .note, "no Version (read as version 1)")
        public static let unknownVersion = Code("unknown-version", .warning, "a Version other than 1")
        public static let emptyPattern = Code("empty-pattern", .warning, "a Pattern with no entries")
        public static let emptyElement = Code(
            "empty-element", .warning, "a Pattern entry with none of Event, Parameter, ParameterCurve")
        public static let ambiguousElement = Code(
            "ambiguous-element", .error, "a Pattern entry with more than one of Event, Parameter, ParameterCurve")

        // MARK: Events

        public static let negativeTime = Code("negative-time", .error, "a negative Time")
        public static let negativeDuration = Code("negative-duration", .error, "a negative EventDuration")
        public static let unknownEventType = Code(
            "unknown-event-type", .error, "an EventType Core Haptics does not know")
        public static let missingDuration = Code(
            "missing-duration", .error, "a continuous event without EventDuration")
        public static let zeroDuration = Code("zero-duration", .warning, "a continuous event lasting 0 s")
        public static let durationTooLong = Code(
            "duration-too-long", .warning, "a continuous event longer than 30 s (a device stops it at 30 s)")
        public static let transientDuration = Code(
            "transient-duration", .warning, "an EventDuration on a HapticTransient (it only pads the pattern)")
        public static let duplicateParameter = Code(
            "duplicate-parameter", .warning, "an event parameter given twice in one event")
        public static let missingWaveform = Code(
            "missing-waveform", .error, "an AudioCustom event without an EventWaveformPath")
        public static let waveformIgnored = Code(
            "waveform-ignored", .warning, "an EventWaveformPath on an event that is not AudioCustom")
        public static let waveformNotFound = Code(
            "waveform-not-found", .error,
            "an AudioCustom waveform that is not in the pattern's folder or a --waveforms folder")
        public static let waveformPath = Code(
            "waveform-path", .error, "an EventWaveformPath that is absolute or leads outside its folder")
        public static let waveformUnreadable = Code(
            "waveform-unreadable", .error, "a waveform that is not a usable WAV")
        public static let waveformNotDecoded = Code(
            "waveform-not-decoded", .error,
            "a waveform Core Haptics plays that this build does not decode (AAC, CAF, AIFF, MP3, FLAC)")

        // MARK: Parameters and curves

        public static let valueClamped = Code("value-clamped", .warning, "a value outside its range (clamped)")
        public static let valueOvershoot = Code(
            "value-overshoot", .note, "a value at most 25 % of its range outside it (clamped, as Core Haptics does)")
        public static let inaudibleEvent = Code(
            "inaudible-event", .note, "an event whose intensity or volume, as its control leaves it, stays under 0.04")
        public static let unknownParameterID = Code(
            "unknown-parameter-id", .error, "a ParameterID Core Haptics does not know")
        public static let missingValue = Code(
            "missing-value", .warning, "a parameter without ParameterValue (the default applies)")
        public static let booleanValue = Code("boolean-value", .warning, "Sustained written as true/false")
        public static let sustainedNotBoolean = Code(
            "sustained-not-boolean", .warning, "Sustained neither 0 nor 1")
        public static let parameterNotApplicable = Code(
            "parameter-not-applicable", .warning, "an event parameter that has no effect on its event type")
        public static let emptyCurve = Code("empty-curve", .error, "a ParameterCurve without control points")
        public static let tooManyControlPoints = Code(
            "too-many-control-points", .note, "a ParameterCurve with more points than Apple's tooling writes (16)")
        public static let curveUnsorted = Code(
            "curve-unsorted", .warning, "control points not in ascending Time (sorted)")
        public static let curveStartNotZero = Code(
            "curve-start-not-zero", .note, "a curve whose first control point is after 0")

        // MARK: .haptic clips

        public static let clipVersion = Code(
            "clip-version", .error, "a .haptic clip whose version is not 1 (or a v0 VIJ clip)")
        public static let clipUpgraded = Code(
            "clip-upgraded", .note, "a v0 (VIJ) clip, read through Lofelt's upgrade to data model v1")
        public static let transientMismatch = Code(
            "transient-mismatch", .error, "v0 transients whose amplitude and frequency lists do not pair up")
        public static let transientUnmatched = Code(
            "transient-unmatched", .warning,
            "a v0 transient at no amplitude breakpoint's time (Lofelt's upgrade drops it; kept as an impulse)")
        public static let emptyEnvelope = Code(
            "empty-envelope", .error, "a .haptic clip whose amplitude envelope has no breakpoints")
        public static let breakpointOrder = Code(
            "breakpoint-order", .error, "a .haptic breakpoint earlier than the one before it")
        public static let zeroLengthClip = Code(
            "zero-length-clip", .error, "a .haptic clip whose amplitude envelope lasts 0 s")
        public static let tooFewBreakpoints = Code(
            "too-few-breakpoints", .error, "a .haptic amplitude envelope of a single breakpoint")
        public static let frequencyPastEnd = Code(
            "frequency-past-end", .note,
            "a .haptic frequency breakpoint outside the amplitude envelope (players ignore it; exporters write it)")
        public static let valueOutOfRange = Code(
            "value-out-of-range", .error, "a .haptic amplitude or frequency outside 0...1")

        // MARK: Files

        public static let fileNotFound = Code("file-not-found", .error, "a file that does not exist")
        public static let fileUnreadable = Code("file-unreadable", .error, "a file that cannot be read")
        public static let fileTooLarge = Code("file-too-large", .error, "a file over the size limit")
        public static let orderLogLine = Code(
            "order-log-line", .error, "a line of an order log (haptic review) that is not a log entry")

        /// Every rule, in the order `haptic lint --rules` lists them.
        public static let all: [Code] = [
            .jsonSyntax, .invalidUTF8, .numberOutOfRange, .limitExceeded, .bom, .duplicateKey, .trailingComma,
            .comment, .nullValue, .numberAsString,
            .wrongType, .missingKey, .unknownKey, .missingVersion, .unknownVersion, .emptyPattern, .emptyElement,
            .ambiguousElement,
            .negativeTime, .negativeDuration, .unknownEventType, .missingDuration, .zeroDuration, .durationTooLong,
            .transientDuration, .duplicateParameter, .missingWaveform, .waveformIgnored, .waveformNotFound,
            .waveformPath, .waveformUnreadable, .waveformNotDecoded,
            .valueClamped, .valueOvershoot, .inaudibleEvent, .unknownParameterID, .missingValue, .booleanValue,
            .sustainedNotBoolean,
            .parameterNotApplicable, .emptyCurve, .tooManyControlPoints, .curveUnsorted, .curveStartNotZero,
            .clipVersion, .clipUpgraded, .transientMismatch, .transientUnmatched, .emptyEnvelope, .breakpointOrder,
            .zeroLengthClip, .tooFewBreakpoints, .frequencyPastEnd, .valueOutOfRange,
            .fileNotFound, .fileUnreadable, .fileTooLarge, .orderLogLine,
        ]

        private static let byName: [String: Code] = Dictionary(
            all.map { ($0.rawValue, $0) }, uniquingKeysWith: { a, _ in a })
    }
}
