import Foundation
import HostedCore

/// Console operators, their setup links, sign-in counters and sessions. Each rule that must hold
/// under parallel requests (a setup link used once, at most five password checks before a lock,
/// a TOTP code accepted once, a disabled operator's sessions ending) is one atomic statement.
public struct OperatorStore: Sendable {
    private let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    static let columns = "id, account_id, email, role, status, created_at, last_sign_in_at"

    // MARK: Operators

    /// Inserts an invited operator with a setup link; `DomainError` `operator_exists` when the
    /// email is taken.
    public func create(_ op: Operator, setupHash: String, setupExpiresAt: Date, eventID: ObjectID) throws {
        do {
            try database.transaction { connection in
                try connection.query("""
                    INSERT INTO operators (id, account_id, email, role, status, setup_hash, setup_expires_at, created_at)
                    VALUES (\(op.id.rawValue), \(op.accountID.rawValue), \(op.email), \(op.role.rawValue), \(op.status.rawValue),
                            \(setupHash), \(setupExpiresAt), \(op.createdAt))
                    """)
                try Self.record(.created, operatorID: op.id, accountID: op.accountID, actorID: nil, at: op.createdAt, id: eventID,
                                on: connection)
            }
        } catch DatabaseError.uniqueViolation {
            throw DomainError.conflict(detail: "An operator with this email already exists.", code: .operatorExists)
        }
    }

    public func list(accountID: ObjectID) throws -> [Operator] {
        try database.query("""
            SELECT \(unsafeSQL: Self.columns) FROM operators WHERE account_id = \(accountID.rawValue) ORDER BY created_at, id
            """).map(Self.operator(from:))
    }

    public func find(id: ObjectID) throws -> Operator? {
        try database.query("SELECT \(unsafeSQL: Self.columns) FROM operators WHERE id = \(id.rawValue)").first.map(Self.operator(from:))
    }

    /// Disables the operator (of `accountID` when given) and ends every session it has, in one
    /// transaction; nil when there is no such operator. Disabling a disabled one changes nothing.
    public func disable(id: ObjectID, accountID: ObjectID?, by actorID: ObjectID?, eventID: ObjectID, at time: Date) throws -> Operator? {
        try database.transaction { connection in
            let rows = try connection.query("""
                UPDATE operators SET status = 'disabled', disabled_at = \(time), setup_hash = NULL
                WHERE id = \(id.rawValue) AND (\(accountID?.rawValue ?? "") = '' OR account_id = \(accountID?.rawValue ?? ""))
                  AND status <> 'disabled'
                RETURNING \(unsafeSQL: Self.columns)
                """)
            guard let row = rows.first else {
                return try connection.query("""
                    SELECT \(unsafeSQL: Self.columns) FROM operators
                    WHERE id = \(id.rawValue) AND (\(accountID?.rawValue ?? "") = '' OR account_id = \(accountID?.rawValue ?? ""))
                    """).first.map(Self.operator(from:))
            }
            let disabled = try Self.operator(from: row)
            try connection.query("UPDATE console_sessions SET revoked_at = \(time) WHERE operator_id = \(id.rawValue) AND revoked_at IS NULL")
            try Self.record(.disabled, operatorID: id, accountID: disabled.accountID, actorID: actorID, at: time, id: eventID, on: connection)
            return disabled
        }
    }

    /// Gives an operator who is not disabled a new setup link (the old one stops working), back
    /// to `invited`: for a lost authenticator or a forgotten password. Ends its sessions.
    public func reissueSetup(id: ObjectID, setupHash: String, setupExpiresAt: Date, eventID: ObjectID, at time: Date) throws -> Operator? {
        try database.transaction { connection in
            guard let row = try connection.query("""
                UPDATE operators SET status = 'invited', setup_hash = \(setupHash), setup_expires_at = \(setupExpiresAt),
                    password_hash = NULL, totp_sealed = NULL, totp_pending = NULL, totp_last_step = NULL, failed_attempts = 0, locked_until = NULL
                WHERE id = \(id.rawValue) AND status <> 'disabled'
                RETURNING \(unsafeSQL: Self.columns)
                """).first
            else { return nil }
            let op = try Self.operator(from: row)
            try connection.query("UPDATE console_sessions SET revoked_at = \(time) WHERE operator_id = \(id.rawValue) AND revoked_at IS NULL")
            try Self.record(.setupIssued, operatorID: id, accountID: op.accountID, actorID: nil, at: time, id: eventID, on: connection)
            return op
        }
    }

    // MARK: Setup

