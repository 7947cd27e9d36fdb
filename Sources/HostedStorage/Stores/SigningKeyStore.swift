import Foundation
import HostedCore

/// The ES256 keys results are signed with (migration 0024). The rules that must hold across
/// nodes are each one statement or one transaction: the first key is generation 1 (its
/// UNIQUE constraint lets exactly one of any number of concurrent first starts insert it), a
/// rotation inserts the next generation and retires the one before it.
public struct SigningKeyStore: Sendable {
    private let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// A stored key: the private key only while it is the newest (sealed, base64).
    public struct StoredKey: Equatable, Sendable {
        public let id: String
        public let generation: Int64
        public let createdAt: Date
        public let retiredAt: Date?
        public let privateKeySealed: String?
        public let publicJWK: String
    }

    /// A new key to store: its id, sealed private key and public JWK (the JSON served).
    public struct NewKey: Sendable {
        public let id: String
        public let privateKeySealed: String
        public let publicJWK: String

        public init(id: String, privateKeySealed: String, publicJWK: String) {
            self.id = id
            self.privateKeySealed = privateKeySealed
            self.publicJWK = publicJWK
        }
    }

    /// Stores `key` as the first key unless there is one already; true when it was stored.
    /// Several nodes may call this at once: the UNIQUE generation lets one insert through.
    @discardableResult
    public func insertFirst(_ key: NewKey, at time: Date) throws -> Bool {
        try !database.query("""
            INSERT INTO signing_keys (id, generation, created_at, retired_at, private_key_sealed, public_jwk)
            VALUES (\(key.id), 1, \(time), NULL, \(key.privateKeySealed), \(key.publicJWK))
            ON CONFLICT (generation) DO NOTHING
            RETURNING id
            """).isEmpty
    }

    /// Adds `key` as the newest generation and retires every other key at `time` (a retired key
    /// never signs again, so its private key is erased in the same transaction). The id of the
    /// key that signed until now, if any. Two rotations at once: one of them fails with
    /// `DatabaseError.uniqueViolation` (the caller may try again).
    public func rotate(to key: NewKey, at time: Date) throws -> String? {
        try database.transaction { connection in
            let newest = try connection.query("""
                SELECT id, generation FROM signing_keys WHERE retired_at IS NULL ORDER BY generation DESC LIMIT 1
                """).first
            let top = try connection.query("SELECT MAX(generation) AS top FROM signing_keys").first
            let generation = (try top?.optionalInt("top") ?? 0) + 1
            try connection.query("""
                INSERT INTO signing_keys (id, generation, created_at, retired_at, private_key_sealed, public_jwk)
                VALUES (\(key.id), \(generation), \(time), NULL, \(key.privateKeySealed), \(key.publicJWK))
                """)
            try connection.query("""
                UPDATE signing_keys SET retired_at = \(time), private_key_sealed = NULL
                WHERE id <> \(key.id) AND retired_at IS NULL
                """)
            return try newest?.string("id")
        }
    }

    /// The keys published at `time`: the newest, and those retired less than `window` before
    /// `time`; newest first.
    public func published(at time: Date, window: TimeInterval) throws -> [StoredKey] {
        let since = time.addingTimeInterval(-window)
        return try database.query("""
            SELECT id, generation, created_at, retired_at, private_key_sealed, public_jwk FROM signing_keys
            WHERE retired_at IS NULL OR retired_at > \(since)
            ORDER BY generation DESC
            """).map { row in
            StoredKey(id: try row.string("id"), generation: try row.int("generation"), createdAt: try row.date("created_at"),
                      retiredAt: try row.optionalDate("retired_at"), privateKeySealed: try row.optionalString("private_key_sealed"),
                      publicJWK: try row.string("public_jwk"))
        }
    }
}
