import Foundation
import HostedCore

/// Continuations (see migration 0013). Opening and picking are single atomic statements, so of
/// any number of devices and processes racing for one link exactly one opens it, and its one
/// pick decides.
public struct ContinuationStore: Sendable {
    private let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// Where a continuation stands, as the first device follows it.
    public struct Current: Equatable, Sendable {
        public let id: String
        public let status: String
        public let expiresAt: Date
    }

    /// Replaces the verification's open continuation (pending or opened) with a new one, on the
    /// transaction that records its event.
    public func replace(id: ObjectID, verificationID: ObjectID, secretHash: String, number: String, at time: Date, expiresAt: Date,
                        on connection: DatabaseConnection) throws {
        try revokeOpen(verificationID: verificationID, at: time, on: connection)
        try connection.query("""
            INSERT INTO continuations (id, verification_id, secret_hash, number, status, created_at, expires_at)
            VALUES (\(id.rawValue), \(verificationID.rawValue), \(secretHash), \(number), \(ContinuationStatus.pending.rawValue), \(time), \(expiresAt))
            """)
    }

    /// Ends a continuation not yet used to sign in ("continue here instead"); a matched one —
    /// a phone already signed in — is left alone. Returns how many it ended.
    @discardableResult
    public func revokeOpen(verificationID: ObjectID, at time: Date, on connection: DatabaseConnection? = nil) throws -> Int {
        let statement: SQL = """
            UPDATE continuations SET status = \(ContinuationStatus.revoked.rawValue), finished_at = \(time)
            WHERE verification_id = \(verificationID.rawValue) AND status IN (\(ContinuationStatus.pending.rawValue), \(ContinuationStatus.opened.rawValue))
            RETURNING id
            """
        return try (connection.map { try $0.query(statement) } ?? database.query(statement)).count
    }

    /// Opens a pending, unexpired continuation with this secret for one device, whose claim
    /// token's hash is kept: exactly one concurrent caller gets the number back.
    public func open(secretHash: String, verificationID: ObjectID, claimHash: String, at time: Date) throws -> (id: String, number: String)? {
        guard let row = try database.query("""
            UPDATE continuations SET status = \(ContinuationStatus.opened.rawValue), claim_hash = \(claimHash), opened_at = \(time)
            WHERE secret_hash = \(secretHash) AND verification_id = \(verificationID.rawValue) AND status = \(ContinuationStatus.pending.rawValue) AND expires_at > \(time)
            RETURNING id, number
            """).first
        else { return nil }
        return (try row.string("id"), try row.string("number"))
    }

    /// The one pick of the device holding the claim: `matched` when it is the number, `failed`
    /// (burned) otherwise; nil when there is no opened, unexpired continuation for that claim.
    /// On the transaction that records the outcome's event.
    public func pick(claimHash: String, verificationID: ObjectID, number: String, at time: Date,
                     on connection: DatabaseConnection) throws -> Bool? {
        guard let row = try connection.query("""
            UPDATE continuations SET status = CASE WHEN number = \(number) THEN \(ContinuationStatus.matched.rawValue) ELSE \(ContinuationStatus.failed.rawValue) END, finished_at = \(time)
            WHERE claim_hash = \(claimHash) AND verification_id = \(verificationID.rawValue) AND status = \(ContinuationStatus.opened.rawValue) AND expires_at > \(time)
            RETURNING status
            """).first
        else { return nil }
        return try row.string("status") == "matched"
    }

    /// Whether this secret is the verification's pending, unexpired continuation (the first
    /// device asking to text the link).
    public func isPending(secretHash: String, verificationID: ObjectID, at time: Date) throws -> Bool {
        !(try database.query("""
            SELECT id FROM continuations
            WHERE secret_hash = \(secretHash) AND verification_id = \(verificationID.rawValue) AND status = \(ContinuationStatus.pending.rawValue) AND expires_at > \(time)
            """)).isEmpty
    }

    /// The verification's newest continuation, or nil.
    public func current(verificationID: ObjectID) throws -> Current? {
        guard let row = try database.query("""
            SELECT id, status, expires_at FROM continuations WHERE verification_id = \(verificationID.rawValue)
            ORDER BY created_at DESC, id DESC LIMIT 1
            """).first
        else { return nil }
        return Current(id: try row.string("id"), status: try row.string("status"), expiresAt: try row.date("expires_at"))
    }

    /// Queues a sealed text message (the link, to the verification's own number).
    public func queueMessage(id: ObjectID, verificationID: ObjectID, sealed: [UInt8], at time: Date) throws {
        try database.transaction { connection in
            try SMSQueueStore.enqueue(id: id, verificationID: verificationID, sealed: sealed, at: time, on: connection)
        }
    }
}
