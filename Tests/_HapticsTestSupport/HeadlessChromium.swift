package import Foundation

/// Headless Chromium (Debian package `chromium`) for tests that open a generated page in a real browser.
///
/// Every call runs its own Chromium process with a fresh, temporary profile, so calls are independent
/// and may run in parallel. Finding no Chromium is an error, never a skip: CI installs it.
///
/// ```swift
/// let chromium = try HeadlessChromium()
/// let dom = try await chromium.dumpDOM(url: page)
/// try await chromium.screenshot(url: page, to: folder.appending(path: "page.png"), size: (1280, 2000))
/// ```
package struct HeadlessChromium: Hashable, Sendable {
    /// Why Chromium could not be used.
    package enum Failure: Error, Hashable, Sendable, CustomStringConvertible {
        /// No executable `chromium` in the usual places or on `PATH`.
        case notInstalled(searched: [String])
        /// Chromium ran but exited with a nonzero status; `log` is the end of its standard error.
        case exited(status: Int32, arguments: [String], log: String)

        package var description: String {
            switch self {
            case .notInstalled(let searched):
                "chromium is not installed (Debian/Ubuntu: apt-get install -y chromium); looked for "
                    + searched.joined(separator: ", ")
            case .exited(let status, let arguments, let log):
                "chromium exited with status \(status) for \(arguments.joined(separator: " "))"
                    + (log.isEmpty ? "" : ":\n\(log)")
            }
        }
    }

    /// The Chromium executable this runner starts.
    package let executable: URL

    /// A runner for the given Chromium executable.
    package init(executable: URL) { self.executable = executable }

    /// A runner for the first executable `chromium` (or `chromium-browser`) in `/usr/bin`,
    /// `/usr/local/bin` or on `PATH`.
    ///
    /// - Throws: ``Failure/notInstalled(searched:)`` when there is none.
    package init(environment: [String: String] = ProcessInfo.processInfo.environment) throws(Failure) {
        let folders =
            ["/usr/bin", "/usr/local/bin"] + (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let candidates = folders.flatMap { ["\($0)/chromium", "\($0)/chromium-browser"] }
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            throw .notInstalled(searched: candidates)
        }
        executable = URL(filePath: found)
    }

    /// The environment for a Chromium whose profile is `profile`: this process's, with `TMPDIR`
    /// inside the profile. Chromium makes its singleton socket's folder in `TMPDIR` and leaves it
    /// behind when it is stopped by a signal (one `/tmp/org.chromium.Chromium.*` per page); inside
    /// the profile it goes when the profile is removed.
    package static func environment(profile: URL) -> [String: String] {
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = profile.path(percentEncoded: false)
        return environment
    }

    /// The page's DOM after it has loaded and run (`--dump-dom`), serialized as HTML.
    ///
    /// - Throws: ``Failure/exited(status:arguments:log:)`` when Chromium fails, or a file error.
    package func dumpDOM(url: URL) async throws -> String {
        String(decoding: try await run(["--dump-dom"], url: url), as: UTF8.self)
    }

    /// Writes a PNG screenshot of the page, rendered in a window of `size` CSS pixels without
    /// scroll bars, to `file`.
    ///
    /// - Throws: ``Failure/exited(status:arguments:log:)`` when Chromium fails, or a file error.
    package func screenshot(url: URL, to file: URL, size: (width: Int, height: Int)) async throws {
        _ = try await run(
            [
                "--screenshot=\(file.path(percentEncoded: false))", "--window-size=\(size.width),\(size.height)",
                "--hide-scrollbars",
            ],
            url: url)
    }

    /// Runs Chromium headless on `url` with `arguments` and a throwaway profile; returns its standard
    /// output. The wait for it runs on a thread of its own (`onOwnThread`), not the test's.
    func run(_ arguments: [String], url: URL) async throws -> Data {
        let profile = FileManager.default.temporaryDirectory.appending(path: "haptics-chromium-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: profile) }
        let fullArguments =
            [
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
                "--user-data-dir=\(profile.path(percentEncoded: false))",
            ] + arguments + [url.absoluteString]
        let executable = executable
        let result = try await onOwnThread {
            try TestProcess.run(executable, fullArguments, environment: Self.environment(profile: profile))
        }
        guard result.status == 0 else {
            throw Failure.exited(
                status: result.status, arguments: fullArguments, log: String(result.stderr.suffix(2_000)))
        }
        return Data(result.stdout)
    }
}
