import HostedCore
import Testing

/// The accent colour's one rule (`AccentColor.accessible`), held to WCAG 2's relative luminance
/// and contrast ratio on a table of colours whose ratios against white are published (WebAIM's
/// contrast checker gives the same values).
@Suite struct AccentColorTests {
    @Test func parsesOnlyHashAndSixHexDigits() {
        #expect(AccentColor(hex: "#0a58CA") == AccentColor(red: 0x0a, green: 0x58, blue: 0xca))
        #expect(AccentColor(hex: "#0a58CA")?.hex == "#0a58ca")
        for bad in ["", "#", "#fff", "0a58ca", "#0a58ca00", "#12345g", "red", " #0a58ca", "#0a58ca ", "＃0a58ca", "#０a58ca"] {
            #expect(AccentColor(hex: bad) == nil, "\(bad) accepted")
        }
    }

    /// (colour, its contrast ratio with white, rounded to two places).
    static let againstWhite: [(String, Double)] = [
        ("#000000", 21.0), ("#ffffff", 1.0), ("#767676", 4.54), ("#777777", 4.48), ("#595959", 7.0),
        ("#ff0000", 4.0), ("#0000ff", 8.59), ("#008000", 5.14), ("#ffff00", 1.07),
    ]

    @Test(arguments: againstWhite)
    func contrastIsWCAGs(_ hex: String, _ ratio: Double) throws {
        let color = try #require(AccentColor(hex: hex))
        let measured = AccentColor.contrast(color, .white)
        #expect(abs(measured - ratio) < 0.006, "\(hex): \(measured)")
        #expect(AccentColor.contrast(.white, color) == measured)
    }

    @Test func luminanceEndsAndMiddle() throws {
        #expect(AccentColor.black.relativeLuminance == 0)
        #expect(abs(AccentColor.white.relativeLuminance - 1) < 1e-12)
        // sRGB 0x80 linearises to 0.2158605 (IEC 61966-2-1).
        #expect(abs(try #require(AccentColor(hex: "#808080")).relativeLuminance - 0.2158605) < 1e-6)
    }

    @Test func aColourThatPassesIsKept() throws {
        for hex in ["#0a58ca", "#767676", "#000000", "#008000"] {
            let color = try #require(AccentColor(hex: hex))
            #expect(AccentColor.accessible(color, against: .white) == color)
        }
    }

    @Test(arguments: ["#ffff00", "#777777", "#ff0000", "#00ffff", "#ffffff", "#ff8800", "#e8f0fe"])
    func aFailingColourIsDarkenedJustEnoughAgainstWhite(_ hex: String) throws {
        let color = try #require(AccentColor(hex: hex))
        let safe = AccentColor.accessible(color, against: .white)
        #expect(AccentColor.contrast(safe, .white) >= 4.5, "\(hex) → \(safe)")
        #expect(safe.relativeLuminance < color.relativeLuminance)
        // No channel grows: it is darkened, not changed to another colour.
        #expect(safe.red <= color.red && safe.green <= color.green && safe.blue <= color.blue)
    }

    @Test func yellowOnWhiteBecomesADarkYellowThatPasses() throws {
        let safe = AccentColor.accessible(try #require(AccentColor(hex: "#ffff00")), against: .white)
        #expect(safe.red == safe.green && safe.blue == 0)  // still yellow's hue
        #expect(AccentColor.contrast(safe, .white) >= 4.5)
        // Just enough: one step (1 %) less darkening would fail.
        let lighter = AccentColor(red: safe.red + 3, green: safe.green + 3, blue: 0)
        #expect(AccentColor.contrast(lighter, .white) < 4.5)
    }

    @Test func onADarkBackgroundAFailingColourIsLightened() throws {
        let dark = try #require(AccentColor(hex: "#0b1d3a"))
        let navy = try #require(AccentColor(hex: "#000080"))
        let safe = AccentColor.accessible(navy, against: dark)
        #expect(AccentColor.contrast(safe, dark) >= 4.5)
        #expect(safe.relativeLuminance > navy.relativeLuminance)
        #expect(AccentColor.contrast(safe, try #require(AccentColor(hex: "#121212"))) >= 4.5)
    }
}
