import Foundation

/// Continuing a journey on another device (DESIGN.md, "Continue on another device"): a
/// single-use link with a 256-bit secret, shown as a QR code beside a two-digit number; the
/// device that opens it must pick that number among three, so a link that was forwarded,
/// photographed or opened by a stranger first cannot be used without seeing the first screen.
public enum ContinuationRules {
    /// How long a link works.
    public static let lifetime: TimeInterval = 600
    /// Choices the second device is shown, the right one among them.
    public static let optionCount = 3
    /// After a "this wasn't me" report no new link is made for this long (the computer says why).
    public static let pauseAfterReport: TimeInterval = 60

    /// A two-digit number from 10 to 99 (no leading zero to misread), uniform.
    public static func number(using random: any RandomSource) -> String {
        while true {
            let byte = Int(random.bytes(1)[0])
            // 90 values; 180 of the 256 byte values map onto them evenly.
            if byte < 180 { return String(10 + byte % 90) }
        }
    }

    /// Three distinct two-digit numbers in random order, `number` among them.
    public static func options(including number: String, using random: any RandomSource) -> [String] {
        var options = [number]
        while options.count < optionCount {
            let candidate = Self.number(using: random)
            if !options.contains(candidate) { options.append(candidate) }
        }
        // Fisher–Yates with the injected randomness.
        for index in stride(from: options.count - 1, to: 0, by: -1) {
            var draw = Int(random.bytes(1)[0])
            let bound = 256 - 256 % (index + 1)
            while draw >= bound { draw = Int(random.bytes(1)[0]) }
            options.swapAt(index, draw % (index + 1))
        }
        return options
    }

    /// A pick as sent: exactly two ASCII digits.
    public static func presentedNumber(_ text: String) -> String? {
        let bytes = Array(text.utf8)
        guard bytes.count == 2, bytes.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return text
    }
}
