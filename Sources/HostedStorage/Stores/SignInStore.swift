import Foundation
import HostedCore

/// Handoffs, journey sessions and SMS codes. Every single-use or counted rule is one atomic
/// statement, so it holds under any number of concurrent requests and processes.
public struct SignInStore: Sendable {
    private let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    // MARK: Handoffs

    /// Inserts on `connection`: in the transaction that records the handoff's event.
    /// With `continuationID`, the handoff opens that continuation instead of signing in (the
    /// customer's app joining the computer's continuation). `nonce` goes to the session it
    /// opens, for the signed result to echo (migration 0024).
    public func insertHandoff(_ handoff: Handoff, secretHash: String, continuationID: String? = nil, nonce: String? = nil,
                              on connection: DatabaseConnection) throws {
        try connection.query("""
            INSERT INTO handoffs (id, verification_id, account_id, secret_hash, return_url, created_at, expires_at, continuation_id, nonce)
            VALUES (\(handoff.id.rawValue), \(handoff.verificationID.rawValue), \(handoff.accountID.rawValue), \(secretHash), \(handoff.returnURL), \(handoff.createdAt), \(handoff.expiresAt), \(continuationID), \(nonce))
            """)
    }

    /// Gives an unused, unrevoked, unexpired handoff a new secret hash (the old secret stops
    /// working in the same statement); nil when there is no such handoff.
    public func replaceHandoffSecret(id: ObjectID, accountID: ObjectID, secretHash: String, at time: Date) throws -> Handoff? {
        let rows = try database.query("""
            UPDATE handoffs SET secret_hash = \(secretHash)
            WHERE id = \(id.rawValue) AND account_id = \(accountID.rawValue) AND used_at IS NULL AND revoked_at IS NULL AND expires_at > \(time)
            RETURNING id, verification_id, account_id, return_url, created_at, expires_at
            """)
        guard let row = rows.first,
              let verificationID = ObjectID(.verification, parsing: try row.string("verification_id"))
        else { return nil }
        return Handoff(id: id, verificationID: verificationID, accountID: accountID, returnURL: try row.optionalString("return_url"),
                       createdAt: try row.date("created_at"), expiresAt: try row.date("expires_at"))
    }

    /// Consumes the handoff with this secret hash for this verification, if it is unused,
    /// unrevoked and unexpired: exactly one concurrent caller gets its return URL back (as
    /// `.some`), everyone else nil.
    public func consumeHandoff(secretHash: String, verificationID: ObjectID, at time: Date,
                               on connection: DatabaseConnection? = nil) throws -> String?? {
        try claimHandoff(secretHash: secretHash, verificationID: verificationID, at: time, on: connection).map(\.returnURL)
    }

    /// What a consumed handoff carries to the session it opens.
    public struct ClaimedHandoff: Equatable, Sendable {
        public let returnURL: String?
        public let nonce: String?

        public init(returnURL: String?, nonce: String?) {
            self.returnURL = returnURL
            self.nonce = nonce
        }
    }

    /// `consumeHandoff` with the handoff's `nonce` as well.
    public func claimHandoff(secretHash: String, verificationID: ObjectID, at time: Date,
                             on connection: DatabaseConnection? = nil) throws -> ClaimedHandoff? {
        let statement: SQL = """
            UPDATE handoffs SET used_at = \(time)
            WHERE secret_hash = \(secretHash) AND verification_id = \(verificationID.rawValue) AND used_at IS NULL AND revoked_at IS NULL AND expires_at > \(time)
              AND continuation_id IS NULL
            RETURNING return_url, nonce
            """
        let rows = try connection.map { try $0.query(statement) } ?? database.query(statement)
        guard let row = rows.first else { return nil }
        return ClaimedHandoff(returnURL: try row.optionalString("return_url"), nonce: try row.optionalString("nonce"))
    }

    // MARK: Sessions

    public func insertSession(tokenHash: String, verificationID: ObjectID, returnURL: String?, at time: Date, expiresAt: Date,
                              method: SignInMethod? = nil, nonce: String? = nil, on connection: DatabaseConnection? = nil) throws {
        let statement: SQL = """
            INSERT INTO journey_sessions (token_hash, verification_id, return_url, created_at, expires_at, method, nonce)
            VALUES (\(tokenHash), \(verificationID.rawValue), \(returnURL), \(time), \(expiresAt), \(method?.rawValue), \(nonce))
            """
        _ = try connection.map { try $0.query(statement) } ?? database.query(statement)
    }

