import HapticsCore
import HapticsSynthesis
import Testing

/// `PatternRenderer(…, offset:)` plays the pattern from a time into it, as the whole render plays
/// it there: the controls stand as they have been set, and the events under way join in progress
/// (at their level there, not at their start).
@Suite struct RenderOffsetTests {
    static let format = AudioFormat(sampleRate: 48_000)

    /// A buzz from 0 to 1 s under an intensity curve that ends at 0.9 s and holds 0.3 from there,
    /// a sharpness step at 0.8 s, clicks at 0.4, 1.3 and 1.6 s and a second buzz from 1.5 to 2 s.
    static let pattern = HapticPattern(elements: [
        .event(
            HapticEvent(
                time: 0, type: .hapticContinuous, duration: 1,
                parameters: [EventParameter(.hapticIntensity, 0.6), EventParameter(.hapticSharpness, 0.4)])),
        .curve(
            ParameterCurve(
                .hapticIntensityControl, time: 0.2,
                controlPoints: [.init(time: 0, value: 1), .init(time: 0.7, value: 0.3)])),
        .event(HapticEvent(time: 0.4, type: .hapticTransient, parameters: [EventParameter(.hapticIntensity, 1)])),
        .parameter(DynamicParameter(.hapticSharpnessControl, value: 0.5, time: 0.8)),
        .event(HapticEvent(time: 1.3, type: .hapticTransient, parameters: [EventParameter(.hapticIntensity, 1)])),
        .event(
            HapticEvent(
                time: 1.5, type: .hapticContinuous, duration: 0.5,
                parameters: [EventParameter(.hapticIntensity, 0.8), EventParameter(.hapticSharpness, 0.2)])),
        .event(HapticEvent(time: 1.6, type: .hapticTransient, parameters: [EventParameter(.hapticIntensity, 1)])),
    ])

    static func render(from offset: Double) throws -> [Float] {
        var renderer = try PatternRenderer(pattern: pattern, format: format, offset: offset)
        var out = [Float](repeating: 0, count: Int(renderer.frameCount))
        let written = out.withUnsafeMutableBufferPointer { renderer.render(into: $0) }
        #expect(written == out.count)
        return out
    }

    /// Root mean square of each 10 ms.
    static func levels(_ samples: ArraySlice<Float>) -> [Float] {
        stride(from: samples.startIndex, to: samples.endIndex - 479, by: 480).map { start in
            (samples[start..<start + 480].reduce(0) { $0 + $1 * $1 } / 480).squareRoot()
        }
    }

    @Test func betweenEventsItIsTheWholeRenderFromThere() throws {
        let whole = try Self.render(from: 0)
        let skipped = Int(try Self.format.frame(at: 1.2))
        let part = try Self.render(from: 1.2)
        #expect(part.count == whole.count - skipped)
        #expect(part.contains { $0 != 0 })
        let difference = zip(part, whole[skipped...]).map { abs($0 - $1) }.max() ?? 1
        // The clicks at the curve's held 0.3 and the sharpness step's 0.5, as in the whole.
        #expect(difference < 1e-6, "largest difference \(difference)")
    }

    @Test(arguments: [0.5, 1.55])
    func anEventUnderWayJoinsAtItsLevelThere(offset: Double) throws {
        let whole = try Self.render(from: 0)
        let skipped = Int(try Self.format.frame(at: offset))
        let part = try Self.render(from: offset)
        #expect(part.count == whole.count - skipped)
        let mine = Self.levels(part[...])
        let theirs = Self.levels(whole[skipped...])
        // A joined voice starts at its level there but not its phase, so where a click sounds
        // over it the two add up differently: those 10 ms are left out.
        let clicks = [0.4, 1.3, 1.6].map { Int((($0 - offset) * 100).rounded(.down)) }
        let sounding = theirs.indices.filter { theirs[$0] > 0.01 && !clicks.contains($0) }
        #expect(sounding.count > 10)
        let worst = sounding.map { abs(mine[$0] - theirs[$0]) / theirs[$0] }.max() ?? 1
        #expect(worst < 0.1, "a 10 ms level \(Int(worst * 100)) % away from the whole render's")
    }

    @Test func anOffsetPastTheEndRendersNothing() throws {
        var renderer = try PatternRenderer(pattern: Self.pattern, format: Self.format, offset: 10)
        #expect(renderer.frameCount == 0)
        var block = [Float](repeating: 0, count: 64)
        #expect(block.withUnsafeMutableBufferPointer { renderer.render(into: $0) } == 0)
    }

    @Test func anOffsetThatIsNoFramePositionThrows() {
        #expect(throws: FrameRangeError.self) {
            _ = try PatternRenderer(pattern: Self.pattern, format: Self.format, offset: .infinity)
        }
    }
}
