import Foundation
import HostedCore

/// An account's registered return URLs.
public struct ReturnURLStore: Sendable {
    private let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// A registered URL.
    public struct Registered: Equatable, Sendable {
        public let id: ObjectID
        public let url: String
        public let createdAt: Date
    }

    public func list(accountID: ObjectID) throws -> [Registered] {
        try database.query("""
            SELECT id, url, created_at FROM return_urls
            WHERE account_id = \(accountID.rawValue) ORDER BY created_at, id
            """).map(Self.registered)
    }

    /// Registers `url`; returns the existing registration (and false) when it is already there.
    public func add(accountID: ObjectID, id: ObjectID, url: String, at time: Date) throws -> (Registered, created: Bool) {
        let inserted = try database.query("""
            INSERT INTO return_urls (id, account_id, url, created_at) VALUES (\(id.rawValue), \(accountID.rawValue), \(url), \(time))
            ON CONFLICT (account_id, url) DO NOTHING RETURNING id, url, created_at
            """)
        if let row = inserted.first { return (try Self.registered(row), true) }
        let existing = try database.query("""
            SELECT id, url, created_at FROM return_urls
            WHERE account_id = \(accountID.rawValue) AND url = \(url)
            """)
        guard let row = existing.first else { throw DatabaseError.serializationFailure }
        return (try Self.registered(row), false)
    }

    public func delete(accountID: ObjectID, id: ObjectID) throws -> Bool {
        !(try database.query("""
            DELETE FROM return_urls
            WHERE account_id = \(accountID.rawValue) AND id = \(id.rawValue) RETURNING id
            """)).isEmpty
    }

    static func registered(_ row: Row) throws -> Registered {
        guard let id = ObjectID(.returnURL, parsing: try row.string("id")) else { throw DatabaseError.decoding(column: "id") }
        return Registered(id: id, url: try row.string("url"), createdAt: try row.date("created_at"))
    }
}
