import Foundation
import HostedStorage
import Testing

/// When a lost connection may be worked around and when it must not: a transaction whose
/// connection dies before COMMIT is re-run (nothing committed); one that dies during COMMIT is
/// not (it may have committed), so nothing is ever done twice.
@Suite struct PoolRetryTests {
    /// Counts calls from the body of a transaction (always run on the calling thread).
    final class Calls: @unchecked Sendable {  // touched only by the one thread running the test
        var count = 0
    }

    @Test func aConnectionLostBeforeCommitIsRetriedOnce() throws {
        try TestDatabase.with(.postgres, poolSize: 2) { (db: any Database) throws in
            try db.query("CREATE TABLE retried (x INT)")
            let calls = Calls()
            try db.transaction { connection in
                calls.count += 1
                try connection.query("INSERT INTO retried (x) VALUES (\(Int64(calls.count)))")
                // The first attempt's server process ends mid-transaction: its insert is rolled back.
                if calls.count == 1 { try connection.query("SELECT pg_terminate_backend(pg_backend_pid())") }
            }
            #expect(calls.count == 2)
            let rows = try db.query("SELECT x FROM retried")
            #expect(try rows.map { try $0.int("x") } == [2])
        }
    }

    @Test func aConnectionLostDuringCommitIsNeverRetried() throws {
        try TestDatabase.with(.postgres, poolSize: 2) { (db: any Database) throws in
            // A deferred constraint trigger runs at COMMIT and ends its own server process: the
            // client sees the connection die while committing, and cannot know the outcome.
            try db.withConnection { connection in
                try connection.executeScript("""
                    CREATE TABLE committed_once (x INT);
                    CREATE FUNCTION die_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); RETURN NULL; END $$;
                    CREATE CONSTRAINT TRIGGER committed_once_dies AFTER INSERT ON committed_once
                        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION die_at_commit();
                    """)
            }
            let calls = Calls()
            #expect {
                try db.transaction { connection in
                    calls.count += 1
                    try connection.query("INSERT INTO committed_once (x) VALUES (1)")
                }
            } throws: { error in
                if case DatabaseError.connectionLost(let message) = error { return message.contains("COMMIT") }
                return false
            }
            #expect(calls.count == 1)
            // The pool serves the next caller on a fresh connection.
            #expect(try db.query("SELECT 7 AS seven")[0].int("seven") == 7)
        }
    }

    @Test func autocommitStatementsAreNotReRunAfterALoss() throws {
        try TestDatabase.with(.postgres, poolSize: 1) { (db: any Database) throws in
            try db.query("CREATE TABLE once (x INT)")
            let calls = Calls()
            #expect(throws: DatabaseError.self) {
                try db.withConnection { connection in
                    calls.count += 1
                    try connection.query("INSERT INTO once (x) VALUES (1)")
                    try connection.query("SELECT pg_terminate_backend(pg_backend_pid())")
                }
            }
            #expect(calls.count == 1)
            #expect(try db.query("SELECT count(*) AS n FROM once")[0].int("n") == 1)
        }
    }
}
