/// The SQL dialect of a store, for the few statements that differ (migrations are per dialect).
public enum SQLDialect: String, Sendable {
    case sqlite
    case postgres
}

/// One open connection. Not thread-safe: a connection is used by one thread at a time, which
/// `Database` guarantees by handing it out from its pool.
public protocol DatabaseConnection: AnyObject {
    /// Runs one statement's text with its bind values (`$1`, `$2`, … in both dialects) and
    /// returns its rows. Callers write `query(_ sql: SQL)`, which builds both safely.
    func run(_ text: String, bindings: [SQLValue]) throws(DatabaseError) -> [Row]
    /// Runs a script of several statements without parameters (migrations only).
    func executeScript(_ sql: String) throws(DatabaseError)
    /// False when the connection is known to be dead before anything is sent on it (the server
    /// closed it while it sat in the pool). A cheap local check, no round trip.
    var isUsable: Bool { get }
}

extension DatabaseConnection {
    public var isUsable: Bool { true }

    /// Runs one statement; every value interpolated into `sql` is a bind parameter.
    @discardableResult
    public func query(_ sql: SQL) throws(DatabaseError) -> [Row] {
        try run(sql.text, bindings: sql.bindings)
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

    /// Runs one statement and calls `completion` with its rows or its error: on PostgreSQL
    /// later, from the pipeline's thread, without holding the caller's thread or a pooled
    /// connection (`PostgresPipeline`); on SQLite at once, on the caller's thread. `writes`: the
    /// statement changes something (it then commits on its own). For the statements of the hot
    /// paths; everything else uses `query`.
    func submit(_ sql: SQL, writes: Bool, completion: @escaping @Sendable (Result<[Row], any Error>) -> Void)

    /// Closes every pooled connection.
    func close()

    /// How the connection pool is used right now.
    var poolStatistics: PoolStatistics { get }

    /// A count that moves after every change this process commits to the database, when this
    /// process is the only writer it has (SQLite, a single-process store): a read taken at one
    /// count is still what the database holds while the count has not moved, except for changes
    /// other processes make. nil where other processes write as a matter of course (PostgreSQL).
    var localCommits: UInt64? { get }
}

/// A connection pool's use at one moment.
public struct PoolStatistics: Sendable, Equatable {
    public let size: Int
    public let inUse: Int
    public let waiting: Int
}

extension Database {
    /// Other processes write too: no read can be trusted without asking the database.
    public var localCommits: UInt64? { nil }

    /// At once, on the caller's thread, on a pooled connection.
    public func submit(_ sql: SQL, writes: Bool, completion: @escaping @Sendable (Result<[Row], any Error>) -> Void) {
        completion(Result { try query(sql) })
    }

    /// Runs one statement on a pooled connection; every interpolated value is a bind parameter.
    @discardableResult
    public func query(_ sql: SQL) throws -> [Row] {
        try withConnection { try $0.query(sql) }
    }
}
