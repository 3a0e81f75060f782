import CoreHaptics
import HapticsEngine
import HapticsTesting
import Testing

/// Apple's CHHapticEngine is an Objective-C class: open, with overridable members. Apps subclass
/// it, most often to mark it Sendable (this line is theirs in shape, written here from scratch);
/// both declarations compile only if the class is `open` and its members are too.
final class SendableEngine: CHHapticEngine, @unchecked Sendable {}

final class CountingEngine: CHHapticEngine, @unchecked Sendable {
    let starts = Locked(0)
    override func start() throws {
        starts.withLock { $0 += 1 }
        try super.start()
    }
    override var currentTime: TimeInterval { super.currentTime }
    override class func capabilitiesForHardware() -> any CHHapticDeviceCapability {
        super.capabilitiesForHardware()
    }
}

/// What ``AppleSurfaceTests`` does not name: `open`, the async forms, default arguments,
/// `@escaping` handler parameters, and what an Objective-C-free `Unmanaged` can hold. Each line
/// fails to compile when the facade drifts from the declaration Apple's SDK gives.
@Suite struct SignatureTests {
    /// In synchronous code `try engine.start()` is the throwing form and `engine.stop()` binds to
    /// `stop(completionHandler:)` with its default `nil`, as with Apple's SDK (in async code both
    /// are the async forms).
    static func stopWithTheDefaultHandler(_ engine: CHHapticEngine) throws {
        try engine.start()
        engine.stop()
        engine.start(completionHandler: nil)
        engine.stop(completionHandler: nil)
    }

    @Test func theEngineHasApplesShapes() async throws {
        let driver = ManualEngineDriver()
        let engine = CountingEngine(output: driver.output, clock: driver.clock, ticks: driver.ticks)
        // Apple's Swift names for the async forms: `start() async throws`, `stop() async throws`.
        let _: (CHHapticEngine) -> () async throws -> Void = CHHapticEngine.start
        let _: (CHHapticEngine) -> () async throws -> Void = CHHapticEngine.stop
        let _: (CHHapticEngine) -> (@escaping CHHapticEngine.FinishedHandler) -> Void =
            CHHapticEngine.notifyWhenPlayersFinished(finishedHandler:)
        let _: (CHHapticEngine) -> (CHHapticPattern) throws -> any CHHapticPatternPlayer =
            CHHapticEngine.makePlayer(with:)
        let _: (CHHapticEngine) -> (CHHapticPattern) throws -> any CHHapticAdvancedPatternPlayer =
            CHHapticEngine.makeAdvancedPlayer(with:)
        let _: () -> any CHHapticDeviceCapability = CHHapticEngine.capabilitiesForHardware
        // registerAudioResource's options default to an empty dictionary.
        let _: (URL) throws -> CHHapticAudioResourceID = { try engine.registerAudioResource($0) }
        try Self.stopWithTheDefaultHandler(engine)
        #expect(engine.starts.withLock { $0 } == 1, "the subclass's override runs")
        try await engine.start()
        try await engine.stop()
        let sendable: any Sendable = SendableEngine(output: driver.output, clock: driver.clock, ticks: driver.ticks)
        #expect(sendable is CHHapticEngine)
    }

    /// Apple's Unity plug-in hands players to C# as `Unmanaged<CHHapticAdvancedPatternPlayer>`
    /// pointers, which needs the Objective-C runtime (an `@objc` protocol's existential is a class
    /// there). What compiles and works here, and on Apple's SDK too: `Unmanaged<AnyObject>` and a
    /// cast back; `Unmanaged` of the engine (a class); or a table of handles.
    @Test func playersCrossAnOpaquePointerAsAnyObject() throws {
        let rig = Rig()
        try rig.engine.start()
        let pattern = try CHHapticPattern(events: [tap(0, 1)], parameters: [])
        let player = try rig.engine.makeAdvancedPlayer(with: pattern)
        let pointer = Unmanaged<AnyObject>.passRetained(player).toOpaque()
        let back = Unmanaged<AnyObject>.fromOpaque(pointer)
        let advanced = try #require(back.takeUnretainedValue() as? any CHHapticAdvancedPatternPlayer)
        try advanced.start(atTime: CHHapticTimeImmediate)
        back.release()
        // Players refine NSObjectProtocol, as Apple's do.
        let plain: any CHHapticPatternPlayer = player
        #expect(plain.isEqual(advanced) && plain.hash == advanced.hash)
        #expect(plain.description.hasPrefix("<"), "\(plain.description)")
        let engine = Unmanaged.passUnretained(rig.engine).toOpaque()
        #expect(Unmanaged<CHHapticEngine>.fromOpaque(engine).takeUnretainedValue() === rig.engine)
        rig.run(seconds: 0.1)
        #expect(rig.onsets.count == 1)
    }
}
