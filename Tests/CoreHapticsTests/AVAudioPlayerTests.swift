import CoreHaptics
import Foundation
import HapticsSynthesis
import Testing

/// The `AVAudioPlayer` stand-in as an app meets it: a WAV file played with `HAPTIC_OUTPUT` set is
/// in the capture at its time, for its length, repeated as asked, silenced by `stop()`. The
/// playing cases run this test binary again as a child (``AVAudioPlayerChild``), as an app would
/// be run, because the players' engine reads the environment once per process.
@Suite struct AVAudioPlayerTests {
    static let rate = 48_000
    /// The test sound: 0.3 s of a 440 Hz sine at amplitude 0.5, 48 kHz mono.
    static let seconds = 0.3

    static func sound(channels: Int = 1, rate: Int = 48_000) -> [UInt8] {
        let frames = Int(seconds * Double(rate))
        var samples: [Float] = []
        for frame in 0..<frames {
            let value = 0.5 * Float(sin(2 * Double.pi * 440 * Double(frame) / Double(rate)))
            samples += Array(repeating: value, count: channels)
        }
        return WAV.encode(AudioClip(sampleRate: rate, channels: channels, samples: samples), sampleFormat: .s16)
    }

    /// Runs `scenario` in a child with `HAPTIC_OUTPUT`; returns the capture's samples and the
    /// child's exit status.
    static func capture(_ scenario: String) throws -> (samples: [Float], status: Int32) {
        let folder = try CaptureTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let sound = folder.appending(path: "sound.wav")
        try Data(Self.sound()).write(to: sound)
        let output = folder.appending(path: "out.wav").path(percentEncoded: false)
        let process = Process()
        process.executableURL = URL(
            filePath: try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
        process.arguments = ["--testing-library", "swift-testing", "--filter", "AVAudioPlayerChild"]
        var environment = ProcessInfo.processInfo.environment
        environment["HAPTIC_OUTPUT"] = output
        environment[AVAudioPlayerChild.variable] = scenario
        environment[AVAudioPlayerChild.soundVariable] = sound.path(percentEncoded: false)
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        let clip = try WAV.decode([UInt8](try Data(contentsOf: URL(filePath: output))))
        return (clip.samples, process.terminationStatus)
    }

    /// The frames from the first to the last sample above -40 dBFS.
    static func heard(_ samples: [Float]) -> Range<Int>? {
        guard let first = samples.firstIndex(where: { abs($0) > 0.01 }),
            let last = samples.lastIndex(where: { abs($0) > 0.01 })
        else { return nil }
        return first..<(last + 1)
    }

    /// The frames of the 5 ms windows that sound (peak above 0.1): the sound's length however a
    /// loaded machine's stalls, written into the capture as silence, split it.
    static func sounding(_ samples: [Float]) -> Int {
        let window = rate / 200
        return stride(from: 0, to: samples.count - window, by: window).filter { start in
            samples[start..<(start + window)].contains { abs($0) > 0.1 }
        }.count * window
    }

    /// Played 0.5 s after the engine opened: heard from about then (the capture's 100 ms buffer
    /// after), for 0.3 s, at the file's level; 0.3 s after `play()`, `currentTime` is 0.2 s (what
    /// has been heard), and once done `isPlaying` is false (the child exits 0 only then).
    @Test func aWAVIsHeardAtItsTimeForItsLength() throws {
        let (samples, status) = try Self.capture("once")
        #expect(status == 0)
        let heard = try #require(Self.heard(samples))
        // Asked at 0.5 s; the capture's buffer puts it up to 0.1 s later, a loaded machine a little more.
        #expect((Self.rate / 2...Self.rate * 3 / 4).contains(heard.lowerBound), "heard \(heard)")
        let sounding = Self.sounding(samples)
        #expect(abs(sounding - Self.rate * 3 / 10) <= Self.rate / 100, "sounding \(sounding) frames")
        let peak = samples[heard].map(abs).max() ?? 0
        #expect(abs(peak - 0.5) < 0.05, "peak \(peak)")
    }

    /// `numberOfLoops = 2` plays the sound three times (0.9 s of sound), and then tells the
    /// delegate it finished successfully; `currentTime` counts what has been heard even right
    /// after the engine started (the child exits 0 only then).
    @Test func numberOfLoopsRepeatsAndTheDelegateIsTold() throws {
        let (samples, status) = try Self.capture("loops")
        #expect(status == 0, "exit \(status): 3, the delegate was not told; 5, currentTime was wrong")
        let heard = try #require(Self.heard(samples))
        let sounding = Self.sounding(samples)
        #expect(abs(sounding - Self.rate * 9 / 10) <= Self.rate / 100, "sounding \(sounding) frames, heard \(heard)")
    }

    /// A sound looping forever, stopped after 0.5 s: heard for 0.5 s, then silent; the delegate is
    /// not told (the child exits 0 only if it was not).
    @Test func stopSilencesALoopingSound() throws {
        let (samples, status) = try Self.capture("stop")
        #expect(status == 0, "the delegate was told after stop() (exit \(status))")
        let heard = try #require(Self.heard(samples))
        // 0.5 s by the child's sleep; a loaded machine's stall (written as silence) shortens it,
        // a late stop lengthens it. Not stopped, it would sound to the exit (1.5 s).
        let sounding = Self.sounding(samples)
        #expect((Self.rate * 2 / 10...Self.rate * 7 / 10).contains(sounding), "sounding \(sounding) frames")
        #expect(samples.count - heard.upperBound > Self.rate / 2, "silence after: \(samples.count - heard.upperBound)")
    }

    @Test func durationIsTheSoundsLength() throws {
        let mono = try AVAudioPlayer(data: Data(Self.sound()))
        #expect(abs(mono.duration - 0.3) < 1e-9)
        #expect(mono.numberOfChannels == 1)
        let stereo = try AVAudioPlayer(
            data: Data(Self.sound(channels: 2, rate: 44_100)), fileTypeHint: AVFileType.wav.rawValue)
        #expect(abs(stereo.duration - 0.3) < 1e-9)
        #expect(stereo.numberOfChannels == 2)
        #expect(!stereo.isPlaying && stereo.currentTime == 0 && stereo.volume == 1 && stereo.numberOfLoops == 0)
    }

    /// Apple's signatures (throwing initializers, `Bool` results, optional delegate), as app code
    /// names them; a subclass overrides as on Apple's platforms.
    @Test func signaturesAreApples() {
        let _: (URL) throws -> AVAudioPlayer = AVAudioPlayer.init(contentsOf:)
        let _: (URL, String?) throws -> AVAudioPlayer = AVAudioPlayer.init(contentsOf:fileTypeHint:)
        let _: (Data) throws -> AVAudioPlayer = AVAudioPlayer.init(data:)
        let _: (Data, String?) throws -> AVAudioPlayer = AVAudioPlayer.init(data:fileTypeHint:)
        let _: (AVAudioPlayer) -> () -> Bool = AVAudioPlayer.prepareToPlay
        let _: (AVAudioPlayer) -> () -> Bool = AVAudioPlayer.play
        let _: (AVAudioPlayer) -> (TimeInterval) -> Bool = AVAudioPlayer.play(atTime:)
        let _: (AVAudioPlayer) -> (Int) -> Float = AVAudioPlayer.averagePower(forChannel:)
        let _: ReferenceWritableKeyPath<AVAudioPlayer, (any AVAudioPlayerDelegate)?> = \.delegate
        let _: ReferenceWritableKeyPath<AVAudioPlayer, Float> = \.volume
        let _: ReferenceWritableKeyPath<AVAudioPlayer, Int> = \.numberOfLoops
        let _: ReferenceWritableKeyPath<AVAudioPlayer, TimeInterval> = \.currentTime
        let _: ReferenceWritableKeyPath<AVAudioPlayer, Bool> = \.isMeteringEnabled
        let _: KeyPath<AVAudioPlayer, Bool> = \.isPlaying
        let _: KeyPath<AVAudioPlayer, TimeInterval> = \.duration
        final class Counting: AVAudioPlayer {
            var plays = 0
            override func play() -> Bool {
                plays += 1
                return super.play()
            }
        }
        #expect(AVFileType.wav.rawValue == "com.microsoft.waveform-audio")
    }

    /// A missing file and a file that is no WAV throw an `NSError` in `NSOSStatusErrorDomain` that
    /// names the file, as Apple's initializer throws for a file it cannot read.
    @Test func anUnreadableFileThrows() throws {
        let folder = try CaptureTests.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let missing = folder.appending(path: "missing.wav")
        let text = folder.appending(path: "notes.mp3")
        try Data("not audio".utf8).write(to: text)
        for (url, code) in [(missing, 2_003_334_207), (text, 1_954_115_647)] {
            do {
                _ = try AVAudioPlayer(contentsOf: url)
                Issue.record("\(url.lastPathComponent) was read")
            } catch let error as NSError {
                #expect(error.domain == "NSOSStatusErrorDomain" && error.code == code, "\(error)")
                #expect(error.localizedDescription.contains(url.lastPathComponent), "\(error.localizedDescription)")
            }
        }
        #expect(throws: NSError.self) { try AVAudioPlayer(data: Data("RIFF....WAVE".utf8)) }
    }
}

/// A delegate that signals when told.
final class FinishedFlag: NSObject, AVAudioPlayerDelegate, @unchecked Sendable {
    let told = DispatchSemaphore(value: 0)
    var successfully = false
    func audioPlayerDidFinishPlaying(_ player: AVAudioPlayer, successfully flag: Bool) {
        successfully = flag
        told.signal()
    }
}

/// What ``AVAudioPlayerTests`` runs in a child process (nothing without its variable).
@Suite struct AVAudioPlayerChild {
    static let variable = "HAPTICS_AVAUDIOPLAYER_CHILD"
    static let soundVariable = "HAPTICS_AVAUDIOPLAYER_SOUND"

