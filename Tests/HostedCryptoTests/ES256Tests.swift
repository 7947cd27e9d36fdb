import HostedCore
import HostedCrypto
import HostedTestSupport
import Testing

/// ES256 through libcrypto: keys, signatures in JOSE's raw `r ‖ s`, and the conversion to and
/// from OpenSSL's DER, checked against RFC 7515 appendix A.3.
@Suite struct ES256Tests {
    /// RFC 7515 appendix A.3: the P-256 key's public coordinates, the JWS's header and payload
    /// (the same payload as A.1) and its signature.
    static let a3X = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU"
    static let a3Y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"
    static let a3Header = "eyJhbGciOiJFUzI1NiJ9"
    static let a3Payload = "eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ"
    static let a3Signature = "DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q"

    @Test func verifiesTheRFC7515AppendixA3Signature() throws {
        let key = try ES256PublicKey(jwkX: Self.a3X, jwkY: Self.a3Y)
        let input = Array((Self.a3Header + "." + Self.a3Payload).utf8)
        let signature = try #require(Base64URL.decode(Self.a3Signature))
        #expect(signature.count == 64)
        #expect(key.verify(signature: signature, of: input))
        // Every bit of the signature and of the signing input matters.
        for index in [0, 31, 32, 63] {
            var flipped = signature
            flipped[index] ^= 0x01
            #expect(!key.verify(signature: flipped, of: input), "signature byte \(index)")
        }
        var altered = input
        altered[altered.count - 1] ^= 0x01
        #expect(!key.verify(signature: signature, of: altered))
        // The DER form is not what JOSE carries, and is refused as a raw signature.
        let der = try ES256Signature.der(fromRaw: signature)
        #expect(der.first == 0x30)
        #expect(!key.verify(signature: der, of: input))
        #expect(try ES256Signature.raw(fromDER: der) == signature)
    }

    @Test func signsAndVerifies_withAFreshKey_andAfterItsDERRoundTrip() throws {
        let key = try ES256PrivateKey.generate()
        let message = Array("hosted result".utf8)
        let signature = try key.sign(message)
        #expect(signature.count == 64)
        #expect(key.publicKey.verify(signature: signature, of: message))
        #expect(!key.publicKey.verify(signature: signature, of: Array("hosted resulT".utf8)))
        // ECDSA draws a new nonce each time: two signatures differ, both verify.
        let again = try key.sign(message)
        #expect(again != signature && key.publicKey.verify(signature: again, of: message))
        // Another key does not verify it.
        #expect(!(try ES256PrivateKey.generate()).publicKey.verify(signature: signature, of: message))

        let der = try key.derRepresentation()
        let restored = try ES256PrivateKey(der: der)
        #expect(restored.publicKey.x == key.publicKey.x && restored.publicKey.y == key.publicKey.y)
        #expect(key.publicKey.verify(signature: try restored.sign(message), of: message))
        let fromJWK = try ES256PublicKey(jwkX: Base64URL.encode(key.publicKey.x), jwkY: Base64URL.encode(key.publicKey.y))
        #expect(fromJWK.verify(signature: signature, of: message))
    }

    @Test func refusesBytesThatAreNoKey() throws {
        #expect(throws: ES256PrivateKey.Failure.self) { try ES256PrivateKey(der: []) }
        #expect(throws: ES256PrivateKey.Failure.self) { try ES256PrivateKey(der: Array("-----BEGIN PRIVATE KEY-----".utf8)) }
        var der = try ES256PrivateKey.generate().derRepresentation()
        der[der.count / 2] ^= 0xFF
        #expect((try? ES256PrivateKey(der: Array(der.prefix(10)))) == nil)
        // A point off the curve, or coordinates of the wrong size.
        let a3 = try ES256PublicKey(jwkX: Self.a3X, jwkY: Self.a3Y)
        var y = a3.y
        y[31] ^= 0x01
        #expect(throws: ES256PublicKey.Invalid.self) { try ES256PublicKey(x: a3.x, y: y) }
        #expect(throws: ES256PublicKey.Invalid.self) { try ES256PublicKey(x: Array(a3.x.dropFirst()), y: a3.y) }
        #expect(throws: ES256PublicKey.Invalid.self) { try ES256PublicKey(jwkX: "not base64url!", jwkY: Self.a3Y) }
    }

