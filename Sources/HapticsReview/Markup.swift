/// Text helpers shared by the SVG and HTML writers: escaping, compact numbers, base64.
///
/// Everything here is pure and Foundation-free so that the output is identical on every platform.
enum Markup {
    /// Escapes `&`, `<`, `>`, `"` and `'` so that `text` is safe both as element content and as an
    /// attribute value (single- or double-quoted) in HTML and XML.
    ///
    /// Characters XML 1.0 forbids (C0 controls other than tab, LF, CR) become U+FFFD so the
    /// output always parses.
    ///
    /// - Complexity: O(n) in the length of `text`.
    static func escape(_ text: String) -> String {
        var needsWork = false
        for scalar in text.unicodeScalars where Self.isSpecial(scalar) {
            needsWork = true
            break
        }
        if !needsWork { return text }
        var out = String()
        out.reserveCapacity(text.utf8.count + 16)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\t", "\n", "\r": out.unicodeScalars.append(scalar)
            default:
                if scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF {
                    out += "\u{FFFD}"
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out
    }

    private static func isSpecial(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "&", "<", ">", "\"", "'": true
        case "\t", "\n", "\r": false
        default: scalar.value < 0x20 || scalar.value == 0xFFFE || scalar.value == 0xFFFF
        }
    }

    /// `value` rounded to at most `decimals` places, without trailing zeros: `1.50` → `"1.5"`,
    /// `2.0` → `"2"`, `-0.0001` → `"0"`. Non-finite values print as `"0"`.
    static func number(_ value: Double, decimals: Int = 1) -> String {
        guard value.isFinite else { return "0" }
        let decimals = max(0, min(decimals, 9))
        var scale: Int64 = 1
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (value * Double(scale)).rounded(.toNearestOrEven)
        guard abs(scaled) < 9e17 else {
            // Beyond Int64 (a `Version` of 1e108 in a file) Swift's shortest form, not a trap.
            return abs(value) < 9e18 ? String(Int64(value.rounded())) : "\(value)"
        }
        let units = Int64(scaled)
        if units == 0 { return "0" }
        let magnitude = units.magnitude
        var out = units < 0 ? "-" : ""
        out += String(magnitude / UInt64(scale))
        var fraction = magnitude % UInt64(scale)
        if fraction == 0 { return out }
        var digits = decimals
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        let text = String(fraction)
        out += "." + String(repeating: "0", count: digits - text.count) + text
        return out
    }

    /// `value` with exactly `decimals` places: `fixed(0.5, 3)` → `"0.500"`.
    static func fixed(_ value: Double, _ decimals: Int) -> String {
        let compact = number(value, decimals: decimals)
        guard decimals > 0 else { return compact }
        if let dot = compact.firstIndex(of: ".") {
            let have = compact.distance(from: compact.index(after: dot), to: compact.endIndex)
            return compact + String(repeating: "0", count: max(0, decimals - have))
        }
        return compact + "." + String(repeating: "0", count: decimals)
    }

    /// A parameter value as authors write it: up to three decimals, `1` not `1.000`.
    static func value(_ value: Float) -> String { number(Double(value), decimals: 3) }

    /// Seconds with millisecond precision and a unit: `"0.500 s"`.
    static func seconds(_ value: Double) -> String { fixed(value, 3) + " s" }

    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Standard base64 (RFC 4648, with padding) of `bytes`.
    ///
    /// - Complexity: O(n); one allocation for the result.
    static func base64(_ bytes: [UInt8]) -> String {
        let outputCount = (bytes.count + 2) / 3 * 4
        return String(unsafeUninitializedCapacity: outputCount) { buffer in
            var o = 0
            var i = 0
            let n = bytes.count
            while i + 3 <= n {
                let v = UInt32(bytes[i]) << 16 | UInt32(bytes[i + 1]) << 8 | UInt32(bytes[i + 2])
                buffer[o] = alphabet[Int(v >> 18 & 63)]
                buffer[o + 1] = alphabet[Int(v >> 12 & 63)]
                buffer[o + 2] = alphabet[Int(v >> 6 & 63)]
                buffer[o + 3] = alphabet[Int(v & 63)]
                i += 3
                o += 4
            }
            let rest = n - i
            if rest > 0 {
                let v = UInt32(bytes[i]) << 16 | (rest == 2 ? UInt32(bytes[i + 1]) << 8 : 0)
                buffer[o] = alphabet[Int(v >> 18 & 63)]
                buffer[o + 1] = alphabet[Int(v >> 12 & 63)]
                buffer[o + 2] = rest == 2 ? alphabet[Int(v >> 6 & 63)] : UInt8(ascii: "=")
                buffer[o + 3] = UInt8(ascii: "=")
                o += 4
            }
            return o
        }
    }
}

/// An sRGB colour written as `#rrggbb`.
struct Color: Hashable, Sendable {
    var r: UInt8, g: UInt8, b: UInt8

    init(_ hex: UInt32) {
        r = UInt8(hex >> 16 & 0xFF)
        g = UInt8(hex >> 8 & 0xFF)
        b = UInt8(hex & 0xFF)
    }

    init(r: UInt8, g: UInt8, b: UInt8) {
        self.r = r
        self.g = g
        self.b = b
    }

    var hex: String {
        let digits = Array("0123456789abcdef")
        var out = "#"
        for c in [r, g, b] {
            out.append(digits[Int(c >> 4)])
            out.append(digits[Int(c & 15)])
        }
        return out
    }

    func mixed(with other: Color, _ t: Double) -> Color {
        let t = max(0, min(1, t))
        func lerp(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8((Double(a) + (Double(b) - Double(a)) * t).rounded()) }
        return Color(r: lerp(r, other.r), g: lerp(g, other.g), b: lerp(b, other.b))
    }
}

/// The plot palette: chosen for contrast on white and for colour-blind safety (blue/orange axis).
enum Palette {
    static let text = Color(0x1f2328)
    static let muted = Color(0x59636e)
    static let grid = Color(0xe1e5ea)
    static let axis = Color(0x8c959f)
    static let dull = Color(0x3b5bdb)
    static let middle = Color(0x9c36b5)
    static let sharp = Color(0xe8590c)
    static let intensityLine = Color(0x1f2328)
    static let sharpnessLine = Color(0x0c8599)
    static let otherControl = Color(0x868e96)
    static let audio = Color(0x868e96)
    static let waveform = Color(0x495057)
    static let sideA = Color(0x1971c2)
    static let sideB = Color(0xe8590c)
    static let added = Color(0x2b8a3e)
    static let removed = Color(0xc92a2a)
    static let moved = Color(0xe67700)
    static let changed = Color(0x862e9c)

    /// The tone of an event with `sharpness` (0...1): blue for dull/round, orange for sharp/crisp.
    static func sharpness(_ sharpness: Float) -> Color {
        let s = Double(max(0, min(1, sharpness)))
        return s < 0.5 ? dull.mixed(with: middle, s * 2) : middle.mixed(with: sharp, (s - 0.5) * 2)
    }
}
