import Foundation
import HostedCore
import HostedCrypto
import Testing

/// What signing keeps between signatures: `ES256PrivateKey`'s signing contexts (reused, or made
/// for every call), the JWS written into one buffer from an already encoded header, and the
/// buffered random bytes a result's `jti` is taken from.
@Suite struct SignerReuseTests {
    /// A context signs again and again: each signature verifies and has its own nonce (r), with
    /// contexts kept and without, one after another and from several threads at once.
    @Test(arguments: [true, false])
    func everySignatureVerifiesAndDrawsItsOwnNonce(reusesContexts: Bool) async throws {
        let key = try ES256PrivateKey(der: try ES256PrivateKey.generate().derRepresentation(), reusesContexts: reusesContexts)
        #expect(key.reusesContexts == reusesContexts)
        let message = Array("the same message every time".utf8)
        var rs = Set<[UInt8]>()
        for _ in 0..<50 {
            let signature = try key.sign(message)
            #expect(signature.count == 64)
            #expect(key.publicKey.verify(signature: signature, of: message))
            rs.insert(Array(signature.prefix(32)))
        }
        #expect(rs.count == 50)
        let signatures = try await withThrowingTaskGroup(of: [[UInt8]].self) { group in
            for thread in 0..<8 {
                group.addTask {
                    try (0..<25).map { _ in try key.sign(Array("thread \(thread)".utf8)) }
                }
            }
            return try await group.reduce(into: [[UInt8]]()) { $0 += $1 }
        }
        #expect(signatures.count == 200)
        #expect(Set(signatures.map { Array($0.prefix(32)) }).count == 200)
        for thread in 0..<8 {
            let mine = Array("thread \(thread)".utf8)
            #expect(signatures.contains { key.publicKey.verify(signature: $0, of: mine) })
        }
        #expect(signatures.allSatisfy { signature in (0..<8).contains { key.publicKey.verify(signature: signature, of: Array("thread \($0)".utf8)) } })
    }

    /// The header given already in base64url makes the same JWS text as the header's bytes.
    @Test func anEncodedHeaderMakesTheSameJWS() throws {
        let key = try ES256PrivateKey.generate()
        let header = JWS.header(kid: "sig_test", type: "hosted-result+jwt")
        let payload = Array(#"{"sub":"ver_1"}"#.utf8)
        var encoded: [UInt8] = []
        Base64URL.append(header, to: &encoded)
        #expect(String(decoding: encoded, as: UTF8.self) == Base64URL.encode(header))
        let fromEncoded = try JWS.compact(encodedHeader: encoded, payload: payload, key: key)
        let fromBytes = try JWS.compact(header: header, payload: payload, key: key)
        let parts = fromEncoded.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        #expect(parts[0] == Base64URL.encode(header) && parts[1] == Base64URL.encode(payload))
        #expect(fromBytes.split(separator: ".").prefix(2) == parts.prefix(2))
        let verified = try #require(JWS.verify(fromEncoded, key: key.publicKey))
        #expect(verified.header == header && verified.payload == payload)
    }

    /// `Base64URL.append` writes after what the buffer holds, the same text `encode` makes.
    @Test func base64URLAppendsAfterWhatIsThere() {
        for count in 0..<40 {
            let bytes = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 250) }
            var out = Array("x.".utf8)
            Base64URL.append(bytes, to: &out)
            #expect(String(decoding: out, as: UTF8.self) == "x." + Base64URL.encode(bytes))
            #expect(Base64URL.decode(String(decoding: out.dropFirst(2), as: UTF8.self)) == bytes)
        }
    }

    /// Every byte the source gave is handed out once, in order; a request larger than a chunk
    /// goes to the source directly.
    @Test func bufferedRandomHandsOutEachByteOnce() {
        final class Counting: RandomSource, @unchecked Sendable {
            var next: UInt8 = 0
            var calls = 0
            func bytes(_ count: Int) -> [UInt8] {
                calls += 1
                return (0..<count).map { _ in defer { next &+= 1 }; return next }
            }
        }
        let source = Counting()
        let buffered = BufferedRandom(source, chunk: 10)
        #expect(buffered.bytes(4) == [0, 1, 2, 3])
        #expect(buffered.bytes(4) == [4, 5, 6, 7])
        #expect(source.calls == 1)
        // 2 bytes left in the chunk: a new chunk, the rest of the old one never handed out.
        #expect(buffered.bytes(4) == [10, 11, 12, 13])
        #expect(source.calls == 2)
        #expect(buffered.bytes(0) == [])
        #expect(buffered.bytes(11) == Array(20...30))
        #expect(source.calls == 3)
        let secure = BufferedRandom(SecureRandom())
        let draws = (0..<1000).map { _ in secure.bytes(16) }
        #expect(Set(draws).count == 1000)
    }
}
