import Foundation
import HostedCore

/// The attempt log: every attempt, newest first, as the deliveries API and the dev page show it.
extension WebhookStore {
    /// One attempt as the deliveries log shows it.
    public struct Delivery: Equatable, Sendable {
        public let id: String
        public let endpointID: String
        public let eventID: String
        public let eventType: String
        public let attempt: Int
        public let status: WebhookDeliveryStatus
        public let responseStatus: Int?
        public let error: String?
        public let durationMilliseconds: Int64?
        public let createdAt: Date
        public let nextAttemptAt: Date?
    }

    static let deliveryColumns = "id, endpoint_id, event_id, event_type, attempt, status, response_status, error, duration_ms, created_at, next_attempt_at"

    /// Newest first (a message's later attempt before its earlier one, even within one
    /// millisecond); `startingAfter` continues after that delivery.
    public func deliveries(accountID: ObjectID, endpointID: ObjectID, limit: Int, startingAfter: String?) throws -> ([Delivery], hasMore: Bool) {
        var cursorTime = Int64.max
        var cursorAttempt = Int64(Int32.max)  // `attempt` is an INTEGER column
        var cursorID = "~"
        if let startingAfter {
            guard let row = try database.query("""
                SELECT created_at, attempt FROM webhook_deliveries
                WHERE id = \(startingAfter) AND endpoint_id = \(endpointID.rawValue) AND account_id = \(accountID.rawValue)
                """).first
            else { throw UnknownCursor() }
            cursorTime = try row.int("created_at")
            cursorAttempt = try row.int("attempt")
            cursorID = startingAfter
        }
        let rows = try database.query("""
            SELECT \(unsafeSQL: Self.deliveryColumns) FROM webhook_deliveries
            WHERE endpoint_id = \(endpointID.rawValue) AND account_id = \(accountID.rawValue)
              AND (created_at < \(cursorTime) OR (created_at = \(cursorTime) AND (attempt < \(cursorAttempt)
                   OR (attempt = \(cursorAttempt) AND id < \(cursorID)))))
            ORDER BY created_at DESC, attempt DESC, id DESC
            LIMIT \(Int64(limit + 1))
            """)
        return (try rows.prefix(limit).map(Self.delivery(from:)), rows.count > limit)
    }

    /// The newest attempts of every endpoint (the dev page).
    public func recentDeliveries(limit: Int) throws -> [Delivery] {
        try database.query("""
            SELECT \(unsafeSQL: Self.deliveryColumns) FROM webhook_deliveries ORDER BY created_at DESC, attempt DESC, id DESC LIMIT \(Int64(limit))
            """).map(Self.delivery(from:))
    }

    static func delivery(from row: Row) throws -> Delivery {
        Delivery(id: try row.string("id"), endpointID: try row.string("endpoint_id"), eventID: try row.string("event_id"),
                 eventType: try row.string("event_type"), attempt: Int(try row.int("attempt")), status: WebhookDeliveryStatus(rawValue: try row.string("status")) ?? .failed,
                 responseStatus: try row.optionalInt("response_status").map { status in Int(status) }, error: try row.optionalString("error"),
                 durationMilliseconds: try row.optionalInt("duration_ms"), createdAt: try row.date("created_at"),
                 nextAttemptAt: try row.optionalDate("next_attempt_at"))
    }
}
