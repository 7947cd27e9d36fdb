import Foundation

/// A single-use sign-in address minted for one visit. Only the SHA-256 of its secret is stored;
/// the secret itself travels in the URL fragment.
public struct Handoff: Equatable, Sendable {
    public let id: ObjectID
    public let verificationID: ObjectID
    public let accountID: ObjectID
    /// For this visit, instead of the verification's return URL.
    public let returnURL: String?
    public let createdAt: Date
    public let expiresAt: Date

    public init(id: ObjectID, verificationID: ObjectID, accountID: ObjectID, returnURL: String?, createdAt: Date, expiresAt: Date) {
        self.id = id
        self.verificationID = verificationID
        self.accountID = accountID
        self.returnURL = returnURL
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }

    /// Lifetime bounds in seconds: default 300, accepted 30…900.
    public static let defaultLifetime = 300
    public static let lifetimeRange = 30...900

    /// Checks a requested lifetime.
    public static func lifetime(_ requested: Int?) throws(DomainError) -> Int {
        guard let requested else { return defaultLifetime }
        guard lifetimeRange.contains(requested) else {
            throw .invalidRequest(detail: "expires_in_seconds must be \(lifetimeRange.lowerBound) to \(lifetimeRange.upperBound).",
                                  errors: [FieldError(field: "expires_in_seconds", message: "must be \(lifetimeRange.lowerBound) to \(lifetimeRange.upperBound)")])
        }
        return requested
    }
}

/// A 256-bit secret shown once (a handoff secret or a session token), base64url without padding.
public struct BearerSecret: Sendable, Equatable {
    public static let byteCount = 32
    public static let encodedLength = 43
    public let value: String

    public init(using random: any RandomSource) {
        value = Base64URL.encode(random.bytes(Self.byteCount))
    }

    /// Accepts only text of the exact shape, so junk never reaches a hash lookup.
    public init?(presented: String) {
        guard presented.utf8.count == Self.encodedLength, Base64URL.decode(presented)?.count == Self.byteCount else { return nil }
        value = presented
    }
}

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

    public init?(presented: String) {
        guard presented.utf8.count == 6, presented.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        digits = presented
    }

    /// Valid for ten minutes; five wrong tries burn it; a resend waits thirty seconds.
    public static let lifetime: TimeInterval = 600
    public static let maximumAttempts = 5
    public static let resendCooldown: TimeInterval = 30
}

/// Normalises a mobile number to E.164, so `+91 98765-43210` and `+919876543210` are one number
/// (for matching and for counting limits). Needs the leading `+` and country code.
public enum MobileNumber {
    public static func normalized(_ text: String) -> String? {
        var digits = ""
        var sawPlus = false
        for scalar in text.unicodeScalars {
            switch scalar {
            case "+" where digits.isEmpty && !sawPlus: sawPlus = true
            case "0"..."9": digits.unicodeScalars.append(scalar)
            case " ", "-", "(", ")", ".", "\u{00A0}": continue
            default: return nil
            }
        }
        let candidate = "+" + digits
        return sawPlus && VerificationRules.isValidMobile(candidate) ? candidate : nil
    }
}
