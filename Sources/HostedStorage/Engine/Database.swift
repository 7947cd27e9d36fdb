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
