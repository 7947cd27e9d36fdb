import Foundation
import HostedCore
import HostedCrypto
import HostedTestSupport
import Testing

/// Compact and detached JWS (RFC 7515, appendix F) with ES256.
@Suite struct JWSTests {
    @Test func verifiesTheRFC7515AppendixA3JWS() throws {
        let key = try ES256PublicKey(jwkX: ES256Tests.a3X, jwkY: ES256Tests.a3Y)
        let jws = ES256Tests.a3Header + "." + ES256Tests.a3Payload + "." + ES256Tests.a3Signature
        let verified = try #require(JWS.verify(jws, key: key))
        #expect(verified.header == Array(#"{"alg":"ES256"}"#.utf8))
        #expect(String(decoding: verified.payload, as: UTF8.self).contains(#""iss":"joe""#))
        // As a detached JWS, with the payload brought separately.
        let payload = try #require(Base64URL.decode(ES256Tests.a3Payload))
        #expect(JWS.verify(ES256Tests.a3Header + ".." + ES256Tests.a3Signature, key: key, detachedPayload: payload)?.payload == payload)
        #expect(JWS.verify(ES256Tests.a3Header + ".." + ES256Tests.a3Signature, key: key, detachedPayload: payload + [0x20]) == nil)
    }

    @Test func headerIsTheSameBytesEveryTime() {
        #expect(JWS.header(kid: "sig_abc", type: "hosted-result+jwt") == Array(#"{"alg":"ES256","kid":"sig_abc","typ":"hosted-result+jwt"}"#.utf8))
        #expect(JWS.header(kid: "sig_abc") == Array(#"{"alg":"ES256","kid":"sig_abc"}"#.utf8))
        #expect(JWS.header(kid: "a\"b\\c\n") == Array(#"{"alg":"ES256","kid":"a\"b\\c\n"}"#.utf8))
    }

    @Test func compactRoundTrips_andAFlippedBitFails() throws {
        let key = try ES256PrivateKey.generate()
        let header = JWS.header(kid: "sig_1", type: "hosted-result+jwt")
        let payload = Array(#"{"sub":"ver_1","status":"submitted"}"#.utf8)
        let jws = try JWS.compact(header: header, payload: payload, key: key)
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        #expect(parts.count == 3 && Base64URL.decode(parts[0]) == header && Base64URL.decode(parts[1]) == payload)
        #expect(Base64URL.decode(parts[2])?.count == 64)
        let verified = JWS.verify(jws, key: key.publicKey)
        #expect(verified?.header == header && verified?.payload == payload)
        #expect(JWS.unverifiedHeader(of: jws)?["kid"] as? String == "sig_1")
        #expect(JWS.verify(jws, key: try ES256PrivateKey.generate().publicKey) == nil)
        // Any flipped bit of any part: refused (or no longer base64url at all).
        let bytes = Array(jws.utf8)
        for index in stride(from: 0, to: bytes.count, by: 7) where bytes[index] != UInt8(ascii: ".") {
            var flipped = bytes
            flipped[index] ^= 0x01
            #expect(JWS.verify(String(decoding: flipped, as: UTF8.self), key: key.publicKey) == nil, "byte \(index)")
        }
    }

    @Test func detachedLeavesThePayloadOut() throws {
        let key = try ES256PrivateKey.generate()
        let header = JWS.header(kid: "sig_2")
        let manifest = Array(#"{"verification":{"id":"ver_1"}}"#.utf8)
        let jws = try JWS.detached(header: header, payload: manifest, key: key)
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts[1].isEmpty)
        #expect(JWS.verify(jws, key: key.publicKey, detachedPayload: manifest)?.payload == manifest)
        #expect(JWS.verify(jws, key: key.publicKey, detachedPayload: manifest.dropLast() + [0x7D, 0x20]) == nil)
        // Without the payload it is no compact JWS.
        #expect(JWS.verify(jws, key: key.publicKey) == nil)
    }

    @Test func refusesOtherAlgorithmsAndShapes() throws {
        let key = try ES256PrivateKey.generate()
        let payload = Array("{}".utf8)
        for header in [#"{"alg":"none"}"#, #"{"alg":"HS256"}"#, #"{"kid":"x"}"#, #"{"alg":"ES256","crit":["exp"]}"#, "not json"] {
            let jws = try JWS.compact(header: Array(header.utf8), payload: payload, key: key)
            #expect(JWS.verify(jws, key: key.publicKey) == nil, "\(header)")
        }
        let good = try JWS.compact(header: JWS.header(kid: "k"), payload: payload, key: key)
        #expect(JWS.verify(good, key: key.publicKey) != nil)
        #expect(JWS.verify(good + ".x", key: key.publicKey) == nil)
        #expect(JWS.verify(good.replacingOccurrences(of: ".", with: "=."), key: key.publicKey) == nil)
        let unsigned = good.split(separator: ".").prefix(2).joined(separator: ".") + "."
        #expect(JWS.verify(unsigned, key: key.publicKey) == nil)
    }
}
