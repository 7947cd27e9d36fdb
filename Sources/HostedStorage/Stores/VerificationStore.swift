import Foundation
import HostedCore

/// Verifications on either store. "One open verification per account, user and workflow" is a
/// partial unique index, so concurrent creates — from any number of processes — yield one row.
public struct VerificationStore: Sendable {
    private let database: any Database
    private let changes: any ChangeFeed

    public init(database: any Database, changes: any ChangeFeed) {
        self.database = database
        self.changes = changes
    }

    static let columns = """
        id, account_id, user_id, workflow_key, workflow_version, status, mobile, return_url, metadata, steps,
        created_at, updated_at, submitted_at, decided_at, decision, revision, decision_reason
        """

    /// Inserts `verification` unless an open one exists for its user and workflow; returns the
    /// stored one and whether it was created by this call.
    public func createOrFetchOpen(_ verification: Verification) throws -> (Verification, created: Bool) {
        for _ in 0..<3 {
            let inserted = try database.query("""
                INSERT INTO verifications (\(Self.columns))
                VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)
                ON CONFLICT (account_id, user_id, workflow_key) WHERE status NOT IN ('canceled', 'expired') DO NOTHING
                RETURNING id
                """, parameters: try Self.values(verification))
            if !inserted.isEmpty { return (verification, true) }
            let existing = try database.query("""
                SELECT \(Self.columns) FROM verifications
                WHERE account_id = $1 AND user_id = $2 AND workflow_key = $3 AND status NOT IN ('canceled', 'expired')
                """, .text(verification.accountID.rawValue), .text(verification.userID), .text(verification.workflowKey))
            // Empty only if the open one was closed between the two statements: try again.
            if let row = existing.first { return (try Self.verification(from: row), false) }
        }
        throw DatabaseError.serializationFailure
    }

    /// A verification by id alone: for the journey, where the account is not known up front.
    public func verification(id: ObjectID) throws -> Verification? {
        try database.query("SELECT \(Self.columns) FROM verifications WHERE id = $1", .text(id.rawValue))
            .first.map(Self.verification(from:))
    }

    public func verification(accountID: ObjectID, id: ObjectID) throws -> Verification? {
        try database.query("SELECT \(Self.columns) FROM verifications WHERE id = $1 AND account_id = $2",
                           .text(id.rawValue), .text(accountID.rawValue)).first.map(Self.verification(from:))
    }

    /// Filters for listing.
    public struct Filter: Sendable {
        public var userID: String?
        public var workflowKey: String?
        public var status: VerificationStatus?

        public init(userID: String? = nil, workflowKey: String? = nil, status: VerificationStatus? = nil) {
            self.userID = userID
            self.workflowKey = workflowKey
            self.status = status
        }
    }

    /// `list`'s `startingAfter` names no verification of the account.
    public struct UnknownCursor: Error, Equatable {}

    /// Newest first; `startingAfter` continues after that verification. Returns one page and
    /// whether more follow; throws `UnknownCursor` when the cursor is not the account's.
    public func list(accountID: ObjectID, filter: Filter, limit: Int, startingAfter: ObjectID?) throws -> ([Verification], hasMore: Bool) {
        var cursorTime: Int64 = Int64.max
        var cursorID = "~"  // sorts after every id
        if let startingAfter {
            guard let cursor = try database.query("SELECT created_at FROM verifications WHERE id = $1 AND account_id = $2",
                                                  .text(startingAfter.rawValue), .text(accountID.rawValue)).first
            else { throw UnknownCursor() }
            cursorTime = try cursor.int("created_at")
            cursorID = startingAfter.rawValue
        }
        let rows = try database.query("""
            SELECT \(Self.columns) FROM verifications
            WHERE account_id = $1
              AND (created_at < $2 OR (created_at = $2 AND id < $3))
              AND ($4 = '' OR user_id = $4)
              AND ($5 = '' OR workflow_key = $5)
              AND ($6 = '' OR status = $6)
            ORDER BY created_at DESC, id DESC
            LIMIT $7
            """, .text(accountID.rawValue), .integer(cursorTime), .text(cursorID), .text(filter.userID ?? ""),
            .text(filter.workflowKey ?? ""), .text(filter.status?.rawValue ?? ""), .integer(Int64(limit + 1)))
        let page = try rows.prefix(limit).map(Self.verification(from:))
        return (page, rows.count > limit)
    }

