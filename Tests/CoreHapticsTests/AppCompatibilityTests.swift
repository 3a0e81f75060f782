import Foundation
import HapticsEngine
import HapticsSynthesis
import HapticsTesting
import Synchronization
import Testing

@testable import CoreHaptics

/// What app code written for Apple's Core Haptics relies on, beyond the day-50 basics.
@Suite struct AppCompatibilityTests {
    @Test func errorsBridgeToNSErrorWithApplesCodeAndDomain() {
        let error: any Error = CHHapticError(.engineNotRunning, "the engine is not running")
        let bridged = error as NSError
        #expect(bridged.code == -4805)
        #expect(bridged.domain == "com.apple.CoreHaptics" && bridged.domain == CoreHapticsErrorDomain)
        #expect(CHHapticError.errorDomain == CoreHapticsErrorDomain)
        #expect(bridged.localizedDescription == "the engine is not running (CHHapticError -4805)")

        let made = CHHapticError(.fileNotFound, userInfo: [NSLocalizedDescriptionKey: "no Boing.ahap", "Extra": 7])
        #expect(made.code == .fileNotFound && made.message == "no Boing.ahap")
        #expect(made.userInfo["Extra"] as? Int == 7)
        #expect((made as NSError).code == -4851)
        #expect((made as NSError).userInfo["Extra"] as? Int == 7)
        #expect(CHHapticError(.memoryError).message == "Core Haptics error -4899")
    }

