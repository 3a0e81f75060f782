import Foundation
package import HapticsCore
import HapticsReview
import HapticsSynthesis
import Hummingbird
package import NIOCore
import OrderedCollections
import Synchronization

/// Edits as the page sends them, and the text they make: every analysis, play, render, compare
/// and save of an edit works on the file's own text with the edits applied at their exact bytes
/// (``SourcePatch``), so what is drawn, heard, compared and linted is what a save writes.
extension Studio {
    /// The body of `POST /api/analyze`, `PUT /api/pattern`, `POST /api/diff` with edits.
    package struct EditRequest: Codable, Sendable {
        package var path: String?
        /// The version of the file the edits were made on; a different one on disk is a 409.
        package var baseVersion: String?
        /// Changes to the file's `Pattern`, by entry index in that version.
        package var edits: [EditJSON]?
        /// A whole AHAP value instead of edits (older pages, scripts): saved by changing only
        /// what differs from the file.
        package var ahap: AnyJSON?
        /// `/api/analyze`: the stretch of time the page shows; effective samples and waveform
        /// columns are sent for it only.
        package var window: Window?
        /// `/api/analyze`: the `findingsKey` of the findings the page has; the same findings are
        /// not sent again.
        package var findingsKey: String?
        /// `/api/diff`: `"git"` (the last commit) or another file's path.
        package var against: String?
        /// `PUT /api/pattern`: the page that saves, named in the `changed` message every page
        /// gets, so that it can tell its own save from another tab's.
        package var tab: String?
    }

    package struct Window: Codable, Sendable {
        package var start: Double
        package var end: Double
        package var columns: Int?

        package init(start: Double, end: Double, columns: Int? = nil) {
            self.start = start
            self.end = end
            self.columns = columns
        }

        /// `window` as asked, or a 400 naming the member out of range: times from 0 to the
        /// longest pattern a file may hold, at most 8,192 columns. The page asks for what is on
        /// screen; a window to 1e308 cost 5.8 s of sampling before it was refused.
        static func checked(_ window: Window?) throws(StudioError) -> Window? {
            guard let window else { return nil }
            let longest = AHAPLimits.default.maxDuration
            guard window.start.isFinite, (0...longest).contains(window.start) else {
                throw .badRequest("\"window.start\" must be a finite number from 0 to \(longest)")
            }
            guard window.end.isFinite, window.end >= window.start, window.end <= longest else {
                throw .badRequest("\"window.end\" must be a finite number from \"window.start\" to \(longest)")
            }
            if let columns = window.columns, !(1...8_192).contains(columns) {
                throw .badRequest("\"window.columns\" must be a whole number from 1 to 8192")
            }
            return window
        }
    }

    /// One edit: `{"index": i, "element": {...}}` sets `Pattern[i]`, `{"remove": i}` removes
    /// it, `{"add": {...}}` appends an entry.
    package struct EditJSON: Codable, Sendable {
        package var index: Int?
        package var element: AnyJSON?
        package var remove: Int?
        package var add: AnyJSON?

        /// An entry index is a whole number from 0 (1.5, -1 or 1e30 says so, where JSONDecoder
        /// would say only that the number does not fit in an `Int`).
        package init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            func entryIndex(_ key: CodingKeys) throws -> Int? {
                guard let number = try container.decodeIfPresent(Double.self, forKey: key) else { return nil }
                guard number >= 0, number <= Double(Int32.max), number == number.rounded() else {
                    throw DecodingError.dataCorruptedError(
                        forKey: key, in: container,
                        debugDescription: "an entry index is a whole number from 0 to \(Int32.max), not \(number)")
                }
                return Int(number)
            }
            index = try entryIndex(.index)
            element = try container.decodeIfPresent(AnyJSON.self, forKey: .element)
            remove = try entryIndex(.remove)
            add = try container.decodeIfPresent(AnyJSON.self, forKey: .add)
        }

