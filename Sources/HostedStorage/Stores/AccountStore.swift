import Foundation
import HostedCore

/// Accounts and API keys, on either store. Keys are looked up by the SHA-256 hash of the
/// presented secret; the secret itself never reaches this type.
public struct AccountStore: Sendable {
    private let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// Creates an account together with its first API key, atomically.
    public func create(_ account: Account, firstKey: APIKey, secretHash: String) throws {
        try database.transaction { connection in
            try connection.query("""
                INSERT INTO accounts (id, name, created_at)
                VALUES (\(account.id.rawValue), \(account.name), \(account.createdAt.unixMilliseconds))
                """)
            try insert(firstKey, secretHash: secretHash, on: connection)
        }
    }

    /// Adds another key to an existing account; throws `notFound` when the account does not exist.
    public func exists(_ id: ObjectID) throws -> Bool {
        try !database.query("SELECT 1 FROM accounts WHERE id = \(id.rawValue)").isEmpty
    }

    public func addKey(_ key: APIKey, secretHash: String) throws {
        try database.transaction { connection in
            guard try !connection.query("SELECT 1 FROM accounts WHERE id = \(key.accountID.rawValue)").isEmpty else {
                throw DomainError.notFound(what: "account")
            }
            try insert(key, secretHash: secretHash, on: connection)
        }
    }

    private func insert(_ key: APIKey, secretHash: String, on connection: DatabaseConnection) throws {
        try connection.query("""
            INSERT INTO api_keys (id, account_id, secret_hash, display_prefix, created_at, livemode)
            VALUES (\(key.id.rawValue), \(key.accountID.rawValue), \(secretHash), \(key.displayPrefix), \(key.createdAt.unixMilliseconds),
                    \(Int64(key.livemode ? 1 : 0)))
            """)
    }

    /// Revokes a key; returns false when no such active key exists.
    public func revokeKey(_ id: ObjectID, at time: Date) throws -> Bool {
        let rows = try database.query(
            "UPDATE api_keys SET revoked_at = \(time.unixMilliseconds) WHERE id = \(id.rawValue) AND revoked_at IS NULL RETURNING id")
        return !rows.isEmpty
    }

    /// The account owning the active key with this hash, or nil (unknown or revoked).
    public func account(forKeyHash secretHash: String) throws -> Account? {
        try caller(forKeyHash: secretHash)?.account
    }

    /// The unrevoked key with this secret hash: its account, its id and its mode.
    public func caller(forKeyHash secretHash: String) throws -> APICaller? {
        let rows = try database.query("""
            SELECT a.id, a.name, a.created_at, k.id AS key_id, k.livemode FROM api_keys k JOIN accounts a ON a.id = k.account_id
            WHERE k.secret_hash = \(secretHash) AND k.revoked_at IS NULL
            """)
        return try rows.first.map {
            APICaller(account: try Self.account(from: $0), keyID: try Self.id(.apiKey, $0, "key_id"), livemode: try $0.int("livemode") != 0)
        }
    }

    public func account(_ id: ObjectID) throws -> Account? {
        let rows = try database.query("SELECT id, name, created_at FROM accounts WHERE id = \(id.rawValue)")
        return try rows.first.map(Self.account(from:))
    }

    /// The account's keys, newest first.
    public func keys(of accountID: ObjectID) throws -> [APIKey] {
        let rows = try database.query("""
            SELECT id, account_id, display_prefix, created_at, revoked_at, livemode FROM api_keys
            WHERE account_id = \(accountID.rawValue) ORDER BY created_at DESC, id DESC
            """)
        return try rows.map { row in
            APIKey(id: try Self.id(.apiKey, row, "id"), accountID: try Self.id(.account, row, "account_id"),
                   displayPrefix: try row.string("display_prefix"),
                   createdAt: Date(unixMilliseconds: try row.int("created_at")),
                   revokedAt: try row.optionalInt("revoked_at").map(Date.init(unixMilliseconds:)),
                   livemode: try row.int("livemode") != 0)
        }
    }

    private static func account(from row: Row) throws -> Account {
        Account(id: try id(.account, row, "id"), name: try row.string("name"),
                createdAt: Date(unixMilliseconds: try row.int("created_at")))
    }

    private static func id(_ kind: ObjectID.Kind, _ row: Row, _ column: String) throws -> ObjectID {
        guard let id = ObjectID(kind, parsing: try row.string(column)) else { throw DatabaseError.decoding(column: column) }
        return id
    }
}
