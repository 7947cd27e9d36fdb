import Foundation
import HostedCore
import HostedStorage
import HostedTestSupport
import Testing

/// The two real stores every storage test runs against (shared with the app tests; see
/// `TestBackend` in HostedTestSupport).
typealias Backend = TestBackend

extension TestBackend {
    /// True when this backend can run here; records an issue when PostgreSQL is required but absent.
    var isAvailable: Bool {
        availability { Issue.record(Comment(rawValue: $0)) }
    }

    /// A fresh, empty database: a new SQLite file, or a new PostgreSQL schema.
    func makeDatabase(poolSize: Int = 4) throws -> TestDatabase {
        let empty = try makeEmptyDatabase()
        do {
            return TestDatabase(database: try empty.open(poolSize: poolSize), url: empty.environmentValue,
                                cleanup: empty.remove)
        } catch {
            empty.remove()
            throw error
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

extension VerificationStore {
    /// Redaction as the service asks for it: `verification.redacted` by `actor`, through the
    /// lifecycle (the store only erases what the event says).
    func redact(accountID: ObjectID, id: ObjectID, at time: Date, by actor: EventActor) throws -> Verification {
        try redact(accountID: accountID, id: id, at: time) { try $0.apply(.redacted, at: time, by: actor) }
    }

    /// The retention sweep as `BackgroundWork` runs it: redacted by the system.
    func redactDue(at time: Date, limit: Int = 100) throws -> Int {
        try redactDue(at: time, limit: limit) { try $0.apply(.redacted, at: time, by: .system) }
    }
}
