/// The SQL dialect of a store, for the few statements that differ (migrations are per dialect).
public enum SQLDialect: String, Sendable {
    case sqlite
    case postgres
}

/// One open connection. Not thread-safe: a connection is used by one thread at a time, which
/// `Database` guarantees by handing it out from its pool.
public protocol DatabaseConnection: AnyObject {
    /// Runs one parameterized statement (`$1`, `$2`, … placeholders in both dialects) and returns its rows.
    func query(_ sql: String, _ parameters: [SQLValue]) throws(DatabaseError) -> [Row]
    /// Runs a script of several statements without parameters (migrations only).
    func executeScript(_ sql: String) throws(DatabaseError)
    /// False when the connection is known to be dead before anything is sent on it (the server
    /// closed it while it sat in the pool). A cheap local check, no round trip.
    var isUsable: Bool { get }
}

extension DatabaseConnection {
    public var isUsable: Bool { true }

    @discardableResult
    public func query(_ sql: String, _ parameters: SQLValue...) throws(DatabaseError) -> [Row] {
        try query(sql, parameters)
    }
}

/// A store: a pool of connections to SQLite or PostgreSQL. Calls block the calling thread, so they
/// are made from the HTTP server's worker threads or the command line, never from Swift's
/// cooperative pool.
public protocol Database: Sendable {
    var dialect: SQLDialect { get }

    /// Runs `body` on a pooled connection in autocommit mode.
    func withConnection<T>(_ body: (DatabaseConnection) throws -> T) throws -> T

    /// Runs `body` in a write transaction (SQLite: `BEGIN IMMEDIATE`), committed if it returns and
    /// rolled back if it throws.
    func transaction<T>(_ body: (DatabaseConnection) throws -> T) throws -> T

    /// Closes every pooled connection.
    func close()
}

extension Database {
    /// Runs one statement on a pooled connection.
    @discardableResult
    public func query(_ sql: String, _ parameters: SQLValue...) throws -> [Row] {
        try withConnection { try $0.query(sql, parameters) }
    }

    /// Runs one statement with an array of parameters.
    @discardableResult
    public func query(_ sql: String, parameters: [SQLValue]) throws -> [Row] {
        try withConnection { try $0.query(sql, parameters) }
    }
}
