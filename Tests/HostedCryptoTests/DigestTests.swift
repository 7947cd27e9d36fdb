import HostedCrypto
import Testing

@Suite struct DigestTests {
    @Test func sha256MatchesFIPSVectors() {
        #expect(Digest.sha256Hex("") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(Digest.sha256Hex("abc") == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    }

    @Test func hmacMatchesRFC4231Case2() {
        let mac = Digest.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(Digest.hex(mac) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test func constantTimeEquality() {
        #expect(Digest.constantTimeEquals([1, 2, 3], [1, 2, 3]))
        #expect(!Digest.constantTimeEquals([1, 2, 3], [1, 2, 4]))
        #expect(!Digest.constantTimeEquals([1, 2, 3], [1, 2]))
        #expect(Digest.constantTimeEquals([], []))
    }

    @Test func secureRandomIsNotConstant() {
        let random = SecureRandom()
        let a = random.bytes(32)
        let b = random.bytes(32)
        #expect(a.count == 32)
        #expect(a != b)
        #expect(random.bytes(0).isEmpty)
    }
}
