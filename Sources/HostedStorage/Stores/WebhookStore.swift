import Foundation
import HostedCore

/// Webhook endpoints and their deliveries on either store. Messages are queued by the event
/// writer in the event's own statement or transaction (`outbox`), so a committed change always
/// has its messages and a rolled-back one never does. Workers lease due attempts (`claim`:
/// `FOR UPDATE SKIP LOCKED` on PostgreSQL, one writer on SQLite) and record each outcome
/// (`complete`) only while they still hold the lease. Endpoints are here; the outbox, delivery
/// and the attempt log are in `WebhookStore+Outbox.swift`, `+Deliveries.swift`, `+AttemptLog.swift`.
public struct WebhookStore: Sendable {
    let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    static let endpointColumns = "id, account_id, url, events, description, status, disabled_reason, created_at, livemode"

    // MARK: - Endpoints

    /// Stores a new endpoint with its sealed secret (base64 of the sealed bytes), unless its
    /// account already has `limit` endpoints in the endpoint's mode: then nothing is stored and
    /// the answer is false.
    /// Counted and inserted under a lock on the account (PostgreSQL: an advisory lock, so two
    /// creates at once cannot both see room for one; SQLite: its one writer).
    @discardableResult
    public func create(_ endpoint: WebhookEndpoint, sealedSecret: String, limit: Int = WebhookEndpoint.perAccountLimit) throws -> Bool {
        try database.transaction { connection in
            if database.dialect == .postgres {
                try connection.query("SELECT pg_advisory_xact_lock(\(unsafeSQL: String(Self.endpointsLockClass)), hashtext(\(endpoint.accountID.rawValue)))")
            }
            let count = try connection.query("""
                SELECT count(*) AS n FROM webhook_endpoints
                WHERE account_id = \(endpoint.accountID.rawValue) AND livemode = \(endpoint.tenancy.mode)
                """)[0].int("n")
            guard count < Int64(limit) else { return false }
            try connection.query("""
                INSERT INTO webhook_endpoints (\(unsafeSQL: Self.endpointColumns), secret, updated_at)
                VALUES (\(endpoint.id.rawValue), \(endpoint.accountID.rawValue), \(endpoint.url), \(JSONText.array(endpoint.events.entries.map(JSONText.quoted))),
                        \(endpoint.description), \(endpoint.status.rawValue), \(endpoint.disabledReason?.rawValue), \(endpoint.createdAt),
                        \(endpoint.tenancy.mode), \(sealedSecret), \(endpoint.createdAt))
                """)
            try Self.writeFilter(endpoint, on: connection)
            return true
        }
    }

    /// Advisory lock keys (any constants, the same in every process; the migrator's is
    /// 7_219_043): one class for creating an account's endpoints, one key for claiming.
    static let endpointsLockClass = 7_219_044  // an int4: the two-key form
    static let claimLockKey = 7_219_045

    public func endpoint(tenancy: Tenancy, id: ObjectID) throws -> WebhookEndpoint? {
        try database.query("""
            SELECT \(unsafeSQL: Self.endpointColumns) FROM webhook_endpoints
            WHERE id = \(id.rawValue) AND account_id = \(tenancy.accountID.rawValue) AND livemode = \(tenancy.mode)
            """).first.map(Self.endpoint(from:))
    }

    /// `list`'s `startingAfter` names no endpoint of the account in this mode.
    public struct UnknownCursor: Error, Equatable {}

    /// Newest first.
    public func list(tenancy: Tenancy, limit: Int, startingAfter: ObjectID?) throws -> ([WebhookEndpoint], hasMore: Bool) {
        var cursorTime = Int64.max
        var cursorID = "~"
        if let startingAfter {
            guard let row = try database.query("""
                SELECT created_at FROM webhook_endpoints
                WHERE id = \(startingAfter.rawValue) AND account_id = \(tenancy.accountID.rawValue) AND livemode = \(tenancy.mode)
                """).first
            else { throw UnknownCursor() }
            cursorTime = try row.int("created_at")
            cursorID = startingAfter.rawValue
        }
        let rows = try database.query("""
            SELECT \(unsafeSQL: Self.endpointColumns) FROM webhook_endpoints
            WHERE account_id = \(tenancy.accountID.rawValue) AND livemode = \(tenancy.mode)
              AND (created_at < \(cursorTime) OR (created_at = \(cursorTime) AND id < \(cursorID)))
            ORDER BY created_at DESC, id DESC
            LIMIT \(Int64(limit + 1))
            """)
        return (try rows.prefix(limit).map(Self.endpoint(from:)), rows.count > limit)
    }

    /// Changes an endpoint; `change` sees the stored one. Re-enabling clears the failure clock.
    public func update(tenancy: Tenancy, id: ObjectID, at time: Date,
                       _ change: (inout WebhookEndpoint) throws -> Void) throws -> WebhookEndpoint {
        try database.transaction { connection in
            let before = try lockedEndpoint(tenancy: tenancy, id: id, on: connection)
            var endpoint = before
            try change(&endpoint)
            if endpoint.status == .enabled { endpoint.disabledReason = nil }
            guard endpoint != before else { return endpoint }
            let reenabled = before.status == .disabled && endpoint.status == .enabled
            try connection.query("""
                UPDATE webhook_endpoints SET url = \(endpoint.url), events = \(JSONText.array(endpoint.events.entries.map(JSONText.quoted))),
                    description = \(endpoint.description), status = \(endpoint.status.rawValue),
                    disabled_reason = \(endpoint.disabledReason?.rawValue), updated_at = \(time)\(unsafeSQL: reenabled ? ", failing_since = NULL" : "")
                WHERE id = \(id.rawValue)
                """)
            if endpoint.events != before.events {
                try connection.query("DELETE FROM webhook_endpoint_events WHERE endpoint_id = \(id.rawValue)")
                try Self.writeFilter(endpoint, on: connection)
            }
            return endpoint
        }
    }

