/// Apple's AVFoundation re-exports AVFAudio, where `AVAudioSession` lives, so app code reaches the
/// session and `AVAudioPlayer` through either import. This Linux-only module does the same with
/// the stand-ins.
@_exported public import AVFAudio

/// AVFoundation's `AVFileType` (a file format's uniform type identifier), with Apple's raw
/// values, for `AVAudioPlayer(data:fileTypeHint:)`'s hint (`AVFileType.wav.rawValue`).
public struct AVFileType: RawRepresentable, Hashable, Sendable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }

    public static let wav = AVFileType(rawValue: "com.microsoft.waveform-audio")
    public static let aiff = AVFileType(rawValue: "public.aiff-audio")
    public static let aifc = AVFileType(rawValue: "public.aifc-audio")
    public static let caf = AVFileType(rawValue: "com.apple.coreaudio-format")
    public static let mp3 = AVFileType(rawValue: "public.mp3")
    public static let m4a = AVFileType(rawValue: "com.apple.m4a-audio")
    public static let mp4 = AVFileType(rawValue: "public.mpeg-4")
    public static let mov = AVFileType(rawValue: "com.apple.quicktime-movie")
}
