import Foundation
import HostedCore
import HostedCrypto

/// How a verification's personal fields are kept (migration 0029): sealed together, AES-256-GCM,
/// with the verification's own data key (`DataKeyStore`), and the user id looked up by a keyed
/// hash instead of its clear text. Shredding the data key at redaction makes every copy of them
/// unreadable at once — heap files before `VACUUM`, the WAL, replicas and earlier backups keep
/// only ciphertext whose key is gone.
public struct PersonalSealing: Sendable {
    public let keys: DataKeyStore
    private let lookupKey: [UInt8]
    private let random: any RandomSource

    /// `secretKey` is the service's secret key (`HOSTED_SECRET_KEY`): the key that seals data keys
    /// and the key of the lookup hash are derived from it, each for its purpose alone.
    public init(secretKey: [UInt8], random: any RandomSource) {
        keys = DataKeyStore(secretKey: secretKey, random: random)
        lookupKey = Digest.hmacSHA256(key: secretKey, message: Array("hosted/lookup-keys/v1".utf8))
        self.random = random
    }

    /// What a user id is looked up by within its account: HMAC-SHA-256 under a key the database
    /// never holds, as 64 hex digits. The account is part of the message, so one user id of two
    /// accounts has two unrelated keys.
    public func userKey(accountID: ObjectID, userID: String) -> String {
        Digest.hex(Digest.hmacSHA256(key: lookupKey, message: Array((accountID.rawValue + "\u{0}" + userID).utf8)))
    }

    /// The personal fields of a verification, as sealed in `verifications.personal`.
    struct Fields: Codable, Equatable {
        var userID: String
        var mobile: String
        var metadata: [String: String]
        var decisionReason: String?
        var resubmissionMessage: String?
        /// Where its photos were taken, by capture id.
        var locations: [String: CaptureLocation]

        init(userID: String, mobile: String, metadata: [String: String], decisionReason: String?,
             resubmissionMessage: String?, locations: [String: CaptureLocation]) {
            self.userID = userID
            self.mobile = mobile
            self.metadata = metadata
            self.decisionReason = decisionReason
            self.resubmissionMessage = resubmissionMessage
            self.locations = locations
        }

        init(_ verification: Verification) {
            userID = verification.userID
            mobile = verification.mobile
            metadata = verification.metadata
            decisionReason = verification.decisionReason
            resubmissionMessage = verification.resubmissionMessage
            locations = verification.captureLocations
        }

        private enum CodingKeys: String, CodingKey {
            case userID = "u", mobile = "m", metadata = "d", decisionReason = "r", resubmissionMessage = "s", locations = "l"
        }
    }

    /// `verification`'s personal fields sealed with `key`, bound to the verification.
    func seal(_ verification: Verification, with key: SecretBox) throws -> [UInt8] {
        let plain = try JSONEncoder().encode(Fields(verification))
        return try key.seal(Array(plain), context: Self.context(verification.id), random: random.bytes(12))
    }

    /// The personal fields in `sealed`; throws `Unreadable` when they do not open with `key`.
    func open(_ sealed: [UInt8], of id: ObjectID, with key: SecretBox) throws -> Fields {
        guard let plain = key.open(sealed, context: Self.context(id)),
              let fields = try? JSONDecoder().decode(Fields.self, from: Data(plain))
        else { throw DataKeyStore.Unreadable() }
        return fields
    }

    /// Seals an idempotent reply or a reviewer's note with a verification's key, bound to `context`.
    func seal(_ plain: [UInt8], context: String, with key: SecretBox) throws -> [UInt8] {
        try key.seal(plain, context: context, random: random.bytes(12))
    }

    private static func context(_ id: ObjectID) -> String { "verification:" + id.rawValue + ":personal" }
}