        func edit() throws(StudioError) -> SourcePatch.Edit {
            if let index, let element { return .set(index: index, element: element.value) }
            if let remove { return .remove(index: remove) }
            if let add { return .add(element: add.value) }
            throw .badRequest("an edit is {\"index\", \"element\"}, {\"remove\"} or {\"add\"}")
        }
    }

    /// What `PUT /api/pattern` answers.
    package struct SaveResponse: Codable, Sendable {
        package var version: String
        /// What a `.haptic` clip cannot hold of the pattern.
        package var losses: [String]
        /// The bytes written.
        package var bytes: Int
    }

    /// What `POST /api/diff` with `against` answers: the pattern's changes and the lines the
    /// save would change against it.
    package struct TextDiffResponse: Codable, Sendable {
        package var against: String
        package var identical: Bool
        package var linesAdded: Int
        package var linesRemoved: Int
        package var hunks: [StudioTextDiff.Hunk]
    }

    // MARK: - The edited text

    /// The file at `path` (which must still be `baseVersion`) with `request`'s edits, as the
    /// text a save writes (AHAP; a `.haptic` or `.vij` file is edited as the AHAP the project
    /// writes for it), and the bytes on disk.
    func editedText(path: String, request: EditRequest, current: [UInt8]? = nil) throws(StudioError) -> (
        text: [UInt8], disk: [UInt8]
    ) {
        let (patch, disk, _) = try basePatch(path: path, request: request, current: current)
        if let edits = request.edits {
            return (try patch.applying(edits: edits.map { e throws(StudioError) in try e.edit() }), disk)
        }
        if let ahap = request.ahap {
            guard case .object = ahap.value else { throw .badRequest("\"ahap\" must be an AHAP object") }
            return (try patch.applying(ahap.value), disk)
        }
        return (patch.bytes, disk)
    }

    /// The file at `path` as the edits' base: its editable text, its bytes and version; a 409
    /// when it is no longer `request.baseVersion`.
    func basePatch(path: String, request: EditRequest, current: [UInt8]? = nil) throws(StudioError) -> (
        patch: SourcePatch, disk: [UInt8], version: String
    ) {
        let (disk, version): ([UInt8], String)
        if let current {
            (disk, version) = (current, StudioFiles.version(of: current))
        } else {
            (disk, version) = try read(path)
        }
        if let base = request.baseVersion, base != version {
            var conflict = StudioError(409, "\(path) changed on disk since it was opened")
            conflict.version = version
            conflict.text = String(decoding: disk, as: UTF8.self)
            throw conflict
        }
        return (try sourcePatch(path: path, version: version, disk: disk), disk, version)
    }

    /// The file's bytes and version; kept while the file's status (inode, size, times) stays
    /// the same, so that each edit of a drag does not read and hash a 1.8 MB file again. A file
    /// changed in the last two seconds is read every time (a write within the file system's
    /// clock tick can leave the times as they were).
    func read(_ path: String) throws(StudioError) -> (bytes: [UInt8], version: String) {
        let opened = try files.open(path)
        let stamp = StudioFiles.stamp(opened.status)
        if let kept = cache.reads.withLock({ $0.first { $0.path == path && $0.stamp == stamp } }) {
            return (kept.bytes, kept.version)
        }
        let bytes = try StudioFiles.read(opened, path: path, limit: 16 << 20)
        let version = StudioFiles.version(of: bytes)
        if StudioFiles.secondsSinceChange(opened.status) >= 2 {
            cache.reads.withLock { list in
                list.removeAll { $0.path == path }
                list.append((path, stamp, bytes, version))
                if list.count > 4 { list.removeFirst() }
            }
        }
        return (bytes, version)
    }

    /// The analysis of a file version kept per entry (``EntryAnalysis``), made when the file is
    /// opened or at its first edit (from `base`, the file's analysis, when given); nil for a file
    /// it cannot follow.
    func entryAnalysis(
        path: String, version: String, patch: SourcePatch, real: StudioFiles.Place?, base: PatternView.Analysis? = nil
    ) -> EntryAnalysis? {
        let key = path + "\n" + version
        if let cached = cache.entries.withLock({ $0.first { $0.key == key } }) { return cached.entries }
        let isAHAP = StudioFiles.format(of: path) == "ahap"
        let base = base ?? PatternView.analyze(patch.bytes, path: isAHAP ? path : "edit.ahap", waveformsBeside: real)
        let entries = EntryAnalysis(patch: patch, base: base)
        cache.entries.withLock { list in
            list.removeAll { $0.key == key }
            list.append((key, entries))
            if list.count > 2 { list.removeFirst() }
        }
        return entries
    }

    /// The editable text of a file (its own for AHAP; the writer's AHAP for a clip), kept for the
    /// last few versions opened so that a drag's edits do not scan the file again.
    ///
    /// - Parameter parsed: the caller decoded `disk` (an AHAP file), so it is JSON.
    func sourcePatch(path: String, version: String, disk: [UInt8], parsed: Bool = false) throws(StudioError)
        -> SourcePatch
    {
        let key = path + "\n" + version
        if let cached = cache.patches.withLock({ $0.first { $0.key == key }?.patch }) { return cached }
        let source: [UInt8]
        let isAHAP = StudioFiles.format(of: path) == "ahap"
        if isAHAP {
            source = disk
        } else {
            guard let pattern = PatternView.analyze(disk, path: path).pattern else {
                throw StudioError(422, "\(path): does not decode; see its findings")
            }
            source = AHAP.encode(pattern)
        }
        let patch = try SourcePatch(source, parsed: parsed && isAHAP)
        cache.patches.withLock { list in
            list.removeAll { $0.key == key }
            list.append((key, patch))
            if list.count > 4 { list.removeFirst() }
        }
        return patch
    }

    /// Reads an edit request (at most 16 MiB) as its Codable type.
    static func decode<T: Decodable>(_ type: T.Type, _ request: Request) async throws -> T {
        try decode(type, try await bodyBytes(request))
    }

    /// Reads a request body as its Codable type; a body of the wrong shape is a 400 naming what.
    static func decode<T: Decodable>(_ type: T.Type, _ bytes: [UInt8]) throws(StudioError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(bytes))
        } catch let error as DecodingError {
            throw StudioError.badRequest(Self.describe(error, in: T.self))
        } catch {
            throw StudioError.badRequest("the request body is not JSON: \(error)")
        }
    }

    /// A request member of the wrong JSON type is named as every other route names it
    /// (`"baseVersion" must be a string`); any other mismatch says where in the request it is.
    static func describe<T>(_ error: DecodingError, in request: T.Type) -> String {
        func name(_ path: [any CodingKey]) -> String {
            path.enumerated().map { index, key in
                key.intValue.map { "[\($0)]" } ?? (index == 0 ? key.stringValue : "." + key.stringValue)
            }.joined()
        }
        switch error {
        case .typeMismatch(_, let c) where c.codingPath.isEmpty:
            return "the request body must be a JSON object"
        case .dataCorrupted(let c) where c.codingPath.isEmpty:
            return "the request body is not JSON: " + c.debugDescription
        case .typeMismatch(let type, let c):
            let kind =
                switch type {
                case is String.Type: "a string"
                case is Bool.Type: "a boolean"
                case is Double.Type, is Float.Type, is Int.Type: "a number"
                case is [Any].Type: "an array"
                default: "an object"
                }
            return "\"\(name(c.codingPath))\" must be \(kind)"
        case .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
            let path = name(c.codingPath)
            return "the request is not what \(T.self) expects: " + (path.isEmpty ? "" : path + ": ")
                + c.debugDescription
        @unknown default:
            return "the request is not what \(T.self) expects: \(error)"
        }
    }

    static func encoded<T: Encodable>(_ value: T) -> Response {
        encoded(json: jsonText(value))
    }

    /// A 200 answer of JSON text.
    static func encoded(json: String) -> Response {
        Response(
            status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: json)))
    }

    /// `value` as compact JSON, members in sorted order (JSONEncoder's own order changes from run
    /// to run), slashes unescaped (paths read as they are written).
    package static func jsonText<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(value)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    // MARK: - Routes

    /// `GET /api/pattern`: the view of the file at `path` as it is on disk, as JSON
    /// (``viewJSON(_:document:)``); the watcher watches the file from the version read, through
    /// the same open. Once the answer is written, the per-entry analysis the first edit
    /// needs is started (it takes a few hundred milliseconds for a 10-minute pattern, beside the
    /// page's drawing), from this analysis: started before, it ran while the answer was written,
    /// and the memory of both added up.
    package func patternJSON(path: String, withText: Bool) throws(StudioError) -> ByteBuffer {
        let opened = try files.open(path)
        let bytes = try StudioFiles.read(opened, path: path, limit: 16 << 20)
        watcher.watch(path, opened: opened, version: StudioFiles.version(of: bytes))
        let (view, document, prepare) = openView(path: path, bytes: bytes, withText: withText)
        let json = Self.viewJSON(view, document: document)
        prepare?()
        return json
    }

    /// The view of the file as it is on disk, and for an AHAP file that decodes, its text (the
    /// view's `ahap`, its own JSON: values as written, out-of-range ones too, so that the page's
    /// edits address the file's entries; ``viewJSON(_:document:)`` writes it) and what starts the
    /// per-entry analysis of it. AudioCustom waveforms are loaded as `render` loads them.
    func openView(path: String, bytes: [UInt8], withText: Bool) -> (
        view: PatternViewResponse, document: SourcePatch?, prepare: (@Sendable () -> Void)?
    ) {
        let started = ContinuousClock.now
        let real = try? files.resolve(path)
        let analysis = PatternView.analyze(bytes, path: path, waveformsBeside: real)
        let elapsed = ContinuousClock.now - started
        let version = StudioFiles.version(of: bytes)
        let patch =
            analysis.pattern != nil && StudioFiles.format(of: path) == "ahap"
            ? try? sourcePatch(path: path, version: version, disk: bytes, parsed: true) : nil
        let view = PatternView.make(
            path: path, file: (version, withText ? String(decoding: bytes, as: UTF8.self) : nil),
            analysis: analysis, source: patch.map { _ in JSONValue.null }, locatesLines: true,
            milliseconds: Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000)
        if let findings = view.diagnostics {
            cache.keepFindings(
                .init(
                    key: view.findingsKey, locatesLines: true, raw: PatternView.rawFindings(analysis),
                    list: findings.map(\.value)))
        }
        guard let patch else { return (view, nil, nil) }
        return (
            view, patch,
            { [self] in
                Task.detached(priority: .utility) { [self] in
                    _ = entryAnalysis(path: path, version: version, patch: patch, real: real, base: analysis)
                }
            }
        )
    }

    /// The pattern a play or render of edits plays: the edited text, decoded.
    func editedPattern(path: String, request: EditRequest) throws(StudioError) -> HapticPattern {
        let (text, _) = try editedText(path: path, request: request)
        do {
            return try AHAP.decode(text).pattern
        } catch {
            throw StudioError(422, "\(path): \(error.diagnostic.formatted(file: nil))")
        }
    }

    /// The body's bytes (at most 16 MiB).
    static func bodyBytes(_ request: Request) async throws -> [UInt8] {
        do {
            return Array(try await request.body.collect(upTo: 16 << 20).readableBytesView)
        } catch {
            throw StudioError(413, "the request body is larger than 16 MiB")
        }
    }

    /// The body as an ``EditRequest`` when it has `edits`.
    /// Edits that do not decode are a 400 that says where, not a reason to read the body as the
    /// route's other kind of request (which answered `the request has no "ahap"`).
    static func editRequest(_ bytes: [UInt8]) throws(StudioError) -> EditRequest? {
        if let request = try? JSONDecoder().decode(EditRequest.self, from: Data(bytes)) {
            return request.edits != nil ? request : nil
        }
        guard case .object(let members)? = try? JSONValue(parsing: bytes), members["edits"] != nil else { return nil }
        return try decode(EditRequest.self, bytes)
    }

    /// The body as JSON.
    static func jsonBody(_ bytes: [UInt8]) throws(StudioError) -> JSONValue {
        do {
            return try JSONValue(parsing: bytes)
        } catch {
            throw StudioError.badRequest("the request body is not JSON: \(error.diagnostic.message)")
        }
    }

    /// `POST /api/analyze` with edits, from the request's body to the answer's JSON; nil when the
    /// body has no edits (the route's other kind of request). `mark` ends each of the stages the
    /// answer's `Server-Timing` header names (decode, analyze, json); `stage`, when given, ends
    /// each part of the analysis too (`haptic-bench studio-edit` times them).
    package func analyzeAnswer(
        _ raw: [UInt8], mark: (String) -> Void, stage: (String) -> Void = { _ in }
    ) throws(StudioError) -> String? {
        guard let edited = try Self.editRequest(raw) else { return nil }
        mark("decode")
        let answer = try analyzeEdits(path: edited.path ?? "", request: edited, stage: stage)
        mark("analyze")
        // The last answer's numbers: most of this one's are the same, and their text is copied.
        var kept = cache.answerNumbers.withLock { $0 }
        let json = Self.analyzeJSON(answer, numbers: &kept)
        cache.answerNumbers.withLock { $0 = kept }
        mark("json")
        return json
    }

    /// `POST /api/analyze` with edits: the analysis of the edited text. The page has the pattern
    /// it edits and draws its entries from it, so only the analysis goes back: the effective
    /// curves and waveform of the window, and the findings only as far as they changed from the
    /// list the page has (a drag on a 10-minute pattern changes one of its 3,700 findings).
    func analyzeEdits(
        path: String, request: EditRequest, stage: (String) -> Void = { _ in }
    ) throws(StudioError) -> AnalyzeResponse {
        let started = ContinuousClock.now
        var request = request
        request.window = try Window.checked(request.window)
        let (patch, _, version) = try basePatch(path: path, request: request)
        let isAHAP = StudioFiles.format(of: path) == "ahap"
        let real = try? files.resolve(path)
        let edits = try (request.edits ?? []).map { e throws(StudioError) in try e.edit() }
        // Only the entries the edits changed are decoded again, when the file allows it.
        let entries = entryAnalysis(path: path, version: version, patch: patch, real: real)
        stage("patch")
        let analysis: PatternView.Analysis
        if let entries, let edited = try entries.analysis(after: edits) {
            analysis = edited
        } else {
            let text = try patch.applying(edits: edits)
            analysis = PatternView.analyze(text, path: isAHAP ? path : "edit.ahap", waveformsBeside: real)
        }
        stage("entries")
        var response = AnalyzeResponse(
            path: path, format: StudioFiles.format(of: path), version: version, duration: 0,
            metadata: AnyJSON(.object([:])), eventsCount: 0, parametersCount: 0, curvesCount: 0,
            effective: .init(times: [], intensity: [], sharpness: []),
            waveform: .init(start: 0, seconds: 0, min: [], max: [], truncated: false), findingsKey: "",
            analyzeMilliseconds: 0)
        if let pattern = analysis.pattern {
            response.duration = pattern.duration
            response.metadata = AnyJSON(.object(pattern.metadata))
            for element in pattern.elements {
                switch element {
                case .event: response.eventsCount += 1
                case .parameter: response.parametersCount += 1
                case .curve: response.curvesCount += 1
                }
            }
            if let window = request.window {
                response.effective = editedEffective(
                    path: path, version: version, window: window, edited: pattern, original: entries?.base.pattern)
            } else {
                response.effective = PatternView.effectiveSamples(pattern)
            }
            stage("effective")
            var columns: PatternView.Columns? = nil
            if let window = request.window {
                columns = try? editedWaveform(
                    path: path, version: version, patch: patch, window: window, edits: edits, edited: pattern,
                    clips: analysis.clips, real: real, original: entries?.base)
            }
            response.waveform =
                (columns ?? PatternView.columns(pattern, clips: analysis.clips, window: request.window)).waveform
            stage("waveform")
        }
        let raw = PatternView.rawFindings(analysis)
        let known = request.findingsKey.flatMap { known in
            cache.findings.withLock { $0.first { $0.key == known && $0.locatesLines == isAHAP } }
        }
        if let known {
            // Only the findings that changed are made into JSON (a 10-minute pattern has 3,700).
            let patch = Self.findingsPatch(from: known, to: raw) {
                PatternView.finding(for: $0.diagnostic, in: analysis.pattern, locatesLines: isAHAP)
            }
            if patch.remove == 0 && patch.insert.isEmpty {
                response.findingsKey = known.key
            } else {
                var list = known.list
                list.replaceSubrange(patch.start..<patch.start + patch.remove, with: patch.insert.map(\.value))
                // The key names the list: the list it was patched from and the patch.
                response.findingsKey = StudioFiles.version(of: Array((known.key + Self.jsonText(patch)).utf8))
                response.findingsPatch = patch
                cache.keepFindings(.init(key: response.findingsKey, locatesLines: isAHAP, raw: raw, list: list))
            }
        } else {
            let (findings, key) = PatternView.findingsList(analysis, locatesLines: isAHAP)
            response.findingsKey = key
            if key != request.findingsKey { response.diagnostics = findings.map(AnyJSON.init) }
            cache.keepFindings(.init(key: key, locatesLines: isAHAP, raw: raw, list: findings))
        }
        stage("findings")
        let elapsed = ContinuousClock.now - started
        response.analyzeMilliseconds =
            ((Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000) * 1000)
            .rounded() / 1000
        return response
    }

    /// The one stretch of the findings `old` names that `new` replaces: what is equal at the
    /// start and at the end is kept; `json` makes the replacing findings.
    static func findingsPatch(
        from old: StudioCache.Findings, to new: [PatternView.RawFinding],
        json: (PatternView.RawFinding) -> JSONValue
    ) -> AnalyzeResponse.FindingsPatch {
        let a = old.raw
        let (prefix, suffix) = StudioTextDiff.commonEnds(a, new)
        return .init(
            from: old.key, start: prefix, remove: a.count - prefix - suffix,
            insert: new[prefix..<new.count - suffix].map { AnyJSON(json($0)) })
    }

    /// The waveform of `window` for the edited pattern: the file's own (kept per window) with only
    /// the columns the edits can change rendered again, so a drag on a 10-minute pattern renders
    /// a few seconds, not ten minutes.
    func editedWaveform(
        path: String, version: String, patch: SourcePatch, window: Window, edits: [SourcePatch.Edit],
        edited: HapticPattern, clips: [String: AudioClip], real: StudioFiles.Place?, original: PatternView.Analysis?
    ) throws(StudioError) -> PatternView.Columns {
        let key = "\(path)\n\(version)\n\(window.start)\n\(window.end)\n\(window.columns ?? 0)"
        let base: PatternView.Columns
        if let cached = cache.waveforms.withLock({ $0.first { $0.key == key }?.columns }) {
            base = cached
        } else {
            let isAHAP = StudioFiles.format(of: path) == "ahap"
            let original =
                original ?? PatternView.analyze(patch.bytes, path: isAHAP ? path : "edit.ahap", waveformsBeside: real)
            guard let pattern = original.pattern else {
                return PatternView.columns(edited, clips: clips, window: window)
            }
            base = PatternView.columns(pattern, clips: original.clips, window: window)
            cache.waveforms.withLock { list in
                list.append((key, base))
                if list.count > 8 { list.removeFirst() }
            }
        }
        guard !edits.isEmpty else { return base }
        guard patch.entryCount > 0, !base.low.isEmpty else {
            return PatternView.columns(edited, clips: clips, window: window)
        }
        // The stretch the edits can change: each changed entry's old and new time span. A curve
        // holds its last value until another element of its parameter takes over: a curve that
        // comes or goes, or whose held value changes, changes what follows until then (in the
        // pattern it is part of: the old one in the file's, the new one in the edited).
        var lower = Double.infinity
        var upper = -Double.infinity
        func cover(_ element: JSONValue?, holding: Bool, in pattern: HapticPattern?) {
            guard let element, let span = Self.timeSpan(of: element, clips: clips) else { return }
            lower = min(lower, span.lowerBound)
            var end = span.upperBound
            if holding, let curve = element["ParameterCurve"] {
                if let id = curve["ParameterID"]?.string.flatMap(DynamicParameterID.init(rawValue:)), let pattern {
                    end = max(end, Self.heldUntil(id, after: span.lowerBound, in: pattern))
                } else {
                    end = .infinity
                }
            }
            upper = max(upper, end)
        }
        let before = original?.pattern
        for edit in edits {
            switch edit {
            case .set(let index, let element):
                let old = patch.entry(index)?.value
                let held = old.map(Self.heldValue) == Self.heldValue(of: element)
                cover(old, holding: !held, in: before)
                cover(element, holding: !held, in: edited)
            case .remove(let index): cover(patch.entry(index)?.value, holding: true, in: before)
            case .add(let element): cover(element, holding: true, in: edited)
            }
        }
        let count = base.low.count
        let width = base.seconds / Double(count)
        guard lower.isFinite, upper > -.infinity, width > 0 else { return base }
        let first = max(0, Int(((lower - base.start) / width).rounded(.down)))
        let last =
            upper - base.start >= base.seconds
            ? count : min(count, Int(((upper - base.start) / width).rounded(.up)) + 1)
        guard first < last else { return base }
        let part = PatternView.render(
            edited, clips: clips, from: base.start + Double(first) * width, to: base.start + Double(last) * width,
            columns: last - first)
        var out = base
        guard part.low.count == last - first else { return PatternView.columns(edited, clips: clips, window: window) }
        out.low.replaceSubrange(first..<last, with: part.low)
        out.high.replaceSubrange(first..<last, with: part.high)
        return out
    }

    /// Until when a curve of `id` that starts at `time` in `pattern` can be heard: a second after
    /// the next parameter of `id` takes over, or the next curve's first point (a curve ramps
    /// from the value it finds there); never, when none follows.
    static func heldUntil(_ id: DynamicParameterID, after time: Double, in pattern: HapticPattern) -> Double {
        var until = Double.infinity
        for element in pattern.elements {
            switch element {
            case .parameter(let parameter) where parameter.id == id && parameter.time > time:
                until = min(until, parameter.time + 1)
            case .curve(let curve) where curve.id == id && curve.time > time && !curve.controlPoints.isEmpty:
                until = min(until, curve.time + max(0, curve.controlPoints.map(\.time).min() ?? 0) + 1)
            default: continue
            }
        }
        return until
    }

    /// A curve's parameter and the value it holds after its last point (nil for another entry).
    static func heldValue(of element: JSONValue) -> [JSONValue?]? {
        guard let curve = element["ParameterCurve"] else { return nil }
        var last: (time: Double, value: JSONValue?)?
        if case .array(let points)? = curve["ParameterCurveControlPoints"] {
            for point in points {
                let time = point["Time"]?.number ?? 0
                if last == nil || time >= last!.time { last = (time, point["ParameterValue"]) }
            }
        }
        return [curve["ParameterID"], last?.value]
    }

    /// When an entry of `Pattern` (as JSON) can sound: from its time to its end and release; a
    /// dynamic parameter holds to the end.
    static func timeSpan(of element: JSONValue, clips: [String: AudioClip]) -> ClosedRange<Double>? {
        if let event = element["Event"] {
            guard let time = event["Time"]?.number else { return nil }
            let clip = event["EventWaveformPath"]?.string.flatMap { clips[$0]?.duration } ?? 0
            return time...(time + max(0, event["EventDuration"]?.number ?? 0) + clip + 1)
        }
        if let curve = element["ParameterCurve"] {
            guard let time = curve["Time"]?.number else { return nil }
            var end = time
            if case .array(let points)? = curve["ParameterCurveControlPoints"] {
                for point in points { end = max(end, time + (point["Time"]?.number ?? 0)) }
            }
            return time...(end + 1)
        }
        if let parameter = element["Parameter"], let time = parameter["Time"]?.number {
            return time...Double.greatestFiniteMagnitude
        }
        return nil
    }

    /// `PUT /api/pattern`: writes the edits if the file is still the version they were made on.
    func saveEdits(path: String, request: EditRequest) throws(StudioError) -> SaveResponse {
        let format = StudioFiles.format(of: path)
        guard format != "vij" else {
            throw StudioError(400, "\(path): v0 clips are read-only here; convert it with `haptic convert`")
        }
        guard request.baseVersion != nil else { throw .badRequest("the request has no \"baseVersion\"") }
        guard request.edits != nil || request.ahap != nil else { throw .badRequest("the request has no \"edits\"") }
        // The check and the write happen under one lock, so two tabs saving at once cannot both win.
        let result: Result<SaveResponse, StudioError> = saveLock.withLock { _ in
            do throws(StudioError) {
                let opened = try files.open(path)
                let current = try StudioFiles.read(opened, path: path, limit: 16 << 20)
                let (text, _) = try editedText(path: path, request: request, current: current)
                let analysis = PatternView.analyze(text, path: "edit.ahap")
                guard let document = analysis.pattern else {
                    let first = analysis.findings.first { $0.severity == .error } ?? analysis.findings.first
                    throw StudioError(422, "\(path): \(first?.formatted(file: nil) ?? "does not decode")")
                }
                var losses: [ConversionLoss] = []
                let bytes =
                    format == "haptic" ? HapticClip.encode(HapticClip(pattern: document, losses: &losses)) : text
                let saved = StudioFiles.version(of: bytes)
                // The watcher knows the new version before the write, so the write's own inotify
                // event is not announced as another program's change (the saving tab would then
                // say "changed on disk", another "changed on disk" instead of "saved in another
                // tab"), whenever it is seen and whatever a page opening the file meanwhile read.
                watcher.willWrite(
                    path, version: saved, over: .init(opened: opened, version: StudioFiles.version(of: current)))
                saveWriteHooks.withLock { $0.before }?(path)
                do throws(StudioError) {
                    try files.write(path, bytes: bytes)
                } catch {
                    watcher.writeFailed(path, version: saved)
                    throw error
                }
                saveWriteHooks.withLock { $0.after }?(path)
                return .success(SaveResponse(version: saved, losses: losses.map(\.description), bytes: bytes.count))
            } catch {
                return .failure(error)
            }
        }
        let response = try result.get()
        Task { [hub] in await hub.announceSave(path: path, version: response.version, tab: request.tab) }
        return response
    }

    /// `POST /api/diff` with `against`: the edited text's changes against the last commit (or
    /// another file), as the pattern's changes and as the lines a save writes.
    func diffEdits(path: String, request: EditRequest) async throws(StudioError) -> DiffResponse {
        let (text, _) = try editedText(path: path, request: request)
        let against = request.against ?? "git"
        let other: [UInt8]
        let otherPath: String
        if against == "git" {
            other = try await files.committed(path)
            otherPath = path
        } else {
            other = try files.read(against)
            otherPath = against
        }
        // The lines: only for the last commit of this file (another file's text says nothing
        // about what a save writes).
        var lines: TextDiffResponse?
        if against == "git" {
            let diff = StudioTextDiff.compare(other, text)
            lines = TextDiffResponse(
                against: against, identical: other == text, linesAdded: diff.added, linesRemoved: diff.removed,
                hunks: diff.hunks)
        }
        let isAHAP = StudioFiles.format(of: path) == "ahap"
        guard let mine = PatternView.analyze(text, path: isAHAP ? path : "edit.ahap").pattern,
            let theirs = PatternView.analyze(other, path: otherPath).pattern
        else { return DiffResponse(undecodable: lines) }
        return DiffResponse(PatternDiff.compare(theirs, mine), text: lines)
    }
}

