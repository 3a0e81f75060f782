import HapticsCore
import OrderedCollections

extension Studio {
    /// `GET /api/files`: the folders' labels and the pattern files under them.
    package struct FilesResponse: Codable, Sendable {
        package struct File: Codable, Sendable {
            /// The studio path: a folder's label, then the path inside it.
            package var path: String
            /// `ahap`, `haptic` or `vij`.
            package var format: String
            package var bytes: Int
        }

        package var roots: [String]
        package var files: [File]
        /// True when the listing stopped at its limit.
        package var truncated: Bool
    }

    /// `POST /api/play` (with the id of what plays) and `POST /api/stop` (without).
    package struct PlayingResponse: Codable, Sendable {
        package var playing: Bool
        package var id: Int?
    }

    /// The WebSocket's first message: from now on this socket gets every broadcast.
    package struct SubscribedMessage: Codable, Sendable {
        package var type = "subscribed"
    }

    /// The WebSocket's playhead message, about every 16 ms while something plays.
    package struct PlayheadMessage: Codable, Sendable {
        package var type = "playhead"
        package var id: Int
        /// Seconds into the pattern, to the microsecond.
        package var time: Double
        /// The engine's clock, to the microsecond.
        package var engineTime: Double
        package var playing: Bool
    }

    /// `POST /api/analyze` with edits: the analysis of the edited text, without what the page
    /// already has (its own entries, and the findings it has when they did not change).
    package struct AnalyzeResponse: Codable, Sendable {
        /// The effective intensity and sharpness, as three parallel arrays.
        package struct Effective: Codable, Sendable, Equatable {
            package var times: [Double]
            package var intensity: [Double]
            package var sharpness: [Double]
        }

        /// The rendered waveform of a stretch, one min/max pair per column.
        package struct Waveform: Codable, Sendable, Equatable {
            package var start: Double
            package var seconds: Double
            package var min: [Double]
            package var max: [Double]
            /// True when the pattern is longer than the stretch rendered for drawing.
            package var truncated: Bool
        }

        /// The findings named `from` turned into the new ones: `remove` findings at `start`
        /// replaced by `insert`.
        package struct FindingsPatch: Codable, Sendable, Equatable {
            package var from: String
            package var start: Int
            package var remove: Int
            package var insert: [AnyJSON]
        }

        package var path: String
        package var format: String
        package var version: String
        package var duration: Double
        package var metadata: AnyJSON
        package var eventsCount: Int
        package var parametersCount: Int
        package var curvesCount: Int
        package var effective: Effective
        package var waveform: Waveform
        package var findingsKey: String
        /// Every finding, when the page's `findingsKey` is not one the studio can patch.
        package var diagnostics: [AnyJSON]?
        /// What changed of the page's findings, when they changed and the studio has the page's.
        package var findingsPatch: FindingsPatch?
        package var analyzeMilliseconds: Double
    }
}

extension Studio {
    /// The pattern view: `GET /api/pattern`, `GET /api/git`, `POST /api/analyze` without edits,
    /// and the generated pattern of `/api/audio/convert`. What the page draws, edits and lists.
    package struct PatternViewResponse: Codable, Sendable {
        package struct Event: Codable, Sendable, Equatable {
            /// The entry's index in `Pattern`.
            package var index: Int
            /// `transient`, `continuous`, `audioContinuous` or `audioCustom`.
            package var type: String
            package var time: Double
            /// 0 for a transient or an AudioCustom event without a duration.
            package var duration: Double
            /// Intensity (haptic) or volume (audio), and sharpness, as written.
            package var intensity: Double
            package var sharpness: Double
            package var jsonPath: String
        }

        package struct Parameter: Codable, Sendable, Equatable {
            package var index: Int
            /// The dynamic parameter's ID (`HapticIntensityControl`, ...).
            package var parameter: String
            package var time: Double
            package var value: Double
            package var jsonPath: String
        }

        package struct Curve: Codable, Sendable, Equatable {
            package struct Point: Codable, Sendable, Equatable {
                /// Pattern seconds (the curve's time plus the point's).
                package var time: Double
                package var value: Double
            }

            package var index: Int
            package var parameter: String
            package var time: Double
            package var points: [Point]
            package var jsonPath: String
        }

        package var path: String
        /// `ahap`, `haptic` or `vij` (`ahap` for a generated pattern).
        package var format: String
        /// The file's version (`HEAD` for the last commit); null for a pattern that is not a file.
        package var version: String?
        /// The file's text, when asked for (`text=1`).
        package var text: String?
        /// What the page edits: the file's own JSON for an AHAP file, the writer's AHAP for a
        /// clip, or the page's JSON when it did not decode.
        package var ahap: AnyJSON
        package var duration: Double
        package var metadata: AnyJSON
        package var events: [Event]
        package var parameters: [Parameter]
        package var curves: [Curve]
        package var effective: AnalyzeResponse.Effective
        package var waveform: AnalyzeResponse.Waveform
        /// Names the findings list; the page sends it back so that the same list is not resent.
        package var findingsKey: String
        /// The findings, as `haptic lint` finds them (absent when the page already has them).
        package var diagnostics: [AnyJSON]?
        package var analyzeMilliseconds: Double

        // `version` and `ahap` are written as null when absent, as the page reads them.
        package func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(path, forKey: .path)
            try c.encode(format, forKey: .format)
            try c.encode(version, forKey: .version)
            try c.encodeIfPresent(text, forKey: .text)
            try c.encode(ahap, forKey: .ahap)
            try c.encode(duration, forKey: .duration)
            try c.encode(metadata, forKey: .metadata)
            try c.encode(events, forKey: .events)
            try c.encode(parameters, forKey: .parameters)
            try c.encode(curves, forKey: .curves)
            try c.encode(effective, forKey: .effective)
            try c.encode(waveform, forKey: .waveform)
            try c.encode(findingsKey, forKey: .findingsKey)
            try c.encodeIfPresent(diagnostics, forKey: .diagnostics)
            try c.encode(analyzeMilliseconds, forKey: .analyzeMilliseconds)
        }
    }
}

