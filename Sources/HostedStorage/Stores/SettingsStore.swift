import Foundation

/// Service-wide settings kept in the database, such as the generated secret key.
public struct SettingsStore: Sendable {
    private let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// The stored value of `key`, or `candidate` stored now if there is none. Concurrent first
    /// starts of several processes all end up with the same value.
    public func valueOrInsert(_ key: String, candidate: String) throws -> String {
        try database.query("INSERT INTO settings (key, value) VALUES (\(key), \(candidate)) ON CONFLICT (key) DO NOTHING")
        guard let row = try database.query("SELECT value FROM settings WHERE key = \(key)").first else {
            throw DatabaseError.serializationFailure
        }
        return try row.string("value")
    }
}
