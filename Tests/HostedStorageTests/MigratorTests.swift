import HostedStorage
import Testing

@Suite struct MigratorTests {
    /// One set of migrations: both dialects run the same files, in the same order, and differ
    /// only where a dialect's file overrides the shared one.
    @Test func bothDialectsRunTheSameMigrationsWithOverridesWhereTheyDiffer() throws {
        let sqlite = try Migrator(dialect: .sqlite).migrations
        let postgres = try Migrator(dialect: .postgres).migrations
        #expect(sqlite.map(\.identifier) == postgres.map(\.identifier))
        #expect(sqlite.map(\.identifier) == sqlite.map(\.identifier).sorted())
        #expect(sqlite.first?.identifier == "0001_accounts")
        let differing = zip(sqlite, postgres).filter { $0.sql != $1.sql }.map(\.0.identifier)
        #expect(differing == ["0002_customer_api", "0004_artifacts", "0007_sms_queue", "0011_webhook_outbox", "0014_poll_limits", "0022_branding", "0023_test_mode", "0025_artifact_objects", "0029_sealed_personal_fields"])
        let inKind: Set = ["0011_webhook_outbox", "0014_poll_limits", "0023_test_mode"]
        for (lite, pg) in zip(sqlite, postgres) where lite.sql != pg.sql && !inKind.contains(lite.identifier) {
            #expect(lite.sql.contains("BLOB") && pg.sql.contains("BYTEA"), "\(lite.identifier)")
        }
        // The one difference in kind: PostgreSQL's webhook outbox is a trigger, SQLite's is Swift.
        let outbox = try #require(postgres.first { $0.identifier == "0011_webhook_outbox" })
        #expect(outbox.sql.contains("CREATE TRIGGER events_webhook_outbox"))
        // Test mode: PostgreSQL's outbox trigger learns the mode (its endpoints and its body).
        #expect(postgres.first { $0.identifier == "0023_test_mode" }?.sql.contains("w.livemode = NEW.livemode") == true)
        // And PostgreSQL's poll buckets are unlogged: a poll writes no WAL to flush.
        #expect(postgres.first { $0.identifier == "0014_poll_limits" }?.sql.contains("CREATE UNLOGGED TABLE poll_limits") == true)
    }

    @Test(arguments: Backend.allCases)
    func shippedMigrationsApplyOnceThenNothing(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            let migrator = try Migrator(dialect: db.dialect)
            #expect(!migrator.migrations.isEmpty)
            #expect(try migrator.pending(db) == migrator.migrations.map(\.identifier))
            let first = try migrator.migrate(db)
            #expect(first == migrator.migrations.map(\.identifier))
            #expect(try migrator.migrate(db).isEmpty)
            #expect(try migrator.pending(db).isEmpty)
            let recorded = try db.query("SELECT id FROM schema_migrations ORDER BY id").map { try $0.string("id") }
            #expect(recorded == first)
        }
    }

    /// Issue 37 (9): migration 0015 drops the rate-limit buckets older versions named with a
    /// number in clear (and only those), and gives the dev outbox its verification column.
    @Test(arguments: Backend.allCases)
    func migration0015DropsBucketsThatNameANumberInClear(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            let all = try Migrator(dialect: db.dialect).migrations
            let before = all.filter { $0.identifier < "0015_sms_numbers" }
            try Migrator(migrations: before).migrate(db)
            for bucket in ["otp-number:+919876543210", "otp-ip:192.0.2.1", "otp-number:3f2a9c"] {
                try db.query("INSERT INTO rate_limits (bucket, tat, allowed) VALUES (\(bucket), 1, 1)")
            }
            try Migrator(migrations: all).migrate(db)
            let kept = try db.query("SELECT bucket FROM rate_limits ORDER BY bucket").map { try $0.string("bucket") }
            #expect(kept == ["otp-ip:192.0.2.1", "otp-number:3f2a9c"])
            try db.query("INSERT INTO sms_outbox (id, to_number, body, created_at, verification_id) VALUES ('m1', '+1', 'x', 1, 'ver_1')")
        }
    }

    @Test(arguments: Backend.allCases)
    func appliesInIdentifierOrder(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            // Given out of order: the second depends on the first, so only sorted order succeeds.
            let migrator = Migrator(migrations: [
                .init(identifier: "0002_fill", sql: "INSERT INTO t (v) VALUES ('from 2')"),
                .init(identifier: "0001_create", sql: "CREATE TABLE t (v TEXT)"),
            ])
            #expect(try migrator.migrate(db) == ["0001_create", "0002_fill"])
            #expect(try db.query("SELECT v FROM t")[0].string("v") == "from 2")
        }
    }

    @Test(arguments: Backend.allCases)
    func failedMigrationLeavesNoTrace(_ backend: Backend) throws {
        try TestDatabase.with(backend) { (db: any Database) throws in
            let broken = Migrator(migrations: [
                .init(identifier: "0001_ok", sql: "CREATE TABLE a (v TEXT)"),
                .init(identifier: "0002_broken", sql: "CREATE TABLE b (v TEXT); INSERT INTO nowhere VALUES (1)"),
            ])
            #expect(throws: DatabaseError.self) { try broken.migrate(db) }
            #expect(try broken.pending(db) == ["0002_broken"])
            // Table b was created inside the failed migration's transaction, so it is gone.
            #expect(throws: DatabaseError.self) { _ = try db.query("SELECT v FROM b") }
            #expect(try db.query("SELECT count(*) AS n FROM a")[0].int("n") == 0)
        }
    }
}
