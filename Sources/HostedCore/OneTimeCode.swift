import Foundation

/// A six-digit SMS code: uniform over 000000…999999 (rejection sampling, no modulo bias).
public struct OneTimeCode: Sendable, Equatable {
    public let digits: String

    public init(using random: any RandomSource) {
        while true {
            let bytes = random.bytes(4)
            let value = bytes.reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            // 4_294_000_000 is the largest multiple of 1_000_000 below 2^32.
            if value < 4_294_000_000 {
                let number = String(value % 1_000_000)
                digits = String(repeating: "0", count: 6 - number.count) + number
                return
            }
        }
    }

    /// A test verification's code: always `000000`, and never sent (docs/test-mode.md).
    public static let testMode = OneTimeCode(digits: "000000")

    private init(digits: String) {
        self.digits = digits
    }

    public init?(presented: String) {
        guard presented.utf8.count == 6, presented.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        digits = presented
    }

    /// Valid for ten minutes; five wrong tries burn it; a resend waits thirty seconds.
    public static let lifetime: TimeInterval = 600
    public static let maximumAttempts = 5
    public static let resendCooldown: TimeInterval = 30
}
