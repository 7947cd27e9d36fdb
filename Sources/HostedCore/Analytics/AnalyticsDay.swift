import Foundation

/// A UTC calendar day, as the number of days since 1970-01-01: what the counts are kept by.
/// Days are UTC whatever the server's or the customer's time zone, so a count never moves
/// between days.
public struct AnalyticsDay: Sendable, Hashable, Comparable {
    public let number: Int64

    public init(number: Int64) { self.number = number }

    /// The UTC day `date` falls on.
    public init(_ date: Date) {
        let milliseconds = date.unixMilliseconds
        number = milliseconds >= 0 ? milliseconds / 86_400_000 : (milliseconds - 86_399_999) / 86_400_000
    }

    /// `YYYY-MM-DD` exactly (a real date of the Gregorian calendar), or nil.
    public init?(parsing text: String) {
        let parts = text.split(separator: "-", omittingEmptySubsequences: false)
        guard text.utf8.count == 10, parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,
              parts.allSatisfy({ $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }),
              let year = Int64(parts[0]), let month = Int64(parts[1]), let day = Int64(parts[2]),
              (1...12).contains(month), day >= 1, day <= Self.daysIn(month: month, year: year), year >= 1970
        else { return nil }
        number = Self.daysFromCivil(year: year, month: month, day: day)
    }

    /// The day's first millisecond.
    public var start: Date { Date(unixMilliseconds: number * 86_400_000) }
    /// The next day's first millisecond: a range of days is `[from.start, to.end)`.
    public var end: Date { Date(unixMilliseconds: (number + 1) * 86_400_000) }

    public func adding(days: Int64) -> AnalyticsDay { AnalyticsDay(number: number + days) }

    /// `YYYY-MM-DD`.
    public var text: String {
        let (year, month, day) = Self.civil(fromDays: number)
        return String(format: "%04lld-%02lld-%02lld", year, month, day)
    }

    public static func < (lhs: AnalyticsDay, rhs: AnalyticsDay) -> Bool { lhs.number < rhs.number }

    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    // Howard Hinnant's civil-date algorithms (public domain), days since 1970-01-01.
    static func daysFromCivil(year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let day = doy - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}