/// What the studio keeps between requests: the editable text of the last few file versions
/// opened, and the waveform of the last few windows of them (so an edit re-renders only what it
/// changed).
final class StudioCache: Sendable {
    let patches = Mutex<[(key: String, patch: SourcePatch)]>([])
    let waveforms = Mutex<[(key: String, columns: PatternView.Columns)]>([])
    /// The last files read for edits, with their status when read (``Studio/read(_:)``).
    let reads = Mutex<[(path: String, stamp: [Int], bytes: [UInt8], version: String)]>([])
    /// The effective samples of the last few windows of file versions edited (``Studio/editedEffective``).
    let effective = Mutex<[(key: String, samples: [EffectiveSample])]>([])
    /// The numbers of the last edit's answer, as written (``Studio/analyzeJSON(_:numbers:)``).
    let answerNumbers = Mutex<AnswerNumbers?>(nil)
    /// The last file versions edited, analysed per entry (nil: one that is analysed whole).
    let entries = Mutex<[(key: String, entries: EntryAnalysis?)]>([])
    /// The last few lists of findings sent, by `findingsKey`, so that an analysis sends only
    /// what changed of the list the page has.
    let findings = Mutex<[Findings]>([])

    struct Findings: Sendable {
        var key: String
        /// Whether the findings carry their lines (an AHAP file's do).
        var locatesLines: Bool
        /// What the list was made from, compared with the next analysis's.
        var raw: [PatternView.RawFinding]
        var list: [JSONValue]
    }