extension Studio {
    /// `POST /api/play` and `POST /api/render`: what to play (the file at `path` with `edits`, a
    /// whole `ahap`, or the file as it is) and how.
    package struct PlayRequest: Codable, Sendable {
        package var path: String?
        /// With `edits`: the version they were made on (a different one on disk is a 409).
        package var baseVersion: String?
        package var edits: [EditJSON]?
        /// A whole AHAP value (the compared pattern) instead of the file.
        package var ahap: AnyJSON?
        /// A `VoicingProfile` name; the default voice when absent.
        package var voice: String?
        /// 0.001 to 16, and the pattern at that rate at most 3,600 s long; 1 when absent.
        package var rate: Double?
        /// Pattern seconds (`/api/play` only).
        package var from: Double?
        package var to: Double?
        package var loop: Bool?
    }

    /// `POST /api/diff` without edits: the pattern change from `a` to `b` (both AHAP objects).
    package struct DiffRequest: Codable, Sendable {
        package var a: AnyJSON?
        package var b: AnyJSON?
    }

    /// `POST /api/diff`'s answer: `PatternDiff` as the page reads it.
    package struct DiffResponse: Codable, Sendable {
        package struct Change: Codable, Sendable {
            /// `added`, `removed`, `moved`, `reparameterised` or `movedAndReparameterised`.
            package var kind: String
            /// `event`, `parameter` or `curve`.
            package var element: String
            package var time: Double
            /// Where on the timeline the change is, both sides together.
            package var start: Double
            package var end: Double
            /// The entry's index in A and in B (null when it is not there).
            package var beforeIndex: Int?
            package var afterIndex: Int?
            /// The line `haptic diff` prints for it.
            package var line: String

            // The indexes are written as null when absent, as the page and docs/studio.md expect.
            package func encode(to encoder: any Encoder) throws {
                var c = encoder.container(keyedBy: CodingKeys.self)
                try c.encode(kind, forKey: .kind)
                try c.encode(element, forKey: .element)
                try c.encode(time, forKey: .time)
                try c.encode(start, forKey: .start)
                try c.encode(end, forKey: .end)
                try c.encode(beforeIndex, forKey: .beforeIndex)
                try c.encode(afterIndex, forKey: .afterIndex)
                try c.encode(line, forKey: .line)
            }
        }

        package var changes: [Change]
        /// Entries in both, unchanged. This and the durations and metadata are absent when a
        /// side does not decode (then `changes` is empty and `identical` false).
        package var unchanged: Int?
        package var durationBefore: Double?
        package var durationAfter: Double?
        /// Metadata changes, one line each.
        package var metadata: [String]?
        package var identical: Bool
        /// With `against: "git"`: the lines a save would change against the committed text.
        package var text: TextDiffResponse?
    }

    /// Every error's body, with the status code saying what kind: `error` is one line for a
    /// person; a conflict (409) adds the file's current `version` and `text`, an audio save
    /// refused because the target exists adds its `path`.
    package struct ErrorResponse: Codable, Sendable, Hashable {
        package var error: String
        package var version: String?
        package var text: String?
        package var path: String?

        package init(error: String, version: String? = nil, text: String? = nil, path: String? = nil) {
            self.error = error
            self.version = version
            self.text = text
            self.path = path
        }
    }
}
