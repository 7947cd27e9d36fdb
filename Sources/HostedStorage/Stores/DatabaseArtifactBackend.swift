import Foundation
import HostedCore
import HostedCrypto

/// Artifact bytes in the database row (`content`), sealed (AES-256-GCM) with the verification's
/// data key as objects are (migration 0029; rows written before keep clear bytes,
/// `content_sealed` 0). The row carries the SHA-256 and size of the artifact's own bytes, checked
/// on every read; redaction erases the bytes in its transaction and shreds the key, so a copy
/// of the row made earlier (a heap page, the WAL, a backup) no longer opens.
public struct DatabaseArtifactBackend: ArtifactBackend {
    let database: any Database
    let keys: DataKeyStore

    public init(database: any Database, keys: DataKeyStore) {
        self.database = database
        self.keys = keys
    }

    public var storage: ArtifactStorage { .database }

    public func prepare(_ content: [UInt8], artifactID: ObjectID, verificationID: ObjectID, accountID: ObjectID,
                        at time: Date) throws -> PreparedArtifact {
        try database.transaction { connection in
            try prepare(content, artifactID: artifactID, verificationID: verificationID, at: time, on: connection)
        }
    }

    /// The same on the caller's transaction (a form or a DigiLocker document, written with its step).
    func prepare(_ content: [UInt8], artifactID: ObjectID, verificationID: ObjectID, at time: Date,
                 on connection: DatabaseConnection) throws -> PreparedArtifact {
        guard let dataKey = try keys.dataKey(for: verificationID, on: connection, at: time) else {
            throw DomainError.conflict(detail: "This verification was redacted.", code: .verificationClosed)
        }
        return PreparedArtifact(storage: .database, content: try ArtifactSealing.seal(content, artifactID: artifactID, with: dataKey),
                                objectKey: nil, sha256: Digest.hex(Digest.sha256(content)), bytes: content.count, contentSealed: true)
    }

    public func commit(_ prepared: PreparedArtifact, on connection: DatabaseConnection) throws {}

    public func read(_ stored: StoredArtifact) throws -> [UInt8] {
        var content = stored.content
        if stored.contentSealed {
            let dataKey = try database.withConnection { try keys.existingKey(for: stored.verificationID, on: $0) }
            guard let dataKey else {
                throw DomainError.gone(detail: "This artifact was erased when its verification was redacted.", code: .artifactRedacted)
            }
            guard let opened = dataKey.open(content, context: ArtifactSealing.context(stored.id)) else { throw DomainError.artifactIntegrity }
            content = opened
        }
        if let expected = stored.sha256, Digest.hex(Digest.sha256(content)) != expected { throw DomainError.artifactIntegrity }
        return content
    }
}

/// How an artifact's bytes are sealed with its verification's data key, in a row or an object.
enum ArtifactSealing {
    /// The nonce is derived from the artifact id and the content's hash, so sealing the same
    /// artifact again (a retried PUT, a second `artifacts migrate` run) gives the same bytes — the
    /// PUT is idempotent — and two different contents never share a nonce under one key (an
    /// artifact's content never changes).
    static func seal(_ content: [UInt8], artifactID: ObjectID, with dataKey: SecretBox) throws -> [UInt8] {
        let nonce = Array(Digest.sha256(Array("hosted/artifact-nonce/v1:\(artifactID.rawValue):".utf8) + Digest.sha256(content)).prefix(12))
        do {
            return try dataKey.seal(content, context: context(artifactID), random: nonce)
        } catch {
            throw DomainError.artifactStoreUnavailable
        }
    }

    static func context(_ artifactID: ObjectID) -> String { "artifact:" + artifactID.rawValue }
}
