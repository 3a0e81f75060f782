import Foundation
public import HapticsCore
public import HapticsSynthesis

/// An AHAP file read from disk, with the audio its AudioCustom events play.
///
/// Reading checks the file's size against the limits before it reads a byte, decodes it
/// strictly (warnings are kept in `diagnostics`), and loads every `EventWaveformPath`
/// relative to the AHAP file's own folder. A path that leaves that folder (`../`, an
/// absolute path, a symbolic link pointing outside) is refused.
///
/// ```swift
/// let file = try PatternFile.load("Patterns/examples/sharp-tap.ahap")
/// print(file.pattern.duration, file.diagnostics.count)
/// ```
public struct PatternFile: Sendable {
    /// The path as the user gave it; messages name the file this way.
    public let path: String
    /// The decoded pattern.
    public let pattern: HapticPattern
    /// Everything the reader tolerated (errors are thrown instead).
    public let diagnostics: [Diagnostic]
    /// Decoded waveforms, keyed by `EventWaveformPath` as written in the file.
    public let clips: [String: AudioClip]
    /// The Meta/Lofelt clip the pattern was mapped from, when the file is a `.haptic` clip.
    public let clip: HapticClip?
    /// Waveforms read while they play (`haptic play SOUND`'s sound), keyed as `clips`.
    public var feeds: [String: ClipFeed] = [:]

    public init(
        path: String, pattern: HapticPattern, diagnostics: [Diagnostic] = [], clips: [String: AudioClip] = [:],
        clip: HapticClip? = nil
    ) {
        self.path = path
        self.pattern = pattern
        self.diagnostics = diagnostics
        self.clips = clips
        self.clip = clip
    }

    /// `haptic` for a Meta/Lofelt clip, else `ahap`.
    public var format: String { clip == nil ? "ahap" : "haptic" }

    /// Largest waveform file an AudioCustom event may reference.
    public static let maxWaveformBytes = 64 << 20

    /// What to do about an AudioCustom waveform that cannot be found.
    public enum MissingWaveforms: Sendable {
        /// Throw a `waveform-not-found` error (the linter, the CoreHaptics API).
        case fail
        /// Leave the event silent and add one `waveform-not-found` warning per waveform to
        /// `diagnostics`, so the rest of the pattern still plays (render, play, info, plot, review).
        case skip
    }

    /// Reads, decodes and resolves the AHAP file at `path`.
    ///
    /// Waveforms are looked for in the AHAP file's folder, then in each of `waveformFolders`
    /// in order; a waveform path may not leave the folder it is found in.
    /// - Throws: `AHAPError` naming the file and, for content problems, the JSON path and line.
    public static func load(
        _ path: String, limits: AHAPLimits = .default, waveformFolders: [String] = [],
        missingWaveforms: MissingWaveforms = .fail
    ) throws(AHAPError) -> PatternFile {
        let bytes = try readFile(path, limit: limits.maxFileBytes, what: kind(path), file: path, at: .root)
        let (document, clip) = try decodeAny(bytes, path: path, limits: limits)
        var diagnostics = document.diagnostics
        let clips = try loadWaveforms(
            of: document.pattern, source: path, searched: [folder(of: path)] + waveformFolders, absolutePaths: false,
            hint: "--waveforms DIR adds a folder to look in", missing: missingWaveforms, skip: { _ in false },
            diagnostics: &diagnostics, text: clip == nil ? bytes : nil)
        return PatternFile(path: path, pattern: document.pattern, diagnostics: diagnostics, clips: clips, clip: clip)
    }