    /// An invited operator whose setup link this is, still valid, with the sealed TOTP seed the
    /// setup page has shown (nil before it has been shown).
    public func setupTarget(setupHash: String, at time: Date) throws -> (Operator, pendingTOTP: String?)? {
        guard let row = try database.query("""
            SELECT \(unsafeSQL: Self.columns), totp_pending FROM operators
            WHERE setup_hash = \(setupHash) AND setup_expires_at > \(time) AND status = 'invited'
            """).first
        else { return nil }
        return (try Self.operator(from: row), try row.optionalString("totp_pending"))
    }

    /// Keeps the seed the setup page shows, unless one is kept already (two tabs of the same
    /// link show the same seed): returns the seed that is kept.
    public func keepPendingTOTP(setupHash: String, sealed: String, at time: Date) throws -> String? {
        try database.query("""
            UPDATE operators SET totp_pending = \(sealed)
            WHERE setup_hash = \(setupHash) AND setup_expires_at > \(time) AND status = 'invited' AND totp_pending IS NULL
            """)
        return try setupTarget(setupHash: setupHash, at: time)?.pendingTOTP
    }

    /// Uses the setup link: exactly one of any number of concurrent callers sets the password,
    /// makes the shown seed the operator's, records the code's step as used, and gets the
    /// operator back; the link never works again.
    public func completeSetup(setupHash: String, passwordHash: String, totpStep: Int64, eventID: ObjectID, at time: Date) throws -> Operator? {
        try database.transaction { connection in
            guard let row = try connection.query("""
                UPDATE operators SET status = 'active', password_hash = \(passwordHash), totp_sealed = totp_pending, totp_pending = NULL,
                    totp_last_step = \(totpStep), setup_hash = NULL, setup_expires_at = NULL, failed_attempts = 0, locked_until = NULL
                WHERE setup_hash = \(setupHash) AND setup_expires_at > \(time) AND status = 'invited' AND totp_pending IS NOT NULL
                RETURNING \(unsafeSQL: Self.columns)
                """).first
            else { return nil }
            let op = try Self.operator(from: row)
            try Self.record(.setupCompleted, operatorID: op.id, accountID: op.accountID, actorID: nil, at: time, id: eventID, on: connection)
            return op
        }
    }

    // MARK: Sign-in

    /// What a sign-in attempt may check: the operator's stored hash and sealed seed, and which
    /// attempt in a row this is.
    public struct Credentials: Sendable {
        public let `operator`: Operator
        public let passwordHash: String
        public let totpSealed: String
        public let lastStep: Int64?
        /// 1 for the first attempt since the last success or lock; above the maximum, the
        /// attempt must be refused unchecked.
        public let attempt: Int
    }

    /// Counts one attempt for an active, unlocked operator in one statement (a lock that has run
    /// out starts the count again), so parallel attempts get distinct numbers and no more than
    /// the maximum are ever checked. Nil for an unknown, invited, disabled or locked operator.
    public func beginSignIn(email: String, at time: Date) throws -> Credentials? {
        guard let row = try database.query("""
            UPDATE operators SET
                failed_attempts = CASE WHEN locked_until IS NOT NULL AND locked_until <= \(time) THEN 1 ELSE failed_attempts + 1 END,
                locked_until = CASE WHEN locked_until IS NOT NULL AND locked_until <= \(time) THEN NULL ELSE locked_until END
            WHERE email = \(email) AND status = 'active' AND (locked_until IS NULL OR locked_until <= \(time))
            RETURNING \(unsafeSQL: Self.columns), password_hash, totp_sealed, totp_last_step, failed_attempts
            """).first,
            let passwordHash = try row.optionalString("password_hash"),
            let totpSealed = try row.optionalString("totp_sealed")
        else { return nil }
        return Credentials(operator: try Self.operator(from: row), passwordHash: passwordHash, totpSealed: totpSealed,
                           lastStep: try row.optionalInt("totp_last_step"), attempt: Int(try row.int("failed_attempts")))
    }

    /// A checked attempt failed: the one that reaches the maximum locks the operator.
    public func signInFailed(_ credentials: Credentials, maximum: Int, lockedUntil: Date, eventID: ObjectID, at time: Date) throws {
        let op = credentials.operator
        try database.transaction { connection in
            try Self.record(.signInFailed, operatorID: op.id, accountID: op.accountID, actorID: nil, at: time, id: eventID, on: connection)
            guard credentials.attempt >= maximum else { return }
            try connection.query("""
                UPDATE operators SET locked_until = \(lockedUntil) WHERE id = \(op.id.rawValue) AND failed_attempts >= \(Int64(maximum))
                """)
        }
    }