    /// The account's endpoint, its row locked for the caller's transaction (PostgreSQL; SQLite
    /// has one writer); `notFound` when there is none.
    func lockedEndpoint(tenancy: Tenancy, id: ObjectID, on connection: DatabaseConnection) throws -> WebhookEndpoint {
        let lock = database.dialect == .postgres ? " FOR UPDATE" : ""
        guard let row = try connection.query("""
            SELECT \(unsafeSQL: Self.endpointColumns) FROM webhook_endpoints
            WHERE id = \(id.rawValue) AND account_id = \(tenancy.accountID.rawValue) AND livemode = \(tenancy.mode)\(unsafeSQL: lock)
            """).first
        else { throw DomainError.notFound(what: "webhook endpoint") }
        return try Self.endpoint(from: row)
    }

    /// Deletes an endpoint, its filter and its deliveries; false when there was none.
    public func delete(tenancy: Tenancy, id: ObjectID) throws -> Bool {
        try database.transaction { connection in
            guard !(try connection.query("""
                DELETE FROM webhook_endpoints
                WHERE id = \(id.rawValue) AND account_id = \(tenancy.accountID.rawValue) AND livemode = \(tenancy.mode) RETURNING id
                """)).isEmpty
            else { return false }
            try connection.query("DELETE FROM webhook_endpoint_events WHERE endpoint_id = \(id.rawValue)")
            try connection.query("DELETE FROM webhook_deliveries WHERE endpoint_id = \(id.rawValue)")
            return true
        }
    }

    /// A new secret: the current one goes on signing beside it until `previousUntil`.
    public func rotate(tenancy: Tenancy, id: ObjectID, sealedSecret: String, at time: Date, previousUntil: Date) throws -> Bool {
        !(try database.query("""
            UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_until = \(previousUntil),
                secret = \(sealedSecret), updated_at = \(time)
            WHERE id = \(id.rawValue) AND account_id = \(tenancy.accountID.rawValue) AND livemode = \(tenancy.mode)
            RETURNING id
            """)).isEmpty
    }

    /// What a delivery to the endpoint needs: where, and the sealed secrets that sign now.
    public struct Target: Sendable {
        public let endpointID: String
        public let url: String
        public let status: WebhookEndpoint.Status
        /// Sealed secrets (base64), newest first: the current one, and the previous while it still signs.
        public let sealedSecrets: [String]
    }

    public func targets(endpointIDs: [String], at time: Date) throws -> [String: Target] {
        guard !endpointIDs.isEmpty else { return [:] }
        let rows = try database.query("""
            SELECT id, url, status, secret, previous_secret, previous_secret_until FROM webhook_endpoints
            WHERE id IN (\(values: endpointIDs.map(SQLValue.text)))
            """)
        var found: [String: Target] = [:]
        for row in rows {
            var secrets = [try row.string("secret")]
            if let previous = try row.optionalString("previous_secret"),
               let until = try row.optionalInt("previous_secret_until"), until > time.unixMilliseconds {
                secrets.append(previous)
            }
            let id = try row.string("id")
            found[id] = Target(endpointID: id, url: try row.string("url"),
                               status: WebhookEndpoint.Status(rawValue: try row.string("status")) ?? .disabled,
                               sealedSecrets: secrets)
        }
        return found
    }

    /// Whether the account has an enabled endpoint of this mode that receives `type` (named,
    /// `verification.*` or `*`): the journey offers "Continue in the app" only when someone will
    /// hear the request.
    public func hasEnabledSubscriber(tenancy: Tenancy, eventType type: EventType) throws -> Bool {
        !(try database.query("""
            SELECT e.id FROM webhook_endpoints e JOIN webhook_endpoint_events f ON f.endpoint_id = e.id
            WHERE e.account_id = \(tenancy.accountID.rawValue) AND e.livemode = \(tenancy.mode) AND e.status = \(WebhookEndpoint.Status.enabled.rawValue)
              AND f.event_type IN ('*', 'verification.*', \(type.rawValue))
            LIMIT 1
            """)).isEmpty
    }

    // MARK: - Rows

    static func writeFilter(_ endpoint: WebhookEndpoint, on connection: DatabaseConnection) throws {
        for entry in endpoint.events.entries {
            try connection.query("INSERT INTO webhook_endpoint_events (endpoint_id, event_type) VALUES (\(endpoint.id.rawValue), \(entry))")
        }
    }

    static func endpoint(from row: Row) throws -> WebhookEndpoint {
        guard let id = ObjectID(.webhookEndpoint, parsing: try row.string("id")),
              let accountID = ObjectID(.account, parsing: try row.string("account_id"))
        else { throw DatabaseError.decoding(column: "id") }
        let events = try JSONColumn.decode([String].self, from: try row.string("events"), column: "events")
        return WebhookEndpoint(id: id, accountID: accountID, url: try row.string("url"), events: EventFilter(stored: events),
                               description: try row.optionalString("description"),
                               status: WebhookEndpoint.Status(rawValue: try row.string("status")) ?? .disabled,
                               disabledReason: try row.optionalString("disabled_reason").flatMap(WebhookEndpoint.DisabledReason.init(rawValue:)),
                               createdAt: try row.date("created_at"), livemode: try row.int("livemode") != 0)
    }
}
