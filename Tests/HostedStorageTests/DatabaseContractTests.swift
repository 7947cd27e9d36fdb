import Dispatch
import Foundation
import HostedStorage
import HostedTestSupport
import Testing

/// The behaviour both stores promise, run against SQLite and PostgreSQL alike.
@Suite struct DatabaseContractTests {
    @Test(arguments: Backend.allCases)
    func valuesRoundTrip(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            try db.withConnection { try $0.executeScript("CREATE TABLE t (i BIGINT, s TEXT, b BYTEA_OR_BLOB, n TEXT)".replacingOccurrences(of: "BYTEA_OR_BLOB", with: db.dialect == .postgres ? "BYTEA" : "BLOB")) }
            let blob: [UInt8] = [0, 1, 2, 0xFF, 0x5C, 0x78, 0]
            try db.query("INSERT INTO t (i, s, b, n) VALUES (\(Int64.max), \("नमस्ते 'quoted' \\ \"x\""), \(blob), \(.null))")
            let row = try #require(try db.query("SELECT i, s, b, n FROM t").first)
            #expect(try row.int("i") == Int64.max)
            #expect(try row.string("s") == "नमस्ते 'quoted' \\ \"x\"")
            #expect(try row.blob("b") == blob)
            #expect(row["n"] == .null)
            #expect(try row.optionalString("n") == nil)
        }
    }

    /// Integers of every width come back exact, at both ends of Int64 and around zero
    /// (PostgreSQL sends them as text, read in place).
    @Test(arguments: Backend.allCases)
    func integersRoundTripAtTheirLimits(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            try db.withConnection { try $0.executeScript("CREATE TABLE t (k BIGINT, i BIGINT, small INTEGER)") }
            let values: [Int64] = [.min, .min + 1, -1_000_000_007, -10, -1, 0, 1, 9, 10, 2_147_483_647, .max - 1, .max]
            for (k, value) in values.enumerated() {
                let small = Int64(Int32(truncatingIfNeeded: value))
                try db.query("INSERT INTO t VALUES (\(Int64(k)), \(value), \(small))")
            }
            let rows = try db.query("SELECT i, small FROM t ORDER BY k")
            #expect(try rows.map { try $0.int("i") } == values)
            #expect(try rows.map { try $0.int("small") } == values.map { Int64(Int32(truncatingIfNeeded: $0)) })
        }
    }

    /// Text holding a NUL is never cut short: both stores refuse the statement (PostgreSQL's
    /// text cannot hold one; SQLite's C API would end the string there) and store nothing.
    @Test(arguments: Backend.allCases)
    func textWithANULIsRefusedNotCutShort(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            try db.withConnection { try $0.executeScript("CREATE TABLE t (k BIGINT, s TEXT)") }
            #expect(throws: DatabaseError.invalidValue(message: "text parameter contains NUL")) {
                try db.query("INSERT INTO t VALUES (1, \("before\u{0}after"))")
            }
            #expect(try db.query("SELECT k FROM t").isEmpty)
            try db.query("INSERT INTO t VALUES (2, \("plain"))")
            #expect(try db.query("SELECT s FROM t").first?.string("s") == "plain")
        }
    }

    /// A statement's column names are remembered from its first result; a schema change that
    /// gives it another column is noticed on one connection (SQLite re-prepares the statement
    /// and the new column is read by name; PostgreSQL refuses the changed result), never a row
    /// whose names and values disagree.
    @Test(arguments: Backend.allCases)
    func aStatementsColumnsFollowASchemaChange(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            try db.withConnection { connection in
                try connection.executeScript("CREATE TABLE t (a BIGINT); INSERT INTO t VALUES (1)")
                #expect(try connection.query("SELECT * FROM t").first?.int("a") == 1)
                try connection.executeScript("ALTER TABLE t ADD COLUMN b TEXT; UPDATE t SET b = 'x'")
                do {
                    let row = try #require(try connection.query("SELECT * FROM t").first)
                    #expect(try row.int("a") == 1)
                    #expect(try row.string("b") == "x")
                    #expect(backend == .sqlite)
                } catch let error as DatabaseError {
                    #expect(backend == .postgres, "\(error)")
                }
            }
        }
    }

    /// Parameters share one buffer on PostgreSQL: each must be read from its own place, whatever
    /// comes before it (a blob, an empty value, a NULL) and even when every one is NULL.
    @Test(arguments: Backend.allCases)
    func emptyNullAndMixedParametersEachKeepTheirOwnValue(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            let blobType = db.dialect == .postgres ? "BYTEA" : "BLOB"
            try db.withConnection {
                try $0.executeScript("CREATE TABLE t (k BIGINT, b1 \(blobType), s1 TEXT, n TEXT, b2 \(blobType), s2 TEXT, i BIGINT)")
            }
            let blob: [UInt8] = [0x41, 0, 0x42]
            try db.query("INSERT INTO t VALUES (1, \(blob), \(""), \(.null), \([UInt8]()), \("after"), \(-42 as Int64))")
            try db.query("INSERT INTO t VALUES (2, \(.null), \(.null), \(.null), \(.null), \(.null), \(.null))")
            let rows = try db.query("SELECT b1, s1, n, b2, s2, i FROM t ORDER BY k")
            try #require(rows.count == 2)
            #expect(try rows[0].blob("b1") == blob)
            #expect(try rows[0].string("s1") == "")
            #expect(rows[0]["n"] == .null)
            #expect(try rows[0].blob("b2") == [])
            #expect(try rows[0].string("s2") == "after")
            #expect(try rows[0].int("i") == -42)
            for column in ["b1", "s1", "n", "b2", "s2", "i"] { #expect(rows[1][column] == .null) }
        }
    }

    /// A statement built once names a placeholder more than once; both stores bind every use,
    /// and the same text run again with other values (from the statement cache) reads them,
    /// as do two texts of the same length.
    @Test(arguments: Backend.allCases)
    func aPlaceholderUsedTwiceBindsBothUses_andCachedStatementsTakeNewValues(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            try db.withConnection { try $0.executeScript("CREATE TABLE t (a BIGINT, b BIGINT, s TEXT)") }
            enum Slot: Hashable { case a, step, s }
            let insert: SQL.Template<Slot> = """
                INSERT INTO t (a, b, s) VALUES (CAST(\(parameter: .a) AS BIGINT), CAST(\(parameter: .a) AS BIGINT) + CAST(\(parameter: .step) AS BIGINT), \(parameter: .s))
                """
            for value in [1, 2, 3] as [Int64] {
                try db.query(insert.bind { slot in
                    switch slot {
                    case .a: .integer(value)
                    case .step: .integer(10)
                    case .s: .text("v\(value)")
                    }
                })
            }
            enum Value: Hashable { case value }
            let sameLengthA: SQL.Template<Value> = "SELECT s FROM t WHERE a = CAST(\(parameter: .value) AS BIGINT) ORDER BY a"
            let sameLengthB: SQL.Template<Value> = "SELECT s FROM t WHERE b = CAST(\(parameter: .value) AS BIGINT) ORDER BY a"
            #expect(sameLengthA.text.utf8.count == sameLengthB.text.utf8.count)
            #expect(try db.query(sameLengthA.bind { _ in .integer(2) }).map { try $0.string("s") } == ["v2"])
            #expect(try db.query(sameLengthB.bind { _ in .integer(13) }).map { try $0.string("s") } == ["v3"])
            #expect(try db.query(sameLengthA.bind { _ in .integer(1) }).map { try $0.string("s") } == ["v1"])
            #expect(try db.query("SELECT a FROM t WHERE b = a + 10").count == 3)
        }
    }

    @Test(arguments: Backend.allCases)
    func parametersAreNeverInterpolated(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            try db.withConnection { try $0.executeScript("CREATE TABLE t (s TEXT)") }
            let hostile = "x'); DROP TABLE t; --"
            try db.query("INSERT INTO t (s) VALUES (\(hostile))")
            #expect(try db.query("SELECT s FROM t WHERE s = \(hostile)").count == 1)
        }
    }

    @Test(arguments: Backend.allCases)
    func uniqueViolationIsTyped(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            try db.withConnection { try $0.executeScript("CREATE TABLE t (k TEXT PRIMARY KEY)") }
            try db.query("INSERT INTO t (k) VALUES (\("a"))")
            #expect {
                _ = try db.query("INSERT INTO t (k) VALUES (\("a"))")
            } throws: { error in
                if case DatabaseError.uniqueViolation = error { return true }
                return false
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func transactionRollsBackWhenBodyThrows(_ backend: Backend) throws {
        struct Abort: Error {}
        try TestDatabase.with(backend) { (db: any Database) throws in
            try db.withConnection { try $0.executeScript("CREATE TABLE t (k TEXT)") }
            #expect(throws: Abort.self) {
                try db.transaction { connection in
                    try connection.query("INSERT INTO t (k) VALUES (\("lost"))")
                    throw Abort()
                }
            }
            _ = try db.transaction { try $0.query("INSERT INTO t (k) VALUES (\("kept"))") }
            #expect(try db.query("SELECT k FROM t").map { try $0.string("k") } == ["kept"])
        }
    }

    /// Parallel read-then-write transactions from several threads: none is lost, none fails busy.
    @Test(arguments: Backend.allCases)
    func parallelWriteTransactionsSerialise(_ backend: Backend) throws {
        try TestDatabase.with(backend, poolSize: 8) { (db: any Database) throws in
            try db.withConnection { try $0.executeScript("CREATE TABLE counter (id INTEGER PRIMARY KEY, n BIGINT NOT NULL); INSERT INTO counter VALUES (1, 0)") }
            let failures = Counter()
            DispatchQueue.concurrentPerform(iterations: 40) { _ in
                do {
                    try db.transaction { connection in
                        if db.dialect == .postgres { try connection.query("SELECT n FROM counter WHERE id = 1 FOR UPDATE") }
                        let n = try connection.query("SELECT n FROM counter WHERE id = 1")[0].int("n")
                        try connection.query("UPDATE counter SET n = \(n + 1) WHERE id = 1")
                    }
                } catch {
                    failures.increment()
                }
            }
            #expect(failures.value == 0)
            #expect(try db.query("SELECT n FROM counter WHERE id = 1")[0].int("n") == 40)
        }
    }

    @Test(arguments: Backend.allCases)
    func badSQLIsATypedErrorAndTheConnectionStaysUsable(_ backend: Backend) throws {
        try TestDatabase.with(backend, poolSize: 1) { (db: any Database) throws in
            #expect(throws: DatabaseError.self) { _ = try db.query("SELEC nonsense") }
            #expect(try db.query("SELECT 1 AS one")[0].int("one") == 1)
        }
    }

    @Test func databaseErrorDescriptionLeaksNothing() {
        let error = DatabaseError.other(code: "42P01", message: "relation \"secret_table\" does not exist")
        #expect(error.description == "database error")
        #expect(error.debugDescription.contains("secret_table"))
    }

    @Test func postgresSerializationFailureIsTyped() throws {
        try TestDatabase.with(.postgres) { (db: any Database) throws in
            #expect(throws: DatabaseError.serializationFailure) {
                _ = try db.query("DO $$ BEGIN RAISE EXCEPTION 'conflict' USING ERRCODE = '40001'; END $$")
            }
        }
    }

    /// The server ends every connection of the pool (as a restart or failover does); the pool
    /// drops them and the next queries succeed on fresh connections.
    @Test func postgresPoolRecoversFromKilledConnections() throws {
        try TestDatabase.with(.postgres, poolSize: 2) { (db: any Database) throws in
            let pids = Set(try (0..<4).map { _ in try db.query("SELECT pg_backend_pid() AS pid")[0].int("pid") })
            let killer = try PostgresDatabase(url: Backend.postgresURL!, poolSize: 1)
            defer { killer.close() }
            for pid in pids { try killer.query("SELECT pg_terminate_backend(\(pid)::int)") }
            // A failover is over once its server processes are gone: from then on the pool's
            // stale connections read end-of-file and are replaced before use.
            let gone = try eventually(pause: 0.02) {
                let left = try killer.query("""
                    SELECT count(*) AS n FROM pg_stat_activity
                    WHERE pid = ANY(\("{" + pids.map(String.init).joined(separator: ",") + "}")::int[])
                    """)
                return try left[0].int("n") == 0
            }
            try #require(gone, "the terminated server processes are still there")
            #expect(try db.query("SELECT 2 AS two")[0].int("two") == 2)
            #expect(try db.query("SELECT 3 AS three")[0].int("three") == 3)
            let newPID = try db.query("SELECT pg_backend_pid() AS pid")[0].int("pid")
            #expect(!pids.contains(newPID))
        }
    }

    /// A real restart of the server. It would break every other test's connections, so it runs
    /// only when `HOSTED_TEST_PG_RESTART_ALLOWED=1`, in its own step of the test command.
    @Test func postgresReconnectsAfterServerRestart() throws {
        let environment = ProcessInfo.processInfo.environment
        guard environment["HOSTED_TEST_PG_RESTART_ALLOWED"] == "1" else { return }
        guard let restart = environment["HOSTED_TEST_PG_RESTART"] else {
            Issue.record("HOSTED_TEST_PG_RESTART is not set")
            return
        }
        try TestDatabase.with(.postgres, poolSize: 2) { (db: any Database) throws in
            try db.query("CREATE TABLE restarted (k BIGINT PRIMARY KEY)")
            // Both ways to the server hold a connection before the restart: the pool and the
            // pipeline behind `submit`.
            #expect(try db.query("SELECT 1 AS one")[0].int("one") == 1)
            #expect(try submitted(db, "SELECT 1 AS one", writes: false).get()[0].int("one") == 1)
            #expect(try Subprocess.shell(restart + " >/dev/null 2>&1") == 0)
            // Nothing was in flight during the restart, so the first statement of each kind after
            // it succeeds: a restart costs at most the requests in flight (DESIGN).
            #expect(try submitted(db, "SELECT 2 AS two", writes: false).get()[0].int("two") == 2)
            #expect(try submitted(db, "INSERT INTO restarted VALUES (1)", writes: true).get().isEmpty)
            try db.transaction { try $0.query("INSERT INTO restarted VALUES (2)") }
            #expect(try db.query("SELECT count(*) AS n FROM restarted")[0].int("n") == 2)
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

    @Test func postgresWrongURLFailsAtOpen() {
        #expect {
            _ = try PostgresDatabase(url: "postgres://nobody@127.0.0.1:1/none?connect_timeout=2")
        } throws: { error in
            if case DatabaseError.cannotConnect = error { return true }
            return false
        }
    }

    @Test func sqliteUnopenablePathFailsAtOpen() {
        #expect(throws: (any Error).self) { _ = try SQLiteDatabase(path: "/proc/hosted-cannot-create/x.sqlite") }
    }

    @Test func databaseURLParsesAndRedacts() {
        #expect(DatabaseURL("sqlite:./x.sqlite") == .sqlite(path: "./x.sqlite"))
        #expect(DatabaseURL("postgres://u:pw@h/db") == .postgres(url: "postgres://u:pw@h/db"))
        #expect(DatabaseURL("mysql://x") == nil)
        #expect(DatabaseURL("sqlite:") == nil)
        #expect(DatabaseURL("postgres://u:pw@h/db")?.redacted == "postgres://u:***@h/db")
    }
}