    /// A checked attempt was right: the code's step is used (only if later than the last one
    /// used, atomically, so a code works once) and the count starts again. False when the step
    /// was used already or the operator stopped being active meanwhile.
    public func signInSucceeded(_ credentials: Credentials, step: Int64, eventID: ObjectID, at time: Date) throws -> Bool {
        let op = credentials.operator
        return try database.transaction { connection in
            guard !(try connection.query("""
                UPDATE operators SET failed_attempts = 0, locked_until = NULL, totp_last_step = \(step), last_sign_in_at = \(time)
                WHERE id = \(op.id.rawValue) AND status = 'active' AND (totp_last_step IS NULL OR totp_last_step < \(step))
                RETURNING id
                """)).isEmpty
            else { return false }
            try Self.record(.signedIn, operatorID: op.id, accountID: op.accountID, actorID: op.id, at: time, id: eventID, on: connection)
            return true
        }
    }

    // MARK: Sessions

    public func insertSession(tokenHash: String, operatorID: ObjectID, at time: Date) throws {
        try database.query("""
            INSERT INTO console_sessions (token_hash, operator_id, created_at, last_seen_at)
            VALUES (\(tokenHash), \(operatorID.rawValue), \(time), \(time))
            """)
    }

    /// The live session's operator, its idle clock restarted; nil once idle past
    /// `idleSince`, begun before `begunSince`, ended, or its operator is not active.
    public func session(tokenHash: String, idleSince: Date, begunSince: Date, at time: Date) throws -> Operator? {
        guard let row = try database.query("""
            UPDATE console_sessions SET last_seen_at = \(time)
            WHERE token_hash = \(tokenHash) AND revoked_at IS NULL AND last_seen_at > \(idleSince) AND created_at > \(begunSince)
              AND operator_id IN (SELECT id FROM operators WHERE status = 'active')
            RETURNING operator_id
            """).first,
            let id = ObjectID(.operator, parsing: try row.string("operator_id")),
            let op = try find(id: id), op.status == .active
        else { return nil }
        return op
    }

    public func endSession(tokenHash: String, at time: Date) throws {
        try database.query("UPDATE console_sessions SET revoked_at = \(time) WHERE token_hash = \(tokenHash) AND revoked_at IS NULL")
    }

    // MARK: Audit trail

    /// What is recorded about operators themselves.
    public enum EventType: String, Sendable {
        case created = "operator.created"
        case setupIssued = "operator.setup_issued"
        case setupCompleted = "operator.setup_completed"
        case signedIn = "operator.signed_in"
        case signInFailed = "operator.sign_in_failed"
        case signedOut = "operator.signed_out"
        case disabled = "operator.disabled"
    }

    /// One entry of an account's operator audit trail.
    public struct OperatorEvent: Equatable, Sendable {
        public let id: String
        public let operatorID: String?
        public let type: String
        public let actorID: String?
        public let createdAt: Date
    }

    public func record(_ type: EventType, operatorID: ObjectID, accountID: ObjectID, actorID: ObjectID?, id: ObjectID, at time: Date) throws {
        try database.withConnection { connection in
            try Self.record(type, operatorID: operatorID, accountID: accountID, actorID: actorID, at: time, id: id, on: connection)
        }
    }

    static func record(_ type: EventType, operatorID: ObjectID, accountID: ObjectID, actorID: ObjectID?, at time: Date, id: ObjectID,
                       on connection: DatabaseConnection) throws {
        try connection.query("""
            INSERT INTO operator_events (id, account_id, operator_id, type, actor_id, created_at)
            VALUES (\(id.rawValue), \(accountID.rawValue), \(operatorID.rawValue), \(type.rawValue), \(actorID?.rawValue), \(time))
            """)
    }

    /// The account's operator events, newest first.
    public func events(accountID: ObjectID, limit: Int = 100) throws -> [OperatorEvent] {
        try database.query("""
            SELECT id, operator_id, type, actor_id, created_at FROM operator_events
            WHERE account_id = \(accountID.rawValue) ORDER BY created_at DESC, id DESC LIMIT \(Int64(limit))
            """).map { row in
            OperatorEvent(id: try row.string("id"), operatorID: try row.optionalString("operator_id"), type: try row.string("type"),
                          actorID: try row.optionalString("actor_id"), createdAt: try row.date("created_at"))
        }
    }

    static func `operator`(from row: Row) throws -> Operator {
        guard let id = ObjectID(.operator, parsing: try row.string("id")),
              let accountID = ObjectID(.account, parsing: try row.string("account_id")),
              let role = OperatorRole(rawValue: try row.string("role")),
              let status = OperatorStatus(rawValue: try row.string("status"))
        else { throw DatabaseError.decoding(column: "operators") }
        return Operator(id: id, accountID: accountID, email: try row.string("email"), role: role, status: status,
                        createdAt: try row.date("created_at"), lastSignInAt: try row.optionalDate("last_sign_in_at"))
    }
}
