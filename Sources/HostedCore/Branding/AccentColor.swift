import Foundation

/// An sRGB colour written `#rrggbb`, and the one rule for using a customer's accent colour on
/// Hosted's pages: text and the colour it sits on must contrast at least 4.5:1 (WCAG 2, success
/// criterion 1.4.3, normal text), and a colour that fails is moved towards black (on a light
/// background) or white (on a dark one) until it passes.
public struct AccentColor: Equatable, Hashable, Sendable, CustomStringConvertible {
    public let red: UInt8
    public let green: UInt8
    public let blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `#rrggbb` (either letter case), nothing else: no shorthand, no names, no alpha.
    public init?(hex: String) {
        let bytes = Array(hex.utf8)
        guard bytes.count == 7, bytes[0] == UInt8(ascii: "#") else { return nil }
        var channels: [UInt8] = []
        for index in stride(from: 1, to: 7, by: 2) {
            guard let high = Self.nibble(bytes[index]), let low = Self.nibble(bytes[index + 1]) else { return nil }
            channels.append(high << 4 | low)
        }
        self.init(red: channels[0], green: channels[1], blue: channels[2])
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// Lower-case `#rrggbb`.
    public var hex: String {
        "#" + [red, green, blue].map { String(format: "%02x", $0) }.joined()
    }

    public var description: String { hex }

    public static let white = AccentColor(red: 255, green: 255, blue: 255)
    public static let black = AccentColor(red: 0, green: 0, blue: 0)

    /// The least contrast accepted between text and what it sits on: WCAG 2's 4.5:1 for normal text.
    public static let minimumContrast = 4.5

    /// WCAG 2's relative luminance: each channel linearised from sRGB
    /// (c ≤ 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055)^2.4), weighted 0.2126 R + 0.7152 G + 0.0722 B.
    public var relativeLuminance: Double {
        func linear(_ channel: UInt8) -> Double {
            let c = Double(channel) / 255
            return c <= 0.04045 ? c / 12.92 : pow((c + 0.055) / 1.055, 2.4)
        }
        return 0.2126 * linear(red) + 0.7152 * linear(green) + 0.0722 * linear(blue)
    }

    /// WCAG 2's contrast ratio, (lighter + 0.05) / (darker + 0.05): from 1 (the same) to 21 (black on white).
    public static func contrast(_ a: AccentColor, _ b: AccentColor) -> Double {
        let (x, y) = (a.relativeLuminance, b.relativeLuminance)
        return (max(x, y) + 0.05) / (min(x, y) + 0.05)
    }

    /// The colour to use for buttons (with `background` as their text) and links (on
    /// `background`): `color` itself when it contrasts at least 4.5:1 with `background`, else
    /// `color` mixed in steps of 1 % with black (when black contrasts more with `background` than
    /// white does, i.e. a light background: darkening) or white (a dark background: lightening),
    /// the first mix that passes. The hue stays; black or white always passes in the end, since
    /// one of them contrasts at least 4.58:1 with any colour.
    public static func accessible(_ color: AccentColor, against background: AccentColor) -> AccentColor {
        if contrast(color, background) >= minimumContrast { return color }
        let target = contrast(black, background) >= contrast(white, background) ? black : white
        for step in 1...100 {
            let mixed = color.mixed(with: target, fraction: Double(step) / 100)
            if contrast(mixed, background) >= minimumContrast { return mixed }
        }
        return target
    }

    /// This colour moved `fraction` (0...1) of the way to `other`, channel by channel in sRGB.
    func mixed(with other: AccentColor, fraction: Double) -> AccentColor {
        func channel(_ a: UInt8, _ b: UInt8) -> UInt8 {
            UInt8((Double(a) + (Double(b) - Double(a)) * fraction).rounded())
        }
        return AccentColor(red: channel(red, other.red), green: channel(green, other.green), blue: channel(blue, other.blue))
    }
}
