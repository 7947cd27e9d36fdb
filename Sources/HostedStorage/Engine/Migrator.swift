import Foundation
import HostedCore

/// Applies the SQL files of `migrations/shared/` — overridden, file by file, by a file of the
/// same name in `migrations/<dialect>/` where the dialects differ (`BLOB` vs `BYTEA`) — in name
/// order, each in its own transaction, recording each applied file's identifier (its name
/// without `.sql`) in `schema_migrations`.
public struct Migrator: Sendable {
    /// One migration file.
    public struct Migration: Equatable, Sendable {
        public let identifier: String
        public let sql: String

        public init(identifier: String, sql: String) {
            self.identifier = identifier
            self.sql = sql
        }
    }

    public let migrations: [Migration]

    /// Loads the migrations for `dialect` from `directory`, else from the copy SwiftPM puts beside
    /// the binary, else from `./migrations`.
    public init(dialect: SQLDialect, directory: URL? = nil) throws {
        guard let root = directory ?? Self.bundledDirectory() else {
            throw DatabaseError.other(code: "migrations", message: "migrations directory not found beside the binary or in ./migrations")
        }
        var files: [String: URL] = [:]
        for folder in ["shared", dialect.rawValue].map(root.appendingPathComponent) {
            let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            for name in names where name.hasSuffix(".sql") { files[name] = folder.appendingPathComponent(name) }
        }
        migrations = try files.keys.sorted().map { name in
            Migration(identifier: String(name.dropLast(4)), sql: try String(contentsOf: files[name]!, encoding: .utf8))
        }
    }

    /// Looked up by hand rather than through `Bundle.module`, which traps when the bundle is missing.
    static func bundledDirectory() -> URL? {
        // /proc/self/exe names the running binary whatever the working directory or argv[0].
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let candidates = [
            Bundle.main.bundleURL.appendingPathComponent("Hosted_HostedStorage.resources/migrations"),
            executable.deletingLastPathComponent().appendingPathComponent("Hosted_HostedStorage.resources/migrations"),
            URL(fileURLWithPath: "migrations"),
        ]
        return candidates.first { FileManager.default.fileExists(atPath: $0.appendingPathComponent("shared").path) }
    }

    public init(migrations: [Migration]) {
        self.migrations = migrations.sorted { $0.identifier < $1.identifier }
    }

    /// Applies what is pending and returns the identifiers it applied (empty when up to date).
    /// Safe to run from any number of processes at once on a fresh database: on PostgreSQL the
    /// whole run — creating the ledger included — holds a session advisory lock (two concurrent
    /// `CREATE TABLE IF NOT EXISTS` race on the catalog otherwise); SQLite's `BEGIN IMMEDIATE`
    /// serialises writers. Each migration runs in its own transaction and re-checks the ledger.
    @discardableResult
    public func migrate(_ database: any Database, clock: any WallClock = SystemWallClock()) throws -> [String] {
        let postgres = database.dialect == .postgres
        return try database.withConnection { connection in
            if postgres { try connection.query("SELECT pg_advisory_lock(\(Self.lockKey))") }
            defer { if postgres { _ = try? connection.query("SELECT pg_advisory_unlock(\(Self.lockKey))") } }
            try connection.executeScript(
                "CREATE TABLE IF NOT EXISTS schema_migrations (id TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)")
            var applied: [String] = []
            for migration in migrations {
                try connection.executeScript(postgres ? "BEGIN" : "BEGIN IMMEDIATE")
                do {
                    let done = try connection.query("SELECT 1 FROM schema_migrations WHERE id = \(migration.identifier)")
                    if done.isEmpty {
                        try connection.executeScript(migration.sql)
                        try connection.query("INSERT INTO schema_migrations (id, applied_at) VALUES (\(migration.identifier), \(clock.now().unixMilliseconds))")
                        applied.append(migration.identifier)
                    }
                    try connection.executeScript("COMMIT")
                } catch {
                    try? connection.executeScript("ROLLBACK")
                    throw error
                }
            }
            return applied
        }
    }

    /// The advisory lock every migrator takes (any constant; the same in every process).
    static let lockKey = 7_219_043

    /// Identifiers of migrations not yet applied (empty when the schema is current).
    public func pending(_ database: any Database) throws -> [String] {
        let ledgerExists: SQL = database.dialect == .postgres
            ? "SELECT 1 FROM pg_catalog.pg_tables WHERE tablename = 'schema_migrations' AND schemaname = ANY (current_schemas(false))"
            : "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'schema_migrations'"
        guard try !database.query(ledgerExists).isEmpty else { return migrations.map(\.identifier) }
        let rows = try database.query("SELECT id FROM schema_migrations")
        let done = Set(try rows.map { try $0.string("id") })
        return migrations.map(\.identifier).filter { !done.contains($0) }
    }
}
