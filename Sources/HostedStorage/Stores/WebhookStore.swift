import Foundation
import HostedCore

/// Webhook endpoints and their deliveries on either store. Messages are queued by the event
/// writer in the event's own statement or transaction (`outbox`), so a committed change always
/// has its messages and a rolled-back one never does. Workers lease due attempts (`claim`:
/// `FOR UPDATE SKIP LOCKED` on PostgreSQL, one writer on SQLite) and record each outcome
/// (`complete`) only while they still hold the lease.
public struct WebhookStore: Sendable {
    let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    static let endpointColumns = "id, account_id, url, events, description, status, disabled_reason, created_at"

    // MARK: - Endpoints

    /// Stores a new endpoint with its sealed secret (base64 of the sealed bytes), unless its
    /// account already has `limit` endpoints: then nothing is stored and the answer is false.
    /// Counted and inserted under a lock on the account (PostgreSQL: an advisory lock, so two
    /// creates at once cannot both see room for one; SQLite: its one writer).
    @discardableResult
    public func create(_ endpoint: WebhookEndpoint, sealedSecret: String, limit: Int = WebhookEndpoint.perAccountLimit) throws -> Bool {
        try database.transaction { connection in
            if database.dialect == .postgres {
                try connection.query("SELECT pg_advisory_xact_lock(\(unsafeSQL: String(Self.endpointsLockClass)), hashtext(\(endpoint.accountID.rawValue)))")
            }
            let count = try connection.query("""
                SELECT count(*) AS n FROM webhook_endpoints WHERE account_id = \(endpoint.accountID.rawValue)
                """)[0].int("n")
            guard count < Int64(limit) else { return false }
            try connection.query("""
                INSERT INTO webhook_endpoints (\(unsafeSQL: Self.endpointColumns), secret, updated_at)
                VALUES (\(endpoint.id.rawValue), \(endpoint.accountID.rawValue), \(endpoint.url), \(JSONText.array(endpoint.events.entries.map(JSONText.quoted))),
                        \(endpoint.description), \(endpoint.status.rawValue), \(endpoint.disabledReason?.rawValue), \(endpoint.createdAt),
                        \(sealedSecret), \(endpoint.createdAt))
                """)
            try Self.writeFilter(endpoint, on: connection)
            return true
        }
    }

    /// Advisory lock keys (any constants, the same in every process; the migrator's is
    /// 7_219_043): one class for creating an account's endpoints, one key for claiming.
    static let endpointsLockClass = 7_219_044  // an int4: the two-key form
    static let claimLockKey = 7_219_045

    public func endpoint(accountID: ObjectID, id: ObjectID) throws -> WebhookEndpoint? {
        try database.query("""
            SELECT \(unsafeSQL: Self.endpointColumns) FROM webhook_endpoints
            WHERE id = \(id.rawValue) AND account_id = \(accountID.rawValue)
            """).first.map(Self.endpoint(from:))
    }

    /// `list`'s `startingAfter` names no endpoint of the account.
    public struct UnknownCursor: Error, Equatable {}

    /// Newest first.
    public func list(accountID: ObjectID, limit: Int, startingAfter: ObjectID?) throws -> ([WebhookEndpoint], hasMore: Bool) {
        var cursorTime = Int64.max
        var cursorID = "~"
        if let startingAfter {
            guard let row = try database.query("""
                SELECT created_at FROM webhook_endpoints WHERE id = \(startingAfter.rawValue) AND account_id = \(accountID.rawValue)
                """).first
            else { throw UnknownCursor() }
            cursorTime = try row.int("created_at")
            cursorID = startingAfter.rawValue
        }
        let rows = try database.query("""
            SELECT \(unsafeSQL: Self.endpointColumns) FROM webhook_endpoints
            WHERE account_id = \(accountID.rawValue) AND (created_at < \(cursorTime) OR (created_at = \(cursorTime) AND id < \(cursorID)))
            ORDER BY created_at DESC, id DESC
            LIMIT \(Int64(limit + 1))
            """)
        return (try rows.prefix(limit).map(Self.endpoint(from:)), rows.count > limit)
    }