    @Test func run() throws {
        let environment = ProcessInfo.processInfo.environment
        guard let scenario = environment[Self.variable], let path = environment[Self.soundVariable] else { return }
        let player = try AVAudioPlayer(contentsOf: URL(filePath: path))
        let flag = FinishedFlag()
        player.delegate = flag
        // Opens the engine: the capture's timeline starts here.
        guard player.prepareToPlay() else { exit(2) }
        switch scenario {
        case "once":
            usleep(500_000)
            guard player.play(), player.isPlaying else { exit(2) }
            // Heard for 0.2 s once the capture's 0.1 s buffer has passed.
            usleep(300_000)
            let position = player.currentTime
            usleep(400_000)
            exit(player.isPlaying ? 3 : abs(position - 0.2) > 0.05 ? 5 : 0)
        case "loops":
            player.numberOfLoops = 2
            guard player.play() else { exit(2) }
            // Just after the engine started, the capture's first 0.1 s is its prebuffer: 0.25 s
            // after play(), 0.15 s has been heard.
            usleep(250_000)
            let position = player.currentTime
            let told = flag.told.wait(timeout: .now() + 5) == .success
            usleep(200_000)
            guard abs(position - 0.15) <= 0.05 else { exit(5) }
            exit(told && flag.successfully && !player.isPlaying ? 0 : 3)
        case "stop":
            player.numberOfLoops = -1
            guard player.play() else { exit(2) }
            usleep(500_000)
            player.stop()
            let told = flag.told.wait(timeout: .now() + 1) == .success
            exit(told || player.isPlaying ? 3 : 0)
        default:
            exit(4)
        }
    }
}
