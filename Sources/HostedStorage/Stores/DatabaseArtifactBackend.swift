import Foundation
import HostedCore
import HostedCrypto

/// Artifact bytes in the database row (`content`), as before issue 41: nothing happens before
/// the transaction, and the row carries the bytes' SHA-256 and size. The bytes are not sealed
/// with the data key (docs/artifacts.md says why); redaction erases them in its transaction.
public struct DatabaseArtifactBackend: ArtifactBackend {
    public init() {}

    public var storage: ArtifactStorage { .database }

    public func prepare(_ content: [UInt8], artifactID: ObjectID, verificationID: ObjectID, accountID: ObjectID,
                        at time: Date) throws -> PreparedArtifact {
        PreparedArtifact(storage: .database, content: content, objectKey: nil, sha256: Digest.hex(Digest.sha256(content)), bytes: content.count)
    }

    public func commit(_ prepared: PreparedArtifact, on connection: DatabaseConnection) throws {}

    public func read(_ stored: StoredArtifact) throws -> [UInt8] {
        if let expected = stored.sha256, Digest.hex(Digest.sha256(stored.content)) != expected { throw DomainError.artifactIntegrity }
        return stored.content
    }
}
