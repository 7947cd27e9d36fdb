import Foundation
import HostedCore

/// `Idempotency-Key` records, per account: the first request claims the key; its response is
/// stored for replay; the key is freed if that request fails validation or errors.
public struct IdempotencyStore: Sendable {
    private let database: any Database
    /// An answer that shows a verification is stored sealed with that verification's data key.
    private let sealing: PersonalSealing
    /// How long a key is remembered: 24 hours.
    public static let retention: TimeInterval = 24 * 3600
    /// A claim whose request never finished (a crashed process) is given up after this long.
    public static let abandonedAfter: TimeInterval = 60

    public init(database: any Database, sealing: PersonalSealing) {
        self.database = database
        self.sealing = sealing
    }

    /// What a claim found.
    public enum Claim: Equatable, Sendable {
        /// This request owns the key and must `complete` or `release` it.
        case claimed
        /// The same request was already answered: replay this.
        case replay(status: Int, contentType: String, body: [UInt8])
        /// The first request with this key is still running.
        case inFlight
        /// The key was used with a different request.
        case mismatch
    }

    public func claim(accountID: ObjectID, key: String, requestHash: String, at time: Date) throws -> Claim {
        try database.transaction { connection in
            let now = time.unixMilliseconds
            try connection.query("""
                DELETE FROM idempotency_keys WHERE account_id = \(accountID.rawValue) AND key = \(key)
                  AND (created_at < \(now - Int64(Self.retention * 1000)) OR (status IS NULL AND created_at < \(now - Int64(Self.abandonedAfter * 1000))))
                """)
            let inserted = try connection.query("""
                INSERT INTO idempotency_keys (account_id, key, request_hash, created_at)
                VALUES (\(accountID.rawValue), \(key), \(requestHash), \(now))
                ON CONFLICT (account_id, key) DO NOTHING RETURNING key
                """)
            if !inserted.isEmpty { return .claimed }
            guard let row = try connection.query("""
                SELECT request_hash, status, content_type, body, sealed_for FROM idempotency_keys
                WHERE account_id = \(accountID.rawValue) AND key = \(key)
                """).first
            else { throw DatabaseError.serializationFailure }
            guard try row.string("request_hash") == requestHash else { return .mismatch }
            guard let status = try row.optionalInt("status") else { return .inFlight }
            var body = try row.blob("body")
            if let owner = try row.optionalString("sealed_for").flatMap({ ObjectID(.verification, parsing: $0) }) {
                // Its verification's key is gone (redacted meanwhile): nothing left to replay.
                guard let dataKey = try sealing.keys.existingKey(for: owner, on: connection),
                      let opened = dataKey.open(body, context: Self.context(accountID, key))
                else {
                    try connection.query("DELETE FROM idempotency_keys WHERE account_id = \(accountID.rawValue) AND key = \(key)")
                    try connection.query("""
                        INSERT INTO idempotency_keys (account_id, key, request_hash, created_at)
                        VALUES (\(accountID.rawValue), \(key), \(requestHash), \(now))
                        """)
                    return .claimed
                }
                body = opened
            }
            return .replay(status: Int(status), contentType: try row.optionalString("content_type") ?? "application/json", body: body)
        }
    }

    /// Stores the answer for replay. An answer that shows a verification redacted since it was
    /// read (the request claimed its key before the redaction and finished after it) is not
    /// stored: the key is freed instead, as the redaction frees the keys of the answers stored
    /// before it, so no replay shows personal data the redaction erased.
    ///
    /// The check and the write are one transaction that holds the shown verifications' rows
    /// (`FOR SHARE` on PostgreSQL; SQLite's one writer): a redaction in progress is waited for
    /// and then seen, and one that starts later finds the stored answer and deletes it.
    /// An answer that shows verifications is sealed with the first one's data key (by id), and
    /// `shows` names them all, so their redaction finds it without reading it.
    public func complete(accountID: ObjectID, key: String, status: Int, contentType: String, body: [UInt8]) throws {
        let store: SQL = """
            UPDATE idempotency_keys SET status = \(Int64(status)), content_type = \(contentType), body = \(body)
            WHERE account_id = \(accountID.rawValue) AND key = \(key)
            """
        let shown = Self.verificationIDs(in: body).sorted { $0.rawValue < $1.rawValue }
        guard !shown.isEmpty else {
            try database.query(store)
            return
        }
        let lock = database.dialect == .postgres ? " FOR SHARE" : ""
        try database.transaction { connection in
            var owner: ObjectID?
            for id in shown {
                let row = try connection.query("""
                    SELECT redacted_at FROM verifications
                    WHERE id = \(id.rawValue) AND account_id = \(accountID.rawValue)\(unsafeSQL: lock)
                    """).first
                if let row, row["redacted_at"] != .null {
                    try connection.query("DELETE FROM idempotency_keys WHERE account_id = \(accountID.rawValue) AND key = \(key)")
                    return
                }
                if row != nil, owner == nil { owner = id }
            }
            // Shows no verification of the account: nothing of a person to seal.
            guard let owner else {
                try connection.query(store)
                return
            }
            guard let dataKey = try sealing.keys.dataKey(for: owner, on: connection) else {
                try connection.query("DELETE FROM idempotency_keys WHERE account_id = \(accountID.rawValue) AND key = \(key)")
                return
            }
            let sealed = try sealing.seal(body, context: Self.context(accountID, key), with: dataKey)
            let shows = " " + shown.map(\.rawValue).joined(separator: " ") + " "
            try connection.query("""
                UPDATE idempotency_keys SET status = \(Int64(status)), content_type = \(contentType), body = \(sealed),
                    shows = \(shows), sealed_for = \(owner.rawValue)
                WHERE account_id = \(accountID.rawValue) AND key = \(key)
                """)
        }
    }

    private static func context(_ accountID: ObjectID, _ key: String) -> String {
        "idempotency:" + accountID.rawValue + ":" + key
    }

    /// Every verification id the answer's bytes mention, as the redaction finds its stored
    /// answers: by the id's text anywhere in the body.
    static func verificationIDs(in body: [UInt8]) -> Set<ObjectID> {
        let prefix = Array("ver_".utf8)
        let length = prefix.count + 26  // `ver_` and 26 base32 characters (`ObjectID`)
        var found = Set<ObjectID>()
        var start = 0
        while start + length <= body.count {
            if body[start..<(start + prefix.count)].elementsEqual(prefix),
               let id = ObjectID(.verification, parsing: String(decoding: body[start..<(start + length)], as: UTF8.self)) {
                found.insert(id)
                start += length
            } else {
                start += 1
            }
        }
        return found
    }

    /// Frees the key, so a corrected retry with the same key is processed afresh.
    public func release(accountID: ObjectID, key: String) throws {
        try database.query("DELETE FROM idempotency_keys WHERE account_id = \(accountID.rawValue) AND key = \(key)")
    }
}
