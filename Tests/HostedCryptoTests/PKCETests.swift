import HostedCrypto
import Testing

@Suite struct PKCETests {
    // RFC 7636, Appendix B.
    static let rfcVerifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"
    static let rfcChallenge = "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"

    @Test func challengeMatchesRFC7636AppendixB() {
        #expect(PKCE.challenge(for: Self.rfcVerifier) == Self.rfcChallenge)
        #expect(PKCE.verify(verifier: Self.rfcVerifier, challenge: Self.rfcChallenge))
    }

    @Test func verifyRefusesAnotherVerifierAndMalformedOnes() {
        #expect(!PKCE.verify(verifier: "eBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk", challenge: Self.rfcChallenge))
        #expect(!PKCE.verify(verifier: "short", challenge: PKCE.challenge(for: "short")))
        let tooLong = String(repeating: "a", count: 129)
        #expect(!PKCE.verify(verifier: tooLong, challenge: PKCE.challenge(for: tooLong)))
        let badCharacter = String(repeating: "a", count: 42) + "+"
        #expect(!PKCE.verify(verifier: badCharacter, challenge: PKCE.challenge(for: badCharacter)))
        #expect(!PKCE.verify(verifier: Self.rfcVerifier, challenge: ""))
    }

    @Test func derivedVerifierIsWellFormedAndBoundToKeyAndState() {
        let key = Array("k".utf8)
        let verifier = PKCE.verifier(key: key, state: "state-1")
        #expect(verifier.utf8.count == 43)
        #expect(PKCE.verify(verifier: verifier, challenge: PKCE.challenge(for: verifier)))
        #expect(PKCE.verifier(key: key, state: "state-1") == verifier)
        #expect(PKCE.verifier(key: key, state: "state-2") != verifier)
        #expect(PKCE.verifier(key: Array("other".utf8), state: "state-1") != verifier)
    }
}
