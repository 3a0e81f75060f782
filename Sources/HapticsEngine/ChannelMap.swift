import Foundation
import HapticsSynthesis

/// Where the haptic signal (and, optionally, an audible preview) goes on a device with more
/// channels than the synthesizer renders: a DualSense's four USB audio channels carry the
/// headphone or speaker signal on 1-2 and its two voice-coil actuators on 3-4.
///
/// Channels are numbered from 1, as `speaker-test` and mixer applications number them. Every
/// device channel the map does not name is written silent. The haptic signal is rendered with
/// the actuator voicing (``HapticEngine/Configuration/actuatorVoicing``), one channel of it per
/// entry of ``hapticChannels``; the preview is the ordinary render (the engine's voicing), one
/// channel per entry of ``previewChannels``. See docs/actuators.md.
///
/// ```swift
/// let map = try ChannelMap(deviceChannels: 4, hapticChannels: [3, 4])   // a DualSense
/// let output = try ALSAOutput(.init(device: "hw:CARD=Controller", channelMap: map))
/// ```
public struct ChannelMap: Hashable, Sendable, CustomStringConvertible {
    /// The device's channel count.
    public let deviceChannels: Int
    /// The device channels (1-based) that carry the haptic signal: one (mono) or two (stereo).
    public let hapticChannels: [Int]
    /// The device channels (1-based) that carry the audible preview: none, one or two.
    public let previewChannels: [Int]

    /// A map, checked: `hapticChannels` has one or two entries, `previewChannels` at most two,
    /// all within `1...deviceChannels` and no channel named twice.
    ///
    /// - Throws: ``ChannelMapError`` saying which rule the map breaks.
    public init(deviceChannels: Int, hapticChannels: [Int], previewChannels: [Int] = []) throws(ChannelMapError) {
        guard (1...AudioFormat.maxChannels).contains(deviceChannels) else {
            throw ChannelMapError("a device has 1 to \(AudioFormat.maxChannels) channels (got \(deviceChannels))")
        }
        guard (1...2).contains(hapticChannels.count) else {
            throw ChannelMapError("the haptic signal goes on one or two channels (got \(hapticChannels.count))")
        }
        guard previewChannels.count <= 2 else {
            throw ChannelMapError("the preview goes on at most two channels (got \(previewChannels.count))")
        }
        let all = hapticChannels + previewChannels
        if let outside = all.first(where: { !(1...deviceChannels).contains($0) }) {
            throw ChannelMapError("channel \(outside) is not one of the device's 1...\(deviceChannels)")
        }
        guard Set(all).count == all.count else {
            throw ChannelMapError("a channel is named twice in \(all.map(String.init).joined(separator: ","))")
        }
        self.deviceChannels = deviceChannels
        self.hapticChannels = hapticChannels
        self.previewChannels = previewChannels
    }

    /// A DualSense (or DualSense Edge) over USB: four channels, the actuators on 3 (left) and 4
    /// (right), the headphone/speaker pair on 1-2 carrying the preview when `preview` is set.
    public static func dualSense(preview: Bool = false) -> ChannelMap {
        // Valid by construction.
        try! ChannelMap(deviceChannels: 4, hapticChannels: [3, 4], previewChannels: preview ? [1, 2] : [])
    }

    /// The same map with the preview on the lowest one or two channels the haptic signal leaves
    /// free (as many as the haptic signal has), or without a preview when `preview` is false.
    public func withPreview(_ preview: Bool) -> ChannelMap {
        guard preview else {
            return try! ChannelMap(deviceChannels: deviceChannels, hapticChannels: hapticChannels)
        }
        let free = (1...deviceChannels).filter { !hapticChannels.contains($0) }.prefix(hapticChannels.count)
        return
            (try? ChannelMap(
                deviceChannels: deviceChannels, hapticChannels: hapticChannels, previewChannels: Array(free))) ?? self
    }

    /// `CHANNELS:HAPTIC[:PREVIEW]`, e.g. `4:3,4` or `4:3,4:1,2`: the form `HAPTIC_CHANNEL_MAP` takes.
    public init(parsing text: String) throws(ChannelMapError) {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        func numbers(_ part: Substring) throws(ChannelMapError) -> [Int] {
            var result: [Int] = []
            for item in part.split(separator: ",") {
                guard let value = Int(item.trimmingCharacters(in: .whitespaces)) else {
                    throw ChannelMapError("'\(item)' is not a channel number in '\(text)'")
                }
                result.append(value)
            }
            return result
        }
        guard (2...3).contains(parts.count), let count = Int(parts[0]) else {
            throw ChannelMapError("'\(text)' is not CHANNELS:HAPTIC[:PREVIEW], e.g. 4:3,4 or 4:3,4:1,2")
        }
        try self.init(
            deviceChannels: count, hapticChannels: try numbers(parts[1]),
            previewChannels: parts.count == 3 ? try numbers(parts[2]) : [])
    }

    /// `4:3,4` or `4:3,4:1,2`, as ``init(parsing:)`` reads it.
    public var description: String {
        let haptic = hapticChannels.map(String.init).joined(separator: ",")
        let preview = previewChannels.map(String.init).joined(separator: ",")
        return "\(deviceChannels):\(haptic)" + (previewChannels.isEmpty ? "" : ":\(preview)")
    }
}

/// A channel map that cannot be: a channel outside the device, named twice, or too many.
public struct ChannelMapError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What is wrong, in words.
    public var message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
