import ArgumentParser
import Dispatch
import Foundation
import HapticsEngine
import HapticsStudio
import HapticsSystem
import Subprocess
import Synchronization

extension HapticCommand {
    struct StudioCommand: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "studio",
            abstract: "Serve a local web studio to see, hear, edit and compare the patterns under some folders.",
            discussion: """
                Listens on 127.0.0.1 only and prints one address with a secret token (open it in a \
                browser on this machine; --open does). Requests without the token, or from another site \
                or host name, are refused. Plays through --device, else HAPTIC_OUTPUT / HAPTIC_DEVICE / \
                ALSA's default; the page can also play in the browser. Ctrl-C stops the server. \
                docs/studio.md describes the page and its API.
                """)

        @Argument(
            help: "Folders to serve (default: the current folder); a pattern file serves its folder and opens first.")
        var folders: [String] = []

        @Option(help: "Port on 127.0.0.1 (0: any free port).")
        var port: Int = 0

        @Flag(help: "Open the address in the desktop's browser (xdg-open).")
        var open = false

        @Option(
            help: """
                ALSA playback device for the engine (default: HAPTIC_OUTPUT, HAPTIC_DEVICE, else "default"); \
                `dualsense`: a DualSense's actuators (HAPTIC_CHANNEL_MAP maps any other device).
                """)
        var device: String?

        @Option(help: ArgumentHelp("Output latency in milliseconds.", valueName: "ms"))
        var latency: Int = 20

        func validate() throws {
            guard (0...65_535).contains(port) else { throw ValidationError("--port must be 0 to 65535 (got \(port))") }
            guard (2...2_000).contains(latency) else {
                throw ValidationError("--latency must be 2 to 2000 ms (got \(latency))")
            }
        }

        func run() throws {
            Interrupts.install()
            var environment = ProcessInfo.processInfo.environment
            if let device {
                // Chosen as HAPTIC_DEVICE would be: a haptic device brings its channel map.
                environment["HAPTIC_OUTPUT"] = nil
                environment["HAPTIC_DEVICE"] = device
            }
            var selection = OutputSelection(environment: environment)
            selection.latencyMilliseconds = latency
            let chosen = selection
            let (served, opening) = Self.folders(for: folders.isEmpty ? ["."] : folders)
            let studio: Studio
            do {
                studio = try Studio(folders: served, port: port, playback: StudioPlayback { try chosen.open() })
            } catch {
                throw Terminal.failure(error.description)
            }
            // A file named on the command line opens first: the page reads `open=` in the fragment.
            let fragment =
                opening.map { index, name in
                    "&open=" + (studio.files.roots[index].label + "/" + name).addingPercentEncoding(
                        withAllowedCharacters: Self.unreserved)!
                } ?? ""
            let listed = studio.files.list().files
            let sounds = listed.count { StudioFiles.isAudio($0.path) }
            let count = listed.count - sounds
            let labels = studio.files.roots.map(\.label).joined(separator: ", ")
            let open = open
            let failure = Failure()
            let done = DispatchSemaphore(value: 0)
            let server = Task {
                do {
                    try await studio.run { address in
                        let url = address + fragment
                        let files =
                            "\(count) pattern\(count == 1 ? "" : "s")"
                            + (sounds > 0 ? " and \(sounds) audio file\(sounds == 1 ? "" : "s")" : "")
                        let text =
                            "haptic studio: serving \(files) under \(labels); plays through \(chosen)\n  \(url)\n"
                        FileHandle.standardOutput.write(Data(text.utf8))
                        if open { Self.openBrowser(url) }
                    }
                } catch is CancellationError {
                } catch {
                    failure.set("\(error)")
                }
                done.signal()
            }
            Interrupts.onInterrupt { server.cancel() }
            done.wait()
            Interrupts.onInterrupt(nil)
            if let message = failure.message {
                throw Terminal.failure(
                    message.contains("Address already in use") ? "port \(port) is in use; try --port 0" : message)
            }
            if Interrupts.wasRequested { throw Interrupts.exitCode }
        }

        /// What a URL fragment may hold unescaped (RFC 3986's unreserved characters).
        static let unreserved = CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))

        /// The folders to serve: each folder given, and the folder of each pattern file given (once);
        /// and the first file given, as the index of its folder and its name.
        static func folders(for paths: [String]) -> (folders: [String], opening: (Int, String)?) {
            var folders: [String] = []
            var opening: (Int, String)?
            for path in paths {
                var isFolder: ObjCBool = false
                let url = URL(filePath: path)
                guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue,
                    StudioFiles.extensions.contains(url.pathExtension.lowercased())
                        || StudioFiles.isAudio(path)
                else {
                    folders.append(path)
                    continue
                }
                let folder = url.deletingLastPathComponent().path(percentEncoded: false)
                let index = folders.firstIndex(of: folder) ?? folders.count
                if index == folders.count { folders.append(folder) }
                if opening == nil { opening = (index, url.lastPathComponent) }
            }
            return (folders, opening)
        }

        /// Hands the address to the desktop; says so when there is no desktop to hand it to.
        /// xdg-open runs beside the server (through swift-subprocess, which reaps it).
        static func openBrowser(_ url: String) {
            Task {
                do {
                    let result = try await Subprocess.run(
                        .name("xdg-open"), arguments: [url], output: .discarded, error: .discarded)
                    if case .exited(let code) = result.terminationStatus, code != 0 {
                        Terminal.printError(
                            "haptic: cannot open a browser (xdg-open exited \(code)); open the address above")
                    }
                } catch {
                    Terminal.printError("haptic: cannot open a browser (xdg-open: \(error)); open the address above")
                }
            }
        }
    }
}

/// The server task's error, read after it ended.
private final class Failure: Sendable {
    private let stored = Mutex<String?>(nil)
    func set(_ message: String) { stored.withLock { $0 = message } }
    var message: String? { stored.withLock { $0 } }
}
