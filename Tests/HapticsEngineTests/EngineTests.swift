import HapticsCore
import HapticsEngine
import HapticsSynthesis
import HapticsTesting
import Synchronization
import Testing

func tap(_ time: Double, intensity: Float = 1, sharpness: Float = 0.5) -> PatternElement {
    .event(
        HapticEvent(
            time: time, type: .hapticTransient,
            parameters: [.init(.hapticIntensity, intensity), .init(.hapticSharpness, sharpness)]))
}

func onsets(_ samples: [Float], rate: Int = 48_000) -> [Int] {
    AudioAnalysis.onsets(samples, channels: 1, minGapFrames: rate / 50)
}

@Suite struct ScheduleQueueTests {
    @Test func popsByDeadlineThenByInsertion() {
        var queue = ScheduleQueue<Int64, String>()
        queue.insert("b", deadline: 10)
        queue.insert("a", deadline: 5)
        queue.insert("c", deadline: 10)
        queue.insert("late", deadline: 99)
        #expect(queue.popFirst(dueBy: 4) == nil)
        var order: [String] = []
        while let next = queue.popFirst(dueBy: 10) { order.append(next.element) }
        #expect(order == ["a", "b", "c"])
        #expect(queue.nextDeadline == 99)
    }

    @Test func removesWhatIsCancelled() {
        var queue = ScheduleQueue<Int64, Int>()
        for i in 0..<100 { queue.insert(i, deadline: Int64(100 - i)) }
        queue.removeAll { $0 % 2 == 0 }
        var seen: [Int] = []
        while let next = queue.popFirst(dueBy: .max) { seen.append(next.element) }
        #expect(seen == stride(from: 99, through: 1, by: -2).map { $0 })
    }
}

@Suite struct EngineTimingTests {
    @Test func aScheduledTapLandsOnItsExactFrame() throws {
        let rig = ManualEngineDriver()
        try rig.engine.start()
        let player = try rig.engine.makePlayer(HapticPattern(elements: [tap(0)]))
        try player.start(atTime: 0.25)
        rig.advance(by: .seconds(0.5))
        #expect(onsets(rig.samples) == [12_000])
    }

    /// Timer jitter moves writes, never events: uneven ticks give the offline render's samples.
    @Test(arguments: [[192], [48, 480, 7, 960, 333], [960]])
    func jitterNeverMovesAnEvent(ticks: [Int]) throws {
        let pattern = HapticPattern(elements: [
            tap(0.0), tap(0.013, intensity: 0.7), tap(0.1, sharpness: 1),
            .event(
                HapticEvent(
                    time: 0.2, type: .hapticContinuous, duration: 0.1, parameters: [.init(.hapticIntensity, 0.6)])),
            .curve(
                ParameterCurve(
                    .hapticIntensityControl, time: 0.2,
                    controlPoints: [.init(time: 0, value: 1), .init(time: 0.1, value: 0.2)])),
        ])
        let rig = ManualEngineDriver()
        try rig.engine.start()
        let player = try rig.engine.makePlayer(pattern)
        try player.start(atTime: 0.1)
        rig.advance(by: .seconds(0.6), tickFrames: ticks)
        let offline = try PatternRenderer.render(pattern, format: AudioFormat(sampleRate: 48_000, channels: 1))
        let live = Array(rig.samples.dropFirst(4_800).prefix(offline.count))
        #expect(Array(rig.samples.prefix(4_800)).allSatisfy { $0 == 0 })
        let mismatch = zip(live, offline).enumerated().first { $0.element.0 != $0.element.1 }?.offset
        #expect(live.count == offline.count)
        #expect(mismatch == nil, "first differing frame: \(mismatch.map(String.init) ?? "none")")
    }

    @Test func currentTimeFollowsWhatIsHeard() throws {
        let rig = ManualEngineDriver()
        #expect(rig.engine.currentTime == 0)
        try rig.engine.start()
        rig.advance(by: .seconds(1.0))
        let t = rig.engine.currentTime
        #expect(abs(t - 1.0) < 0.021, "currentTime \(t)")
    }

