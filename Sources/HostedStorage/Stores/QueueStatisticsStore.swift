import Foundation

/// What `GET /metrics` shows of the background queues shared by every process: how many items
/// wait, and the due time of the oldest one not yet done.
public struct QueueStatisticsStore: Sendable {
    let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// The background queues, as the metrics name them.
    public enum Queue: String, CaseIterable, Sendable {
        case sms, webhooks
    }

    /// Items waiting in `queue` (due or not).
    public func depth(_ queue: Queue) throws -> Int64 {
        let sql: SQL = switch queue {
        case .sms: "SELECT COUNT(*) AS n FROM sms_queue"
        case .webhooks: "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'"
        }
        return try database.query(sql).first?.int("n") ?? 0
    }

    /// When the oldest item of `queue` that is due at `time` became due; nil when none is.
    public func oldestDue(_ queue: Queue, at time: Date) throws -> Date? {
        let now = time.unixMilliseconds
        let sql: SQL = switch queue {
        case .sms: "SELECT MIN(available_at) AS oldest FROM sms_queue WHERE available_at <= \(now)"
        case .webhooks: "SELECT MIN(next_attempt_at) AS oldest FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= \(now)"
        }
        return try database.query(sql).first?.optionalInt("oldest").map { Date(unixMilliseconds: $0) }
    }
}