    /// Apple's error codes are listed once, in CoreHapticsEnums.h; the engine's
    /// `HapticEngineError.Code` and the facade's `CHHapticError.Code` are that C enum, and
    /// docs/corehaptics.md's row lists its names in its order. Read from the header itself, so a
    /// code added there and not to the docs (or a second list appearing) fails here.
    @Test func errorCodesHaveOneList() throws {
        let header = try String(
            contentsOf: packageRoot.appending(path: "Sources/CoreHapticsEnums/include/CoreHapticsEnums.h"),
            encoding: .utf8)
        let entries = header.split(separator: "\n").compactMap { line -> (name: String, value: Int)? in
            let parts = line.trimmingCharacters(in: .whitespaces).split(separator: " = ")
            guard parts.count == 2, parts[0].hasPrefix("CHHapticErrorCode"),
                let value = Int(parts[1].trimmingCharacters(in: CharacterSet(charactersIn: ",")))
            else { return nil }
            let name = parts[0].dropFirst("CHHapticErrorCode".count)
            return (name.prefix(1).lowercased() + name.dropFirst(), value)
        }
        #expect(entries.count == 24)
        #expect(HapticEngineError.Code.self == CHHapticError.Code.self)
        for entry in entries {
            let code = try #require(HapticEngineError.Code(rawValue: entry.value))
            #expect(appleName(of: code) == entry.name)
            #expect(CHHapticError(HapticEngineError(code, "x")).code == code)
            #expect((CHHapticError(code) as NSError).code == entry.value)
        }
        let docs = try String(contentsOf: packageRoot.appending(path: "docs/corehaptics.md"), encoding: .utf8)
        let row = try #require(docs.split(separator: "\n").first { $0.hasPrefix("| `CHHapticError.Code`: ") })
        let listed = row.split(separator: "|")[0].split(separator: "`").enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }.dropFirst()
        #expect(Array(listed) == entries.map(\.name))
    }

    @Test func enumsHaveApplesRawValues() {
        #expect(CHHapticEngine.FinishedAction.stopEngine.rawValue == 1)
        #expect(CHHapticEngine.FinishedAction.leaveEngineRunning.rawValue == 2)
        let reasons: [CHHapticEngine.StoppedReason] = [
            .audioSessionInterrupt, .applicationSuspended, .idleTimeout, .notifyWhenFinished, .engineDestroyed,
            .gameControllerDisconnect, .systemError,
        ]
        #expect(reasons.map(\.rawValue) == [1, 2, 3, 4, 5, 6, -1])
        #expect(CHHapticEngine.StoppedReason(rawValue: 3) == .idleTimeout)
    }

    @Test func finishedHandlerFiresAtOnceWhenNothingPlays() throws {
        let rig = Rig()
        try rig.engine.start()
        let finished = DispatchSemaphore(value: 0), stoppedOnce = DispatchSemaphore(value: 0)
        let stopped = Locked<[Int]>([])
        rig.engine.stoppedHandler = { reason in
            stopped.withLock { $0.append(reason.rawValue) }
            stoppedOnce.signal()
        }
        rig.engine.notifyWhenPlayersFinished { error in
            #expect(error == nil)
            finished.signal()
            return .stopEngine
        }
        #expect(finished.wait(timeout: .now() + 10) == .success)
        #expect(stoppedOnce.wait(timeout: .now() + 10) == .success)
        #expect(!rig.engine.engine.isRunning)
        #expect(stopped.withLock { $0 } == [4])
    }

    @Test func playPatternStartsAStoppedEngine() throws {
        let rig = Rig()
        #expect(!rig.engine.engine.isRunning)
        try rig.engine.playPattern(from: packageRoot.appending(path: "Patterns/feedback/success.ahap"))
        #expect(rig.engine.engine.isRunning)
        rig.run(seconds: 0.3)
        #expect(rig.onsets.count == 2)
    }

    @Test func asyncStartAndStopReturnOnceDone() async throws {
        let rig = Rig()
        try await rig.engine.start()
        #expect(rig.engine.engine.isRunning)
        try await rig.engine.stop()
        #expect(!rig.engine.engine.isRunning)
    }

    @Test func patternsLongerThanAnHourPlay() throws {
        let rig = Rig()
        try rig.engine.start()
        // An "endless" continuous event plays (for Core Haptics' 30 s); a tap at 4,000 s makes the
        // pattern longer than an hour, which Core Haptics allows.
        let endless = CHHapticEvent(
            eventType: .hapticContinuous, parameters: [], relativeTime: 0, duration: 100_000)
        let pattern = try CHHapticPattern(events: [tap(0, 1), endless, tap(4_000, 1)], parameters: [])
        #expect(pattern.duration == 4_000)
        try rig.engine.makePlayer(with: pattern).start(atTime: CHHapticTimeImmediate)
        rig.run(seconds: 0.5)
        let late = rig.driver.samples.suffix(4_800)
        #expect(AudioAnalysis.peak(Array(late)) > 0.01, "the continuous event still sounds after 0.4 s")
        #expect(try CHHapticPattern(events: [endless], parameters: []).duration == 30)
    }

    /// Apple's `CHHapticPattern` initializers are designated: an app's subclass chains to them.
    final class NamedPattern: CHHapticPattern {
        let name: String
        init(name: String, events: [CHHapticEvent]) throws {
            self.name = name
            try super.init(events: events, parameters: [])
        }
        init(name: String, dictionary: [CHHapticPattern.Key: Any]) throws {
            self.name = name
            try super.init(dictionary: dictionary)
        }
    }

    @Test func appSubclassesChainToApplesDesignatedInitializers() throws {
        let made = try NamedPattern(name: "tap", events: [tap(0.25, 1)])
        #expect(made.name == "tap" && made.duration == 0.25)
        let read = try NamedPattern(
            name: "read",
            dictionary: [
                .pattern: [
                    [
                        CHHapticPattern.Key.event: [
                            CHHapticPattern.Key.eventType: CHHapticEvent.EventType.hapticTransient,
                            CHHapticPattern.Key.time: 2.0,
                        ]
                    ]
                ]
            ])
        #expect(read.name == "read" && read.duration == 2)
    }

    @Test func anAdvancedPlayersCompletionHandlerIsNeverNil() throws {
        let rig = Rig()
        let player = try rig.engine.makeAdvancedPlayer(with: CHHapticPattern(events: [tap(0, 1)], parameters: []))
        player.completionHandler(nil)  // Apple's property is non-optional: callable before one is set
        let completed = DispatchSemaphore(value: 0)
        player.completionHandler = { _ in completed.signal() }
        try rig.engine.start()
        try player.start(atTime: CHHapticTimeImmediate)
        rig.run(seconds: 0.3)
        #expect(completed.wait(timeout: .now() + 10) == .success)
    }

    @Test func dictionariesFromJSONSerializationKeepNumbersAndBooleans() throws {
        let json = #"""
            {"Version": 1, "Pattern": [
              {"Event": {"Time": 0, "EventType": "HapticTransient",
                         "EventParameters": [{"ParameterID": "HapticIntensity", "ParameterValue": 1}]}},
              {"Event": {"Time": 1, "EventType": "HapticContinuous", "EventDuration": 0.5,
                         "EventParameters": [{"ParameterID": "Sustained", "ParameterValue": true}]}}
            ]}
            """#
        let object = try JSONSerialization.jsonObject(with: Data(json.utf8), options: .mutableContainers)
        let mutable = try #require(object as? NSMutableDictionary)
        #expect(try CHHapticPattern(dictionary: mutable).duration == 1.5)
        let strings = try #require(object as? [String: Any])
        #expect(try CHHapticPattern(dictionary: strings).duration == 1.5)
        // What app code writes against Apple's SDK (a React Native module, Apple's Unity plugin):
        // the cast from Foundation's dictionaries to Apple's key type succeeds here too.
        let keyed = try #require(object as? [CHHapticPattern.Key: Any])
        #expect(try CHHapticPattern(dictionary: keyed).duration == 1.5)
        let plain = try JSONSerialization.jsonObject(with: Data(json.utf8))
        let plainKeyed = try #require(plain as? [CHHapticPattern.Key: Any])
        #expect(try CHHapticPattern(dictionary: plainKeyed).duration == 1.5)
        #expect(plainKeyed[.pattern] != nil && plainKeyed[CHHapticPattern.Key(rawValue: "Version")] != nil)
        let exported = try CHHapticPattern(dictionary: keyed).exportDictionary()
        #expect(exported[.version] as? Double == 1)
        #expect((exported[.pattern] as? [Any])?.count == 2)
        #expect(
            throws: CHHapticError(
                .invalidPatternDictionary,
                "Pattern[0].Event.Time: error[wrong-type]: Time must be a number, found true")
        ) {
            try CHHapticPattern(dictionary: [
                "Pattern": [["Event": ["Time": NSNumber(value: true), "EventType": "HapticTransient"]]]
            ])
        }
    }

    /// Apps that read AHAP with `Codable` name Apple's key raw type for their coding keys
    /// (`enum CodingKeys: CHHapticPattern.Key.RawValue, CodingKey`), so the keys match the
    /// pattern dictionary's. Until 2026-11-26 `CHHapticPattern.Key.RawValue` did not exist here
    /// and such a file did not compile.
    @Test func codableAHAPModelsKeyedByTheKeysRawTypeDecode() throws {
        struct Tap: Decodable {
            enum CodingKeys: CHHapticPattern.Key.RawValue, CodingKey {
                case time = "Time"
                case eventType = "EventType"
            }
            let time: Double
            let eventType: String
        }
        struct Element: Decodable {
            enum CodingKeys: CHHapticPattern.Key.RawValue, CodingKey { case event = "Event" }
            let event: Tap
        }
        struct Document: Decodable {
            enum CodingKeys: CHHapticPattern.Key.RawValue, CodingKey { case pattern = "Pattern" }
            let pattern: [Element]
        }
        let json = #"{"Pattern": [{"Event": {"Time": 0.25, "EventType": "HapticTransient"}}]}"#
        let document = try JSONDecoder().decode(Document.self, from: Data(json.utf8))
        #expect(document.pattern.map(\.event.time) == [0.25])
        #expect(Document.CodingKeys.pattern.rawValue == CHHapticPattern.Key.pattern.rawValue)
        #expect(Tap.CodingKeys.eventType.stringValue == CHHapticPattern.Key.eventType)
        let raw: CHHapticPattern.Key.RawValue = CHHapticPattern.Key.time.rawValue
        #expect(CHHapticPattern.Key(rawValue: raw) == .time)
    }

    @Test func audioResourceOptionsLoopTheSound() throws {
        let folder = FileManager.default.temporaryDirectory.appending(path: "coreh-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        // 20 ms of a 440 Hz tone, then 30 ms of silence: each repeat is a separate onset, four
        // of them in the event's 190 ms.
        let tone = (0..<2_400).map { i in i < 960 ? Float(0.5 * sin(Double(i) * 2 * .pi * 440 / 48_000)) : 0 }
        let url = folder.appending(path: "blip.wav")
        try Data(WAV.encode(AudioClip(sampleRate: 48_000, channels: 1, samples: tone), sampleFormat: .f32))
            .write(to: url)

        func onsets(options: [AnyHashable: Any]) throws -> Int {
            let rig = Rig()
            try rig.engine.start()
            let id = try rig.engine.registerAudioResource(url, options: options)
            let event = CHHapticEvent(audioResourceID: id, parameters: [], relativeTime: 0, duration: 0.19)
            try rig.engine.makePlayer(with: CHHapticPattern(events: [event], parameters: []))
                .start(atTime: CHHapticTimeImmediate)
            rig.run(seconds: 0.4)
            return AudioAnalysis.onsets(rig.driver.samples, channels: 1, threshold: 1e-2, minGapFrames: 960).count
        }
        #expect(try onsets(options: [:]) == 1)
        let looped = try onsets(options: [CHHapticAudioResourceKeyLoopEnabled: true])
        #expect(looped == 4)
        // An NSDictionary's keys are NSStrings, which a String key does not find on Linux.
        #expect(try onsets(options: [NSString(string: CHHapticAudioResourceKeyLoopEnabled): true]) == 4)
        #expect(throws: CHHapticError.self) {
            try Rig().engine.registerAudioResource(url, options: [CHHapticAudioResourceKeyLoopEnabled: "yes"])
        }
    }

    @Test func bundleRelativeWaveformsAreFoundThroughTheConfiguredFolders() throws {
        // Apple's layout: the AHAP in <bundle>/AHAP names its waveform from the bundle root.
        let root = FileManager.default.temporaryDirectory.appending(path: "coreh-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appending(path: "AHAP"), withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let tone = (0..<960).map { i in Float(0.5 * sin(Double(i) * 2 * .pi * 440 / 48_000)) }
        try Data(WAV.encode(AudioClip(sampleRate: 48_000, channels: 1, samples: tone), sampleFormat: .f32))
            .write(to: root.appending(path: "AHAP/Drum.wav"))
        let ahap = root.appending(path: "AHAP/Drums.ahap")
        try Data(
            #"{"Pattern": [{"Event": {"Time": 0, "EventType": "AudioCustom", "EventWaveformPath": "AHAP/Drum.wav"}}]}"#
                .utf8
        ).write(to: ahap)
        let folders = CHHapticPattern.defaultWaveformSearchPaths(
            environment: ["HAPTIC_WAVEFORMS": "/nonexistent:" + root.path(percentEncoded: false)])
        #expect(folders.suffix(2).map { $0.path(percentEncoded: false) } == ["/nonexistent/", root.path + "/"])
        let pattern = try CHHapticPattern(contentsOf: ahap, waveformSearchPaths: folders)
        let rig = Rig()
        try rig.engine.start()
        try rig.engine.makePlayer(with: pattern).start(atTime: CHHapticTimeImmediate)
        rig.run(seconds: 0.1)
        #expect(AudioAnalysis.peak(rig.driver.samples) > 0.1, "the bundle's waveform plays")
        #expect(throws: CHHapticError.self) { try CHHapticPattern(contentsOf: ahap, waveformSearchPaths: []) }
    }

    @Test func aRestartedEngineAppendsToItsWAVFile() throws {
        let path = FileManager.default.temporaryDirectory.appending(path: "coreh-\(UUID().uuidString).wav")
            .path(percentEncoded: false)
        defer { unlink(path) }
        let clock = ManualClock()
        let ticks = ManualTickSource()
        let engine = CHHapticEngine(
            output: try WAVFileOutput(path: path, format: AudioFormat(sampleRate: 48_000, channels: 1)),
            clock: clock, ticks: ticks)
        for _ in 0..<2 {
            try engine.start()
            try engine.makePlayer(with: CHHapticPattern(events: [tap(0, 1)], parameters: []))
                .start(atTime: CHHapticTimeImmediate)
            for _ in 0..<20 { ticks.tick() }
            engine.stop()
        }
        engine.engine.flushCallbacks()
        let clip = try WAV.decode([UInt8](try Data(contentsOf: URL(filePath: path))))
        #expect(AudioAnalysis.onsets(clip.samples, channels: 1, threshold: 1e-3, minGapFrames: 960).count == 2)
    }
}

/// A value shared with a handler on the engine's queue.
final class Locked<Value: Sendable>: Sendable {
    private let mutex: Mutex<Value>
    init(_ value: Value) { mutex = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout sending Value) -> sending R) -> R { mutex.withLock(body) }
}
