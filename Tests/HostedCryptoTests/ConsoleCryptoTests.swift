import Foundation
import HostedCore
import HostedCrypto
import Testing

/// Argon2id through libargon2 and TOTP through libcrypto's HMAC-SHA-1.
@Suite struct ConsoleCryptoTests {
    @Test func argon2idRoundTripWithOWASPParameters() throws {
        let hasher = PasswordHasher(random: SecureRandom())
        let hash = try hasher.hash("plum tractor velvet 42")
        #expect(hash.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
        #expect(hasher.verify("plum tractor velvet 42", against: hash))
        #expect(!hasher.verify("plum tractor velvet 43", against: hash))
        #expect(!hasher.verify("", against: hash))
        // A fresh salt every time: the same password never hashes the same twice.
        #expect(try hasher.hash("plum tractor velvet 42") != hash)
        // A stored value that is not an Argon2id hash never matches.
        #expect(!hasher.verify("x", against: "$argon2i$v=19$m=16,t=2,p=1$c2FsdHNhbHQ$aGFzaA"))
        #expect(!hasher.verify("x", against: "plain text"))
        #expect(PasswordHasher.decoy.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$"))
    }

    @Test func argon2idMatchesTheLibraryReferenceEncoding() throws {
        // A fixed salt gives libargon2's deterministic encoding; verifying it proves the stored
        // format is the standard one any other Argon2 implementation reads.
        struct FixedRandom: RandomSource { func bytes(_ count: Int) -> [UInt8] { Array(repeating: 0x5A, count: count) } }
        let hash = try PasswordHasher(random: FixedRandom()).hash("password")
        #expect(hash.hasPrefix("$argon2id$v=19$m=19456,t=2,p=1$WlpaWlpaWlpaWlpaWlpaWg$"))
        #expect(PasswordHasher(random: SecureRandom()).verify("password", against: hash))
    }

    /// RFC 6238 appendix B, SHA-1 rows (8 digits, seed "12345678901234567890").
    @Test(arguments: [(59, "94287082"), (1_111_111_109, "07081804"), (1_111_111_111, "14050471"),
                      (1_234_567_890, "89005924"), (2_000_000_000, "69279037"), (20_000_000_000, "65353130")])
    func totpRFC6238Vectors(time: Int64, expected: String) {
        let seed = Array("12345678901234567890".utf8)
        let counter = TOTP.counter(at: Date(timeIntervalSince1970: TimeInterval(time)))
        #expect(TOTPCodes.code(seed: seed, counter: counter, digits: 8) == expected)
        #expect(TOTPCodes.code(seed: seed, counter: counter) == String(expected.suffix(6)))
    }

    @Test func codesAreAcceptedOneStepEitherSideOnly() {
        let seed = Array("12345678901234567890".utf8)
        let now: Int64 = 1000
        for offset: Int64 in [-1, 0, 1] {
            #expect(TOTPCodes.matchingStep(TOTPCodes.code(seed: seed, counter: now + offset), seed: seed, counter: now) == now + offset)
        }
        for offset: Int64 in [-3, -2, 2, 3] {
            #expect(TOTPCodes.matchingStep(TOTPCodes.code(seed: seed, counter: now + offset), seed: seed, counter: now) == nil)
        }
        // Another seed's code does not match (these two seeds' codes differ at these steps).
        let other = Array("another seed value!!".utf8)
        #expect(TOTPCodes.matchingStep(TOTPCodes.code(seed: other, counter: now), seed: seed, counter: now) == nil)
    }
}
