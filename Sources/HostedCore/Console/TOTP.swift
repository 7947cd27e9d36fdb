import Foundation

/// Time-based one-time passwords (RFC 6238 over RFC 4226's HOTP): the arithmetic and the text.
/// The HMAC-SHA-1 itself comes from libcrypto (`HostedCrypto.TOTPCodes`); this type only turns
/// times into counters and MAC bytes into digits.
public enum TOTP {
    public static let period: Int64 = 30
    public static let digits = 6
    /// Steps either side of now a code may come from (clock drift).
    public static let window: Int64 = 1
    /// Bytes of a new seed: 160 bits, RFC 4226's recommended length.
    public static let seedBytes = 20

    /// The time step `time` falls in.
    public static func counter(at time: Date) -> Int64 {
        let seconds = time.timeIntervalSince1970.rounded(.down)
        guard seconds.isFinite, seconds >= 0, seconds < 1e15 else { return 0 }
        return Int64(seconds) / period
    }

    /// The counter as HOTP hashes it: 8 bytes, big-endian.
    public static func message(counter: Int64) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: counter >> (8 * (7 - $0))) }
    }

    /// RFC 4226 dynamic truncation of an HMAC-SHA-1 value, as `digits` decimal digits.
    public static func code(mac: [UInt8], digits: Int = TOTP.digits) -> String {
        guard mac.count == 20, (1...9).contains(digits) else { return "" }
        let offset = Int(mac[19] & 0x0F)
        let value = (UInt32(mac[offset] & 0x7F) << 24) | (UInt32(mac[offset + 1]) << 16)
            | (UInt32(mac[offset + 2]) << 8) | UInt32(mac[offset + 3])
        var modulus: UInt32 = 1
        for _ in 0..<digits { modulus *= 10 }
        let text = String(value % modulus)
        return String(repeating: "0", count: digits - text.count) + text
    }

    /// A code as typed (spaces allowed between digits), or nil when it is not `digits` digits.
    public static func presented(_ text: String) -> String? {
        let compact = text.filter { $0 != " " }
        guard compact.utf8.count == digits, compact.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return compact
    }

    /// The seed as authenticator apps take it: upper-case RFC 4648 base32, no padding.
    public static func displaySecret(_ seed: [UInt8]) -> String { Base32.encode(seed).uppercased() }

    /// The `otpauth://` URI an authenticator app scans (Google's Key URI format).
    public static func provisioningURI(seed: [UInt8], issuer: String, account: String) -> String {
        let label = "\(escape(issuer)):\(escape(account))"
        return "otpauth://totp/\(label)?secret=\(displaySecret(seed))&issuer=\(escape(issuer))"
            + "&algorithm=SHA1&digits=\(digits)&period=\(period)"
    }

    private static func escape(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~@")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? ""
    }
}
