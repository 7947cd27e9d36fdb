import Foundation
import HostedCore

/// The queue of sealed SMS messages (see migration 0007). Claims hold across processes: a row
/// is leased to one worker (`claimed_until`) with `FOR UPDATE SKIP LOCKED` on PostgreSQL (SQLite
/// has one writer); a worker that dies leaves its lease to run out, and the message is sent by
/// the next claim — at least once, never lost.
public struct SMSQueueStore: Sendable {
    private let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// A message to send.
    public struct Queued: Equatable, Sendable {
        public let id: String
        public let verificationID: String
        public let sealed: [UInt8]
        /// Including this one.
        public let attempts: Int
    }

    /// Adds a message, on the caller's transaction.
    public static func enqueue(id: ObjectID, verificationID: ObjectID, sealed: [UInt8], at time: Date,
                               on connection: DatabaseConnection) throws {
        try connection.query("""
            INSERT INTO sms_queue (id, verification_id, sealed, attempts, available_at, created_at)
            VALUES (\(id.rawValue), \(verificationID.rawValue), \(sealed), 0, \(time), \(time))
            """)
    }

    /// Leases up to `limit` due messages for `lease` seconds and counts an attempt on each.
    public func claim(at time: Date, lease: TimeInterval, limit: Int) throws -> [Queued] {
        let now = time.unixMilliseconds
        let lock = database.dialect == .postgres ? "FOR UPDATE SKIP LOCKED" : ""
        let rows = try database.query("""
            UPDATE sms_queue SET claimed_until = \(now + Int64(lease * 1000)), attempts = attempts + 1
            WHERE id IN (SELECT id FROM sms_queue WHERE available_at <= \(now) AND (claimed_until IS NULL OR claimed_until <= \(now))
                         ORDER BY available_at LIMIT \(Int64(limit)) \(unsafeSQL: lock))
            RETURNING id, verification_id, sealed, attempts
            """)
        return try rows.map { row in
            Queued(id: try row.string("id"), verificationID: try row.string("verification_id"), sealed: try row.blob("sealed"),
                   attempts: Int(try row.int("attempts")))
        }
    }

    /// Sent, or given up: the row (and the sealed code in it) is gone.
    public func remove(id: String) throws {
        try database.query("DELETE FROM sms_queue WHERE id = \(id)")
    }

    /// Tries again no sooner than `time`.
    public func retry(id: String, at time: Date) throws {
        try database.query("UPDATE sms_queue SET claimed_until = NULL, available_at = \(time) WHERE id = \(id)")
    }

    /// Messages waiting (sent or not yet claimed).
    public func count() throws -> Int {
        Int(try database.query("SELECT count(*) AS n FROM sms_queue")[0].int("n"))
    }
}
