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
        /// When it was matched, failed, revoked or reported.
        public let finishedAt: Date?
    }

    /// A continuation one device has just opened: the number it must match, and where and when
    /// it was asked for (the phone says so).
    public struct Opened: Equatable, Sendable {
        public let id: String
        public let number: String
        public let origin: UserAgentSummary
        public let createdAt: Date
    }

    /// Replaces the verification's open continuation (pending or opened) with a new one, on the
    /// transaction that records its event.
    public func replace(id: ObjectID, verificationID: ObjectID, secretHash: String, number: String, origin: UserAgentSummary = .init(userAgent: nil),
                        at time: Date, expiresAt: Date, on connection: DatabaseConnection) throws {
        try revokeOpen(verificationID: verificationID, at: time, on: connection)
        try connection.query("""
            INSERT INTO continuations (id, verification_id, secret_hash, number, status, created_at, expires_at, origin_browser, origin_os)
            VALUES (\(id.rawValue), \(verificationID.rawValue), \(secretHash), \(number), \(ContinuationStatus.pending.rawValue), \(time), \(expiresAt), \(origin.browser), \(origin.os))
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
    public func open(secretHash: String, verificationID: ObjectID, claimHash: String, at time: Date) throws -> Opened? {
        try Self.opened(try database.query("""
            UPDATE continuations SET status = \(ContinuationStatus.opened.rawValue), claim_hash = \(claimHash), opened_at = \(time)
            WHERE secret_hash = \(secretHash) AND verification_id = \(verificationID.rawValue) AND status = \(ContinuationStatus.pending.rawValue) AND expires_at > \(time)
            RETURNING \(unsafeSQL: Self.openedColumns)
            """).first)
    }

    /// Burns a handoff minted for the customer's app and opens the continuation it names for the
    /// device holding it, in one transaction: of any number of uses of such handoffs (and of the
    /// continuation's own link) exactly one device opens it. Nil when the handoff or the
    /// continuation is not usable.
    public func openByHandoff(secretHash: String, verificationID: ObjectID, claimHash: String, at time: Date) throws -> Opened? {
        try database.transaction { connection in
            guard let handoff = try connection.query("""
                UPDATE handoffs SET used_at = \(time)
                WHERE secret_hash = \(secretHash) AND verification_id = \(verificationID.rawValue) AND used_at IS NULL AND revoked_at IS NULL
                  AND expires_at > \(time) AND continuation_id IS NOT NULL
                RETURNING continuation_id
                """).first
            else { return nil }
            return try Self.opened(try connection.query("""
                UPDATE continuations SET status = \(ContinuationStatus.opened.rawValue), claim_hash = \(claimHash), opened_at = \(time)
                WHERE id = \(try handoff.string("continuation_id")) AND verification_id = \(verificationID.rawValue)
                  AND status = \(ContinuationStatus.pending.rawValue) AND expires_at > \(time)
                RETURNING \(unsafeSQL: Self.openedColumns)
                """).first)
        }
    }

    static let openedColumns = "id, number, origin_browser, origin_os, created_at"

    static func opened(_ row: Row?) throws -> Opened? {
        guard let row else { return nil }
        return Opened(id: try row.string("id"), number: try row.string("number"),
                      origin: UserAgentSummary(browser: try row.optionalString("origin_browser"), os: try row.optionalString("origin_os")),
                      createdAt: try row.date("created_at"))
    }

    /// The one pick of the device holding the claim: `matched` when it is the number, `failed`
    /// (burned) otherwise; nil when there is no opened, unexpired continuation for that claim.
    /// On the transaction that records the outcome's event.
    /// The number is compared in Swift in constant time (a typed guess must learn nothing from
    /// how long a wrong one takes), then the row moves only if it is still opened: one outcome.
    public func pick(claimHash: String, verificationID: ObjectID, number: String, at time: Date,
                     on connection: DatabaseConnection) throws -> Bool? {
        guard let row = try connection.query("""
            SELECT id, number FROM continuations
            WHERE claim_hash = \(claimHash) AND verification_id = \(verificationID.rawValue) AND status = \(ContinuationStatus.opened.rawValue) AND expires_at > \(time)
            """).first
        else { return nil }
        let matched = ConstantTime.equals(try row.string("number"), number)
        let outcome = matched ? ContinuationStatus.matched : ContinuationStatus.failed
        let moved = try connection.query("""
            UPDATE continuations SET status = \(outcome.rawValue), finished_at = \(time)
            WHERE id = \(try row.string("id")) AND status = \(ContinuationStatus.opened.rawValue)
            RETURNING id
            """)
        return moved.isEmpty ? nil : matched
    }

    /// "This wasn't me" from the device holding the claim: an opened, unexpired continuation
    /// becomes `reported` (burnt); false when there is none (matched already, or used up).
    public func report(claimHash: String, verificationID: ObjectID, at time: Date, on connection: DatabaseConnection) throws -> Bool {
        !(try connection.query("""
            UPDATE continuations SET status = \(ContinuationStatus.reported.rawValue), finished_at = \(time)
            WHERE claim_hash = \(claimHash) AND verification_id = \(verificationID.rawValue) AND status = \(ContinuationStatus.opened.rawValue) AND expires_at > \(time)
            RETURNING id
            """)).isEmpty
    }

    /// The verification's pending, unexpired continuation (the one the customer's app may join), or nil.
    public func livePending(verificationID: ObjectID, at time: Date, on connection: DatabaseConnection? = nil) throws -> String? {
        let statement: SQL = """
            SELECT id FROM continuations
            WHERE verification_id = \(verificationID.rawValue) AND status = \(ContinuationStatus.pending.rawValue) AND expires_at > \(time)
            ORDER BY created_at DESC, id DESC LIMIT 1
            """
        return try (connection.map { try $0.query(statement) } ?? database.query(statement)).first?.string("id")
    }

    /// Marks the live continuation as asked for in the customer's app, once: its id when this
    /// call marked it (the caller records the event), nil when there is no live one or it was
    /// asked for already.
    public func requestApp(verificationID: ObjectID, at time: Date, on connection: DatabaseConnection) throws -> String? {
        try connection.query("""
            UPDATE continuations SET app_requested_at = \(time)
            WHERE verification_id = \(verificationID.rawValue) AND status = \(ContinuationStatus.pending.rawValue) AND expires_at > \(time)
              AND app_requested_at IS NULL
            RETURNING id
            """).first?.string("id")
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
            SELECT id, status, expires_at, finished_at FROM continuations WHERE verification_id = \(verificationID.rawValue)
            ORDER BY created_at DESC, id DESC LIMIT 1
            """).first
        else { return nil }
        return Current(id: try row.string("id"), status: try row.string("status"), expiresAt: try row.date("expires_at"),
                       finishedAt: try row.optionalDate("finished_at"))
    }

    /// Queues a sealed text message (the link, to the verification's own number).
    public func queueMessage(id: ObjectID, verificationID: ObjectID, sealed: [UInt8], at time: Date) throws {
        try database.transaction { connection in
            try SMSQueueStore.enqueue(id: id, verificationID: verificationID, sealed: sealed, at: time, on: connection)
        }
    }
}
