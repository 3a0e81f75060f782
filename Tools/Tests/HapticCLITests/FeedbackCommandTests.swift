import Foundation
import HapticsSynthesis
import Testing

@Suite struct FeedbackCommandTests {
    func render(_ arguments: [String]) async throws -> AudioClip {
        let folder = try ScratchFolder()
        let out = folder.url.appending(path: "out.wav").path(percentEncoded: false)
        let result = try await Haptic.run(["feedback"] + arguments + ["-o", out])
        try #require(result.status == 0, "\(result.stderr)")
        return try WAV.decode([UInt8](try Data(contentsOf: URL(filePath: out))))
    }

    @Test func rendersAPresetToWAV() async throws {
        let clip = try await render(["success"])
        let onsets = AudioAnalysis.onsets(clip.samples, channels: 1, threshold: 1e-3, minGapFrames: 960)
        #expect(onsets == [0, clip.sampleRate / 10])
    }

    @Test func intensityAndWeightShapeAnImpact() async throws {
        let heavy = AudioAnalysis.peak(try await render(["impact", "--weight", "heavy"]).samples)
        let half = AudioAnalysis.peak(try await render(["impact", "--weight", "heavy", "--intensity", "0.5"]).samples)
        let light = AudioAnalysis.peak(try await render(["impact-light"]).samples)
        #expect(half < heavy * 0.8 && half > heavy * 0.2)
        #expect(light < heavy)
        let soft = try await render(["impact", "--flexibility", "soft"]),
            rigid = try await render(["impact", "--flexibility", "rigid"])
        #expect(
            AudioAnalysis.spectralCentroid(soft.samples, sampleRate: 48_000)
                < AudioAnalysis.spectralCentroid(rigid.samples, sampleRate: 48_000))
    }

    @Test func listsEveryPresetWithADescription() async throws {
        let result = try await Haptic.run(["feedback", "--list"])
        #expect(result.status == 0)
        let lines = result.output.split(separator: "\n")
        #expect(lines.count == 17)
        #expect(lines.first == "success        a medium tap, then a stronger, crisper one 100 ms later")
        #expect(lines.last == "impact-soft    soft objects colliding: a duller, longer thud")
    }

    @Test(arguments: [
        (["sucess"], "Error: unknown feedback 'sucess'; did you mean 'success'? (see haptic feedback --list)"),
        (
            ["impact", "--weight", "heavy", "--flexibility", "soft"],
            "Error: --weight and --flexibility cannot be used together"
        ),
        (["success", "--intensity", "0.5"], "Error: --weight, --flexibility and --intensity apply to impacts only"),
        (["impact", "--intensity", "1.5"], "Error: --intensity must be 0 to 1 (got 1.5)"),
        (["xyzzy"], "Error: unknown feedback 'xyzzy' (see haptic feedback --list)"),
    ])
    func refusesBadInput(arguments: [String], message: String) async throws {
        let result = try await Haptic.run(["feedback"] + arguments)
        #expect(result.status == 64)
        #expect(result.stderr.split(separator: "\n").first.map(String.init) == message)
    }

    @Test func acceptsSwiftUISpellings() async throws {
        let clip = try await render(["levelChange"])
        #expect(AudioAnalysis.peak(clip.samples) > 0.1)
    }
}
