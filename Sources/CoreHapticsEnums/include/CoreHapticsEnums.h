// Core Haptics' two engine enums, declared as Apple declares them: open C enums
// (NS_ENUM's enum_extensibility(open)), so Swift imports them as non-frozen enums.
// A `switch` over them wants `@unknown default` exactly as it does on Apple's
// platforms: no "default will never be executed" warning with it, and without it a
// warning in Swift 5 mode and an error in Swift 6 mode, as with Apple's SDK.
// CoreHaptics re-exports this module and names the types CHHapticEngine.StoppedReason
// and CHHapticEngine.FinishedAction. Raw values are Apple's.
#ifndef CORE_HAPTICS_ENUMS_H
#define CORE_HAPTICS_ENUMS_H

enum __attribute__((enum_extensibility(open))) CHHapticEngineStoppedReason : long {
    CHHapticEngineStoppedReasonAudioSessionInterrupt = 1,
    CHHapticEngineStoppedReasonApplicationSuspended = 2,
    CHHapticEngineStoppedReasonIdleTimeout = 3,
    CHHapticEngineStoppedReasonNotifyWhenFinished = 4,
    CHHapticEngineStoppedReasonEngineDestroyed = 5,
    CHHapticEngineStoppedReasonGameControllerDisconnect = 6,
    CHHapticEngineStoppedReasonSystemError = -1,
} __attribute__((swift_name("_CHHapticEngineStoppedReason")));

enum __attribute__((enum_extensibility(open))) CHHapticEngineFinishedAction : long {
    CHHapticEngineFinishedActionStopEngine = 1,
    CHHapticEngineFinishedActionLeaveEngineRunning = 2,
} __attribute__((swift_name("_CHHapticEngineFinishedAction")));

#endif