    /// Every finding about the file at `path` (errors and warnings, the waveform checks included)
    /// and, when there is no error, the loaded file: what the linter and the review page need,
    /// from one read and one parse. With `missingWaveforms: .skip` a missing waveform is a
    /// warning and the file still loads.
    public static func inspect(
        _ path: String, limits: AHAPLimits = .default, waveformFolders: [String] = [],
        missingWaveforms: MissingWaveforms = .fail
    ) -> (findings: [Diagnostic], file: PatternFile?) {
        let bytes: [UInt8]
        let document: AHAPDocument
        let clip: HapticClip?
        do {
            bytes = try readFile(path, limit: limits.maxFileBytes, what: kind(path), file: path, at: .root)
            (document, clip) = try decodeAny(bytes, path: path, limits: limits)
        } catch {
            return (error.diagnostics.isEmpty ? [error.diagnostic] : error.diagnostics, nil)
        }
        var diagnostics = document.diagnostics
        do {
            // Every waveform found nowhere is one finding (an error when missing ones fail), not
            // the first only, so lint lists them all as the studio does.
            let clips = try loadWaveforms(
                of: document.pattern, source: path, searched: [folder(of: path)] + waveformFolders,
                absolutePaths: false, hint: "--waveforms DIR adds a folder to look in", missing: missingWaveforms,
                skip: { _ in false }, diagnostics: &diagnostics, reportEach: true, text: clip == nil ? bytes : nil)
            guard
                !diagnostics.contains(where: {
                    $0.severity == .error && ($0.code == .waveformNotFound || $0.code == .waveformNotDecoded)
                })
            else {
                return (diagnostics, nil)
            }
            let file = PatternFile(
                path: path, pattern: document.pattern, diagnostics: diagnostics, clips: clips, clip: clip)
            return (diagnostics, file)
        } catch {
            return (diagnostics + [error.diagnostic], nil)
        }
    }

    /// What messages call the file at `path`.
    static func kind(_ path: String) -> String {
        let lower = path.lowercased()
        return lower.hasSuffix(".haptic") ? ".haptic file" : lower.hasSuffix(".vij") ? "v0 clip (.vij)" : "AHAP file"
    }

    /// Whether the file at `path` with content `bytes` is a Meta/Lofelt `.haptic` clip (or a v0
    /// `.vij` clip): by its extension, else (for any other name) by its content.
    public static func isHapticClip(path: String, bytes: [UInt8]) -> Bool {
        let lower = path.lowercased()
        if lower.hasSuffix(".haptic") || lower.hasSuffix(".vij") { return true }
        if lower.hasSuffix(".ahap") { return false }
        return HapticClip.looksLikeClip(bytes)
    }

    /// The one place a pattern file's bytes become a pattern: AHAP, or a `.haptic` clip mapped
    /// to a pattern (docs/formats.md).
    public static func decode(_ bytes: [UInt8], path: String, limits: AHAPLimits = .default) throws(AHAPError)
        -> AHAPDocument
    {
        try decodeAny(bytes, path: path, limits: limits).document
    }

    static func decodeAny(_ bytes: [UInt8], path: String, limits: AHAPLimits) throws(AHAPError) -> (
        document: AHAPDocument, clip: HapticClip?
    ) {
        guard isHapticClip(path: path, bytes: bytes) else {
            return (try AHAP.decode(bytes, file: path, limits: limits), nil)
        }
        let clip = try HapticClip.decode(bytes, file: path, limits: limits)
        return (AHAPDocument(pattern: clip.clip.pattern, diagnostics: clip.diagnostics), clip.clip)
    }

    /// Loads every waveform that `pattern`'s AudioCustom events name, from `file`'s folder or
    /// one of `folders`.
    public static func loadWaveforms(
        of pattern: HapticPattern, file: String, folders: [String] = [], missing: MissingWaveforms = .fail,
        diagnostics: inout [Diagnostic]
    ) throws(AHAPError) -> [String: AudioClip] {
        try loadWaveforms(
            of: pattern, source: file, searched: [folder(of: file)] + folders, absolutePaths: false,
            hint: "--waveforms DIR adds a folder to look in", missing: missing, skip: { _ in false },
            diagnostics: &diagnostics)
    }

    /// Loads `pattern`'s waveforms as Core Haptics resolves them: an absolute `EventWaveformPath`
    /// is read where it points; any other is looked for in each of `folders` in order (for a
    /// pattern read from a file, its folder first) and may not leave the folder it is found in.
    /// Paths `skip` accepts are left to the caller. `source` names the pattern in messages, and
    /// `hint` ends the message for a waveform that is found nowhere.
    public static func loadWaveforms(
        of pattern: HapticPattern, source: String, folders: [String], absolutePaths: Bool, hint: String,
        skip: (String) -> Bool = { _ in false }
    ) throws(AHAPError) -> [String: AudioClip] {
        var diagnostics: [Diagnostic] = []
        return try loadWaveforms(
            of: pattern, source: source, searched: folders, absolutePaths: absolutePaths, hint: hint, missing: .fail,
            skip: skip, diagnostics: &diagnostics)
    }

