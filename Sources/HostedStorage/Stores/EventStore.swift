import Foundation
import HostedCore
import HostedCrypto

/// The event log: appended in the transaction of each change to a verification, read as the
/// account's feed, and checked link by link by `hosted audit verify`.
public struct EventStore: Sendable {
    let database: any Database
    private let random: any RandomSource

    public init(database: any Database, random: any RandomSource = SecureRandom()) {
        self.database = database
        self.random = random
    }

    static let columns = "id, account_id, verification_id, sequence, type, actor_type, actor_id, data, created_at, previous_hash, hash, livemode"

    /// `columns`, each qualified by a table alias (`e.id, e.account_id, …`), for joins.
    static func columns(of alias: String) -> String {
        columns.split(separator: ",").map { name in alias + "." + name.trimmingCharacters(in: .whitespaces) }.joined(separator: ", ")
    }

    /// Inserts sealed events on `connection`, inside the transaction of the change that made
    /// them, and queues each event's webhook messages there too (`status` is the verification's
    /// after the change): on PostgreSQL the trigger on `events` does (migration 0011), on SQLite
    /// this does. The caller holds the verification's row lock (PostgreSQL `FOR UPDATE`;
    /// SQLite has one writer) and sealed them after the chain head it read with that row, so
    /// sequences have no gap or duplicate — and the unique key on (verification, sequence)
    /// refuses one if that were ever not so. Returns how many messages were queued.
    @discardableResult
    func insert(_ sealed: [Event], on connection: DatabaseConnection, status: VerificationStatus) throws -> Int {
        var queued = 0
        for event in sealed {
            try connection.query("""
                INSERT INTO events (\(unsafeSQL: Self.columns), status) VALUES (\(values: Self.values(event)), \(status.rawValue))
                """)
            guard database.dialect == .sqlite else { continue }
            queued += try connection.query(WebhookStore.outbox(for: event, payload: WebhookMessage.body(for: event, status: status))).count
        }
        return queued
    }

    /// The drafts as events following `last` in the verification's chain, hashed.
    func seal(_ drafts: [EventDraft], to verification: Verification, after last: ChainHead?, at time: Date) -> [Event] {
        var sequence = last?.sequence ?? 0
        var previousHash = last?.hash
        return drafts.map { draft in
            sequence += 1
            let event = Self.seal(id: ObjectID(.event, using: random), accountID: verification.accountID,
                                  verificationID: verification.id, sequence: sequence, type: draft.type.rawValue,
                                  actorKind: draft.actor.kind.rawValue, actorID: draft.actor.id,
                                  data: Event.canonicalData(draft.data), createdAt: time, previousHash: previousHash,
                                  livemode: verification.livemode)
            previousHash = event.hash
            return event
        }
    }

    static func values(_ event: Event) -> [SQLValue] {
        [.text(event.id.rawValue), .text(event.accountID.rawValue), .text(event.verificationID.rawValue), .integer(event.sequence),
         .text(event.type), .text(event.actorKind), .optionalText(event.actorID), .text(event.data), .date(event.createdAt),
         .optionalText(event.previousHash), .text(event.hash), .integer(event.livemode ? 1 : 0)]
    }

    /// An event with its hash computed from `previousHash` and its canonical JSON.
    public static func seal(id: ObjectID, accountID: ObjectID, verificationID: ObjectID, sequence: Int64, type: String,
                            actorKind: String, actorID: String?, data: String, createdAt: Date, previousHash: String?,
                            livemode: Bool = true) -> Event {
        let unsealed = Event(id: id, accountID: accountID, verificationID: verificationID, sequence: sequence, type: type,
                             actorKind: actorKind, actorID: actorID, data: data, createdAt: createdAt,
                             previousHash: previousHash, hash: "", livemode: livemode)
        return Event(id: id, accountID: accountID, verificationID: verificationID, sequence: sequence, type: type,
                     actorKind: actorKind, actorID: actorID, data: data, createdAt: createdAt,
                     previousHash: previousHash, hash: hash(of: unsealed), livemode: livemode)
    }

    /// What `event.hash` must be: SHA-256 hex of its previous hash, a newline and its canonical JSON.
    public static func hash(of event: Event) -> String {
        Digest.hex(Digest.sha256(event.chainInput))
    }

