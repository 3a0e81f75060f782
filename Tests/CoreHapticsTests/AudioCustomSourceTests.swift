import CoreHaptics
import Foundation
import HapticsSynthesis
import HapticsTesting
import Testing

/// AudioCustom waveforms whatever the pattern came from: a file, a dictionary, bytes.
@Suite struct AudioCustomSourceTests {
    /// A 20 ms 440 Hz tone at half scale, written as a WAV file at `url`.
    static func writeTone(to url: URL) throws {
        let tone = (0..<960).map { i in Float(0.5 * sin(Double(i) * 2 * .pi * 440 / 48_000)) }
        try Data(WAV.encode(AudioClip(sampleRate: 48_000, channels: 1, samples: tone), sampleFormat: .f32))
            .write(to: url)
    }

    static func customEvent(_ path: String) -> [String: Any] {
        ["Event": ["Time": 0.0, "EventType": "AudioCustom", "EventWaveformPath": path] as [String: Any]]
    }

    static func ahap(_ path: String) -> Data {
        Data(
            #"{"Pattern": [{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "\#(path)"}}]}"#.utf8)
    }

    /// The peak of what `play` makes a fresh engine play in 0.1 s.
    static func peak(_ play: (CHHapticEngine) throws -> Void) throws -> Float {
        let rig = Rig()
        try rig.engine.start()
        try play(rig.engine)
        rig.run(seconds: 0.1)
        return AudioAnalysis.peak(rig.driver.samples)
    }

    static func code(of body: () throws -> Void) -> Int? {
        do {
            try body()
            return nil
        } catch {
            return (error as NSError).code
        }
    }

    @Test func aDictionaryAndDataPlayAnAbsoluteWaveform() throws {
        let wav = FileManager.default.temporaryDirectory.appending(path: "custom-\(UUID().uuidString).wav")
        try Self.writeTone(to: wav)
        defer { try? FileManager.default.removeItem(at: wav) }
        let path = wav.path(percentEncoded: false)
        let pattern = try CHHapticPattern(dictionary: [.pattern: [Self.customEvent(path)]])
        let fromDictionary = try Self.peak { try $0.makePlayer(with: pattern).start(atTime: CHHapticTimeImmediate) }
        #expect(fromDictionary > 0.3, "peak \(fromDictionary)")
        let fromData = try Self.peak { try $0.playPattern(from: Self.ahap(path)) }
        #expect(fromData > 0.3, "peak \(fromData)")
    }

    /// A relative path is looked for in the app bundle's root, as on an iPhone.
    @Test func aDictionaryFindsItsWaveformInTheBundle() throws {
        let root = try #require(Bundle.main.resourceURL)
        let name = "bundle-custom-\(UUID().uuidString).wav"
        try Self.writeTone(to: root.appending(path: name))
        defer { try? FileManager.default.removeItem(at: root.appending(path: name)) }
        let pattern = try CHHapticPattern(dictionary: [.pattern: [Self.customEvent(name)]])
        let fromDictionary = try Self.peak { try $0.makePlayer(with: pattern).start(atTime: CHHapticTimeImmediate) }
        #expect(fromDictionary > 0.3, "peak \(fromDictionary)")
        let fromData = try Self.peak { try $0.playPattern(from: Self.ahap(name)) }
        #expect(fromData > 0.3, "peak \(fromData)")
    }

    /// A waveform found nowhere is Core Haptics' `badEventEntry` (-4830) from every source,
    /// never a silent event.
    @Test func aMissingWaveformIsAnErrorFromEverySource() throws {
        let name = "nowhere-\(UUID().uuidString).wav"
        let badEventEntry = CHHapticError.Code.badEventEntry.rawValue
        #expect(badEventEntry == -4830)
        #expect(
            Self.code { _ = try CHHapticPattern(dictionary: [.pattern: [Self.customEvent(name)]]) } == badEventEntry)
        #expect(
            Self.code {
                _ = try CHHapticPattern(
                    dictionary: NSDictionary(dictionary: ["Pattern": [Self.customEvent("/" + name)]]))
            } == badEventEntry)
        let engine = Rig().engine
        #expect(Self.code { try engine.playPattern(from: Self.ahap(name)) } == badEventEntry)
        let ahap = FileManager.default.temporaryDirectory.appending(path: "custom-\(UUID().uuidString).ahap")
        try Self.ahap(name).write(to: ahap)
        defer { try? FileManager.default.removeItem(at: ahap) }
        #expect(Self.code { _ = try CHHapticPattern(contentsOf: ahap) } == badEventEntry)
        #expect(Self.code { try engine.playPattern(from: ahap) } == badEventEntry)
        do {
            _ = try CHHapticPattern(dictionary: [.pattern: [Self.customEvent(name)]])
        } catch {
            let text = "\(error)"
            #expect(
                text.hasPrefix(
                    "the pattern dictionary: Pattern[0].Event.EventWaveformPath: waveform '\(name)' not found (looked in "
                ), "\(text)")
            #expect(
                text.hasSuffix(
                    "HAPTIC_WAVEFORMS (colon-separated folders) adds places to look in (CHHapticError -4830)"))
        }
    }

    /// A registered audio resource's events survive a dictionary round trip: the engine, not
    /// the pattern, provides their sound.
    @Test func aRegisteredResourceSurvivesADictionaryRoundTrip() throws {
        let wav = FileManager.default.temporaryDirectory.appending(path: "resource-\(UUID().uuidString).wav")
        try Self.writeTone(to: wav)
        defer { try? FileManager.default.removeItem(at: wav) }
        let peak = try Self.peak { engine in
            let id = try engine.registerAudioResource(wav)
            let pattern = try CHHapticPattern(
                events: [CHHapticEvent(audioResourceID: id, parameters: [], relativeTime: 0)], parameters: [])
            let again = try CHHapticPattern(dictionary: pattern.exportDictionary())
            try engine.makePlayer(with: again).start(atTime: CHHapticTimeImmediate)
        }
        #expect(peak > 0.3, "peak \(peak)")
    }
}