    /// The folder of the file at `path` as the user typed it ("." for a bare name).
    public static func folder(of path: String) -> String {
        path.lastIndex(of: "/").map { $0 == path.startIndex ? "/" : String(path[..<$0]) } ?? "."
    }

    private static func loadWaveforms(
        of pattern: HapticPattern, source file: String, searched: [String], absolutePaths: Bool, hint: String,
        missing: MissingWaveforms, skip: (String) -> Bool, diagnostics: inout [Diagnostic], reportEach: Bool = false,
        text: [UInt8]? = nil
    ) throws(AHAPError) -> [String: AudioClip] {
        var clips: [String: AudioClip] = [:]
        var absent: Set<String> = []
        var locator = WaveformLocator(text: text)
        for (index, element) in pattern.elements.enumerated() {
            guard case .event(let event) = element, event.type == .audioCustom,
                let waveform = event.waveformPath, clips[waveform] == nil, !absent.contains(waveform), !skip(waveform)
            else { continue }
            let at = JSONPath.root.key("Pattern").index(index).key("Event").key("EventWaveformPath")
            // The line and column, as the decoder's findings have them, only once a finding needs one.
            var place: SourceLocation? { locator.location(ofElement: index) }
            let found: String?
            if absolutePaths && waveform.hasPrefix("/") {
                found = FileManager.default.fileExists(atPath: waveform) ? waveform : nil
            } else {
                found = try resolve(waveform, in: searched, file: file, at: at)
            }
            guard let resolved = found else {
                let places = waveform.hasPrefix("/") ? "its absolute path" : searched.joined(separator: ", ")
                let message = "waveform '\(waveform)' not found (looked in \(places))"
                if missing == .fail && reportEach {
                    absent.insert(waveform)
                    diagnostics.append(
                        Diagnostic(.error, code: .waveformNotFound, message + "; " + hint, at: at, location: place))
                    continue
                }
                if missing == .fail {
                    throw AHAPError(
                        file: file, path: at, location: place, code: .waveformNotFound,
                        message: message + "; " + hint, diagnostics: [])
                }
                absent.insert(waveform)
                diagnostics.append(
                    Diagnostic(
                        .warning, code: .waveformNotFound,
                        message + "; playing the rest without it (\(hint))", at: at, location: place))
                continue
            }
            let bytes = try readFile(resolved, limit: maxWaveformBytes, what: "waveform", file: file, at: at)
            switch decodeWaveform(bytes, named: waveform) {
            case .clip(let clip): clips[waveform] = clip
            case .notDecoded(let message):
                // As a missing waveform: an error where missing ones fail, else the rest plays.
                absent.insert(waveform)
                if missing == .fail && !reportEach {
                    throw AHAPError(
                        file: file, path: at, location: place, code: .waveformNotDecoded, message: message,
                        diagnostics: [])
                }
                diagnostics.append(
                    Diagnostic(
                        missing == .fail ? .error : .warning, code: .waveformNotDecoded, message, at: at,
                        location: place))
            case .unreadable(let message):
                throw AHAPError(
                    file: file, path: at, location: nil, code: .waveformUnreadable, message: message, diagnostics: [])
            }
        }
        return clips
    }

    /// Where `EventWaveformPath` values are in an AHAP file's text, for findings' line and column.
    /// The text is parsed once, when the first place is asked for, so a file naming thousands of
    /// missing waveforms costs one parse, not one per finding.
    public struct WaveformLocator {
        private let text: [UInt8]?
        /// The parsed tree and the `Pattern` array's element slots; nil until asked, then
        /// `.some(nil)` when the text has no such array.
        private var parsed: (tree: JSONTree, entries: Range<Int>)??