    @Test func anImmediateStartIsRenderedOnTheNextTick() throws {
        let rig = ManualEngineDriver()
        try rig.engine.start()
        rig.advance(by: .seconds(0.1))
        let before = rig.output.framesWritten
        let player = try rig.engine.makePlayer(HapticPattern(elements: [tap(0)]))
        try player.start(atTime: HapticEngine.timeImmediate)
        rig.step(frames: 192)
        #expect(onsets(rig.samples) == [Int(before)])
    }

    @Test func twoHundredFiftySixPlayersMixWithoutAnUnderrun() throws {
        let rig = ManualEngineDriver(bufferFrames: 960)
        try rig.engine.start()
        var players: [Player] = []
        for i in 0..<256 {
            let player = try rig.engine.makePlayer(
                HapticPattern(elements: [
                    .event(
                        HapticEvent(
                            time: 0, type: .hapticContinuous, duration: 0.3,
                            parameters: [.init(.hapticIntensity, 0.2), .init(.hapticSharpness, Float(i % 10) / 10)]))
                ]))
            try player.start(atTime: 0.05)
            players.append(player)
        }
        rig.advance(by: .seconds(0.5))
        #expect(rig.output.underrunCount == 0)
        #expect(AudioAnalysis.peak(rig.samples) <= 1.0)
        #expect(AudioAnalysis.peak(Array(rig.samples[2_400..<16_800])) > 0.3)
    }
}

@Suite struct PlayerTests {
    @Test func startingOnAStoppedEngineIsRefused() throws {
        let rig = ManualEngineDriver()
        let player = try rig.engine.makePlayer(HapticPattern(elements: [tap(0)]))
        #expect(throws: HapticEngineError.self) { try player.start(atTime: 0) }
        do {
            try player.start(atTime: 0)
        } catch {
            #expect(error.code == .engineNotRunning)
            #expect(error.code.rawValue == -4805)
        }
    }

    @Test func aNegativeTimeIsRefused() throws {
        let rig = ManualEngineDriver()
        try rig.engine.start()
        let player = try rig.engine.makePlayer(HapticPattern(elements: [tap(0)]))
        do {
            try player.start(atTime: -1)
            Issue.record("a negative time was accepted")
        } catch {
            #expect(error.code == .invalidTime)
        }
    }

    @Test func plainPlayersCannotPause() throws {
        let rig = ManualEngineDriver()
        try rig.engine.start()
        let player = try rig.engine.makePlayer(HapticPattern(elements: [tap(0)]))
        do {
            try player.pause(atTime: 0)
            Issue.record("a plain player paused")
        } catch {
            #expect(error.code == .operationNotPermitted)
        }
    }

    @Test func anIntensityParameterHalvesWhatFollows() throws {
        let pattern = HapticPattern(elements: [
            .event(HapticEvent(time: 0, type: .hapticContinuous, duration: 1, parameters: [.init(.hapticIntensity, 1)]))
        ])
        let rig = ManualEngineDriver()
        try rig.engine.start()
        let player = try rig.engine.makePlayer(pattern)
        try player.start(atTime: 0.1)
        try player.sendParameters([DynamicParameter(.hapticIntensityControl, value: 0.25, time: 0)], atTime: 0.5)
        rig.advance(by: .seconds(1.0))
        let before = AudioAnalysis.rmsDBFS(Array(rig.samples[14_400..<23_000]))
        let after = AudioAnalysis.rmsDBFS(Array(rig.samples[24_500..<33_000]))
        #expect(after < before - 6, "before \(before) dB, after \(after) dB")
    }

    @Test func aCurvesStartIsReplacedByAtTime() throws {
        let pattern = HapticPattern(elements: [
            .event(HapticEvent(time: 0, type: .hapticContinuous, duration: 2, parameters: [.init(.hapticIntensity, 1)]))
        ])
        let rig = ManualEngineDriver()
        try rig.engine.start()
        let player = try rig.engine.makePlayer(pattern)
        try player.start(atTime: 0.1)
        let silence = ParameterCurve(
            .hapticIntensityControl, time: 55, controlPoints: [.init(time: 0, value: 0), .init(time: 0.2, value: 0)])
        try player.scheduleParameterCurve(silence, atTime: 0.6)
        rig.advance(by: .seconds(1.0))
        #expect(AudioAnalysis.peak(Array(rig.samples[20_000..<28_000])) > 0.1)
        #expect(AudioAnalysis.peak(Array(rig.samples[29_500..<38_000])) < 0.01)
    }

