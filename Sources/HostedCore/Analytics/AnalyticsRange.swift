import Foundation

/// The days a funnel covers: `from` and `to` inclusive, UTC, at most `maximumDays` apart,
/// the last 30 days by default (DESIGN.md).
public struct AnalyticsRange: Sendable, Equatable {
    public let from: AnalyticsDay
    public let to: AnalyticsDay

    /// Counts are kept 400 days, so no range reaches further apart.
    public static let maximumDays: Int64 = 400
    public static let defaultDays: Int64 = 30

    public init(from: AnalyticsDay, to: AnalyticsDay) {
        self.from = from
        self.to = to
    }

    /// The range the query asks for, or nil with field errors (`from`, `to`) saying what is wrong.
    public static func parse(from: String?, to: String?, today: AnalyticsDay, errors: inout [FieldError]) -> AnalyticsRange? {
        let toDay = to.map { AnalyticsDay(parsing: $0) } ?? today
        let fromDay = from.map { AnalyticsDay(parsing: $0) } ?? toDay.map { $0.adding(days: -(defaultDays - 1)) }
        if fromDay == nil { errors.append(FieldError(field: "from", message: "must be a date YYYY-MM-DD (UTC)")) }
        if toDay == nil { errors.append(FieldError(field: "to", message: "must be a date YYYY-MM-DD (UTC)")) }
        guard let fromDay, let toDay else { return nil }
        if fromDay > toDay {
            errors.append(FieldError(field: "from", message: "must not be after to"))
            return nil
        }
        if toDay.number - fromDay.number > maximumDays {
            errors.append(FieldError(field: "to", message: "must be at most \(maximumDays) days after from"))
            return nil
        }
        return AnalyticsRange(from: fromDay, to: toDay)
    }
}
