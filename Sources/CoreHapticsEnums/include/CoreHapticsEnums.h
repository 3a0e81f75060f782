// Core Haptics' open enums, declared as Apple declares them: open C enums
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

// CHHapticError.Code, an open enum as Apple's NS_ERROR_ENUM is: a `switch` over it wants
// `@unknown default`, as with Apple's SDK. CoreHaptics names it CHHapticError.Code.
enum __attribute__((enum_extensibility(open))) CHHapticErrorCode : long {
    CHHapticErrorCodeEngineNotRunning = -4805,
    CHHapticErrorCodeOperationNotPermitted = -4806,
    CHHapticErrorCodeEngineStartTimeout = -4808,
    CHHapticErrorCodeNotSupported = -4809,
    CHHapticErrorCodeServerInitFailed = -4810,
    CHHapticErrorCodeServerInterrupted = -4811,
    CHHapticErrorCodeInvalidPatternPlayer = -4812,
    CHHapticErrorCodeInvalidPatternData = -4813,
    CHHapticErrorCodeInvalidPatternDictionary = -4814,
    CHHapticErrorCodeInvalidAudioSession = -4815,
    CHHapticErrorCodeInvalidEngineParameter = -4816,
    CHHapticErrorCodeInvalidParameterType = -4820,
    CHHapticErrorCodeInvalidEventType = -4821,
    CHHapticErrorCodeInvalidEventTime = -4822,
    CHHapticErrorCodeInvalidEventDuration = -4823,
    CHHapticErrorCodeInvalidAudioResource = -4824,
    CHHapticErrorCodeResourceNotAvailable = -4825,
    CHHapticErrorCodeBadEventEntry = -4830,
    CHHapticErrorCodeBadParameterEntry = -4831,
    CHHapticErrorCodeInvalidTime = -4840,
    CHHapticErrorCodeFileNotFound = -4851,
    CHHapticErrorCodeInsufficientPower = -4897,
    CHHapticErrorCodeUnknownError = -4898,
    CHHapticErrorCodeMemoryError = -4899,
} __attribute__((swift_name("_CHHapticErrorCode")));

#endif