    /// Changes one verification atomically: `change` sees the current row (locked) and may throw
    /// to refuse; the revision is bumped and waiting long-polls are woken after the commit.
    public func update(accountID: ObjectID, id: ObjectID, at time: Date,
                       _ change: (inout Verification) throws -> Void) throws -> Verification {
        try update(accountID: accountID, id: id, at: time) { verification, _ in try change(&verification) }
    }

    /// As `update`, with the transaction's connection, for writes that must commit together with
    /// the change (an artifact and the step that lists it).
    public func update(accountID: ObjectID, id: ObjectID, at time: Date,
                       _ change: (inout Verification, DatabaseConnection) throws -> Void) throws -> Verification {
        let updated = try database.transaction { connection -> Verification in
            let lock = database.dialect == .postgres ? " FOR UPDATE" : ""
            guard let row = try connection.query(
                "SELECT \(Self.columns) FROM verifications WHERE id = $1 AND account_id = $2\(lock)",
                .text(id.rawValue), .text(accountID.rawValue)).first
            else { throw DomainError.notFound(what: "verification") }
            var verification = try Self.verification(from: row)
            let before = verification
            try change(&verification, connection)
            guard verification != before else { return verification }
            verification.updatedAt = time
            verification.revision += 1
            try connection.query("""
                UPDATE verifications SET status = $3, mobile = $4, return_url = $5, metadata = $6, steps = $7,
                    updated_at = $8, submitted_at = $9, decided_at = $10, decision = $11, revision = $12, decision_reason = $13
                WHERE id = $1 AND account_id = $2
                """, .text(id.rawValue), .text(accountID.rawValue), .text(verification.status.rawValue),
                .text(verification.mobile), .optionalText(verification.returnURL),
                .text(try JSONColumn.encode(verification.metadata)), .text(try JSONColumn.encode(verification.steps)),
                .date(verification.updatedAt), .date(verification.submittedAt), .date(verification.decidedAt),
                .optionalText(verification.decision), .integer(verification.revision),
                .optionalText(verification.decisionReason))
            if verification.closesJourney(from: before) {
                // Closing ends the journey at once: no handoff can be used, no session goes on.
                try connection.query("UPDATE handoffs SET revoked_at = $2 WHERE verification_id = $1 AND revoked_at IS NULL",
                                     .text(id.rawValue), .date(time))
                try connection.query("UPDATE journey_sessions SET revoked_at = $2 WHERE verification_id = $1 AND revoked_at IS NULL",
                                     .text(id.rawValue), .date(time))
            }
            return verification
        }
        changes.publish(id.rawValue)
        return updated
    }

    static func values(_ v: Verification) throws -> [SQLValue] {
        [.text(v.id.rawValue), .text(v.accountID.rawValue), .text(v.userID), .text(v.workflowKey),
         .integer(Int64(v.workflowVersion)), .text(v.status.rawValue), .text(v.mobile), .optionalText(v.returnURL),
         .text(try JSONColumn.encode(v.metadata)), .text(try JSONColumn.encode(v.steps)), .date(v.createdAt),
         .date(v.updatedAt), .date(v.submittedAt), .date(v.decidedAt), .optionalText(v.decision), .integer(v.revision),
         .optionalText(v.decisionReason)]
    }

    static func verification(from row: Row) throws -> Verification {
        guard let id = ObjectID(.verification, parsing: try row.string("id")),
              let accountID = ObjectID(.account, parsing: try row.string("account_id"))
        else { throw DatabaseError.decoding(column: "id") }
        guard let status = VerificationStatus(rawValue: try row.string("status")) else {
            throw DatabaseError.decoding(column: "status")
        }
        return Verification(
            id: id, accountID: accountID, userID: try row.string("user_id"), workflowKey: try row.string("workflow_key"),
            workflowVersion: Int(try row.int("workflow_version")), status: status, mobile: try row.string("mobile"),
            returnURL: try row.optionalString("return_url"),
            metadata: try JSONColumn.decode([String: String].self, from: try row.string("metadata"), column: "metadata"),
            steps: try JSONColumn.decode([StepState].self, from: try row.string("steps"), column: "steps"),
            createdAt: try row.date("created_at"), updatedAt: try row.date("updated_at"),
            submittedAt: try row.optionalDate("submitted_at"), decidedAt: try row.optionalDate("decided_at"),
            decisionReason: try row.optionalString("decision_reason"),
            revision: try row.int("revision"))
    }
}
