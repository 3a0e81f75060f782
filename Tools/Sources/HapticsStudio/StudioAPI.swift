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
}