    /// Filters of the account's feed.
    public struct Filter: Sendable {
        public var verificationID: ObjectID?
        public var type: String?

        public init(verificationID: ObjectID? = nil, type: String? = nil) {
            self.verificationID = verificationID
            self.type = type
        }
    }

    /// `list`'s `startingAfter` names no event of the account in this mode.
    public struct UnknownCursor: Error, Equatable {}

    /// The account's events of one mode, oldest first (by time, then verification and sequence;
    /// one verification's by sequence alone); one page after `startingAfter`, and whether more follow.
    public func list(tenancy: Tenancy, filter: Filter, limit: Int, startingAfter: ObjectID?) throws -> ([Event], hasMore: Bool) {
        let accountID = tenancy.accountID
        let mode: Int64 = tenancy.livemode ? 1 : 0
        var cursorTime: Int64 = Int64.min
        var cursorVerification = ""
        var cursorSequence: Int64 = 0
        if let startingAfter {
            guard let cursor = try database.query("""
                SELECT created_at, verification_id, sequence FROM events
                WHERE id = \(startingAfter.rawValue) AND account_id = \(accountID.rawValue) AND livemode = \(mode)
                """).first
            else { throw UnknownCursor() }
            cursorTime = try cursor.int("created_at")
            cursorVerification = try cursor.string("verification_id")
            cursorSequence = try cursor.int("sequence")
        }
        if let verificationID = filter.verificationID {
            // One chain: in its own order (a change takes its time before it waits for the row,
            // so times need not follow sequences).
            if startingAfter != nil && cursorVerification != verificationID.rawValue { throw UnknownCursor() }
            let rows = try database.query("""
                SELECT \(unsafeSQL: Self.columns) FROM events
                WHERE account_id = \(accountID.rawValue) AND livemode = \(mode) AND verification_id = \(verificationID.rawValue)
                  AND sequence > \(cursorSequence) AND (\(filter.type ?? "") = '' OR type = \(filter.type ?? ""))
                ORDER BY sequence
                LIMIT \(Int64(limit + 1))
                """)
            return (try rows.prefix(limit).map(Self.event(from:)), rows.count > limit)
        }
        // The cursor as a row comparison: the feed's index starts there. Spelt out as ORs, it
        // was a filter, and a page deep in the feed read every event before it (27 ms at 20,000
        // verifications, growing with the table; docs/performance.md, "Figures at scale").
        let type: SQL = filter.type.map { name in "AND type = \(name)" } ?? ""
        let rows = try database.query("""
            SELECT \(unsafeSQL: Self.columns) FROM events
            WHERE account_id = \(accountID.rawValue) AND livemode = \(mode)
              AND (created_at, verification_id, sequence) > (\(cursorTime), \(cursorVerification), \(cursorSequence)) \(type)
            ORDER BY created_at, verification_id, sequence
            LIMIT \(Int64(limit + 1))
            """)
        let page = try rows.prefix(limit).map(Self.event(from:))
        return (page, rows.count > limit)
    }

    /// One verification's chain, in sequence order.
    public func chain(verificationID: ObjectID) throws -> [Event] {
        try database.query("""
            SELECT \(unsafeSQL: Self.columns) FROM events WHERE verification_id = \(verificationID.rawValue) ORDER BY sequence
            """).map(Self.event(from:))
    }

    /// The result of checking every chain.
    public struct AuditReport: Sendable {
        public var chains = 0
        public var events = 0
        /// The first event that does not verify, and why.
        public var broken: (event: String, verificationID: String, sequence: Int64, reason: String)?
    }

    static func event(from row: Row) throws -> Event {
        guard let id = ObjectID(.event, parsing: try row.string("id")),
              let accountID = ObjectID(.account, parsing: try row.string("account_id")),
              let verificationID = ObjectID(.verification, parsing: try row.string("verification_id"))
        else { throw DatabaseError.decoding(column: "id") }
        return Event(id: id, accountID: accountID, verificationID: verificationID, sequence: try row.int("sequence"),
                     type: try row.string("type"), actorKind: try row.string("actor_type"), actorID: try row.optionalString("actor_id"),
                     data: try row.string("data"), createdAt: try row.date("created_at"),
                     previousHash: try row.optionalString("previous_hash"), hash: try row.string("hash"),
                     livemode: try row.int("livemode") != 0)
    }
}