    @Test func stopFadesOutWithoutAStuckBuzz() throws {
        let rig = ManualEngineDriver()
        try rig.engine.start()
        let player = try rig.engine.makePlayer(
            HapticPattern(elements: [
                .event(
                    HapticEvent(time: 0, type: .hapticContinuous, duration: 5, parameters: [.init(.hapticIntensity, 1)])
                )
            ]))
        try player.start(atTime: 0.05)
        try player.stop(atTime: 0.3)
        rig.advance(by: .seconds(0.5))
        #expect(AudioAnalysis.peak(Array(rig.samples[4_800..<14_000])) > 0.1)
        #expect(AudioAnalysis.peak(Array(rig.samples[15_360..<24_000])) == 0)
    }

    @Test func loopsRepeatOnExactFrames() throws {
        let rig = ManualEngineDriver()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(HapticPattern(elements: [tap(0), tap(0.1)]))
        player.loopEnabled = true
        player.loopEnd = 0.25
        try player.start(atTime: 0.05)
        rig.advance(by: .seconds(1.0))
        let expected = [0.05, 0.15, 0.30, 0.40, 0.55, 0.65, 0.80, 0.90].map { Int(($0 * 48_000).rounded()) }
        #expect(onsets(rig.samples) == expected)
    }

    @Test func aSelectionLoopsFromItsStartOnExactFrames() throws {
        let rig = ManualEngineDriver()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(
            HapticPattern(elements: [tap(0), tap(0.1), tap(0.2), tap(0.3), tap(0.4)]))
        // Loop 0.15 ..< 0.35 (the taps at 0.2 and 0.3), starting there: what the studio's
        // "loop selection" asks for.
        player.loopEnabled = true
        player.loopStart = 0.15
        player.loopEnd = 0.35
        try player.seek(toOffset: 0.15)
        try player.start(atTime: 0.05)
        rig.advance(by: .seconds(0.75))
        // From 0.05: taps 0.05 s and 0.15 s in, then the same every 0.2 s (never the taps outside).
        let expected = [0.10, 0.20, 0.30, 0.40, 0.50, 0.60, 0.70].map { Int(($0 * 48_000).rounded()) }
        #expect(onsets(rig.samples) == expected)
    }

    @Test func aFasterRateScalesTimesNotPitch() throws {
        let rig = ManualEngineDriver()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(HapticPattern(elements: [tap(0), tap(0.2), tap(0.4)]))
        player.playbackRate = 2
        try player.start(atTime: 0.1)
        rig.advance(by: .seconds(0.6))
        #expect(onsets(rig.samples) == [4_800, 9_600, 14_400])
    }

    @Test func pauseAndResumeContinueWhereTheyLeftOff() throws {
        let rig = ManualEngineDriver()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(HapticPattern(elements: [tap(0), tap(0.2), tap(0.4)]))
        try player.start(atTime: 0.1)
        try player.pause(atTime: 0.2)
        try player.resume(atTime: 0.5)
        rig.advance(by: .seconds(1.0))
        // 0.1 s played before the pause: the taps at 0.2 and 0.4 follow 0.1 and 0.3 s after resuming.
        #expect(onsets(rig.samples) == [4_800, 28_800, 38_400])
    }

    @Test func seekingSkipsAhead() throws {
        let rig = ManualEngineDriver()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(HapticPattern(elements: [tap(0), tap(0.2), tap(0.4)]))
        try player.seek(toOffset: 0.15)
        try player.start(atTime: 0.1)
        rig.advance(by: .seconds(0.6))
        #expect(onsets(rig.samples) == [Int(0.15 * 48_000), Int(0.35 * 48_000)])
    }

