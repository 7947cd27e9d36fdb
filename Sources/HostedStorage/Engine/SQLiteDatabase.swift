import Foundation

/// The embedded store: a SQLite file in WAL mode behind a small connection pool.
public final class SQLiteDatabase: Database {
    public let dialect = SQLDialect.sqlite
    public let path: String
    private let pool: ConnectionPool<SQLiteConnection>
    private let commits: SQLiteCommits?

    /// Opens (creating if needed) the database at `path`, creating its parent directory (0700:
    /// only this user may look inside; the files get 0600 from the process's umask, which
    /// `hosted` sets). `poolSize` connections may be open at once; WAL lets readers run beside the
    /// one writer.
    public init(path: String, poolSize: Int = 4) throws {
        self.path = path
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true,
                                                attributes: [.posixPermissions: 0o700])
        let pool = ConnectionPool(size: poolSize) { () throws(DatabaseError) in try SQLiteConnection(path: path) }
        self.pool = pool
        // Open one connection now so a bad path fails at start, not on the first request.
        try pool.withConnection { _ in }
        commits = SQLiteCommits.ofFile(at: path)
    }

    public func withConnection<T>(_ body: (DatabaseConnection) throws -> T) throws -> T {
        try pool.withConnection(body)
    }

    /// `BEGIN IMMEDIATE` takes the write lock up front: a read-then-write transaction can then
    /// never fail half-way with SQLITE_BUSY.
    public func transaction<T>(_ body: (DatabaseConnection) throws -> T) throws -> T {
        try pool.transaction(begin: "BEGIN IMMEDIATE", body)
    }

    public func close() { pool.closeAll() }

    public var poolStatistics: PoolStatistics { pool.statistics }

    /// Changes committed to this file by this process's connections, counted after each commit
    /// (`SQLiteConnection`); nil for a database that is not a file.
    public var localCommits: UInt64? { commits?.count.load(ordering: .acquiring) }
}
