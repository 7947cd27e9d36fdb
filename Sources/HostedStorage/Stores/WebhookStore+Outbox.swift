import Foundation
import HostedCore

/// The outbox: messages queued in the transaction of the event they tell of, a test message,
/// and messages queued again for an endpoint that missed them.
extension WebhookStore {
    /// A delivery id made by the database, so one statement can queue a message for every
    /// matching endpoint: `whd_` and 32 hex digits of randomness.
    static func deliveryIDExpression(_ dialect: SQLDialect) -> String {
        switch dialect {
        case .postgres: "'whd_' || md5(gen_random_uuid()::text || gen_random_uuid()::text)"
        case .sqlite: "'whd_' || lower(hex(randomblob(16)))"
        }
    }

    /// Queues `event`'s message (`payload`) for each enabled endpoint of its account whose filter
    /// matches, on the event's connection: SQLite's outbox (PostgreSQL's is the trigger on
    /// `events`, migration 0011, which writes the same rows).
    static func outbox(for event: Event, payload: String) -> SQL {
        """
        INSERT INTO webhook_deliveries (id, endpoint_id, account_id, event_id, event_type, attempt, status, payload, created_at, next_attempt_at)
        SELECT \(unsafeSQL: deliveryIDExpression(.sqlite)), w.id, w.account_id, \(event.id.rawValue), \(event.type), 1, \(WebhookDeliveryStatus.pending.rawValue),
               \(payload), \(event.createdAt), \(event.createdAt)
        FROM webhook_endpoints w
        WHERE w.account_id = \(event.accountID.rawValue) AND w.livemode = \(Int64(event.livemode ? 1 : 0)) AND w.status = \(WebhookEndpoint.Status.enabled.rawValue)
          AND EXISTS (SELECT 1 FROM webhook_endpoint_events f
                      WHERE f.endpoint_id = w.id AND f.event_type IN (\(event.type), '*', 'verification.*'))
        RETURNING id
        """
    }

    /// The key the change feed carries when messages were queued: every process's workers wake.
    public static let wakeKey = "webhooks"

    /// Queues one message to one endpoint now (a `webhook.test`).
    public func enqueue(endpointID: ObjectID, accountID: ObjectID, eventID: ObjectID, type: String, payload: String,
                        at time: Date) throws {
        try database.query("""
            INSERT INTO webhook_deliveries (id, endpoint_id, account_id, event_id, event_type, attempt, status, payload, created_at, next_attempt_at)
            VALUES (\(unsafeSQL: Self.deliveryIDExpression(database.dialect)), \(endpointID.rawValue), \(accountID.rawValue),
                    \(eventID.rawValue), \(type), 1, \(WebhookDeliveryStatus.pending.rawValue), \(payload), \(time), \(time))
            """)
    }

    /// Queues again, due now, every event of the account at or after `since` that the endpoint's
    /// filter matches and that has neither a succeeded nor a pending delivery to it. `payload`
    /// builds an event's message. Returns how many were queued.
    public func recover(tenancy: Tenancy, endpointID: ObjectID, since: Date, at time: Date,
                        payload: (Event, VerificationStatus) -> String) throws -> Int {
        try database.transaction { connection in
            let endpoint = try lockedEndpoint(tenancy: tenancy, id: endpointID, on: connection)
            let accountID = tenancy.accountID
            let rows = try connection.query("""
                SELECT \(unsafeSQL: EventStore.columns(of: "e")),
                       COALESCE(e.status, v.status) AS verification_status,
                       (SELECT max(d.attempt) FROM webhook_deliveries d WHERE d.endpoint_id = \(endpointID.rawValue) AND d.event_id = e.id) AS last_attempt
                FROM events e JOIN verifications v ON v.id = e.verification_id
                WHERE e.account_id = \(accountID.rawValue) AND e.livemode = \(Int64(endpoint.livemode ? 1 : 0)) AND e.created_at >= \(since)
                  AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                                  WHERE d.endpoint_id = \(endpointID.rawValue) AND d.event_id = e.id AND d.status IN (\(WebhookDeliveryStatus.succeeded.rawValue), \(WebhookDeliveryStatus.pending.rawValue)))
                ORDER BY e.created_at, e.verification_id, e.sequence
                LIMIT 10000
                """)
            var queued = 0
            for row in rows {
                let event = try EventStore.event(from: row)
                guard endpoint.events.matches(event.type) else { continue }
                // The status right after the event (events from before webhooks did not record
                // it: for those, the verification's status now).
                let status = VerificationStatus(rawValue: try row.string("verification_status")) ?? .created
                let attempt = (try row.optionalInt("last_attempt") ?? 0) + 1
                try connection.query("""
                    INSERT INTO webhook_deliveries (id, endpoint_id, account_id, event_id, event_type, attempt, status, payload, created_at, next_attempt_at)
                    VALUES (\(unsafeSQL: Self.deliveryIDExpression(database.dialect)), \(endpointID.rawValue), \(accountID.rawValue),
                            \(event.id.rawValue), \(event.type), \(attempt), \(WebhookDeliveryStatus.pending.rawValue), \(payload(event, status)), \(time), \(time))
                    """)
                queued += 1
            }
            return queued
        }
    }
}