    @Test func completionComesOnceTheEndIsHeard() throws {
        let rig = ManualEngineDriver()
        try rig.engine.start()
        let player = try rig.engine.makeAdvancedPlayer(HapticPattern(elements: [tap(0), tap(0.1)]))
        let done = Mutex<Double?>(nil)
        let engine = rig.engine
        player.completionHandler = { _ in done.withLock { $0 = engine.currentTime } }
        try player.start(atTime: 0.1)
        rig.advance(by: .seconds(0.15))
        #expect(done.withLock { $0 } == nil)
        rig.advance(by: .seconds(0.4))
        rig.engine.flushCallbacks()
        let finishedAt = try #require(done.withLock { $0 })
        #expect(finishedAt > 0.2)
    }

    @Test func finishedPlayersCanStopTheEngine() throws {
        let rig = ManualEngineDriver()
        try rig.engine.start()
        let reasons = Mutex<[HapticEngine.StoppedReason]>([])
        rig.engine.stoppedHandler = { reason in reasons.withLock { $0.append(reason) } }
        rig.engine.notifyWhenPlayersFinished { _ in .stopEngine }
        let player = try rig.engine.makePlayer(HapticPattern(elements: [tap(0)]))
        try player.start(atTime: 0.05)
        rig.advance(by: .seconds(0.3))
        rig.engine.flushCallbacks()
        rig.engine.flushCallbacks()
        #expect(!rig.engine.isRunning)
        #expect(reasons.withLock { $0 } == [.notifyWhenFinished])
    }

    @Test func autoShutdownStopsAnIdleEngine() throws {
        var configuration = HapticEngine.Configuration()
        configuration.idleShutdownSeconds = 0.5
        let rig = ManualEngineDriver(configuration: configuration)
        rig.engine.isAutoShutdownEnabled = true
        let reasons = Mutex<[HapticEngine.StoppedReason]>([])
        rig.engine.stoppedHandler = { reason in reasons.withLock { $0.append(reason) } }
        try rig.engine.start()
        rig.advance(by: .seconds(0.4))
        rig.engine.flushCallbacks()
        #expect(rig.engine.isRunning)
        rig.advance(by: .seconds(0.2))
        rig.engine.flushCallbacks()
        rig.engine.flushCallbacks()
        #expect(!rig.engine.isRunning)
        #expect(reasons.withLock { $0 } == [.idleTimeout])
    }

    @Test func mutedHapticsAreSilent() throws {
        let rig = ManualEngineDriver()
        try rig.engine.start()
        rig.engine.isMutedForHaptics = true
        let player = try rig.engine.makePlayer(HapticPattern(elements: [tap(0.05)]))
        try player.start(atTime: 0)
        rig.advance(by: .seconds(0.2))
        #expect(AudioAnalysis.peak(rig.samples) == 0)
    }
}

@Suite struct IdleTimerTests {
    @Test func theTimerStopsWhenNothingPlaysAndTheNextCommandStartsIt() throws {
        let rig = ManualEngineDriver()
        try rig.engine.start()
        let player = try rig.engine.makePlayer(HapticPattern(elements: [tap(0)]))
        try player.start(atTime: HapticEngine.timeImmediate)
        rig.advance(by: .seconds(0.5))
        #expect(!rig.ticks.isSuspended)  // idle for less than idleSuspendSeconds (1 s)
        rig.advance(by: .seconds(1))
        #expect(rig.ticks.isSuspended && rig.engine.isTimerSuspended)
        // A command for later wakes the timer at once, and the tap lands on its frame.
        let at = rig.engine.currentTime + 0.25
        try player.start(atTime: at)
        #expect(!rig.ticks.isSuspended)
        rig.advance(by: .seconds(0.5))
        #expect(onsets(rig.samples) == [0, Int((at * 48_000).rounded())])
        #expect(rig.engine.underrunCount == 0)
    }

    @Test func aPlayingPatternKeepsTheTimerRunning() throws {
        let rig = ManualEngineDriver()
        try rig.engine.start()
        let player = try rig.engine.makePlayer(
            HapticPattern(elements: [.event(HapticEvent(time: 0, type: .hapticContinuous, duration: 3))]))
        try player.start(atTime: HapticEngine.timeImmediate)
        rig.advance(by: .seconds(2.5))
        #expect(!rig.ticks.isSuspended)
    }
}
