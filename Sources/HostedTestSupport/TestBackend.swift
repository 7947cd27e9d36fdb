import Foundation
import HostedStorage

/// The two real stores every storage and app test runs against. PostgreSQL needs
/// `HOSTED_TEST_POSTGRES_URL` (`scripts/with-postgres.sh` provides it); without it the PostgreSQL
/// cases are skipped locally, and fail when `HOSTED_REQUIRE_POSTGRES=1` (as in CI).
///
/// This module does not import Testing (it is an ordinary target, where the toolchain does not
/// always provide that module), so each test target adds `isAvailable`, which records the
/// missing server as an issue, on top of `availability(recordingMissingServer:)`.
public enum TestBackend: String, CaseIterable, Sendable {
    case sqlite
    case postgres

    /// The PostgreSQL server tests may create schemas on, if any.
    public static var postgresURL: String? { ProcessInfo.processInfo.environment["HOSTED_TEST_POSTGRES_URL"] }
    /// `HOSTED_REQUIRE_POSTGRES=1`: a missing PostgreSQL server is a failure, not a skip.
    public static var postgresRequired: Bool { ProcessInfo.processInfo.environment["HOSTED_REQUIRE_POSTGRES"] == "1" }

    /// What `record` is told when PostgreSQL is required but absent.
    public static let missingServerMessage = "HOSTED_REQUIRE_POSTGRES=1 but HOSTED_TEST_POSTGRES_URL is not set"

    /// True when this backend can run here; calls `record` (once) when PostgreSQL is required
    /// but no server is given, so the test target can turn that into a recorded issue.
    public func availability(recordingMissingServer record: (String) -> Void) -> Bool {
        guard self == .postgres, Self.postgresURL == nil else { return true }
        if Self.postgresRequired { record(Self.missingServerMessage) }
        return false
    }

    /// A fresh, empty database of this backend: a new SQLite file in a new directory, or a new
    /// PostgreSQL schema (reached through `options=-csearch_path%3D<schema>`). Call `remove()`
    /// once every connection to it is closed.
    public func makeEmptyDatabase() throws -> TestDatabaseURL {
        try TestDatabaseURL(self)
    }
}

/// An empty database of one backend, made for one test, and a scratch directory beside it (for
/// logs, key files). `remove()` drops the schema or file and the directory.
public struct TestDatabaseURL: Sendable {
    /// The store's location, as `Configuration.database` takes it.
    public let url: DatabaseURL
    /// A directory of its own for the test's files; on SQLite, it holds the database file.
    public let directory: URL
    private let drop: @Sendable () -> Void

    public init(_ backend: TestBackend) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("hosted-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        switch backend {
        case .sqlite:
            url = .sqlite(path: directory.appendingPathComponent("hosted.sqlite").path)
            drop = {}
        case .postgres:
            guard let base = TestBackend.postgresURL else {
                throw MissingServer(description: TestBackend.missingServerMessage)
            }
            let schema = "test_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: "")
            let admin = try PostgresDatabase(url: base, poolSize: 1)
            try admin.query("CREATE SCHEMA \(unsafeSQL: schema)")
            url = .postgres(url: base + (base.contains("?") ? "&" : "?") + "options=-csearch_path%3D\(schema)")
            drop = {
                _ = try? admin.query("DROP SCHEMA \(unsafeSQL: schema) CASCADE")
                admin.close()
            }
        }
    }

    /// The `HOSTED_DATABASE_URL` that reaches this very database.
    public var environmentValue: String {
        switch url {
        case .sqlite(let path): "sqlite:" + path
        case .postgres(let url): url
        }
    }

    /// Opens the database with `poolSize` connections.
    public func open(poolSize: Int = 4) throws -> any Database {
        try url.open(poolSize: poolSize)
    }

    /// Drops the schema (PostgreSQL) and deletes the directory (and with it the SQLite file).
    public func remove() {
        drop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Thrown when a PostgreSQL database is asked for but no server is configured.
    public struct MissingServer: Error, CustomStringConvertible {
        public let description: String
    }
}
