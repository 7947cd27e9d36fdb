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
                INSERT INTO verifications (\(unsafeSQL: Self.columns))
                VALUES (\(values: try Self.values(verification)))
                ON CONFLICT (account_id, user_id, workflow_key) WHERE status NOT IN ('canceled', 'expired') DO NOTHING
                RETURNING id
                """)
            if !inserted.isEmpty { return (verification, true) }
            let existing = try database.query("""
                SELECT \(unsafeSQL: Self.columns) FROM verifications
                WHERE account_id = \(verification.accountID.rawValue) AND user_id = \(verification.userID) AND workflow_key = \(verification.workflowKey) AND status NOT IN ('canceled', 'expired')
                """)
            // Empty only if the open one was closed between the two statements: try again.
            if let row = existing.first { return (try Self.verification(from: row), false) }
        }
        throw DatabaseError.serializationFailure
    }

    /// A verification by id alone: for the journey, where the account is not known up front.
    public func verification(id: ObjectID) throws -> Verification? {
        try database.query("SELECT \(unsafeSQL: Self.columns) FROM verifications WHERE id = \(id.rawValue)")
            .first.map(Self.verification(from:))
    }

    public func verification(accountID: ObjectID, id: ObjectID) throws -> Verification? {
        try database.query("""
            SELECT \(unsafeSQL: Self.columns) FROM verifications
            WHERE id = \(id.rawValue) AND account_id = \(accountID.rawValue)
            """).first.map(Self.verification(from:))
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
            guard let cursor = try database.query("""
                SELECT created_at FROM verifications
                WHERE id = \(startingAfter.rawValue) AND account_id = \(accountID.rawValue)
                """).first
            else { throw UnknownCursor() }
            cursorTime = try cursor.int("created_at")
            cursorID = startingAfter.rawValue
        }
        let rows = try database.query("""
            SELECT \(unsafeSQL: Self.columns) FROM verifications
            WHERE account_id = \(accountID.rawValue)
              AND (created_at < \(cursorTime) OR (created_at = \(cursorTime) AND id < \(cursorID)))
              AND (\(filter.userID ?? "") = '' OR user_id = \(filter.userID ?? ""))
              AND (\(filter.workflowKey ?? "") = '' OR workflow_key = \(filter.workflowKey ?? ""))
              AND (\(filter.status?.rawValue ?? "") = '' OR status = \(filter.status?.rawValue ?? ""))
            ORDER BY created_at DESC, id DESC
            LIMIT \(Int64(limit + 1))
            """)
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
                "SELECT \(unsafeSQL: Self.columns) FROM verifications WHERE id = \(id.rawValue) AND account_id = \(accountID.rawValue)\(unsafeSQL: lock)").first
            else { throw DomainError.notFound(what: "verification") }
            var verification = try Self.verification(from: row)
            let before = verification
            try change(&verification, connection)
            guard verification != before else { return verification }
            verification.updatedAt = time
            verification.revision += 1
            try connection.query("""
                UPDATE verifications SET status = \(verification.status.rawValue), mobile = \(verification.mobile), return_url = \(verification.returnURL), metadata = \(try JSONColumn.encode(verification.metadata)), steps = \(try JSONColumn.encode(verification.steps)),
                    updated_at = \(verification.updatedAt), submitted_at = \(verification.submittedAt), decided_at = \(verification.decidedAt), decision = \(verification.decision), revision = \(verification.revision), decision_reason = \(verification.decisionReason)
                WHERE id = \(id.rawValue) AND account_id = \(accountID.rawValue)
                """)
            if verification.closesJourney(from: before) {
                // Closing ends the journey at once: no handoff can be used, no session goes on.
                try connection.query("""
                    UPDATE handoffs SET revoked_at = \(time)
                    WHERE verification_id = \(id.rawValue) AND revoked_at IS NULL
                    """)
                try connection.query("""
                    UPDATE journey_sessions SET revoked_at = \(time)
                    WHERE verification_id = \(id.rawValue) AND revoked_at IS NULL
                    """)
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
