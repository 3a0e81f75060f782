import Foundation
import HapticsCore
import HapticsSynthesis
import SensoryFeedback
import Testing

let packageRoot = URL(filePath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()
let format = AudioFormat(sampleRate: 48_000, channels: 1)

/// What a listener tells presets apart by.
struct Sound: CustomStringConvertible {
    var onsets: Int
    var loudness: Double
    var centroid: Double
    var length: Double

    init(_ preset: FeedbackPreset) throws {
        let samples = try PatternRenderer.render(preset.pattern, format: format)
        onsets = AudioAnalysis.onsets(samples, channels: 1, threshold: 1e-3, minGapFrames: 960).count
        loudness = AudioAnalysis.rmsDBFS(samples) + 10 * log10(Double(samples.count) / 48_000)  // energy in dB
        centroid = AudioAnalysis.spectralCentroid(samples, sampleRate: 48_000)
        length = Double(samples.count) / 48_000
    }

    /// Audibly different: another number of taps, 1 dB more or less energy, or 10 % brighter or duller.
    func differs(from other: Sound) -> Bool {
        onsets != other.onsets || abs(loudness - other.loudness) >= 1
            || abs(centroid - other.centroid) >= 0.1 * min(centroid, other.centroid)
    }

    var description: String {
        "\(onsets) onsets, \(String(format: "%.1f", loudness)) dB energy, \(Int(centroid)) Hz, \(String(format: "%.3f", length)) s"
    }
}

@Suite struct PresetTests {
    @Test(arguments: FeedbackPreset.all.map(\.name))
    func lintsClean(name: String) throws {
        let preset = try #require(FeedbackPreset.named(name))
        #expect(AHAP.lint(Array(preset.ahap.utf8), file: "\(name).ahap") == [])
    }

    @Test func everyFileInPatternsIsEmbeddedOnce() throws {
        let folder = packageRoot.appending(path: "Patterns/feedback")
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path(percentEncoded: false))
            .filter { $0.hasSuffix(".ahap") }.sorted()
        #expect(files == FeedbackPreset.all.map { "\($0.name).ahap" }.sorted())
        for preset in FeedbackPreset.all {
            let text = try String(contentsOf: folder.appending(path: "\(preset.name).ahap"), encoding: .utf8)
            #expect(text == preset.ahap, "\(preset.name).ahap is not what the module embeds")
        }
    }

    @Test func summaryIsTheDescriptionAsAPhrase() throws {
        let success = try #require(FeedbackPreset.named("success"))
        #expect(success.summary == "a medium tap, then a stronger, crisper one 100 ms later")
        #expect(success.pattern.events.count == 2)
    }

    @Test func everyFeedbackHasItsOwnPreset() {
        let names = SensoryFeedback.allPresetFeedbacks.map(\.presetName)
        #expect(Set(names).count == names.count)
        #expect(Set(names) == Set(FeedbackPreset.all.map(\.name)))
        #expect(SensoryFeedback.impact.presetName == "impact-medium")
        #expect(SensoryFeedback(presetName: "impact-soft") == .impact(flexibility: .soft))
        #expect(SensoryFeedback(presetName: "sucess") == nil)
    }

    @Test func everyPairSoundsDifferent() throws {
        let sounds = try FeedbackPreset.all.map { ($0.name, try Sound($0)) }
        for (i, a) in sounds.enumerated() {
            for b in sounds[(i + 1)...] {
                #expect(a.1.differs(from: b.1), "\(a.0) (\(a.1)) and \(b.0) (\(b.1)) sound alike")
            }
        }
    }

    @Test func designsKeepTheirPublishedShape() throws {
        func peaks(_ name: String) throws -> [Float] {
            let samples = try PatternRenderer.render(try #require(FeedbackPreset.named(name)).pattern, format: format)
            let starts = AudioAnalysis.onsets(samples, channels: 1, threshold: 1e-3, minGapFrames: 960)
            return starts.map { start in AudioAnalysis.peak(Array(samples[start..<min(samples.count, start + 1_440)])) }
        }
        let success = try peaks("success"), warning = try peaks("warning"), error = try peaks("error")
        #expect(success.count == 2 && success[0] < success[1])
        #expect(warning.count == 2 && warning[0] > warning[1])
        #expect(error.count == 4 && error[2] == error.max())
        let increase = try peaks("increase"), decrease = try peaks("decrease")
        #expect(increase.count == 2 && increase[0] < increase[1])
        #expect(decrease.count == 2 && decrease[0] > decrease[1])
        let light = try Sound(#require(FeedbackPreset.named("impact-light")))
        let medium = try Sound(#require(FeedbackPreset.named("impact-medium")))
        let heavy = try Sound(#require(FeedbackPreset.named("impact-heavy")))
        #expect(light.loudness < medium.loudness && medium.loudness < heavy.loudness)
        let soft = try Sound(#require(FeedbackPreset.named("impact-soft")))
        let rigid = try Sound(#require(FeedbackPreset.named("impact-rigid")))
        #expect(soft.centroid < rigid.centroid && soft.length > rigid.length)
        let selection = try Sound(#require(FeedbackPreset.named("selection")))
        #expect(selection.loudness < light.loudness)
    }
}

@Suite struct FeedbackTextTests {
    @Test(
        arguments: SensoryFeedback.allPresetFeedbacks + [
            .impact(weight: .heavy, intensity: 0.8), .impact(flexibility: .soft, intensity: 0),
        ])
    func descriptionReadsBack(feedback: SensoryFeedback) {
        #expect(SensoryFeedback(feedback.description) == feedback)
    }

    @Test func textIsTheEventLogsWords() {
        #expect(SensoryFeedback.levelChange.description == "levelChange")
        #expect(
            SensoryFeedback.impact(weight: .heavy, intensity: 0.8).description
                == "impact(weight: heavy, intensity: 0.8)")
        #expect(SensoryFeedback("impact( weight : rigid ,intensity: 1 )") == nil, "flexibilities are not weights")
        #expect(
            SensoryFeedback("impact(flexibility : rigid ,intensity: 1 )") == .impact(flexibility: .rigid, intensity: 1))
        #expect(SensoryFeedback("impact(weight: heavy, intensity: 1.5)") == nil)
        #expect(SensoryFeedback("celebrate") == nil)
    }
}