    func keepFindings(_ kept: Findings) {
        findings.withLock { lists in
            if lists.contains(where: { $0.key == kept.key && $0.locatesLines == kept.locatesLines }) { return }
            lists.append(kept)
            if lists.count > 8 { lists.removeFirst() }
        }
    }
    /// The last audio file converted (StudioAudio.swift).
    let audio = Mutex<StudioAudioCache?>(nil)
}

/// Any JSON value, as a Codable member of a request (objects keep a fixed key order: AHAP's
/// usual order, then the rest by name).
package struct AnyJSON: Codable, Sendable, Equatable {
    package var value: JSONValue

    package init(_ value: JSONValue) { self.value = value }

    package init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var out: [JSONValue] = []
            while !array.isAtEnd { out.append(try array.decode(AnyJSON.self).value) }
            value = .array(out)
            return
        }
        if let object = try? decoder.container(keyedBy: Key.self) {
            var out = OrderedDictionary<String, JSONValue>()
            for key in object.allKeys.sorted(by: { Self.rank($0.stringValue) < Self.rank($1.stringValue) }) {
                out[key.stringValue] = try object.decode(AnyJSON.self, forKey: key).value
            }
            value = .object(out)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            value = .null
        } else if let bool = try? single.decode(Bool.self) {
            value = .bool(bool)
        } else if let number = try? single.decode(Double.self) {
            value = .number(number)
        } else {
            value = .string(try single.decode(String.self))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        switch value {
        case .null:
            var c = encoder.singleValueContainer()
            try c.encodeNil()
        case .bool(let b):
            var c = encoder.singleValueContainer()
            try c.encode(b)
        case .number(let n):
            var c = encoder.singleValueContainer()
            try c.encode(n)
        case .string(let s):
            var c = encoder.singleValueContainer()
            try c.encode(s)
        case .array(let items):
            var c = encoder.unkeyedContainer()
            for item in items { try c.encode(AnyJSON(item)) }
        case .object(let members):
            var c = encoder.container(keyedBy: Key.self)
            for (key, item) in members { try c.encode(AnyJSON(item), forKey: Key(stringValue: key)) }
        }
    }

    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    static let order = [
        "Version", "Metadata", "Pattern", "Event", "Parameter", "ParameterCurve", "Time", "EventType", "EventDuration",
        "EventWaveformPath", "EventWaveformUseVolumeEnvelope", "EventWaveformLoopEnabled", "EventParameters",
        "ParameterID", "ParameterValue", "ParameterCurveControlPoints",
    ]

    static func rank(_ key: String) -> (Int, String) { (order.firstIndex(of: key) ?? order.count, key) }
}
