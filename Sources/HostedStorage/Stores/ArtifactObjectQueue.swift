import Foundation
import HostedCore

/// The bookkeeping of objects in the artifact store (migration 0025): intents (an object about
/// to be written), the queue of objects to delete, and the sweeper's pass over both. Deletions
/// are claimed with a lease (`FOR UPDATE SKIP LOCKED` on PostgreSQL, one writer on SQLite), so
/// any number of processes sweep without deleting twice at once; a DELETE that fails is tried
/// again when its lease runs out.
public struct ArtifactObjectQueue: Sendable {
    let database: any Database
    let objects: any ObjectStorage
    /// `HOSTED_ORPHAN_GRACE_SECONDS`: how old an intent must be before its object counts as an orphan.
    public let orphanGrace: TimeInterval

    public init(database: any Database, objects: any ObjectStorage, orphanGrace: TimeInterval) {
        self.database = database
        self.objects = objects
        self.orphanGrace = orphanGrace
    }

    static let lease: TimeInterval = 60

    /// Records, on the caller's (own, committed-before-the-PUT) transaction, that `key` is about to be written.
    static func recordIntent(_ key: String, at time: Date, on connection: DatabaseConnection) throws {
        try connection.query("""
            INSERT INTO artifact_object_intents (object_key, created_at) VALUES (\(key), \(time))
            ON CONFLICT (object_key) DO UPDATE SET created_at = excluded.created_at
            """)
    }

    /// Removes the intent on the row's transaction; false when it was gone (swept as an orphan).
    static func consumeIntent(_ key: String, on connection: DatabaseConnection) throws -> Bool {
        !(try connection.query("DELETE FROM artifact_object_intents WHERE object_key = \(key) RETURNING object_key")).isEmpty
    }

    /// On the redaction's transaction: deletes the data key (crypto-shredding: every object of
    /// the verification is unreadable from this commit on) and queues its objects for deletion.
    public static func redact(verificationID: ObjectID, at time: Date, on connection: DatabaseConnection) throws {
        try DataKeyStore.shred(verificationID, at: time, on: connection)
        try connection.query("""
            INSERT INTO artifact_object_deletions (object_key, available_at, attempts, created_at)
            SELECT object_key, \(time), 0, \(time) FROM artifacts
            WHERE verification_id = \(verificationID.rawValue) AND storage = \(ArtifactStorage.s3.rawValue) AND object_key IS NOT NULL
            ON CONFLICT (object_key) DO NOTHING
            """)
    }

    /// What one pass did.
    public struct Pass: Equatable, Sendable {
        /// Intents past the grace whose object was queued for deletion.
        public var orphans = 0
        /// Objects deleted from the store.
        public var deleted = 0
        /// Deletions that failed (tried again after the lease).
        public var failed = 0
    }

    /// Queues the objects of intents older than the grace (an object no row names; an intent
    /// whose object a row does name is only dropped), then deletes up to `limit` queued objects.
    public func sweep(at time: Date, limit: Int = 100) throws -> Pass {
        var pass = Pass()
        let cutoff = time.addingTimeInterval(-orphanGrace)
        pass.orphans = try database.transaction { connection in
            let stale = try connection.query("""
                DELETE FROM artifact_object_intents WHERE object_key IN (
                    SELECT object_key FROM artifact_object_intents WHERE created_at <= \(cutoff) ORDER BY created_at LIMIT \(Int64(limit)))
                RETURNING object_key
                """).map { row in try row.string("object_key") }
            var queued = 0
            for key in stale {
                let named = try connection.query("""
                    SELECT 1 AS n FROM artifacts WHERE object_key = \(key) AND redacted_at IS NULL
                    """)
                guard named.isEmpty else { continue }
                try Self.queueDeletion(key, at: time, on: connection)
                queued += 1
            }
            return queued
        }
        let now = time.unixMilliseconds
        let lock = database.dialect == .postgres ? "FOR UPDATE SKIP LOCKED" : ""
        let claimed = try database.query("""
            UPDATE artifact_object_deletions SET available_at = \(now + Int64(Self.lease * 1000)), attempts = attempts + 1
            WHERE object_key IN (SELECT object_key FROM artifact_object_deletions WHERE available_at <= \(now)
                                 ORDER BY available_at LIMIT \(Int64(limit)) \(unsafeSQL: lock))
            RETURNING object_key
            """).map { row in try row.string("object_key") }
        for key in claimed {
            do {
                try objects.delete(key)
                try database.query("DELETE FROM artifact_object_deletions WHERE object_key = \(key)")
                pass.deleted += 1
            } catch let error as ObjectStorageError {
                _ = error  // the lease runs out and the next pass tries again
                pass.failed += 1
            }
        }
        return pass
    }

    static func queueDeletion(_ key: String, at time: Date, on connection: DatabaseConnection) throws {
        try connection.query("""
            INSERT INTO artifact_object_deletions (object_key, available_at, attempts, created_at)
            VALUES (\(key), \(time), 0, \(time)) ON CONFLICT (object_key) DO NOTHING
            """)
    }

    /// Objects waiting to be deleted, and intents not yet consumed.
    public func counts() throws -> (deletions: Int, intents: Int) {
        let row = try database.query("""
            SELECT (SELECT count(*) FROM artifact_object_deletions) AS deletions, (SELECT count(*) FROM artifact_object_intents) AS intents
            """)[0]
        return (Int(try row.int("deletions")), Int(try row.int("intents")))
    }
}
