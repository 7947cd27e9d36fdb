import Foundation
import HostedCore

/// Where an artifact's bytes are kept: one protocol, two implementations — the database
/// (`DatabaseArtifactBackend`, the default: bytes in the row, as before issue 41) and
/// S3-compatible object storage (`ObjectArtifactBackend`: sealed with the verification's data
/// key, in an object). `HOSTED_ARTIFACT_STORE` chooses where new artifacts go; every row says
/// where its own bytes are (`storage`), so rows of both kinds are read side by side.
public protocol ArtifactBackend: Sendable {
    var storage: ArtifactStorage { get }
    /// Before the transaction that adds the row: makes the bytes durable where they go (for an
    /// object store: records the intent, then PUTs the sealed object). Never called with a
    /// database transaction open. Throws 503 `artifact_store_unavailable` when the store fails.
    func prepare(_ content: [UInt8], artifactID: ObjectID, verificationID: ObjectID, accountID: ObjectID, at time: Date) throws -> PreparedArtifact
    /// On the row's transaction: completes what `prepare` started (the intent is consumed).
    func commit(_ prepared: PreparedArtifact, on connection: DatabaseConnection) throws
    /// The bytes of a row this backend stored, checked against the row's SHA-256.
    func read(_ stored: StoredArtifact) throws -> [UInt8]
}

/// Where a row's bytes are: the `storage` column.
public enum ArtifactStorage: String, Sendable, Equatable {
    case database
    case s3
}

/// What `prepare` made: the row's `storage`, `content` (empty for an object), object key,
/// and the SHA-256 and size of the bytes as stored.
public struct PreparedArtifact: Sendable, Equatable {
    public let storage: ArtifactStorage
    public let content: [UInt8]
    public let objectKey: String?
    public let sha256: String
    public let bytes: Int
    /// `content` is sealed with the verification's data key (a database row since migration 0029).
    public var contentSealed = false
}

/// A row as read back, for its backend to fetch and check the bytes.
public struct StoredArtifact: Sendable {
    public let id: ObjectID
    public let verificationID: ObjectID
    public let storage: ArtifactStorage
    public let content: [UInt8]
    public let objectKey: String?
    /// Nil for rows written before migration 0025.
    public let sha256: String?
    /// `content` is sealed with the data key (rows written in the database since migration 0029).
    public var contentSealed = false
}

extension DomainError {
    /// A failed PUT or GET on the artifact store (down, refusing the credentials, no bucket).
    static let artifactStoreUnavailable = DomainError.unavailable(
        detail: "The artifact store is unavailable; nothing was stored. Try again shortly.", code: .artifactStoreUnavailable,
        retryAfterSeconds: 5)
    /// Stored bytes whose SHA-256 is not the row's: never served.
    static let artifactIntegrity = DomainError.unavailable(
        detail: "This artifact's stored bytes do not match their checksum; it is not served.", code: .artifactIntegrityFailed,
        retryAfterSeconds: nil)
}
