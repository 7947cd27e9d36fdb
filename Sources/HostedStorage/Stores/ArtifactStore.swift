import Foundation
import HostedCore

/// Captured images and forms. Rows are inserted on the caller's transaction, so an artifact and
/// the step listing it commit together or not at all. Where the bytes go is `backend`'s
/// (`HOSTED_ARTIFACT_STORE`: the database, or an object store, whose PUT happens in `prepare`,
/// before that transaction); each row says where its own bytes are, and `content` reads either
/// kind, so a deployment part-way through `hosted artifacts migrate` serves both.
public struct ArtifactStore: Sendable {
    private let database: any Database
    /// Where new photos go.
    public let backend: any ArtifactBackend
    /// Reads rows stored in an object store; nil when none is configured.
    public let objects: ObjectArtifactBackend?
    private let inDatabase: DatabaseArtifactBackend

    /// `keys`: the verifications' data keys, which seal the bytes kept in the database.
    public init(database: any Database, keys: DataKeyStore, objects: ObjectArtifactBackend? = nil) {
        self.database = database
        self.objects = objects
        inDatabase = DatabaseArtifactBackend(database: database, keys: keys)
        backend = objects ?? inDatabase
    }

    /// Stores `content` where new artifacts go — for an object store, the PUT happens here — and
    /// returns what `insert(_:…)` records. Call it with no transaction open.
    public func prepare(_ content: [UInt8], id: ObjectID, verificationID: ObjectID, accountID: ObjectID, at time: Date) throws -> PreparedArtifact {
        try backend.prepare(content, artifactID: id, verificationID: verificationID, accountID: accountID, at: time)
    }

    /// Adds the row of a prepared artifact on the caller's transaction.
    public func insert(_ prepared: PreparedArtifact, id: ObjectID, verificationID: ObjectID, stepID: String, contentType: String,
                       at time: Date, on connection: DatabaseConnection) throws {
        switch prepared.storage {
        case .database: try inDatabase.commit(prepared, on: connection)
        case .s3:
            guard let objects else { throw DomainError.artifactStoreUnavailable }
            try objects.commit(prepared, on: connection)
        }
        try connection.query("""
            INSERT INTO artifacts (id, verification_id, step_id, content_type, content, created_at, storage, object_key, sha256, bytes,
                                   content_sealed)
            VALUES (\(id.rawValue), \(verificationID.rawValue), \(stepID), \(contentType), \(prepared.content), \(time),
                    \(prepared.storage.rawValue), \(SQLValue.optionalText(prepared.objectKey)), \(prepared.sha256), \(Int64(prepared.bytes)),
                    \(prepared.contentSealed ? 1 : 0))
            """)
    }

    /// Adds an artifact whose bytes stay in the database row (forms, DigiLocker documents: written
    /// inside their step's transaction, where no network call may happen), on the caller's transaction.
    public func insert(id: ObjectID, verificationID: ObjectID, stepID: String, contentType: String, content: [UInt8],
                       at time: Date, on connection: DatabaseConnection) throws {
        let prepared = try inDatabase.prepare(content, artifactID: id, verificationID: verificationID, at: time, on: connection)
        try insert(prepared, id: id, verificationID: verificationID, stepID: stepID, contentType: contentType, at: time, on: connection)
    }

    /// An artifact's bytes and type, if it belongs to this verification; `gone` once redacted.
    /// Bytes in an object store are fetched, checked against the row's SHA-256 and opened here
    /// (503 `artifact_store_unavailable` when the store fails, `artifact_integrity_failed` on a mismatch).
    public func content(id: ObjectID, verificationID: ObjectID) throws -> (contentType: String, content: [UInt8])? {
        guard let row = try database.query("""
            SELECT content_type, content, redacted_at, storage, object_key, sha256, content_sealed FROM artifacts
            WHERE id = \(id.rawValue) AND verification_id = \(verificationID.rawValue)
            """).first
        else { return nil }
        guard try row.optionalInt("redacted_at") == nil else {
            throw DomainError.gone(detail: "This artifact was erased when its verification was redacted.", code: .artifactRedacted)
        }
        let storage = ArtifactStorage(rawValue: try row.string("storage")) ?? .database
        let stored = StoredArtifact(id: id, verificationID: verificationID, storage: storage, content: try row.blob("content"),
                                    objectKey: try row.optionalString("object_key"), sha256: try row.optionalString("sha256"),
                                    contentSealed: try row.int("content_sealed") != 0)
        switch storage {
        case .database: return (try row.string("content_type"), try inDatabase.read(stored))
        case .s3:
            guard let objects else { throw DomainError.artifactStoreUnavailable }
            return (try row.string("content_type"), try objects.read(stored))
        }
    }

    /// What is known about an artifact without its bytes.
    public struct Summary: Equatable, Sendable {
        public let id: String
        public let stepID: String
        public let contentType: String
        public let createdAt: Date
        public let redacted: Bool
        /// SHA-256 (hex) and size of the artifact's own bytes, kept after redaction (the evidence
        /// bundle lists them): known for rows whose bytes are in the database, from migration
        /// 0025 on; nil for object-store rows, whose row hash is of the sealed object.
        public var contentSHA256: String?
        public var contentBytes: Int?
    }

    /// The verification's artifacts, oldest first, without their bytes.
    public func list(verificationID: ObjectID) throws -> [Summary] {
        try database.query("""
            SELECT id, step_id, content_type, created_at, redacted_at, storage, sha256, bytes FROM artifacts
            WHERE verification_id = \(verificationID.rawValue) ORDER BY created_at, id
            """).map { row in
            var summary = Summary(id: try row.string("id"), stepID: try row.string("step_id"), contentType: try row.string("content_type"),
                                  createdAt: try row.date("created_at"), redacted: try row.optionalInt("redacted_at") != nil)
            if try row.string("storage") == ArtifactStorage.database.rawValue {
                summary.contentSHA256 = try row.optionalString("sha256")
                summary.contentBytes = try row.optionalInt("bytes").map(Int.init)
            }
            return summary
        }
    }
}
