import Foundation
public import HapticsEngine

/// A sound card as the kernel describes it under `/proc/asound`, and whether it drives haptic
/// actuators (a DualSense over USB). See docs/actuators.md.
public struct SoundCard: Hashable, Sendable {
    /// The card number (`N` in `/proc/asound/cardN`).
    public var index: Int
    /// ALSA's id for the card (`/proc/asound/cardN/id`), as in `hw:CARD=<id>`.
    public var id: String
    /// The card's long name from `/proc/asound/cards` (e.g. "Wireless Controller").
    public var name: String
    /// `vendor:product` in hex for a USB card (`/proc/asound/cardN/usbid`), else nil.
    public var usbID: String?
    /// Playback channels of a USB card's first stream (`stream0`), else nil.
    public var playbackChannels: Int?

    public init(index: Int, id: String, name: String, usbID: String? = nil, playbackChannels: Int? = nil) {
        self.index = index
        self.id = id
        self.name = name
        self.usbID = usbID
        self.playbackChannels = playbackChannels
    }

    /// The haptic device this card is, or nil.
    public var haptic: HapticDevice? { HapticDevice.known.first { $0.matches(self) } }

    /// The PCM to open it by: `hw:CARD=<id>,DEV=0`, the card's own channels, rate and format
    /// (``ALSAOutput`` converts to the sample format the card takes).
    public var deviceName: String { "hw:CARD=\(id),DEV=0" }
}

/// A kind of device whose actuators Linux drives as audio channels.
public struct HapticDevice: Hashable, Sendable {
    /// What `--device` accepts for it (e.g. "dualsense").
    public var alias: String
    /// Its product name.
    public var name: String
    /// USB `vendor:product` ids it has, lower-case hex.
    public var usbIDs: [String]
    /// Where its actuators are.
    public var channelMap: ChannelMap

    /// Sony's DualSense (054c:0ce6) and DualSense Edge (054c:0df2) over USB: four channels, the
    /// actuators on 3-4.
    public static let dualSense = HapticDevice(
        alias: "dualsense", name: "DualSense", usbIDs: ["054c:0ce6", "054c:0df2"], channelMap: .dualSense())

    /// Every kind we recognise.
    public static let known: [HapticDevice] = [.dualSense]

    /// Whether `card` is one of these: by its USB ids, else by its ALSA name ("DualSense",
    /// or Sony's "Wireless Controller" with four playback channels).
    public func matches(_ card: SoundCard) -> Bool {
        if let usb = card.usbID { return usbIDs.contains(usb.lowercased()) }
        let names = [card.id, card.name].map { $0.lowercased() }
        if names.contains(where: { $0.contains(alias) }) { return true }
        return self == .dualSense && card.name == "Wireless Controller" && card.playbackChannels == 4
    }
}

/// The sound cards under `/proc/asound`.
public enum SoundCards {
    /// The folder the kernel's `/proc` is read from: `HAPTIC_PROC_ROOT` if set (tests fake cards
    /// there), else `/proc`.
    public static func procRoot() -> String {
        procRoot(environment: ProcessInfo.processInfo.environment)
    }

    /// ``procRoot()`` from `environment`.
    public static func procRoot(environment: [String: String]) -> String {
        environment["HAPTIC_PROC_ROOT"].flatMap { $0.isEmpty ? nil : $0 } ?? "/proc"
    }

    /// Every card listed in `<proc>/asound/cards`, with its id, USB ids and channels; an
    /// unreadable or missing file lists none.
    ///
    /// - Complexity: reads a few small files per card.
    public static func scan(proc: String = procRoot()) -> [SoundCard] {
        let asound = proc + "/asound"
        guard let cards = try? String(contentsOfFile: asound + "/cards", encoding: .utf8) else { return [] }
        var found: [SoundCard] = []
        // Lines like " 1 [Controller     ]: USB-Audio - Wireless Controller"; a card's second line is indented.
        for line in cards.split(separator: "\n") {
            let trimmed = line.drop { $0 == " " }
            guard let open = trimmed.firstIndex(of: "["), let close = trimmed.firstIndex(of: "]"), open < close,
                let index = Int(trimmed[..<open].trimmingCharacters(in: .whitespaces))
            else { continue }
            let folder = "\(asound)/card\(index)"
            let bracketed = trimmed[trimmed.index(after: open)..<close].trimmingCharacters(in: .whitespaces)
            let id = read(folder + "/id") ?? bracketed
            let rest = trimmed[trimmed.index(after: close)...]
            let name = rest.range(of: " - ").map { String(rest[$0.upperBound...]) } ?? ""
            found.append(
                SoundCard(
                    index: index, id: id, name: name.trimmingCharacters(in: .whitespaces),
                    usbID: read(folder + "/usbid")?.lowercased(),
                    playbackChannels: read(folder + "/stream0").flatMap(playbackChannels(inStream:))))
        }
        return found
    }

    /// The cards that drive haptic actuators.
    public static func hapticCards(proc: String = procRoot()) -> [SoundCard] {
        scan(proc: proc).filter { $0.haptic != nil }
    }

    /// What `--device NAME` means: a haptic device's alias ("dualsense") becomes its card's PCM
    /// and channel map; the PCM of a haptic card (`hw:CARD=<id>,...`, `hw:<index>`, or its id)
    /// keeps its name and gets the card's map; any other name is an ordinary device (nil map).
    ///
    /// - Throws: ``AudioOutputError/Code/deviceNotFound`` when an alias names no card present.
    public static func resolve(
        _ device: String, proc: String = procRoot()
    ) throws(AudioOutputError) -> (device: String, map: ChannelMap?) {
        let wanted = device.lowercased()
        if let kind = HapticDevice.known.first(where: { $0.alias == wanted }) {
            guard let card = scan(proc: proc).first(where: { kind.matches($0) }) else {
                throw AudioOutputError(
                    code: .deviceNotFound, device: device,
                    message: """
                        no \(kind.name) found: no sound card with USB id \(kind.usbIDs.joined(separator: " or ")) \
                        (connect it with a USB cable; over Bluetooth it is no audio device); see `haptic devices`
                        """)
            }
            return (card.deviceName, kind.channelMap)
        }
        for card in scan(proc: proc) {
            guard let kind = card.haptic, names(card, device) else { continue }
            return (device, kind.channelMap)
        }
        return (device, nil)
    }

    /// Whether PCM name `device` opens `card` (`hw:CARD=id,…`, `plughw:1`, `hw:id`, …).
    public static func names(_ card: SoundCard, _ device: String) -> Bool {
        guard let colon = device.firstIndex(of: ":") else { return false }
        let arguments = device[device.index(after: colon)...].split(separator: ",")
        guard let first = arguments.first else { return false }
        let value = first.hasPrefix("CARD=") ? first.dropFirst(5) : first
        return value == card.id || value == String(card.index)
    }

    /// The channel count of the first playback format a USB stream file lists.
    static func playbackChannels(inStream text: String) -> Int? {
        guard let playback = text.range(of: "Playback:") else { return nil }
        let section = text[playback.upperBound...].components(separatedBy: "Capture:")[0]
        for line in section.split(separator: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("Channels:") { return Int(trimmed.dropFirst(9).trimmingCharacters(in: .whitespaces)) }
        }
        return nil
    }

    private static func read(_ path: String) -> String? {
        (try? String(contentsOfFile: path, encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
