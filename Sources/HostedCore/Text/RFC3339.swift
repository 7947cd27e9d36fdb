import Foundation

/// RFC 3339 UTC timestamps, formatted without Foundation's formatters (they are slow enough to
/// show in a per-request profile): `2026-11-29T12:14:51Z`, or with `.123` milliseconds.
public enum RFC3339 {
    public static func format(_ date: Date, milliseconds withMilliseconds: Bool = false) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds / 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let fraction = withMilliseconds ? "." + pad(Int32(milliseconds % 1000), 3) : ""
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))\(fraction)Z"
    }

    /// Parses `2026-12-01T12:00:00Z`, with optional fractional seconds and a numeric offset
    /// instead of `Z`; nil for anything else.
    public static func parse(_ text: String) -> Date? {
        guard text.utf8.count <= 40, text.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else { return nil }
        let plain = ISO8601DateFormatter()
        plain.formatOptions = [.withInternetDateTime]
        if let date = plain.date(from: text) { return date }
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return fractional.date(from: text)
    }
}
