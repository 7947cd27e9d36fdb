/// The production store: PostgreSQL through libpq, behind a pool of `poolSize` connections.
public final class PostgresDatabase: Database {
    public let dialect = SQLDialect.postgres
    private let pool: ConnectionPool<PostgresConnection>

    /// Connects lazily except for one connection opened now, so a wrong URL fails at start.
    public init(url: String, poolSize: Int = 4) throws {
        let pool = ConnectionPool(size: poolSize) { () throws(DatabaseError) in try PostgresConnection(url: url) }
        self.pool = pool
        try pool.withConnection { _ in }
    }

    public func withConnection<T>(_ body: (DatabaseConnection) throws -> T) throws -> T {
        try pool.withConnection(body)
    }

    /// READ COMMITTED: single-use and idempotency rely on atomic statements and constraints,
    /// which re-check rows changed by a concurrent writer instead of failing.
    public func transaction<T>(_ body: (DatabaseConnection) throws -> T) throws -> T {
        try pool.transaction(begin: "BEGIN", body)
    }

    public func close() { pool.closeAll() }

    public var poolStatistics: PoolStatistics { pool.statistics }
}
