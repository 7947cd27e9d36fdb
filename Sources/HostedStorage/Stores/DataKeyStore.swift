import Foundation
import HostedCore
import HostedCrypto

/// Each verification's own 256-bit data key (migration 0025), sealed with a key derived from the
/// service's secret key and kept in `verification_keys`. Whatever is sealed with it — the
/// verification's objects in S3 today, its personal fields later — becomes unreadable
/// everywhere at once when `shred` deletes it at redaction: heap files, WAL, replicas, backups
/// and bucket versions keep only ciphertext whose key is gone.
public struct DataKeyStore: Sendable {
    private let box: SecretBox
    private let random: any RandomSource

    /// `secretKey` is the service's secret key (`HOSTED_SECRET_KEY`); the key that seals data
    /// keys is derived from it for this purpose alone.
    public init(secretKey: [UInt8], random: any RandomSource) {
        box = SecretBox.derive(from: secretKey, label: "hosted/verification-keys/v1")
        self.random = random
    }

    /// The verification's data key, created on first need on the caller's connection (inside
    /// its transaction, so the key commits with what it seals, or not at all); nil once
    /// redaction shredded it. Two callers creating it at once get the same key (the second
    /// insert does nothing and reads the first). Seal with a `context` naming what is sealed
    /// (`artifact:{id}`, `verification:{id}:mobile`), so a sealed value cannot be moved.
    public func dataKey(for verificationID: ObjectID, on connection: DatabaseConnection, at time: Date = Date()) throws -> SecretBox? {
        switch try read(verificationID, on: connection) {
        case .key(let key): return key
        case .shredded: return nil
        case .none: break
        }
        let key = random.bytes(32)
        let sealed = try box.seal(key, context: Self.context(verificationID), random: random.bytes(12))
        try connection.query("""
            INSERT INTO verification_keys (verification_id, sealed_key, created_at) VALUES (\(verificationID.rawValue), \(sealed), \(time))
            ON CONFLICT (verification_id) DO NOTHING
            """)
        if case .key(let key) = try read(verificationID, on: connection) { return key }
        return nil
    }

    /// A new data key for a verification that does not exist yet, and the row that keeps it
    /// (`insert`): a create seals its personal fields with the key and writes both at once.
    public func newKey(for verificationID: ObjectID) throws -> (key: SecretBox, sealed: [UInt8]) {
        let key = random.bytes(32)
        return (SecretBox(key: key), try box.seal(key, context: Self.context(verificationID), random: random.bytes(12)))
    }

    /// The key in `sealed` (a `verification_keys.sealed_key` read with the verification's row);
    /// throws `Unreadable` when it does not open.
    public func open(_ sealed: [UInt8], for verificationID: ObjectID) throws -> SecretBox {
        guard let key = box.open(sealed, context: Self.context(verificationID)), key.count == 32 else { throw Unreadable() }
        return SecretBox(key: key)
    }

    /// The existing key only (nil when there is none yet or it was shredded): for reading.
    public func existingKey(for verificationID: ObjectID, on connection: DatabaseConnection) throws -> SecretBox? {
        if case .key(let key) = try read(verificationID, on: connection) { return key }
        return nil
    }

    /// Deletes the key on the caller's transaction (redaction), leaving a tombstone so it is
    /// never created again for this verification. Repeating it changes nothing.
    public static func shred(_ verificationID: ObjectID, at time: Date, on connection: DatabaseConnection) throws {
        try connection.query("""
            INSERT INTO verification_keys (verification_id, sealed_key, created_at, shredded_at)
            VALUES (\(verificationID.rawValue), NULL, \(time), \(time))
            ON CONFLICT (verification_id) DO UPDATE SET sealed_key = NULL,
                shredded_at = COALESCE(verification_keys.shredded_at, excluded.shredded_at)
            """)
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
            SELECT sealed_key FROM verification_keys WHERE verification_id = \(verificationID.rawValue)
            """).first
        else { return .none }
        guard case .blob(let sealed) = row["sealed_key"] else { return .shredded }
        return .key(try open(sealed, for: verificationID))
    }

    private static func context(_ verificationID: ObjectID) -> String { "verification-key:" + verificationID.rawValue }
}
