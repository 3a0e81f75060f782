import ArgumentParser
import Foundation
import HapticsALSA
import HapticsCore
import HapticsEngine
import HapticsSynthesis
import Synchronization

/// `haptic play --watch`: plays the pattern, then again after every save, until Ctrl-C.
///
/// Messages go to standard error: `playing FILE (N s)` before each playback, the linter's
/// `FILE:PATH: error: …` lines when a save leaves the file broken (watching goes on), and the
/// preview path on standard output when there is no audio device (each save rewrites it).
struct PlayWatch {
    let play: HapticCommand.Play

    func run() throws -> Never {
        Interrupts.install()
        let watcher: FileWatcher
        do {
            watcher = try FileWatcher(path: play.pattern)
        } catch {
            throw Terminal.failure(error.description)
        }
        Terminal.printError("haptic: watching \(play.pattern): every save plays it again; Ctrl-C stops")
        repeat {
            try playOnce()
            Terminal.printError("haptic: waiting for the next save of \(play.pattern)")
        } while watcher.waitForChange(stopping: { Interrupts.wasRequested })
        throw Interrupts.exitCode
    }

    /// Loads and plays the file once; prints what is wrong with it instead when it cannot be loaded.
    func playOnce() throws {
        let (findings, loaded) = PatternFile.inspect(
            play.pattern, waveformFolders: play.waveforms.folders, missingWaveforms: .skip)
        guard let file = loaded else {
            for finding in findings { Terminal.printError(finding.formatted(file: play.pattern)) }
            Terminal.printError("haptic: not playing \(play.pattern) until it is fixed; still watching")
            return
        }
        Terminal.report(file.diagnostics, in: file.path)
        if let problem = play.rateProblem(file) {
            Terminal.printError("haptic: \(file.path): \(problem); still watching")
            return
        }
        let output: ALSAOutput
        do {
            output = try play.device.open()
        } catch {
            if play.device.wantsHaptics {
                Terminal.printError("haptic: \(error); still watching")
                return
            }
            try Terminal.writePreview(of: file, voicing: play.options.voicing, because: error)
            return
        }
        Terminal.printError("playing \(file.path) (\(String(format: "%.3f", file.pattern.duration)) s)")
        let playback: LivePlayback
        do {
            playback = try LivePlayback(file: file, output: output, options: play.options)
        } catch {
            Terminal.printError("haptic: \(error.description); still watching")
            return
        }
        switch Interrupts.run(playback) {
        case .finished: break
        case .interrupted: throw Interrupts.exitCode
        case .failed(let reason): Terminal.printError("haptic: \(reason); still watching")
        }
    }
}