        /// `text`: the AHAP file's bytes; nil (a `.haptic` clip, or none at hand) finds nothing.
        public init(text: [UInt8]?) { self.text = text }

        /// Where the `EventWaveformPath` value of the event at `Pattern[element]` is; nil when
        /// it cannot be told.
        public mutating func location(ofElement element: Int) -> SourceLocation? {
            if parsed == nil {
                parsed = .some(
                    text.flatMap { bytes in
                        guard let document = try? JSONParser.parse(bytes) else { return nil }
                        let tree = document.root.tree
                        return tree.field(tree.root, "Pattern").map { (tree, tree.elements($0)) }
                    })
            }
            guard case .some(.some(let (tree, entries))) = parsed, element < entries.count,
                let event = tree.field(entries.lowerBound + element, "Event"),
                let path = tree.field(event, "EventWaveformPath")
            else { return nil }
            return tree.location(path)
        }
    }

    /// What an AudioCustom waveform's bytes are to this build.
    public enum WaveformDecoding: Sendable {
        /// A WAV, decoded.
        case clip(AudioClip)
        /// A sound in a format Core Haptics plays (AVAudioFile reads it) that this build does not
        /// decode: treated as a missing waveform, so the rest of the pattern plays. The message
        /// names the waveform, its format and why.
        case notDecoded(String)
        /// Neither a usable WAV nor a format Core Haptics plays: Core Haptics refuses it too.
        case unreadable(String)
    }

    /// The one place an AudioCustom waveform's bytes become audio, for every command and the
    /// studio. Only WAV is decoded (no AVFoundation); the other formats AVAudioFile reads are
    /// told apart by their first bytes so they can be skipped with a finding, not refused.
    public static func decodeWaveform(_ bytes: [UInt8], named waveform: String) -> WaveformDecoding {
        if let format = audioFormatNotDecoded(bytes) {
            return .notDecoded(
                "waveform '\(waveform)' is \(format), which this build does not decode (WAV only; "
                    + "Core Haptics plays it); the rest of the pattern plays without it")
        }
        do {
            return .clip(try WAV.decode(bytes))
        } catch {
            return .unreadable("'\(waveform)' is not a usable WAV file: \(error)")
        }
    }

    /// The format of `bytes` when it is one Core Haptics plays and this build does not decode,
    /// by the container's signature; nil for WAV and for anything unknown.
    static func audioFormatNotDecoded(_ bytes: [UInt8]) -> String? {
        func ascii(_ offset: Int, _ text: String) -> Bool {
            let tag = Array(text.utf8)
            return bytes.count >= offset + tag.count && Array(bytes[offset..<offset + tag.count]) == tag
        }
        if ascii(4, "ftyp") { return "an MPEG-4 audio file (AAC or ALAC, .m4a)" }
        if ascii(0, "caff") { return "a Core Audio file (.caf)" }
        if ascii(0, "FORM") && (ascii(8, "AIFF") || ascii(8, "AIFC")) { return "an AIFF file" }
        if ascii(0, "fLaC") { return "a FLAC file" }
        if ascii(0, "ID3") { return "an MP3 file" }
        if bytes.count >= 2 && bytes[0] == 0xFF && bytes[1] & 0xE0 == 0xE0 {
            // MPEG audio frame sync: layer bits 00 are AAC in ADTS, any other an MP3 frame.
            return bytes[1] & 0x06 == 0 ? "AAC audio (ADTS)" : "an MP3 file"
        }
        return nil
    }

