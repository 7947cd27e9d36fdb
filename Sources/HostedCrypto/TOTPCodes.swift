import HostedCore

/// RFC 6238 codes from a seed, with HMAC-SHA-1 from libcrypto.
public enum TOTPCodes {
    public static func code(seed: [UInt8], counter: Int64, digits: Int = TOTP.digits) -> String {
        TOTP.code(mac: Digest.hmacSHA1(key: seed, message: TOTP.message(counter: counter)), digits: digits)
    }

    /// The time step whose code `presented` is, within ±`TOTP.window` of `counter`, or nil.
    /// Every step of the window is computed and compared in constant time.
    public static func matchingStep(_ presented: String, seed: [UInt8], counter: Int64) -> Int64? {
        var found: Int64?
        for step in (counter - TOTP.window)...(counter + TOTP.window) where step >= 0 {
            if Digest.constantTimeEquals(Array(code(seed: seed, counter: step).utf8), Array(presented.utf8)) { found = step }
        }
        return found
    }
}
