import Foundation
import HostedCore

/// `hosted artifacts migrate`: moves artifacts whose bytes are in the database to the object
/// store, in batches by id. Each artifact: the intent and data key (committed), the PUT, then
/// one transaction that switches the row to `s3` and empties its `content`. Safe while
/// serving (the row is switched only if it is still a live database row; readers see either
/// the old row or the new one); killed at any point and run again, it finishes: a second PUT
/// of an artifact writes the same bytes (`ObjectArtifactBackend.seal` is deterministic per
/// artifact), and an object left by a kill before its row switched is an orphan the sweeper
/// deletes once its intent is older than the grace — or is reused by the next run.
public struct ArtifactMigration: Sendable {
    let database: any Database
    let target: ObjectArtifactBackend

    public init(database: any Database, target: ObjectArtifactBackend) {
        self.database = database
        self.target = target
    }

    /// What one batch did.
    public struct Batch: Equatable, Sendable {
        public var moved = 0
        /// Rows another process redacted or moved first (left as they are).
        public var skipped = 0
        /// The last id looked at; the next batch starts after it.
        public var last: String?
    }

    /// Moves up to `limit` database artifacts with ids after `after`. Throws 503
    /// `artifact_store_unavailable` when a PUT fails (what was moved before stays moved).
    public func migrateBatch(after: String?, limit: Int, at time: Date) throws -> Batch {
        let rows = try database.query("""
            SELECT a.id, a.verification_id, v.account_id, a.content, a.content_sealed, a.sha256
            FROM artifacts a JOIN verifications v ON v.id = a.verification_id
            WHERE a.storage = \(ArtifactStorage.database.rawValue) AND a.redacted_at IS NULL AND a.id > \(after ?? "")
            ORDER BY a.id LIMIT \(Int64(limit))
            """)
        var batch = Batch()
        for row in rows {
            let text = try row.string("id")
            batch.last = text
            guard let id = ObjectID(.artifact, parsing: text), let verificationID = ObjectID(.verification, parsing: try row.string("verification_id")),
                  let accountID = ObjectID(.account, parsing: try row.string("account_id"))
            else { batch.skipped += 1; continue }
            // Bytes sealed in the row are opened (and checked) first, then sealed again for the object.
            let stored = StoredArtifact(id: id, verificationID: verificationID, storage: .database, content: try row.blob("content"),
                                        objectKey: nil, sha256: try row.optionalString("sha256"),
                                        contentSealed: try row.int("content_sealed") != 0)
            let content = try DatabaseArtifactBackend(database: database, keys: target.keys).read(stored)
            let prepared = try target.prepare(content, artifactID: id, verificationID: verificationID, accountID: accountID, at: time)
            let moved = try database.transaction { connection -> Bool in
                guard let key = prepared.objectKey, try ArtifactObjectQueue.consumeIntent(key, on: connection) else {
                    throw DomainError.artifactStoreUnavailable
                }
                let switched = try connection.query("""
                    UPDATE artifacts SET storage = \(ArtifactStorage.s3.rawValue), object_key = \(key), sha256 = \(prepared.sha256),
                        bytes = \(Int64(prepared.bytes)), content = \([UInt8]()), content_sealed = 0
                    WHERE id = \(text) AND storage = \(ArtifactStorage.database.rawValue) AND redacted_at IS NULL
                    RETURNING id
                    """)
                if switched.isEmpty {
                    // Redacted meanwhile, or moved by another run: this object is only kept if that
                    // run's row names it (the same bytes); else it goes.
                    let named = try connection.query("""
                        SELECT 1 AS n FROM artifacts WHERE id = \(text) AND object_key = \(key) AND redacted_at IS NULL
                        """)
                    if named.isEmpty { try ArtifactObjectQueue.queueDeletion(key, at: time, on: connection) }
                    return false
                }
                return true
            }
            if moved { batch.moved += 1 } else { batch.skipped += 1 }
        }
        return batch
    }

    /// Artifacts whose bytes are still in the database (redacted ones aside).
    public func remaining() throws -> Int {
        Int(try database.query("""
            SELECT count(*) AS n FROM artifacts WHERE storage = \(ArtifactStorage.database.rawValue) AND redacted_at IS NULL
            """)[0].int("n"))
    }
}
