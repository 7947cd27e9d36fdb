import Foundation
import HostedCore
import HostedCrypto

/// Each verification's own 256-bit data key, sealed with a key derived from the service's secret
/// key and kept in the verification's own row (`verifications.data_key`, migration 0029; in
/// `verification_keys` from 0025 until then). Whatever is sealed with it — its personal fields,
/// notes, stored answers and artifacts, in the database or in S3 — becomes unreadable
/// everywhere at once when redaction deletes it: heap files, WAL, replicas, backups and bucket
/// versions keep only ciphertext whose key is gone.
public struct DataKeyStore: Sendable {
    private let box: SecretBox
    private let random: any RandomSource

    /// `secretKey` is the service's secret key (`HOSTED_SECRET_KEY`); the key that seals data
    /// keys is derived from it for this purpose alone.
    public init(secretKey: [UInt8], random: any RandomSource) {
        box = SecretBox.derive(from: secretKey, label: "hosted/verification-keys/v1")
        self.random = random
    }

    /// The verification's data key, made on first need on the caller's connection (inside its
    /// transaction, so the key commits with what it seals, or not at all) for a verification
    /// written before migration 0029; nil once redaction deleted it, or when there is no such
    /// verification. Two callers making it at once get the same key (the second update finds
    /// one and reads it). Seal with a `context` naming what is sealed (`artifact:{id}`), so a
    /// sealed value cannot be moved.
    public func dataKey(for verificationID: ObjectID, on connection: DatabaseConnection, at time: Date = Date()) throws -> SecretBox? {
        switch try read(verificationID, on: connection) {
        case .key(let key): return key
        case .shredded: return nil
        case .none: break
        }
        let (_, sealed) = try newKey(for: verificationID)
        try connection.query("""
            UPDATE verifications SET data_key = \(sealed)
            WHERE id = \(verificationID.rawValue) AND data_key IS NULL AND redacted_at IS NULL
            """)
        if case .key(let key) = try read(verificationID, on: connection) { return key }
        return nil
    }

    /// A new data key for a verification, and its sealed form for the row (`data_key`): a create
    /// seals its personal fields with the key and writes both at once.
    public func newKey(for verificationID: ObjectID) throws -> (key: SecretBox, sealed: [UInt8]) {
        let key = random.bytes(32)
        return (SecretBox(key: key), try box.seal(key, context: Self.context(verificationID), random: random.bytes(12)))
    }

    /// The key in `sealed` (a `data_key` read with the verification's row); throws `Unreadable`
    /// when it does not open.
    public func open(_ sealed: [UInt8], for verificationID: ObjectID) throws -> SecretBox {
        guard let key = box.open(sealed, context: Self.context(verificationID)), key.count == 32 else { throw Unreadable() }
        return SecretBox(key: key)
    }

    /// The existing key only (nil when there is none yet or it was deleted): for reading.
    public func existingKey(for verificationID: ObjectID, on connection: DatabaseConnection) throws -> SecretBox? {
        if case .key(let key) = try read(verificationID, on: connection) { return key }
        return nil
    }

    /// Deletes the key on the caller's transaction (redaction, which sets `redacted_at` in the
    /// same transaction, so it is never made again). Repeating it changes nothing.
    public static func shred(_ verificationID: ObjectID, at time: Date, on connection: DatabaseConnection) throws {
        try connection.query("UPDATE verifications SET data_key = NULL WHERE id = \(verificationID.rawValue) AND data_key IS NOT NULL")
    }

    /// Thrown when a stored key does not open: another secret key, or an altered row.
    public struct Unreadable: Error, CustomStringConvertible {
        public let description = "a verification's data key does not open with this secret key"
    }

    private enum Stored {
        case none, shredded, key(SecretBox)
    }

    private func read(_ verificationID: ObjectID, on connection: DatabaseConnection) throws -> Stored {
        guard let row = try connection.query("""
            SELECT data_key, redacted_at FROM verifications WHERE id = \(verificationID.rawValue)
            """).first
        else { return .shredded }  // no such verification: nothing may be sealed for it
        if case .blob(let sealed) = row["data_key"] { return .key(try open(sealed, for: verificationID)) }
        return row["redacted_at"] == .null ? .none : .shredded
    }

    private static func context(_ verificationID: ObjectID) -> String { "verification-key:" + verificationID.rawValue }
}
