import Foundation
import HostedCore
import Testing

/// Deterministic bytes, so encodings can be checked exactly.
struct FixedRandom: RandomSource {
    let byte: UInt8
    func bytes(_ count: Int) -> [UInt8] { [UInt8](repeating: byte, count: count) }
}

struct CountingRandom: RandomSource {
    func bytes(_ count: Int) -> [UInt8] { (0..<count).map { UInt8($0) } }
}

@Suite struct IdentifierTests {
    @Test func base32MatchesRFC4648Vectors() {
        // RFC 4648 §10, lower-cased and unpadded.
        #expect(Base32.encode(Array("".utf8)) == "")
        #expect(Base32.encode(Array("f".utf8)) == "my")
        #expect(Base32.encode(Array("fo".utf8)) == "mzxq")
        #expect(Base32.encode(Array("foo".utf8)) == "mzxw6")
        #expect(Base32.encode(Array("foob".utf8)) == "mzxw6yq")
        #expect(Base32.encode(Array("fooba".utf8)) == "mzxw6ytb")
        #expect(Base32.encode(Array("foobar".utf8)) == "mzxw6ytboi")
    }

    @Test func base64URLRoundTripsWithoutPadding() {
        let bytes: [UInt8] = [0xFB, 0xFF, 0xBF, 0x00, 0x10]
        let text = Base64URL.encode(bytes)
        #expect(text == "-_-_ABA")
        #expect(Base64URL.decode(text) == bytes)
        #expect(Base64URL.decode("ab+/") == nil)
        #expect(Base64URL.decode("a b") == nil)
    }

    /// RFC 4648 §10's vectors without padding, every length from 0 to 6 bytes, and what has no
    /// canonical encoding: 4n + 1 characters, padding, or non-zero unused bits.
    @Test func base64URLMatchesRFC4648AndRefusesNonCanonicalText() {
        let vectors = ["": "", "f": "Zg", "fo": "Zm8", "foo": "Zm9v", "foob": "Zm9vYg", "fooba": "Zm9vYmE", "foobar": "Zm9vYmFy"]
        for (plain, encoded) in vectors {
            #expect(Base64URL.encode(Array(plain.utf8)) == encoded)
            #expect(Base64URL.decode(encoded) == Array(plain.utf8))
        }
        let all = (0...255).map { UInt8($0) }
        #expect(Base64URL.decode(Base64URL.encode(all)) == all)
        for invalid in ["Z", "Zm9vY", "Zg==", "Zh", "Zm9", "Zm8=", "Zm+v", "Zm/v", "Zm9\u{0}"] {
            #expect(Base64URL.decode(invalid) == nil, "\(invalid)")
            #expect(!Base64URL.isCanonical(invalid.utf8), "\(invalid)")
        }
        for valid in vectors.values { #expect(Base64URL.isCanonical(valid.utf8), "\(valid)") }
    }

    @Test func objectIDsArePrefixedAndCarry128Bits() {
        let id = ObjectID(.verification, using: CountingRandom())
        #expect(id.rawValue == "ver_" + Base32.encode((0..<16).map { UInt8($0) }))
        #expect(id.rawValue.count == 4 + 26)
        #expect(ObjectID(.verification, parsing: id.rawValue) == id)
    }

    @Test(arguments: ["", "ver_", "acct_aaaaaaaaaaaaaaaaaaaaaaaaaa", "ver_AAAAAAAAAAAAAAAAAAAAAAAAAA",
                      "ver_aaaaaaaaaaaaaaaaaaaaaaaaa", "ver_aaaaaaaaaaaaaaaaaaaaaaaaaaa", "ver_aaaaaaaaaaaaaaaaaaaaaaaa1a",
                      "ver_aaaaaaaaaaaaaaaaaaaaaaaa%2", "ver_../aaaaaaaaaaaaaaaaaaaaaa",
                      "verXaaaaaaaaaaaaaaaaaaaaaaaaaa", "ve_aaaaaaaaaaaaaaaaaaaaaaaaaaa", "vera_aaaaaaaaaaaaaaaaaaaaaaaaa",
                      "ver_aaaaaaaaaaaaaaaaaaaaaaaaa\u{301}", "ver_aaaaaaaaaaaaaaaaaaaaaaaaaa\u{301}"])
    func malformedIDsAreRejected(_ text: String) {
        #expect(ObjectID(.verification, parsing: text) == nil)
    }

    @Test func apiKeySecretShapeAndPrefix() throws {
        let secret = APIKeySecret(using: FixedRandom(byte: 0xAB))
        #expect(secret.value.hasPrefix("sk_"))
        #expect(secret.value.count == 3 + 43)
        #expect(secret.displayPrefix == String(secret.value.prefix(11)))
        #expect(APIKeySecret(presented: secret.value)?.value == secret.value)
        #expect(APIKeySecret(presented: "sk_short") == nil)
        #expect(APIKeySecret(presented: "pk_" + secret.value.dropFirst(3)) == nil)
        #expect(APIKeySecret(presented: secret.value + "=") == nil)
        // The right length, but not canonical base64url: a last character with bits that 32
        // bytes cannot set, a character outside the alphabet, a prefix of the wrong case.
        #expect(APIKeySecret(presented: String(secret.value.dropLast()) + "B") == nil)
        #expect(APIKeySecret(presented: String(secret.value.dropLast(2)) + "+A") == nil)
        #expect(APIKeySecret(presented: "SK_" + secret.value.dropFirst(3)) == nil)
        #expect(APIKeySecret(presented: "sk-" + secret.value.dropFirst(3)) == nil)

        // A test key shows its longer prefix and eight characters more, and nothing else.
        let test = APIKeySecret(using: FixedRandom(byte: 0xAB), livemode: false)
        #expect(test.value.hasPrefix("sk_test_") && test.value.count == 8 + 43 && test.saysTest && !secret.saysTest)
        #expect(test.displayPrefix == String(test.value.prefix(16)))
        #expect(APIKeySecret(presented: test.value)?.displayPrefix == test.displayPrefix)
        #expect(APIKeySecret(presented: "sk_test_" + String(repeating: "A", count: 42)) == nil)
        // A live key whose random part begins with "test_" (fuzz-identifiers found it) is live, and
        // shows only eight characters after "sk_".
        let liveLookingTest = try #require(APIKeySecret(presented: "sk_test_" + String(repeating: "A", count: 38)))
        #expect(!liveLookingTest.saysTest && liveLookingTest.displayPrefix == "sk_test_AAA")
    }

    @Test func accountNamesAreValidated() throws {
        #expect(try Account.validateName("  Acme Bank ") == "Acme Bank")
        #expect(throws: DomainError.self) { try Account.validateName("   ") }
        #expect(throws: DomainError.self) { try Account.validateName("a\u{0}b") }
        #expect(throws: DomainError.self) { try Account.validateName(String(repeating: "x", count: 201)) }
    }
}
