import CArgon2
import HostedCore

/// Operator passwords, hashed with Argon2id from libargon2 at OWASP's recommended parameters
/// (19 MiB of memory, 2 iterations, 1 lane), a 16-byte random salt and a 32-byte tag, kept as the
/// standard encoded string (`$argon2id$v=19$m=19456,t=2,p=1$salt$tag`), which carries its own
/// parameters, so they can be raised later without invalidating stored hashes.
public struct PasswordHasher: Sendable {
    public static let memoryKiB: UInt32 = 19_456
    public static let iterations: UInt32 = 2
    public static let lanes: UInt32 = 1
    static let saltBytes = 16
    static let tagBytes = 32

    let random: any RandomSource

    public init(random: any RandomSource) {
        self.random = random
    }

    /// Thrown only when libargon2 fails (memory): never for the password's content.
    public struct Failure: Error {}

    public func hash(_ password: String) throws(Failure) -> String {
        let salt = random.bytes(Self.saltBytes)
        let secret = Array(password.utf8)
        let length = argon2_encodedlen(Self.iterations, Self.memoryKiB, Self.lanes, UInt32(Self.saltBytes), UInt32(Self.tagBytes), Argon2_id)
        var encoded = [CChar](repeating: 0, count: length)
        let result = argon2id_hash_encoded(Self.iterations, Self.memoryKiB, Self.lanes, secret, secret.count,
                                           salt, salt.count, Self.tagBytes, &encoded, length)
        guard result == ARGON2_OK.rawValue else { throw Failure() }
        return String(decoding: encoded.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Whether `password` matches `encoded` (libargon2 compares in constant time). A malformed
    /// stored hash is a mismatch.
    public func verify(_ password: String, against encoded: String) -> Bool {
        guard encoded.hasPrefix("$argon2id$") else { return false }
        let secret = Array(password.utf8)
        return argon2id_verify(encoded, secret, secret.count) == ARGON2_OK.rawValue
    }

    /// A stored hash to verify against when there is no operator, so an unknown email costs the
    /// same time as a wrong password.
    /// Made once per process, on first use, from a random password nobody knows.
    public static let decoy: String = {
        let random = SecureRandom()
        return (try? PasswordHasher(random: random).hash(Base32.encode(random.bytes(16)))) ?? ""
    }()
}