    /// Changes an endpoint; `change` sees the stored one. Re-enabling clears the failure clock.
    public func update(accountID: ObjectID, id: ObjectID, at time: Date,
                       _ change: (inout WebhookEndpoint) throws -> Void) throws -> WebhookEndpoint {
        try database.transaction { connection in
            let before = try lockedEndpoint(accountID: accountID, id: id, on: connection)
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
    private func lockedEndpoint(accountID: ObjectID, id: ObjectID, on connection: DatabaseConnection) throws -> WebhookEndpoint {
        let lock = database.dialect == .postgres ? " FOR UPDATE" : ""
        guard let row = try connection.query("""
            SELECT \(unsafeSQL: Self.endpointColumns) FROM webhook_endpoints
            WHERE id = \(id.rawValue) AND account_id = \(accountID.rawValue)\(unsafeSQL: lock)
            """).first
        else { throw DomainError.notFound(what: "webhook endpoint") }
        return try Self.endpoint(from: row)
    }

    /// Deletes an endpoint, its filter and its deliveries; false when there was none.
    public func delete(accountID: ObjectID, id: ObjectID) throws -> Bool {
        try database.transaction { connection in
            guard !(try connection.query("""
                DELETE FROM webhook_endpoints WHERE id = \(id.rawValue) AND account_id = \(accountID.rawValue) RETURNING id
                """)).isEmpty
            else { return false }
            try connection.query("DELETE FROM webhook_endpoint_events WHERE endpoint_id = \(id.rawValue)")
            try connection.query("DELETE FROM webhook_deliveries WHERE endpoint_id = \(id.rawValue)")
            return true
        }
    }

    /// A new secret: the current one goes on signing beside it until `previousUntil`.
    public func rotate(accountID: ObjectID, id: ObjectID, sealedSecret: String, at time: Date, previousUntil: Date) throws -> Bool {
        !(try database.query("""
            UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_until = \(previousUntil),
                secret = \(sealedSecret), updated_at = \(time)
            WHERE id = \(id.rawValue) AND account_id = \(accountID.rawValue)
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

    // MARK: - The outbox

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
        SELECT \(unsafeSQL: deliveryIDExpression(.sqlite)), w.id, w.account_id, \(event.id.rawValue), \(event.type), 1, 'pending',
               \(payload), \(event.createdAt), \(event.createdAt)
        FROM webhook_endpoints w
        WHERE w.account_id = \(event.accountID.rawValue) AND w.status = 'enabled'
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
                    \(eventID.rawValue), \(type), 1, 'pending', \(payload), \(time), \(time))
            """)
    }

    /// Queues again, due now, every event of the account at or after `since` that the endpoint's
    /// filter matches and that has neither a succeeded nor a pending delivery to it. `payload`
    /// builds an event's message. Returns how many were queued.
    public func recover(accountID: ObjectID, endpointID: ObjectID, since: Date, at time: Date,
                        payload: (Event, VerificationStatus) -> String) throws -> Int {
        try database.transaction { connection in
            let endpoint = try lockedEndpoint(accountID: accountID, id: endpointID, on: connection)
            let rows = try connection.query("""
                SELECT \(unsafeSQL: EventStore.columns(of: "e")),
                       COALESCE(e.status, v.status) AS verification_status,
                       (SELECT max(d.attempt) FROM webhook_deliveries d WHERE d.endpoint_id = \(endpointID.rawValue) AND d.event_id = e.id) AS last_attempt
                FROM events e JOIN verifications v ON v.id = e.verification_id
                WHERE e.account_id = \(accountID.rawValue) AND e.created_at >= \(since)
                  AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d
                                  WHERE d.endpoint_id = \(endpointID.rawValue) AND d.event_id = e.id AND d.status IN ('succeeded', 'pending'))
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
                            \(event.id.rawValue), \(event.type), \(attempt), 'pending', \(payload(event, status)), \(time), \(time))
                    """)
                queued += 1
            }
            return queued
        }
    }

    // MARK: - Delivery

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
                               WHERE d.status = 'pending' AND d.next_attempt_at <= \(now)
                                 AND (d.claimed_until IS NULL OR d.claimed_until <= \(now)) AND w.status = 'enabled' \(exclusion)) free
                         LEFT JOIN (SELECT account_id, count(*) AS n FROM webhook_deliveries
                                    WHERE status = 'pending' AND next_attempt_at <= \(now) AND claimed_until > \(now)
                                    GROUP BY account_id) leased ON leased.account_id = free.account_id
                         WHERE free.turn + COALESCE(leased.n, 0) <= \(Int64(perAccount))
                         ORDER BY free.turn, free.next_attempt_at, free.id
                         LIMIT \(Int64(limit)))
              AND status = 'pending' AND (claimed_until IS NULL OR claimed_until <= \(now))
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
            WHERE id = \(claimed.id) AND status = 'pending' AND claimed_until = \(claimed.claimedUntil)
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
                UPDATE webhook_deliveries SET status = \(result.succeeded ? "succeeded" : "failed"), response_status = \(result.responseStatus.map(Int64.init)),
                    error = \(result.error), duration_ms = \(result.durationMilliseconds), next_attempt_at = \(result.nextAttemptAt), claimed_until = NULL
                WHERE id = \(claimed.id) AND status = 'pending' AND claimed_until = \(claimed.claimedUntil)
                RETURNING id
                """)).isEmpty
            else { return false }
            if let next = result.nextAttemptAt, !result.succeeded {
                try connection.query("""
                    INSERT INTO webhook_deliveries (id, endpoint_id, account_id, event_id, event_type, attempt, status, payload, created_at, next_attempt_at)
                    VALUES (\(unsafeSQL: Self.deliveryIDExpression(database.dialect)), \(claimed.endpointID), \(claimed.accountID), \(claimed.eventID),
                            \(claimed.eventType), \(Int64(claimed.attempt + 1)), 'pending', \(claimed.payload), \(time), \(next))
                    """)
            }
            if result.succeeded {
                try connection.query("UPDATE webhook_endpoints SET failing_since = NULL WHERE id = \(claimed.endpointID) AND failing_since IS NOT NULL")
            } else if let reason = result.disable {
                try connection.query("""
                    UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = \(reason.rawValue), updated_at = \(time)
                    WHERE id = \(claimed.endpointID)
                    """)
            } else {
                let limit = time.unixMilliseconds - Int64(failingLimit * 1000)
                try connection.query("""
                    UPDATE webhook_endpoints SET failing_since = COALESCE(failing_since, \(time))
                    WHERE id = \(claimed.endpointID)
                    """)
                try connection.query("""
                    UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = 'failing', updated_at = \(time)
                    WHERE id = \(claimed.endpointID) AND status = 'enabled' AND failing_since <= \(limit)
                    """)
            }
            return true
        }
    }

    /// Attempts waiting (due or not), for metrics and tests.
    public func pendingCount() throws -> Int {
        Int(try database.query("SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'")[0].int("n"))
    }

    // MARK: - The attempt log

    /// One attempt as the deliveries log shows it.
    public struct Delivery: Equatable, Sendable {
        public let id: String
        public let endpointID: String
        public let eventID: String
        public let eventType: String
        public let attempt: Int
        public let status: String
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
                               createdAt: try row.date("created_at"))
    }

    static func delivery(from row: Row) throws -> Delivery {
        Delivery(id: try row.string("id"), endpointID: try row.string("endpoint_id"), eventID: try row.string("event_id"),
                 eventType: try row.string("event_type"), attempt: Int(try row.int("attempt")), status: try row.string("status"),
                 responseStatus: try row.optionalInt("response_status").map { status in Int(status) }, error: try row.optionalString("error"),
                 durationMilliseconds: try row.optionalInt("duration_ms"), createdAt: try row.date("created_at"),
                 nextAttemptAt: try row.optionalDate("next_attempt_at"))
    }
}
