import Dispatch
import Foundation
@testable import HostedStorage
import HostedTestSupport
import Testing

/// `Database.submit`, the hot paths' way to the store: on PostgreSQL statements from many
/// threads share one connection in pipeline mode (`PostgresPipeline`); on SQLite each runs at
/// once on the caller's thread. Both must give every statement its own answer.
@Suite struct SubmitContractTests {
    /// Submits `sql` and waits (up to 10 s) for its answer.
    private func submitted(_ db: any Database, _ sql: SQL, writes: Bool = false) throws -> Result<[Row], any Error> {
        let answer = Answers()
        let done = DispatchSemaphore(value: 0)
        db.submit(sql, writes: writes) { result in
            answer.record(0, result)
            done.signal()
        }
        try #require(done.wait(timeout: .now() + 10) == .success, "no answer within 10 s")
        return try #require(answer.result(0))
    }

    /// 8 threads submit 50 reads each without waiting: every completion gets the row it asked
    /// for, and on PostgreSQL they travel in fewer batches than statements.
    @Test(arguments: Backend.allCases)
    func concurrentStatementsEachGetTheirOwnRows(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            try db.withConnection { try $0.executeScript("CREATE TABLE t (k BIGINT PRIMARY KEY, v TEXT)") }
            for k in 0..<400 { try db.query("INSERT INTO t VALUES (\(Int64(k)), \("value \(k)"))") }
            let answers = Answers()
            let group = DispatchGroup()
            DispatchQueue.concurrentPerform(iterations: 8) { thread in
                for index in 0..<50 {
                    let k = thread * 50 + index
                    group.enter()
                    db.submit("SELECT v FROM t WHERE k = \(Int64(k))", writes: false) { result in
                        answers.record(k, result)
                        group.leave()
                    }
                }
            }
            try #require(group.wait(timeout: .now() + 20) == .success, "not every statement was answered")
            for k in 0..<400 {
                let rows = try #require(answers.result(k)).get()
                #expect(rows.count == 1)
                #expect(try rows.first?.string("v") == "value \(k)")
            }
            if let postgres = db as? PostgresDatabase {
                let counts = postgres.pipelineStatistics
                #expect(counts.statements == 400)
                #expect(counts.batches < counts.statements, "statements waiting together were sent together")
            }
        }
    }

    /// A statement that fails gets its own error; the statements sent with it still run (on
    /// PostgreSQL those it aborted are sent again) and get their rows.
    @Test(arguments: Backend.allCases)
    func aFailingStatementFailsAlone(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            let answers = Answers()
            let group = DispatchGroup()
            // On PostgreSQL the sleep holds the pipeline (once its batch is sent), so the rest
            // wait and go as one batch.
            let postgres = db as? PostgresDatabase
            _ = try submitted(db, "SELECT 1 AS ready").get()
            let batchesBefore = postgres?.pipelineStatistics.batches ?? 0
            let hold: SQL = db.dialect == .postgres ? "SELECT 1 AS slept FROM pg_sleep(1)" : "SELECT 1 AS slept"
            group.enter()
            db.submit(hold, writes: false) { answers.record(-1, $0); group.leave() }
            if let postgres {
                try #require(eventually { postgres.pipelineStatistics.batches > batchesBefore }, "the hold was not sent")
            }
            for k in 0..<10 {
                group.enter()
                let sql: SQL = k == 4 ? "SELECT CAST(\("not a number") AS INTEGER) + 1 AS n" : "SELECT \(Int64(k)) + 1 AS n"
                db.submit(sql, writes: false) { answers.record(k, $0); group.leave() }
            }
            try #require(group.wait(timeout: .now() + 20) == .success)
            #expect(try answers.result(-1)?.get().first?.int("slept") == 1)
            for k in 0..<10 where k != 4 {
                #expect(try answers.result(k)?.get().first?.int("n") == Int64(k) + 1)
            }
            if db.dialect == .postgres {
                #expect(throws: DatabaseError.self) { try answers.result(4)?.get() }
                let counts = try #require(db as? PostgresDatabase).pipelineStatistics
                #expect(counts.retried > 0, "the statements after the failure were aborted and sent again")
            }
        }
    }

    /// Each write commits on its own: a write that fails (a unique violation) rolls back alone,
    /// and the writes around it stay.
    @Test(arguments: Backend.allCases)
    func writesCommitOnTheirOwn(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            try db.withConnection { try $0.executeScript("CREATE TABLE t (k BIGINT PRIMARY KEY)") }
            let answers = Answers()
            let group = DispatchGroup()
            for (index, k) in [1, 2, 1, 3].enumerated() {
                group.enter()
                db.submit("INSERT INTO t VALUES (\(Int64(k)))", writes: true) { answers.record(index, $0); group.leave() }
            }
            try #require(group.wait(timeout: .now() + 20) == .success)
            var unique = false
            if case .failure(DatabaseError.uniqueViolation) = try #require(answers.result(2)) { unique = true }
            #expect(unique, "the repeated key is refused as a unique violation")
            for index in [0, 1, 3] { _ = try #require(answers.result(index)).get() }
            #expect(try db.query("SELECT k FROM t ORDER BY k").map { try $0.int("k") } == [1, 2, 3])
        }
    }

    /// A value the store cannot take (a NUL in text) fails its own statement before anything is
    /// sent; the statements beside it get their rows, on the same connection.
    @Test(arguments: Backend.allCases)
    func aValueTheStoreCannotTakeFailsAloneAndTheConnectionStays(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            let session: SQL = db.dialect == .postgres ? "SELECT pg_backend_pid() AS session" : "SELECT 1 AS session"
            let before = try submitted(db, session).get()[0].int("session")
            let answers = Answers()
            let group = DispatchGroup()
            for k in 0..<6 {
                group.enter()
                let sql: SQL = k == 2 ? "SELECT length(\("a\u{0}b")) AS n" : "SELECT \(Int64(k)) AS n"
                db.submit(sql, writes: false) { answers.record(k, $0); group.leave() }
            }
            try #require(group.wait(timeout: .now() + 20) == .success)
            #expect(throws: DatabaseError.invalidValue(message: "text parameter contains NUL")) { try answers.result(2)?.get() }
            for k in [0, 1, 3, 4, 5] { #expect(try answers.result(k)?.get().first?.int("n") == Int64(k)) }
            #expect(try submitted(db, session).get()[0].int("session") == before)
        }
    }

    /// While no connection can be opened every statement fails at once (none is left waiting),
    /// and the first one after the server is back runs.
    @Test func postgresPipelineFailsFastWhileTheServerIsUnreachableAndRecovers() throws {
        guard Backend.postgres.isAvailable, let url = Backend.postgresURL else { return }
        final class Attempts: @unchecked Sendable {  // `count` only under `lock`
            private let lock = NSLock()
            private var count = 0
            func next() -> Int { lock.lock(); defer { lock.unlock() }; count += 1; return count }
        }
        let attempts = Attempts()
        let pipeline = PostgresPipeline { () throws(DatabaseError) in
            // The first three connections fail as an unreachable server's do.
            try PostgresConnection(url: attempts.next() <= 3 ? "postgres://nobody@127.0.0.1:1/none?connect_timeout=2" : url)
        }
        defer { pipeline.stop() }
        func one() throws -> Result<[Row], DatabaseError> {
            let answers = Answers()
            let done = DispatchSemaphore(value: 0)
            pipeline.submit("SELECT 5 AS five", bindings: [], writes: false) { result in
                answers.record(0, result.mapError { $0 })
                done.signal()
            }
            try #require(done.wait(timeout: .now() + 10) == .success, "a statement was left waiting")
            return try #require(answers.result(0)).mapError { $0 as! DatabaseError }
        }
        for _ in 0..<3 {
            var refused = false
            if case .failure(.cannotConnect) = try one() { refused = true }
            #expect(refused)
        }
        #expect(try one().get().first?.int("five") == 5)
    }

    /// On SQLite the completion has run by the time `submit` returns: a poll on SQLite never
    /// suspends its connection.
    @Test func onSQLiteTheCompletionRunsBeforeSubmitReturns() throws {
        try TestDatabase.with(.sqlite) { (db: any Database) throws in
            let answers = Answers()
            db.submit("SELECT 7 AS seven", writes: false) { answers.record(0, $0) }
            #expect(try answers.result(0)?.get().first?.int("seven") == 7)
        }
    }

    /// The server ends the pipeline's idle connection (as a restart or failover does): once its
    /// server process is gone, the very next statements — a read and a write — run on a new
    /// connection. Nothing was in flight, so nothing may fail: the dead connection is noticed
    /// before it is used.
    @Test func postgresPipelineReplacesAConnectionTheServerEndedBeforeUsingIt() throws {
        try TestDatabase.with(.postgres) { (db: any Database) throws in
            try db.withConnection { try $0.executeScript("CREATE TABLE t (k BIGINT PRIMARY KEY)") }
            let pid = try submitted(db, "SELECT pg_backend_pid() AS pid").get()[0].int("pid")
            let killer = try PostgresDatabase(url: Backend.postgresURL!, poolSize: 1)
            defer { killer.close() }
            try killer.query("SELECT pg_terminate_backend(\(pid)::int)")
            let gone = try eventually(pause: 0.02) {
                try killer.query("SELECT count(*) AS n FROM pg_stat_activity WHERE pid = \(pid)::int")[0].int("n") == 0
            }
            try #require(gone, "the terminated server process is still there")
            let recovered = try submitted(db, "SELECT pg_backend_pid() AS pid").get()[0].int("pid")
            #expect(recovered != pid)
            _ = try submitted(db, "INSERT INTO t VALUES (1)", writes: true).get()
            #expect(try db.query("SELECT count(*) AS n FROM t")[0].int("n") == 1)
        }
    }

    /// After `close()` a statement is answered at once with an error, never left waiting.
    @Test func postgresSubmitAfterCloseFails() throws {
        guard Backend.postgres.isAvailable else { return }
        let test = try Backend.postgres.makeDatabase()
        defer { test.cleanup() }
        #expect(try submitted(test.database, "SELECT 1 AS one").get()[0].int("one") == 1)
        test.database.close()
        #expect(throws: DatabaseError.self) { try submitted(test.database, "SELECT 1 AS one").get() }
    }
}

/// Answers by key, recorded from any thread.
private final class Answers: @unchecked Sendable {
    private let lock = NSLock()
    private var results: [Int: Result<[Row], any Error>] = [:]

    func record(_ key: Int, _ result: Result<[Row], any Error>) {
        lock.lock()
        results[key] = result
        lock.unlock()
    }

    func result(_ key: Int) -> Result<[Row], any Error>? {
        lock.lock()
        defer { lock.unlock() }
        return results[key]
    }
}
