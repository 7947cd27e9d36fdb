import Dispatch
import Foundation
@testable import HostedStorage
import HostedTestSupport
import Testing

/// What a failover asks of the PostgreSQL engine, on the shared test server (the live failover,
/// with a real standby promoted, is `PostgresFailoverLiveTests`): a multi-host URL reaches
/// libpq unchanged, and a write refused as read-only (SQLSTATE 25006, as a server that is no
/// longer the primary refuses it) is a lost connection: the connection is replaced, and a
/// transaction or a pipelined write runs again on a new one, never a 500.
///
/// A session's `default_transaction_read_only = on` makes its server refuse writes exactly as a
/// standby does (same SQLSTATE), on that one connection only, so the other tests are untouched.
@Suite struct PostgresFailoverTests {
    @Test func aMultiHostURLReachesLibpqUnchanged() {
        let url = "postgres://u:pw@127.0.0.1:5433,127.0.0.1:5432/db?target_session_attrs=read-write"
        #expect(DatabaseURL(url) == .postgres(url: url))
        #expect(DatabaseURL(url)?.redacted == "postgres://u:***@127.0.0.1:5433,127.0.0.1:5432/db?target_session_attrs=read-write")
        #expect(PostgresConnection.target(url) == url + "&gssencmode=disable")
    }

    /// libpq tries the hosts in order: a first host where nothing listens is skipped.
    @Test func aMultiHostURLWhoseFirstHostIsDownConnectsToTheNext() throws {
        guard Backend.postgres.isAvailable, let base = Backend.postgresURL,
              let hosts = base.range(of: "@127.0.0.1:") else { return }
        let url = base.replacingCharacters(in: hosts, with: "@127.0.0.1:1,127.0.0.1:") + "?target_session_attrs=read-write"
        let db = try PostgresDatabase(url: url, poolSize: 1)
        defer { db.close() }
        #expect(try db.query("SELECT pg_is_in_recovery() AS standby")[0].int("standby") == 0)
    }

    @Test func aSingleStatementRefusedAsReadOnlyIsALostConnectionAndTheNextOneUsesANewConnection() throws {
        try TestDatabase.with(.postgres, poolSize: 1) { (db: any Database) throws in
            try db.query("CREATE TABLE refused (k BIGINT PRIMARY KEY)")
            let before = try readOnlySession(db)
            #expect {
                try db.query("INSERT INTO refused VALUES (1)")
            } throws: { error in
                guard case DatabaseError.connectionLost = error else { return false }
                return true
            }
            let after = try db.query("SELECT pg_backend_pid() AS pid")[0].int("pid")
            #expect(after != before, "the refused connection was used again")
            try db.query("INSERT INTO refused VALUES (2)")
            #expect(try db.query("SELECT k FROM refused").map { try $0.int("k") } == [2])
        }
    }

    @Test func aTransactionRefusedAsReadOnlyRunsAgainOnANewConnection() throws {
        try TestDatabase.with(.postgres, poolSize: 2) { (db: any Database) throws in
            try db.query("CREATE TABLE refused (k BIGINT PRIMARY KEY)")
            // Both pooled connections turn read-only: a retry on the other idle one would fail
            // again, so the pool must drop every idle connection it opened to that server.
            let holder = DispatchSemaphore(value: 0), held = DispatchSemaphore(value: 0)
            let other = Thread {
                _ = try? db.withConnection { connection in
                    try connection.query("SET default_transaction_read_only = on")
                    held.signal()
                    holder.wait()
                }
            }
            other.start()
            try #require(held.wait(timeout: .now() + 10) == .success)
            _ = try readOnlySession(db)
            holder.signal()
            try #require(eventually { other.isFinished })
            var runs = 0
            try db.transaction { connection in
                runs += 1
                try connection.query("INSERT INTO refused VALUES (1)")
            }
            #expect(runs == 2)
            #expect(try db.query("SELECT count(*) AS n FROM refused")[0].int("n") == 1)
        }
    }

    @Test func aPipelinedWriteRefusedAsReadOnlyIsSentAgainOnANewConnection() throws {
        try TestDatabase.with(.postgres, poolSize: 1) { (db: any Database) throws in
            let postgres = try #require(db as? PostgresDatabase)
            try db.query("CREATE TABLE refused (k BIGINT PRIMARY KEY)")
            let pid = try submitted(db, "SELECT pg_backend_pid() AS pid", writes: false).get()[0].int("pid")
            _ = try submitted(db, "SET default_transaction_read_only = on", writes: true).get()
            let retriedBefore = postgres.pipelineStatistics.retried
            let inserted = try submitted(db, "INSERT INTO refused VALUES (7) RETURNING k", writes: true)
            #expect(try inserted.get().first?.int("k") == 7)
            #expect(postgres.pipelineStatistics.retried == retriedBefore + 1)
            let newPID = try submitted(db, "SELECT pg_backend_pid() AS pid", writes: false).get()[0].int("pid")
            #expect(newPID != pid)
            #expect(try db.query("SELECT count(*) AS n FROM refused")[0].int("n") == 1)
        }
    }

    /// Makes the pool's idle connection refuse writes; returns its server process id.
    private func readOnlySession(_ db: any Database) throws -> Int64 {
        try db.withConnection { connection in
            try connection.query("SET default_transaction_read_only = on")
            return try connection.query("SELECT pg_backend_pid() AS pid")[0].int("pid")
        }
    }

    /// Submits `sql` and waits (up to 10 s) for its answer.
    private func submitted(_ db: any Database, _ sql: SQL, writes: Bool) throws -> Result<[Row], any Error> {
        let answer = Answer()
        let done = DispatchSemaphore(value: 0)
        db.submit(sql, writes: writes) { result in
            answer.set(result)
            done.signal()
        }
        try #require(done.wait(timeout: .now() + 10) == .success, "no answer within 10 s")
        return try #require(answer.get())
    }

    /// One statement's answer, set on the pipeline's thread.
    private final class Answer: @unchecked Sendable {  // `result` only under `lock`
        private let lock = NSLock()
        private var result: Result<[Row], any Error>?
        func set(_ value: Result<[Row], any Error>) { lock.lock(); result = value; lock.unlock() }
        func get() -> Result<[Row], any Error>? { lock.lock(); defer { lock.unlock() }; return result }
    }
}
