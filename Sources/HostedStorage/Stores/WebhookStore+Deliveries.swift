import Foundation
import HostedCore

/// Delivery: workers lease due attempts, record each outcome while they hold the lease, and
/// keep each endpoint's failure clock.
extension WebhookStore {
    /// A leased attempt.
    public struct Claimed: Equatable, Sendable {
        public let id: String
        public let endpointID: String
        public let accountID: String
        public let eventID: String
        public let eventType: String
        public let attempt: Int
        public let payload: String
        /// The lease's end, as written: the outcome is recorded only while it still holds.
        public let claimedUntil: Int64
    }

    /// Leases up to `limit` due attempts of enabled endpoints, skipping `excluding` endpoints
    /// (those this process already has enough in flight to) and rows another worker holds.
    /// Accounts take turns: every account's oldest due attempt comes before any account's
    /// second, and an account never holds more than `perAccount` leases at once, counting those
    /// of every process, so one account's slow receivers cannot take the slots another
    /// account's first delivery needs. On PostgreSQL every process's claims take turns under
    /// one advisory lock (the count and the lease must not race; a claim is one short
    /// statement); SQLite has one writer.
    public func claim(at time: Date, lease: TimeInterval, limit: Int, excluding: [String], perAccount: Int) throws -> [Claimed] {
        let now = time.unixMilliseconds
        let until = now + Int64(lease * 1000)
        let exclusion: SQL = excluding.isEmpty ? "" : "AND d.endpoint_id NOT IN (\(values: excluding.map(SQLValue.text)))"
        // A leased attempt is pending, was due when it was leased, and its lease still runs:
        // the partial index on pending attempts finds both the free and the leased ones. The
        // outer conditions are checked again on a row another transaction changed meanwhile.
        let statement: SQL = """
            UPDATE webhook_deliveries SET claimed_until = \(until)
            WHERE id IN (SELECT free.id
                         FROM (SELECT d.id, d.account_id, d.next_attempt_at,
                                      row_number() OVER (PARTITION BY d.account_id ORDER BY d.next_attempt_at, d.id) AS turn
                               FROM webhook_deliveries d JOIN webhook_endpoints w ON w.id = d.endpoint_id
                               WHERE d.status = \(WebhookDeliveryStatus.pending.rawValue) AND d.next_attempt_at <= \(now)
                                 AND (d.claimed_until IS NULL OR d.claimed_until <= \(now)) AND w.status = \(WebhookEndpoint.Status.enabled.rawValue) \(exclusion)) free
                         LEFT JOIN (SELECT account_id, count(*) AS n FROM webhook_deliveries
                                    WHERE status = \(WebhookDeliveryStatus.pending.rawValue) AND next_attempt_at <= \(now) AND claimed_until > \(now)
                                    GROUP BY account_id) leased ON leased.account_id = free.account_id
                         WHERE free.turn + COALESCE(leased.n, 0) <= \(Int64(perAccount))
                         ORDER BY free.turn, free.next_attempt_at, free.id
                         LIMIT \(Int64(limit)))
              AND status = \(WebhookDeliveryStatus.pending.rawValue) AND (claimed_until IS NULL OR claimed_until <= \(now))
            RETURNING id, endpoint_id, account_id, event_id, event_type, attempt, payload, claimed_until
            """
        let rows: [Row]
        if database.dialect == .postgres {
            rows = try database.transaction { connection in
                try connection.query("SELECT pg_advisory_xact_lock(\(unsafeSQL: String(Self.claimLockKey)))")
                return try connection.query(statement)
            }
        } else {
            rows = try database.query(statement)
        }
        return try rows.map { row in
            Claimed(id: try row.string("id"), endpointID: try row.string("endpoint_id"), accountID: try row.string("account_id"),
                    eventID: try row.string("event_id"), eventType: try row.string("event_type"), attempt: Int(try row.int("attempt")),
                    payload: try row.string("payload"), claimedUntil: try row.int("claimed_until"))
        }
    }

