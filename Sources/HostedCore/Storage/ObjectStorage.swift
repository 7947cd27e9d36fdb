/// A bucket of opaque objects by key (S3-compatible object storage): what the artifact store
/// puts sealed photos in. The S3 client in `HostedOutbound` implements it; storage code only
/// sees this, so it never depends on HTTP.
public protocol ObjectStorage: Sendable {
    /// Writes `bytes` under `key`, replacing what was there. Idempotent: the same key and bytes
    /// twice leave the same object, so a retry after an unclear failure is safe.
    func put(_ key: String, _ bytes: [UInt8]) throws(ObjectStorageError)
    /// The object's bytes; `.notFound` when there is none.
    func get(_ key: String) throws(ObjectStorageError) -> [UInt8]
    /// Removes the object; removing one that is not there succeeds.
    func delete(_ key: String) throws(ObjectStorageError)
    /// Nil when the bucket answers and takes the credentials, else why not (for `/readyz`).
    func problem() -> String?
    /// Where keys live in the bucket (`""` or a path without a trailing slash); part of each key.
    var prefix: String { get }
}

/// Why an object operation failed; `reason` is for logs and `/readyz`, never holds a secret.
public enum ObjectStorageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The store did not answer, timed out, failed (5xx), or refused the request (wrong
    /// credentials, no such bucket).
    case unavailable(reason: String)
    /// No object under this key.
    case notFound

    public var description: String {
        switch self {
        case .unavailable(let reason): "object store unavailable: \(reason)"
        case .notFound: "no such object"
        }
    }
}
