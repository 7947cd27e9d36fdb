import Foundation

/// RFC 3339 UTC timestamps, formatted without Foundation's formatters (they are slow enough to
/// show in a per-request profile): `2026-11-29T12:14:51Z`, or with `.123` milliseconds.
public enum RFC3339 {
    public static func format(_ date: Date, milliseconds withMilliseconds: Bool = false) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        append(date, milliseconds: withMilliseconds, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the timestamp's bytes. The civil date comes from the day count by integer
    /// arithmetic (Hinnant's days-from-civil inverse), not `gmtime_r`, which takes glibc's time
    /// zone lock on every call. Years outside 0...9999 are clamped (nothing Hosted stores is).
    public static func append(_ date: Date, milliseconds withMilliseconds: Bool, to bytes: inout [UInt8]) {
        let limit = 253_402_300_799_999.0  // 9999-12-31T23:59:59.999Z
        let total = Int64(min(max((date.timeIntervalSince1970 * 1000).rounded(.down), -62_167_219_200_000), limit))
        let milliseconds = Int(((total % 1000) + 1000) % 1000)
        let seconds = (total - Int64(milliseconds)) / 1000
        let secondOfDay = Int(((seconds % 86_400) + 86_400) % 86_400)
        let days = (seconds - Int64(secondOfDay)) / 86_400
        // Days since 1970-01-01 to year, month, day (proleptic Gregorian).
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        let month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        let year = Int(yearOfEra + era * 400 + (month <= 2 ? 1 : 0))
        // Fixed widths with constant divisors (the compiler turns them into multiplications; a
        // loop dividing by a variable power of ten was measured at three times the instructions).
        func two(_ value: Int) {
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value / 10))
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: value % 10))
        }
        two(year / 100); two(year % 100); bytes.append(UInt8(ascii: "-"))
        two(month); bytes.append(UInt8(ascii: "-"))
        two(day); bytes.append(UInt8(ascii: "T"))
        two(secondOfDay / 3600); bytes.append(UInt8(ascii: ":"))
        two(secondOfDay / 60 % 60); bytes.append(UInt8(ascii: ":"))
        two(secondOfDay % 60)
        if withMilliseconds {
            bytes.append(UInt8(ascii: "."))
            bytes.append(UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: milliseconds / 100))
            two(milliseconds % 100)
        }
        bytes.append(UInt8(ascii: "Z"))
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