    /// Gives a lease back untried (the process has enough in flight to that endpoint).
    public func release(_ claimed: Claimed) throws {
        try database.query("""
            UPDATE webhook_deliveries SET claimed_until = NULL
            WHERE id = \(claimed.id) AND status = \(WebhookDeliveryStatus.pending.rawValue) AND claimed_until = \(claimed.claimedUntil)
            """)
    }

    /// How an attempt ended, as the worker decided it.
    public struct Result: Sendable {
        public var succeeded: Bool
        public var responseStatus: Int?
        public var error: String?
        public var durationMilliseconds: Int64
        /// When the next attempt is due; nil when there is none (succeeded, or out of retries).
        public var nextAttemptAt: Date?
        /// Disable the endpoint at once (410 Gone).
        public var disable: WebhookEndpoint.DisabledReason?

        public init(succeeded: Bool, responseStatus: Int?, error: String?, durationMilliseconds: Int64,
                    nextAttemptAt: Date?, disable: WebhookEndpoint.DisabledReason?) {
            self.succeeded = succeeded
            self.responseStatus = responseStatus
            self.error = error
            self.durationMilliseconds = durationMilliseconds
            self.nextAttemptAt = nextAttemptAt
            self.disable = disable
        }
    }

    /// Records the outcome of a leased attempt, queues the next one, and keeps the endpoint's
    /// failure clock (disabling it after `failingLimit` without a success). Does nothing and
    /// returns false when the lease was lost (another worker has the attempt now).
    @discardableResult
    public func complete(_ claimed: Claimed, _ result: Result, at time: Date, failingLimit: TimeInterval) throws -> Bool {
        try database.transaction { connection in
            guard !(try connection.query("""
                UPDATE webhook_deliveries SET status = \((result.succeeded ? WebhookDeliveryStatus.succeeded : .failed).rawValue), response_status = \(result.responseStatus.map(Int64.init)),
                    error = \(result.error), duration_ms = \(result.durationMilliseconds), next_attempt_at = \(result.nextAttemptAt), claimed_until = NULL
                WHERE id = \(claimed.id) AND status = \(WebhookDeliveryStatus.pending.rawValue) AND claimed_until = \(claimed.claimedUntil)
                RETURNING id
                """)).isEmpty
            else { return false }
            if let next = result.nextAttemptAt, !result.succeeded {
                try connection.query("""
                    INSERT INTO webhook_deliveries (id, endpoint_id, account_id, event_id, event_type, attempt, status, payload, created_at, next_attempt_at)
                    VALUES (\(unsafeSQL: Self.deliveryIDExpression(database.dialect)), \(claimed.endpointID), \(claimed.accountID), \(claimed.eventID),
                            \(claimed.eventType), \(Int64(claimed.attempt + 1)), \(WebhookDeliveryStatus.pending.rawValue), \(claimed.payload), \(time), \(next))
                    """)
            }
            if result.succeeded {
                try connection.query("UPDATE webhook_endpoints SET failing_since = NULL WHERE id = \(claimed.endpointID) AND failing_since IS NOT NULL")
            } else if let reason = result.disable {
                try connection.query("""
                    UPDATE webhook_endpoints SET status = \(WebhookEndpoint.Status.disabled.rawValue), disabled_reason = \(reason.rawValue), updated_at = \(time)
                    WHERE id = \(claimed.endpointID)
                    """)
            } else {
                let limit = time.unixMilliseconds - Int64(failingLimit * 1000)
                try connection.query("""
                    UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, \(time))
                    WHERE id = \(claimed.endpointID)
                    """)
                try connection.query("""
                    UPDATE webhook_endpoints SET status = \(WebhookEndpoint.Status.disabled.rawValue), disabled_reason = \(WebhookEndpoint.DisabledReason.failing.rawValue), updated_at = \(time)
                    WHERE id = \(claimed.endpointID) AND status = \(WebhookEndpoint.Status.enabled.rawValue) AND failing_since <= \(limit)
                    """)
            }
            return true
        }
    }

    /// Attempts waiting (due or not), for metrics and tests.
    public func pendingCount() throws -> Int {
        Int(try database.query("SELECT count(*) AS n FROM webhook_deliveries WHERE status = \(WebhookDeliveryStatus.pending.rawValue)")[0].int("n"))
    }
}