    @Test func jwkCarriesTheCoordinatesAndTheirNames() throws {
        let key = try ES256PublicKey(jwkX: Self.a3X, jwkY: Self.a3Y)
        #expect(key.jwk(kid: "sig_1") == ["kty": "EC", "crv": "P-256", "x": Self.a3X, "y": Self.a3Y, "kid": "sig_1", "alg": "ES256", "use": "sig"])
    }

    // MARK: DER ↔ raw

    /// `SEQUENCE { INTEGER r, INTEGER s }` with the integers' content bytes as given.
    static func der(r: [UInt8], s: [UInt8]) -> [UInt8] {
        let body = [0x02, UInt8(r.count)] + r + [0x02, UInt8(s.count)] + s
        return [0x30, UInt8(body.count)] + body
    }

    @Test func shortIntegersAreLeftPaddedTo32Bytes() throws {
        // r = 1 and s = 0x7f..: one byte and 31 bytes in DER, 32 each in raw.
        let s = [UInt8](repeating: 0x7F, count: 31)
        let raw = try ES256Signature.raw(fromDER: Self.der(r: [0x01], s: s))
        #expect(raw == [UInt8](repeating: 0, count: 31) + [0x01] + [0x00] + s)
        // Back to DER: the leading zeros are dropped again (minimal INTEGERs).
        #expect(try ES256Signature.der(fromRaw: raw) == Self.der(r: [0x01], s: s))
    }

    @Test func aHighBitGetsItsSignByteInDERAndLosesItInRaw() throws {
        let r = [0x80] + [UInt8](repeating: 0x11, count: 31)
        let s = [0xFF] + [UInt8](repeating: 0x22, count: 31)
        let der = Self.der(r: [0x00] + r, s: [0x00] + s)
        #expect(try ES256Signature.raw(fromDER: der) == r + s)
        #expect(try ES256Signature.der(fromRaw: r + s) == der)
    }

    @Test func rawWithLeadingZeroBytesRoundTrips() throws {
        for zeros in [1, 2, 8, 31] {
            let r = [UInt8](repeating: 0, count: zeros) + [UInt8](repeating: 0x5A, count: 32 - zeros)
            let s = [UInt8](repeating: 0x01, count: 32)
            let der = try ES256Signature.der(fromRaw: r + s)
            #expect(der == Self.der(r: Array(r.dropFirst(zeros)), s: s), "\(zeros) zeros")
            #expect(try ES256Signature.raw(fromDER: der) == r + s)
        }
    }

    @Test func refusesWhatIsNoSignatureOfThisSize() throws {
        let fits = [UInt8](repeating: 0x01, count: 32)
        // 33 significant bytes do not fit P-256's 32.
        #expect(throws: ES256Signature.Malformed.self) { try ES256Signature.raw(fromDER: Self.der(r: [0x01] + fits, s: fits)) }
        // A negative integer.
        #expect(throws: ES256Signature.Malformed.self) { try ES256Signature.raw(fromDER: Self.der(r: [0x80], s: fits)) }
        // Bytes after the SEQUENCE, a cut one, nothing.
        #expect(throws: ES256Signature.Malformed.self) { try ES256Signature.raw(fromDER: Self.der(r: fits, s: fits) + [0x00]) }
        #expect(throws: ES256Signature.Malformed.self) { try ES256Signature.raw(fromDER: Array(Self.der(r: fits, s: fits).dropLast())) }
        #expect(throws: ES256Signature.Malformed.self) { try ES256Signature.raw(fromDER: []) }
        #expect(throws: ES256Signature.Malformed.self) { try ES256Signature.der(fromRaw: [UInt8](repeating: 1, count: 63)) }
        #expect(throws: ES256Signature.Malformed.self) { try ES256Signature.der(fromRaw: [UInt8](repeating: 1, count: 65)) }
    }
}
