import Foundation
import HostedCore
import HostedCrypto

/// Artifact bytes in S3-compatible object storage, sealed (AES-256-GCM, `SecretBox`) with the
/// verification's data key. The object key is `{prefix}/{account_id}/{verification_id}/{artifact_id}`:
/// ids only, no personal data. An upload is: the intent and the data key in one committed
/// transaction, then the PUT (no transaction open), then the row with the object's SHA-256 and
/// size in the caller's transaction, which consumes the intent. A crash or a failed commit
/// leaves an intent, and the sweeper deletes its object after the grace (`ArtifactObjectQueue`).
public struct ObjectArtifactBackend: ArtifactBackend {
    let database: any Database
    public let objects: any ObjectStorage
    let keys: DataKeyStore
    let report: @Sendable (String) -> Void
    private let probe = ReadinessProbe()
    private let cache: SealedObjectCache

    /// `report` receives what went wrong (for the log; never bytes or secrets). `cacheBytes`:
    /// how many bytes of sealed objects this process keeps for reads (`SealedObjectCache`; 0 for none).
    public init(database: any Database, objects: any ObjectStorage, keys: DataKeyStore, cacheBytes: Int = 0,
                report: @escaping @Sendable (String) -> Void = { _ in }) {
        self.database = database
        self.objects = objects
        self.keys = keys
        self.report = report
        cache = SealedObjectCache(capacity: cacheBytes)
    }

    public var storage: ArtifactStorage { .s3 }

    public func objectKey(artifactID: ObjectID, verificationID: ObjectID, accountID: ObjectID) -> String {
        (objects.prefix.isEmpty ? "" : objects.prefix + "/") + "\(accountID.rawValue)/\(verificationID.rawValue)/\(artifactID.rawValue)"
    }

    public func prepare(_ content: [UInt8], artifactID: ObjectID, verificationID: ObjectID, accountID: ObjectID,
                        at time: Date) throws -> PreparedArtifact {
        let key = objectKey(artifactID: artifactID, verificationID: verificationID, accountID: accountID)
        let dataKey = try database.transaction { connection -> SecretBox? in
            guard let dataKey = try keys.dataKey(for: verificationID, on: connection, at: time) else { return nil }
            try ArtifactObjectQueue.recordIntent(key, at: time, on: connection)
            return dataKey
        }
        guard let dataKey else { throw DomainError.conflict(detail: "This verification was redacted.", code: .verificationClosed) }
        let sealed = try Self.seal(content, artifactID: artifactID, with: dataKey)
        do {
            try objects.put(key, sealed)
        } catch {
            report("artifact store: PUT \(key) failed: \(error)")
            throw DomainError.artifactStoreUnavailable
        }
        cache.put(key, sealed)
        return PreparedArtifact(storage: .s3, content: [], objectKey: key, sha256: Digest.hex(Digest.sha256(sealed)), bytes: sealed.count)
    }

    public func commit(_ prepared: PreparedArtifact, on connection: DatabaseConnection) throws {
        guard let key = prepared.objectKey, try ArtifactObjectQueue.consumeIntent(key, on: connection) else {
            // The sweeper took the intent (the upload outlived the grace): its object is going.
            throw DomainError.artifactStoreUnavailable
        }
    }

    public func read(_ stored: StoredArtifact) throws -> [UInt8] {
        guard let key = stored.objectKey else { throw DomainError.artifactIntegrity }
        let dataKey = try database.withConnection { try keys.existingKey(for: stored.verificationID, on: $0) }
        guard let dataKey else {
            throw DomainError.gone(detail: "This artifact was erased when its verification was redacted.", code: .artifactRedacted)
        }
        let sealed: [UInt8]
        if let cached = cache.get(key) {
            sealed = cached
        } else {
            do {
                sealed = try objects.get(key)
            } catch {
                report("artifact store: GET \(key) failed: \(error)")
                throw DomainError.artifactStoreUnavailable
            }
        }
        guard stored.sha256.map({ Digest.hex(Digest.sha256(sealed)) == $0 }) ?? false,
              let content = dataKey.open(sealed, context: Self.context(stored.id))
        else {
            report("artifact store: \(key) does not match its row's SHA-256 or does not open; not served")
            throw DomainError.artifactIntegrity
        }
        cache.put(key, sealed)
        return content
    }

    /// Nil when the store answers and takes the credentials, else why not; asked of the store
    /// at most every two seconds (`/readyz` may be polled often).
    public func problem(now: Date = Date()) -> String? {
        probe.answer(now: now) { objects.problem() }
    }

    static func seal(_ content: [UInt8], artifactID: ObjectID, with dataKey: SecretBox) throws -> [UInt8] {
        try ArtifactSealing.seal(content, artifactID: artifactID, with: dataKey)
    }

    static func context(_ artifactID: ObjectID) -> String { ArtifactSealing.context(artifactID) }
}

/// The last answer of a slow check, kept for a short while.
final class ReadinessProbe: @unchecked Sendable {  // `checkedAt` and `last` only under `lock`
    private let lock = NSLock()
    private var checkedAt: Date?
    private var last: String?

    func answer(now: Date, _ check: () -> String?) -> String? {
        lock.lock()
        if let checkedAt, now.timeIntervalSince(checkedAt) < 2, now >= checkedAt {
            defer { lock.unlock() }
            return last
        }
        lock.unlock()
        let answer = check()
        lock.lock()
        (checkedAt, last) = (now, answer)
        lock.unlock()
        return answer
    }
}
