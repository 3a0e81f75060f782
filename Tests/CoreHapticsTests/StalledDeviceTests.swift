import CoreHaptics
import Dispatch
import HapticsEngine
import HapticsTesting
import Synchronization
import Testing

/// A device that stalls (its sound server stopped) stops the engine, and the app hears why
/// through `stoppedHandler`, as Core Haptics reports an engine failure.
@Suite struct StalledDeviceTests {
    @Test func aStalledDeviceCallsTheStoppedHandlerWithSystemError() throws {
        let rig = Rig()
        try rig.engine.start()
        let reasons = Mutex<[CHHapticEngine.StoppedReason]>([])
        let stopped = DispatchSemaphore(value: 0)
        rig.engine.stoppedHandler = { reason in
            reasons.withLock { $0.append(reason) }
            stopped.signal()
        }
        rig.run(seconds: 0.05)
        rig.driver.output.failNextCall(
            with: AudioOutputError(
                code: .deviceStalled, device: "default",
                message: "device 'default' stalled: it took no frames for 2.0 s (is its sound server stopped or hung?)")
        )
        rig.run(seconds: 0.05)
        #expect(stopped.wait(timeout: .now() + 10) == .success)
        #expect(reasons.withLock { $0 } == [.systemError])
        #expect(!rig.engine.engine.isRunning)
    }
}