    /// The first of `folders` that holds `waveform`, resolved; nil when none does. A path that
    /// is absolute or leads outside the folder it is found in is refused.
    static func resolve(
        _ waveform: String, in folders: [String], file: String, at path: JSONPath
    ) throws(AHAPError) -> String? {
        func refuse(_ message: String) -> AHAPError {
            AHAPError(file: file, path: path, location: nil, code: .waveformPath, message: message, diagnostics: [])
        }
        guard !waveform.isEmpty else { throw refuse("EventWaveformPath is empty") }
        guard !waveform.hasPrefix("/") else {
            throw refuse("EventWaveformPath '\(waveform)' is absolute; give a path relative to the AHAP file's folder")
        }
        for folderPath in folders {
            let folder = URL(filePath: folderPath.isEmpty ? "." : folderPath, directoryHint: .isDirectory)
                .standardizedFileURL
            let base = folder.resolvingSymlinksInPath().path(percentEncoded: false)
            let candidate = folder.appending(path: waveform).standardizedFileURL
            guard FileManager.default.fileExists(atPath: candidate.path(percentEncoded: false)) else { continue }
            let real = candidate.resolvingSymlinksInPath().path(percentEncoded: false)
            let prefix = base.hasSuffix("/") ? base : base + "/"
            guard real.hasPrefix(prefix) else {
                throw refuse(
                    "EventWaveformPath '\(waveform)' leads outside the folder it was found in (to \(real)); refused")
            }
            return real
        }
        return nil
    }

    /// Reads a whole regular file after checking its size, so a huge file is refused, not read.
    public static func readFile(
        _ path: String, limit: Int, what: String, file: String, at jsonPath: JSONPath
    ) throws(AHAPError) -> [UInt8] {
        func fail(_ code: Diagnostic.Code, _ message: String) -> AHAPError {
            AHAPError(file: file, path: jsonPath, location: nil, code: code, message: message, diagnostics: [])
        }
        // Only a regular file is read: opening a FIFO waits for a writer, and a device or a socket
        // never ends. stat() first, then open without blocking and check the same file again.
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw fail(.fileNotFound, "\(what) '\(path)' does not exist")
        }
        if let kind = nonRegularKind(status.st_mode) {
            guard kind != "a folder" else { throw fail(.fileUnreadable, "\(what) '\(path)' is a folder") }
            throw fail(.fileUnreadable, "\(what) '\(path)' is \(kind), not a regular file; refused")
        }
        let size = Int(status.st_size)
        guard size <= limit else {
            throw fail(.fileTooLarge, "\(what) '\(path)' is \(size) bytes; the limit is \(limit) bytes")
        }
        let descriptor: CInt
        do {
            descriptor = try systemCall("open", path: path) { open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
        } catch {
            throw fail(.fileUnreadable, "cannot read \(what) '\(path)': \(error.errno)")
        }
        defer { close(descriptor) }
        guard fstat(descriptor, &status) == 0, nonRegularKind(status.st_mode) == nil else {
            throw fail(
                .fileUnreadable, "\(what) '\(path)' changed into something other than a regular file; refused")
        }
        // Straight into the array, sized by fstat: one copy from the page cache and no buffer in
        // between. One byte past the size (and on, up to one past the limit) so a file that grew
        // after the size check is read whole, or refused when it outgrew the limit.
        var bytes = [UInt8]()
        var capacity = min(Int(status.st_size), limit) + 1
        while true {
            let start = bytes.count
            let room = capacity - start
            var failure: SystemCallError?
            let read = [UInt8](unsafeUninitializedCapacity: room) { buffer, initialized in
                var total = 0
                while total < room {
                    do throws(SystemCallError) {
                        let n = try systemCall("read", path: path) {
                            Glibc.read(descriptor, buffer.baseAddress! + total, room - total)
                        }
                        if n == 0 { break }
                        total += n
                    } catch {
                        failure = error
                        break
                    }
                }
                initialized = total
            }
            if let failure {
                throw fail(.fileUnreadable, "cannot read \(what) '\(path)': \(failure.errno)")
            }
            if start == 0 { bytes = read } else { bytes += read }
            guard bytes.count <= limit else {
                throw fail(.fileTooLarge, "\(what) '\(path)' is larger than the limit of \(limit) bytes")
            }
            if bytes.count < capacity { return bytes }
            capacity = min(2 * capacity, limit + 1)
        }
    }

    /// What a file of mode `mode` is when it is not a regular file ("a FIFO", "a folder", ...); nil
    /// for a regular file.
    static func nonRegularKind(_ mode: mode_t) -> String? {
        switch mode & S_IFMT {
        case S_IFREG: nil
        case S_IFDIR: "a folder"
        case S_IFIFO: "a FIFO (named pipe)"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        case S_IFSOCK: "a socket"
        default: "something other than a file"
        }
    }
}
