/// Why bytes could not be read as a WAV file, and where.
///
/// The message says what was wrong and, where it helps, how to fix it; `byteOffset` is the
/// position in the input at which the problem was found (the start of the offending chunk or field).
///
/// ```swift
/// do { _ = try WAV.decode(bytes) } catch {
///     print(error)  // not a WAV file: expected "RIFF" or "RF64", found bytes 49 44 33 03 (at byte 0)
/// }
/// ```
public struct WAVError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The kind of problem, for callers that branch on it.
    public enum Code: String, Hashable, Sendable {
        /// The bytes are not a RIFF/RF64 WAVE file at all.
        case notWAV
        /// The file ends inside a header or chunk.
        case truncated
        /// A chunk or field holds a value that cannot be right (zero channels, inconsistent sizes).
        case malformed
        /// A well-formed file in an encoding this reader does not decode (e.g. ADPCM, 12-bit float).
        case unsupported
        /// A required chunk (`fmt `, `data`) is missing.
        case missingChunk
    }

    /// The kind of problem.
    public var code: Code
    /// What went wrong, in words, without the offset.
    public var message: String
    /// Byte offset in the input where the problem was found.
    public var byteOffset: Int

    /// An error of kind `code` found at `byteOffset`.
    public init(_ code: Code, _ message: String, at byteOffset: Int) {
        self.code = code
        self.message = message
        self.byteOffset = byteOffset
    }

    /// `message` followed by the byte offset, e.g. `"fmt chunk declares 0 channels (at byte 22)"`.
    public var description: String { "\(message) (at byte \(byteOffset))" }
}
