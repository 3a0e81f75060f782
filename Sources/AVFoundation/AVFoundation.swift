/// Apple's AVFoundation re-exports AVFAudio, where `AVAudioSession` lives, so app code reaches the
/// session through either import. This Linux-only module does the same with the stand-in.
@_exported public import AVFAudio
