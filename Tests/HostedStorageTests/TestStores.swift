import Foundation
import HostedStorage
import Testing

/// The two real stores every storage test runs against. PostgreSQL needs
/// `HOSTED_TEST_POSTGRES_URL` (the README's test command provides it); without it the PostgreSQL
/// cases are skipped locally, and fail when `HOSTED_REQUIRE_POSTGRES=1` (as in CI).
enum Backend: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    static var postgresURL: String? { ProcessInfo.processInfo.environment["HOSTED_TEST_POSTGRES_URL"] }
    static var postgresRequired: Bool { ProcessInfo.processInfo.environment["HOSTED_REQUIRE_POSTGRES"] == "1" }

    /// True when this backend can run here; records an issue when PostgreSQL is required but absent.
    var isAvailable: Bool {
        guard self == .postgres, Self.postgresURL == nil else { return true }
        if Self.postgresRequired { Issue.record("HOSTED_REQUIRE_POSTGRES=1 but HOSTED_TEST_POSTGRES_URL is not set") }
        return false
    }

    /// A fresh, empty database: a new SQLite file, or a new PostgreSQL schema.
    func makeDatabase(poolSize: Int = 4) throws -> TestDatabase {
        switch self {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("hosted-test-\(UUID().uuidString)")
            let path = directory.appendingPathComponent("test.sqlite").path
            return TestDatabase(database: try SQLiteDatabase(path: path, poolSize: poolSize), url: "sqlite:" + path,
                                cleanup: { try? FileManager.default.removeItem(at: directory) })
        case .postgres:
            let base = Self.postgresURL!
            let schema = "t_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let admin = try PostgresDatabase(url: base, poolSize: 1)
            try admin.query("CREATE SCHEMA \(schema)")
            let separator = base.contains("?") ? "&" : "?"
            let url = base + separator + "options=-csearch_path%3D\(schema)"
            return TestDatabase(database: try PostgresDatabase(url: url, poolSize: poolSize), url: url, cleanup: {
                _ = try? admin.query("DROP SCHEMA \(schema) CASCADE")
                admin.close()
            })
        }
    }
}

/// A database made for one test, dropped by `cleanup`.
struct TestDatabase {
    let database: any Database
    /// The `HOSTED_DATABASE_URL` that reaches this very database.
    let url: String
    let cleanup: () -> Void

    /// Runs `body` with a fresh database of `backend`, then removes it.
    static func with(_ backend: Backend, poolSize: Int = 4, _ body: (any Database) throws -> Void) throws {
        guard backend.isAvailable else { return }
        let test = try backend.makeDatabase(poolSize: poolSize)
        defer {
            test.database.close()
            test.cleanup()
        }
        try body(test.database)
    }
}
