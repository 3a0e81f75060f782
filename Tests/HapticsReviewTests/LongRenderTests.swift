import Foundation
import HapticsCore
import HapticsReview
import Testing

/// A long pattern on a plot or a review page: memory and page size stay bounded, the plot keeps
/// the whole waveform's outline, and the audio preview holds only the start, which the page says.
@Suite struct LongRenderTests {
    /// One full-strength continuous event of `seconds`.
    static func buzz(seconds: Double) -> HapticPattern {
        HapticPattern(elements: [
            .event(
                HapticEvent(
                    time: 0, type: .hapticContinuous, duration: seconds,
                    parameters: [EventParameter(.hapticIntensity, 1)]))
        ])
    }

    @Test func aLongRenderKeepsItsOutlineAndOnlyThePreviewsSamples() throws {
        let plot = try PlotInput.rendering(title: "buzz", pattern: Self.buzz(seconds: 100), previewSeconds: 2)
        // Every rendered second is accounted for, in about 200 000 outline values, not 4.8 million.
        #expect(plot.renderedSeconds >= 100 && plot.renderedSeconds < 100.5, "\(plot.renderedSeconds)")
        #expect(plot.samples.count <= 210_000 && plot.samples.count >= 100_000, "\(plot.samples.count)")
        // The outline reaches the buzz's peaks, as the full waveform does.
        let previewPeak = plot.preview.map(abs).max() ?? 0
        #expect(previewPeak > 0.5)
        #expect(abs((plot.samples.max() ?? 0) - previewPeak) < 0.05)
        #expect(abs((plot.samples.min() ?? 0) + previewPeak) < 0.05)
        // The preview: exactly 2 s at 48 kHz, a 16-bit mono WAV of 44 + 192 000 bytes.
        #expect(plot.preview.count == 96_000)
        #expect(plot.previewSampleRate == 48_000)
        #expect(plot.wavBytes.count == 44 + 192_000)
    }

    @Test func thePageSaysThePreviewIsOnlyTheStart() throws {
        let plot = try PlotInput.rendering(title: "buzz", pattern: Self.buzz(seconds: 5), previewSeconds: 1.5)
        let entry = ReviewEntry(path: "buzz.ahap", kind: .pattern, plot: plot, wavBytes: plot.wavBytes, findings: [])
        #expect(entry.previewSeconds == 1.5)
        let html = ReviewPage.html(title: "t", entries: [entry], generated: "now")
        #expect(html.contains("Preview: the first 1.5 s of \(String(format: "%.1f", entry.durationSeconds)) s"))
        #expect(html.contains("<code>haptic review --preview-seconds</code>"))
    }

    @Test func aShortPatternsPreviewIsAllOfItWithoutANote() throws {
        let plot = try PlotInput.rendering(title: "buzz", pattern: Self.buzz(seconds: 0.5), previewSeconds: 60)
        let entry = ReviewEntry(path: "buzz.ahap", kind: .pattern, plot: plot, wavBytes: plot.wavBytes, findings: [])
        #expect(entry.previewSeconds == nil)
        #expect(plot.preview == plot.samples)
        #expect(!ReviewPage.html(title: "t", entries: [entry], generated: "now").contains("Preview: the first"))
    }
}

/// A file with many findings of one rule: the page folds them as `haptic lint` does.
@Suite struct ReviewFoldingTests {
    @Test func repeatsOfARuleFoldAfterThree() throws {
        let plot = try PlotInput.rendering(
            title: "buzz", pattern: LongRenderTests.buzz(seconds: 0.1), previewSeconds: 60)
        let clamped = (0..<7).map { i in
            Diagnostic(.warning, code: .valueClamped, "value \(i) clamped", at: .root)
        }
        let other = Diagnostic(.warning, code: .unknownKey, "unknown key", at: .root)
        let entry = ReviewEntry(
            path: "many.ahap", kind: .pattern, plot: plot, wavBytes: plot.wavBytes, findings: clamped + [other])
        let html = ReviewPage.html(title: "t", entries: [entry], generated: "now")
        for i in 0..<3 { #expect(html.contains("value \(i) clamped")) }
        for i in 3..<7 { #expect(!html.contains("value \(i) clamped")) }
        #expect(
            html.contains(
                "… and 4 more [value-clamped] in this file (<code>haptic lint --all many.ahap</code> shows every one)"))
        #expect(html.contains("unknown key"))
        // The counts still count every finding.
        #expect(html.contains("8 warnings"))
    }
}
