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

    public init(path: String, pattern: HapticPattern, diagnostics: [Diagnostic] = [], clips: [String: AudioClip] = [:])
    {
        self.path = path
        self.pattern = pattern
        self.diagnostics = diagnostics
        self.clips = clips
    }

    /// Largest waveform file an AudioCustom event may reference.
    public static let maxWaveformBytes = 64 << 20

    /// Reads, decodes and resolves the AHAP file at `path`.
    /// - Throws: `AHAPError` naming the file and, for content problems, the JSON path and line.
    public static func load(_ path: String, limits: AHAPLimits = .default) throws(AHAPError) -> PatternFile {
        let bytes = try readFile(path, limit: limits.maxFileBytes, what: "AHAP file", file: path, at: .root)
        let document = try AHAP.decode(bytes, file: path, limits: limits)
        let clips = try loadWaveforms(of: document.pattern, file: path)
        return PatternFile(path: path, pattern: document.pattern, diagnostics: document.diagnostics, clips: clips)
    }

    /// Every finding about the file at `path` (errors and warnings, the waveform checks included)
    /// and, when there is no error, the loaded file: what the linter and the review page need,
    /// from one read and one parse.
    public static func inspect(
        _ path: String, limits: AHAPLimits = .default
    ) -> (findings: [Diagnostic], file: PatternFile?) {
        let bytes: [UInt8]
        let document: AHAPDocument
        do {
            bytes = try readFile(path, limit: limits.maxFileBytes, what: "AHAP file", file: path, at: .root)
            document = try AHAP.decode(bytes, file: path, limits: limits)
        } catch {
            return (error.diagnostics.isEmpty ? [error.diagnostic] : error.diagnostics, nil)
        }
        do {
            let clips = try loadWaveforms(of: document.pattern, file: path)
            let file = PatternFile(
                path: path, pattern: document.pattern, diagnostics: document.diagnostics, clips: clips)
            return (document.diagnostics, file)
        } catch {
            return (document.diagnostics + [error.diagnostic], nil)
        }
    }

    /// Loads every waveform that `pattern`'s AudioCustom events name, relative to `file`'s folder.
    public static func loadWaveforms(of pattern: HapticPattern, file: String) throws(AHAPError) -> [String: AudioClip] {
        var clips: [String: AudioClip] = [:]
        for (index, element) in pattern.elements.enumerated() {
            guard case .event(let event) = element, event.type == .audioCustom,
                let waveform = event.waveformPath, clips[waveform] == nil
            else { continue }
            let at = JSONPath.root.key("Pattern").index(index).key("Event").key("EventWaveformPath")
            let resolved = try resolve(waveform, besides: file, at: at)
            let bytes = try readFile(resolved, limit: maxWaveformBytes, what: "waveform", file: file, at: at)
            do {
                clips[waveform] = try WAV.decode(bytes)
            } catch {
                throw AHAPError(
                    file: file, path: at, location: nil, code: "waveform-unreadable",
                    message: "'\(waveform)' is not a usable WAV file: \(error)", diagnostics: [])
            }
        }
        return clips
    }

    /// Resolves `waveform` inside the folder holding `file`, refusing anything that leaves it.
    static func resolve(_ waveform: String, besides file: String, at path: JSONPath) throws(AHAPError) -> String {
        func refuse(_ message: String) -> AHAPError {
            AHAPError(file: file, path: path, location: nil, code: "waveform-path", message: message, diagnostics: [])
        }
        guard !waveform.isEmpty else { throw refuse("EventWaveformPath is empty") }
        guard !waveform.hasPrefix("/") else {
            throw refuse("EventWaveformPath '\(waveform)' is absolute; give a path relative to the AHAP file's folder")
        }
        let folder = URL(filePath: file).deletingLastPathComponent().standardizedFileURL
        let base = folder.resolvingSymlinksInPath().path(percentEncoded: false)
        let candidate = folder.appending(path: waveform).standardizedFileURL
        guard FileManager.default.fileExists(atPath: candidate.path(percentEncoded: false)) else {
            throw refuse("waveform '\(waveform)' not found (looked for \(candidate.path(percentEncoded: false)))")
        }
        let real = candidate.resolvingSymlinksInPath().path(percentEncoded: false)
        let prefix = base.hasSuffix("/") ? base : base + "/"
        guard real.hasPrefix(prefix) else {
            throw refuse("EventWaveformPath '\(waveform)' leads outside the AHAP file's folder (to \(real)); refused")
        }
        return real
    }

    /// Reads a whole regular file after checking its size, so a huge file is refused, not read.
    static func readFile(
        _ path: String, limit: Int, what: String, file: String, at jsonPath: JSONPath
    ) throws(AHAPError) -> [UInt8] {
        func fail(_ code: String, _ message: String) -> AHAPError {
            AHAPError(file: file, path: jsonPath, location: nil, code: code, message: message, diagnostics: [])
        }
        // Only a regular file is read: opening a FIFO waits for a writer, and a device or a socket
        // never ends. stat() first, then open without blocking and check the same file again.
        var status = stat()
        guard stat(path, &status) == 0 else {
            throw fail("file-not-found", "\(what) '\(path)' does not exist")
        }
        if let kind = nonRegularKind(status.st_mode) {
            let code = kind == "a folder" ? "file-unreadable" : "file-not-regular"
            throw fail(code, "\(what) '\(path)' is \(kind), not a regular file; refused")
        }
        let size = Int(status.st_size)
        guard size <= limit else {
            throw fail("file-too-large", "\(what) '\(path)' is \(size) bytes; the limit is \(limit) bytes")
        }
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw fail("file-unreadable", "cannot read \(what) '\(path)': \(String(cString: strerror(errno)))")
        }
        let handle = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        defer { try? handle.close() }
        guard fstat(descriptor, &status) == 0, nonRegularKind(status.st_mode) == nil else {
            throw fail(
                "file-not-regular", "\(what) '\(path)' changed into something other than a regular file; refused")
        }
        do {
            // Read one byte past the limit so a file that grew after the size check is still caught.
            let data = try handle.read(upToCount: limit + 1) ?? Data()
            guard data.count <= limit else {
                throw fail("file-too-large", "\(what) '\(path)' is larger than the limit of \(limit) bytes")
            }
            return [UInt8](data)
        } catch let error as AHAPError {
            throw error
        } catch {
            throw fail("file-unreadable", "cannot read \(what) '\(path)': \(error.localizedDescription)")
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