    /// A live session: its verification, the visit's return URL, whether it is a second
    /// device's (it began by continuation), and the nonce of the handoff it began with.
    public struct Session: Equatable, Sendable {
        public let verificationID: ObjectID
        public let returnURL: String?
        public var continued: Bool = false
        public var nonce: String? = nil
    }

    public func session(tokenHash: String, verificationID: ObjectID, at time: Date) throws -> Session? {
        let rows = try database.query("""
            SELECT return_url, method, nonce FROM journey_sessions
            WHERE token_hash = \(tokenHash) AND verification_id = \(verificationID.rawValue) AND revoked_at IS NULL AND expires_at > \(time)
            """)
        guard let row = rows.first else { return nil }
        return Session(verificationID: verificationID, returnURL: try row.optionalString("return_url"),
                       continued: try row.optionalString("method") == SignInMethod.continuation.rawValue,
                       nonce: try row.optionalString("nonce"))
    }

    public func endSession(tokenHash: String, at time: Date) throws {
        try database.query("UPDATE journey_sessions SET revoked_at = \(time) WHERE token_hash = \(tokenHash) AND revoked_at IS NULL")
    }

    // MARK: SMS codes

    /// Stores a new code for the verification, replacing any earlier one.
    /// Replaces the verification's code and queues its message in one transaction: a code is
    /// live only if its message will be sent, and a message is queued only for the live code.
    /// A test verification's code (always `000000`) has no message: nothing is sent.
    public func replaceCode(verificationID: ObjectID, codeHMAC: String, at time: Date, expiresAt: Date,
                            message: (id: ObjectID, sealed: [UInt8])?) throws {
        try database.transaction { connection in
            try connection.query("""
                INSERT INTO otp_codes (verification_id, code_hmac, created_at, expires_at, attempts)
                VALUES (\(verificationID.rawValue), \(codeHMAC), \(time), \(expiresAt), 0)
                ON CONFLICT (verification_id) DO UPDATE SET code_hmac = \(codeHMAC), created_at = \(time), expires_at = \(expiresAt), attempts = 0, used_at = NULL
                """)
            guard let message else { return }
            try SMSQueueStore.enqueue(id: message.id, verificationID: verificationID, sealed: message.sealed, at: time, on: connection)
        }
    }

    /// The outcome of presenting a code.
    public enum CodeCheck: Equatable, Sendable {
        case accepted
        case rejected
    }

    /// Counts one try atomically — a burst of parallel guesses cannot get past the cap — then
    /// accepts only the right, unexpired, unused code within the allowed tries, marking it used
    /// in the same statement so it works once.
    public func checkCode(verificationID: ObjectID, codeHMAC: String, maximumAttempts: Int, at time: Date) throws -> CodeCheck {
        let counted = try database.query("""
            UPDATE otp_codes SET attempts = attempts + 1
            WHERE verification_id = \(verificationID.rawValue) AND attempts < \(Int64(maximumAttempts)) AND used_at IS NULL AND expires_at > \(time)
            RETURNING attempts
            """)
        guard !counted.isEmpty else { return .rejected }
        let used = try database.query("""
            UPDATE otp_codes SET used_at = \(time)
            WHERE verification_id = \(verificationID.rawValue) AND code_hmac = \(codeHMAC) AND used_at IS NULL AND attempts <= \(Int64(maximumAttempts))
            RETURNING verification_id
            """)
        return used.isEmpty ? .rejected : .accepted
    }

    // MARK: Outbox (dev mode)

    /// `verificationID` names the verification the message is about, so its redaction erases the
    /// message whatever number it went to (migration 0015).
    public func addToOutbox(id: ObjectID, to number: String, body: String, at time: Date, verificationID: String? = nil) throws {
        try database.query("""
            INSERT INTO sms_outbox (id, to_number, body, created_at, verification_id)
            VALUES (\(id.rawValue), \(number), \(body), \(time), \(verificationID))
            """)
    }

    /// A message in the dev outbox.
    public struct OutboxMessage: Equatable, Sendable {
        public let to: String
        public let body: String
        public let createdAt: Date
    }

    /// Newest first, optionally for one number.
    public func outbox(to number: String?, limit: Int = 50) throws -> [OutboxMessage] {
        try database.query("""
            SELECT to_number, body, created_at FROM sms_outbox WHERE (\(number ?? "") = '' OR to_number = \(number ?? ""))
            ORDER BY created_at DESC, id DESC LIMIT \(Int64(limit))
            """).map { row in
            OutboxMessage(to: try row.string("to_number"), body: try row.string("body"), createdAt: try row.date("created_at"))
        }
    }
}
