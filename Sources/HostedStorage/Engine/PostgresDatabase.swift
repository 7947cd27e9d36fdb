/// The production store: PostgreSQL through libpq, behind a pool of `poolSize` connections, and
/// one more connection in pipeline mode for `submit` (opened on the first statement submitted).
public final class PostgresDatabase: Database {
    public let dialect = SQLDialect.postgres
    private let pool: ConnectionPool<PostgresConnection>
    private let pipeline: PostgresPipeline

    /// Connects lazily except for one connection opened now, so a wrong URL fails at start.
    public init(url: String, poolSize: Int = 4) throws {
        let pool = ConnectionPool(size: poolSize) { () throws(DatabaseError) in try PostgresConnection(url: url) }
        self.pool = pool
        pipeline = PostgresPipeline { () throws(DatabaseError) in try PostgresConnection(url: url) }
        try pool.withConnection { _ in }
    }

    public func submit(_ sql: SQL, writes: Bool, completion: @escaping @Sendable (Result<[Row], any Error>) -> Void) {
        pipeline.submit(sql.text, bindings: sql.bindings, writes: writes) { completion($0.mapError { $0 }) }
    }

    /// Statements and batches the pipeline has sent.
    var pipelineStatistics: PostgresPipeline.Counts { pipeline.statistics }

    public func withConnection<T>(_ body: (DatabaseConnection) throws -> T) throws -> T {
        try pool.withConnection(body)
    }

    /// READ COMMITTED: single-use and idempotency rely on atomic statements and constraints,
    /// which re-check rows changed by a concurrent writer instead of failing.
    public func transaction<T>(_ body: (DatabaseConnection) throws -> T) throws -> T {
        try pool.transaction(begin: "BEGIN", body)
    }

    public func close() {
        pipeline.stop()
        pool.closeAll()
    }

    public var poolStatistics: PoolStatistics { pool.statistics }
}
