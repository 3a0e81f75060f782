/// The limits the AHAP reader enforces, so that a hostile or broken file fails
/// fast with a clear `limit-exceeded` error instead of exhausting memory or time.
///
/// ```swift
/// var limits = AHAPLimits.default
/// limits.maxEvents = 1_000
/// let doc = try AHAP.decode(bytes, file: "tap.ahap", limits: limits)
/// ```
public struct AHAPLimits: Hashable, Sendable {
    /// The largest file accepted, in bytes (16 MiB). Callers should check the
    /// file size before reading it; `decode` checks again.
    public var maxFileBytes: Int
    /// The most `Event` entries in one pattern (100,000).
    public var maxEvents: Int
    /// The longest pattern, in seconds (3600): `HapticPattern.duration`.
    public var maxDuration: Double
    /// The most control points in one `ParameterCurve` (100,000): a guard against hostile
    /// input, not a Core Haptics rule (Apple documents no maximum; its tooling writes 16).
    public var maxControlPoints: Int
    /// The control points Core Haptics tooling puts in one curve (16); more is a note.
    public var recommendedControlPoints: Int
    /// How deeply arrays and objects may nest (64; AHAP itself needs 6).
    public var maxNestingDepth: Int
    /// The longest string or key, in UTF-8 bytes (64 KiB).
    public var maxStringBytes: Int
    /// Apple's maximum for a continuous event, in seconds (30); longer is a warning.
    public var maxContinuousDuration: Double

    public init(
        maxFileBytes: Int = 16 << 20,
        maxEvents: Int = 100_000,
        maxDuration: Double = 3600,
        maxControlPoints: Int = 100_000,
        recommendedControlPoints: Int = 16,
        maxNestingDepth: Int = 64,
        maxStringBytes: Int = 64 << 10,
        maxContinuousDuration: Double = 30
    ) {
        self.maxFileBytes = maxFileBytes
        self.maxEvents = maxEvents
        self.maxDuration = maxDuration
        self.maxControlPoints = maxControlPoints
        self.recommendedControlPoints = recommendedControlPoints
        self.maxNestingDepth = maxNestingDepth
        self.maxStringBytes = maxStringBytes
        self.maxContinuousDuration = maxContinuousDuration
    }

    /// The defaults listed above.
    public static let `default` = AHAPLimits()
}

/// Why an AHAP file cannot be used: the first error, where it is, and
/// everything else that was found.
///
/// Prints as `FILE:PATH: error: MESSAGE (line L, column C)`, leaving out what
/// is unknown.
public struct AHAPError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file name the caller passed to `decode`, if any.
    public var file: String?
    /// Where in the JSON document, e.g. `Pattern[3].Event.EventDuration`.
    public var path: JSONPath
    /// Where in the file, when known.
    public var location: SourceLocation?
    /// The rule that failed, e.g. `wrong-type`, `json-syntax`, `limit-exceeded`.
    public var code: Diagnostic.Code
    /// What is wrong, naming the offending value.
    public var message: String
    /// Every finding, errors and warnings, in document order (for the linter).
    public var diagnostics: [Diagnostic]

    public init(
        file: String?, path: JSONPath, location: SourceLocation? = nil, code: Diagnostic.Code, message: String,
        diagnostics: [Diagnostic] = []
    ) {
        self.file = file
        self.path = path
        self.location = location
        self.code = code
        self.message = message
        self.diagnostics = diagnostics
    }

    init(_ diagnostic: Diagnostic, file: String?, diagnostics: [Diagnostic]) {
        self.init(
            file: file, path: diagnostic.path, location: diagnostic.location, code: diagnostic.code,
            message: diagnostic.message, diagnostics: diagnostics)
    }

    /// The error itself as one finding, for a report that lists it among others.
    public var diagnostic: Diagnostic {
        Diagnostic(.error, code: code, message, at: path, location: location)
    }

    public var description: String { diagnostic.formatted(file: file) }
}

/// A decoded AHAP file: the pattern and the warnings about what was tolerated.
public struct AHAPDocument: Hashable, Sendable {
    public var pattern: HapticPattern
    /// Warnings only (a document exists only when there were no errors), in document order.
    public var diagnostics: [Diagnostic]

    public init(pattern: HapticPattern, diagnostics: [Diagnostic]) {
        self.pattern = pattern
        self.diagnostics = diagnostics
    }
}

/// Reading, linting and writing AHAP (Apple Haptic and Audio Pattern) files.
///
/// ```swift
/// let doc = try AHAP.decode(bytes, file: "Boing.ahap")
/// for warning in doc.diagnostics { print(warning.formatted(file: "Boing.ahap")) }
/// let again = AHAP.encode(doc.pattern)  // pretty-printed, stable key order
/// ```
public enum AHAP {
    /// Decodes an AHAP file; throws the first error (with all diagnostics attached);
    /// warnings land in the document.
    ///
    /// Core Haptics' tolerance is kept (unknown keys ignored, out-of-range values
    /// clamped, missing values defaulted) and reported as warnings.
    ///
    /// - Complexity: O(n) in the file size.
    public static func decode(
        _ bytes: [UInt8], file: String? = nil, limits: AHAPLimits = .default
    ) throws(AHAPError) -> AHAPDocument {
        let (pattern, diagnostics) = AHAPDecoder.run(bytes, limits: limits)
        if let firstError = diagnostics.first(where: { $0.severity == .error }) {
            throw AHAPError(firstError, file: file, diagnostics: diagnostics)
        }
        // No error means the decoder produced a pattern.
        return AHAPDocument(pattern: pattern ?? HapticPattern(), diagnostics: diagnostics)
    }

    /// Every finding, errors and warnings, in document order; never throws.
    ///
    /// - Complexity: O(n) in the file size.
    public static func lint(
        _ bytes: [UInt8], file: String? = nil, limits: AHAPLimits = .default
    ) -> [Diagnostic] {
        AHAPDecoder.run(bytes, limits: limits).diagnostics
    }

    /// Valid, pretty-printed AHAP: 4-space indent; keys in a stable order
    /// (`Version`, `Metadata`, `Pattern`; in events `Time`, `EventType`,
    /// `EventDuration`, `EventParameters`, `EventWaveformPath`, ...); numbers in
    /// their shortest round-trip form (`1`, not `1.0`). Waveform flags are written
    /// only when they differ from Apple's defaults.
    ///
    /// `decode(encode(p)).pattern == p` for every pattern `decode` produces.
    ///
    /// - Complexity: O(n) in the pattern size.
    public static func encode(_ pattern: HapticPattern) -> [UInt8] {
        var writer = AHAPWriter()
        writer.write(pattern)
        return writer.out
    }
}

extension Diagnostic {
    /// The linter's line: `FILE:PATH: severity: message (line L, column C)`,
    /// leaving out the file and the position when they are unknown.
    ///
    /// ```swift
    /// print(d.formatted(file: "invalid.ahap"))
    /// // invalid.ahap:Pattern[1].ParameterCurves: warning: unknown key "ParameterCurves" ... (line 20, column 13)
    /// ```
    public func formatted(file: String?) -> String {
        var out = ""
        if let file { out += file + ":" }
        out += "\(path): \(severity.rawValue)[\(code)]: \(message)"
        if let location { out += " (line \(location.line), column \(location.column))" }
        return out
    }
}
