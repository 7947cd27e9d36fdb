import Foundation
import HostedApp
import HostedStorage
import HostedTestSupport
import Testing

/// The handoff exchange commits once: burning the handoff, creating the session and recording
/// the sign-in happen in one transaction, on SQLite and PostgreSQL.
@Suite struct HandoffExchangeTests {
    /// A failure after the handoff is burnt (the session's insert, refused by a trigger the test
    /// adds) leaves the handoff unused, no session and no `signed_in` event; once the failure is
    /// gone, the same handoff signs in.
    @Test(arguments: Store.allCases)
    func exchange_failureAfterTheBurn_leavesTheHandoffUnused(_ store: Store) throws {
        guard store.isAvailable else { return }
        let f = try SignInTests.Fixture(store)
        defer { f.close() }
        let secret = try f.secret()
        let database = f.app.application.database
        try Self.refuseSessions(database, store)

        let failed = f.exchange(secret)
        #expect(failed.status == 500)
        #expect(try database.query("SELECT COUNT(*) AS n FROM handoffs WHERE used_at IS NOT NULL").first?.int("n") == 0)
        #expect(try database.query("SELECT COUNT(*) AS n FROM journey_sessions").first?.int("n") == 0)
        #expect(try database.query("SELECT COUNT(*) AS n FROM events WHERE type = 'verification.signed_in'").first?.int("n") == 0)
        #expect(f.status() == "created")

        try Self.allowSessions(database, store)
        let exchanged = f.exchange(secret)
        #expect(exchanged.status == 200)
        #expect(exchanged.cookie("hosted_session") != nil)
        #expect(try database.query("SELECT COUNT(*) AS n FROM handoffs WHERE used_at IS NOT NULL").first?.int("n") == 1)
        #expect(f.status() == "in_progress")
        // Used once: the same secret again signs nobody in.
        #expect(f.exchange(secret).status == 401)
    }

    static func refuseSessions(_ database: any Database, _ store: Store) throws {
        switch store {
        case .sqlite:
            try database.query("""
                CREATE TRIGGER refuse_sessions BEFORE INSERT ON journey_sessions
                BEGIN SELECT RAISE(ABORT, 'injected failure'); END
                """)
        case .postgres:
            try database.query("""
                CREATE FUNCTION refuse_sessions() RETURNS trigger LANGUAGE plpgsql AS
                $$ BEGIN RAISE EXCEPTION 'injected failure'; END $$
                """)
            try database.query("CREATE TRIGGER refuse_sessions BEFORE INSERT ON journey_sessions FOR EACH ROW EXECUTE FUNCTION refuse_sessions()")
        }
    }

    static func allowSessions(_ database: any Database, _ store: Store) throws {
        switch store {
        case .sqlite: try database.query("DROP TRIGGER refuse_sessions")
        case .postgres:
            try database.query("DROP TRIGGER refuse_sessions ON journey_sessions")
            try database.query("DROP FUNCTION refuse_sessions()")
        }
    }
}
