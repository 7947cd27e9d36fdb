import CCrypto
import HostedCore

/// A P-256 public key that checks ES256 signatures (ECDSA over SHA-256, raw `r ‖ s`), made from
/// a JWK's `x` and `y` or from a private key.
///
/// `@unchecked Sendable`: the `EVP_PKEY` is never changed after `init`, and OpenSSL 3 allows
/// one key to be used by many threads at once for read-only work such as verifying
/// (openssl-threads(7)); each call makes its own `EVP_MD_CTX`.
public final class ES256PublicKey: @unchecked Sendable {
    let key: OpaquePointer
    /// The affine coordinates, 32 big-endian bytes each (a JWK's `x` and `y`).
    public let x: [UInt8]
    public let y: [UInt8]

    /// The DER of a P-256 `SubjectPublicKeyInfo` up to its point: id-ecPublicKey with the named
    /// curve prime256v1, then the BIT STRING of 66 bytes that holds `04 ‖ x ‖ y`.
    static let subjectPublicKeyInfoPrefix: [UInt8] = [
        0x30, 0x59, 0x30, 0x13, 0x06, 0x07, 0x2A, 0x86, 0x48, 0xCE, 0x3D, 0x02, 0x01, 0x06, 0x08, 0x2A,
        0x86, 0x48, 0xCE, 0x3D, 0x03, 0x01, 0x07, 0x03, 0x42, 0x00, 0x04,
    ]

    /// Thrown when the coordinates are no point of P-256 (libcrypto checks the curve equation).
    public struct Invalid: Error {}

    /// The key at point (x, y); throws unless both are 32 bytes and the point is on the curve.
    public convenience init(x: [UInt8], y: [UInt8]) throws(Invalid) {
        guard x.count == 32, y.count == 32 else { throw Invalid() }
        let der = Self.subjectPublicKeyInfoPrefix + x + y
        let decoded: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PUBKEY(nil, &cursor, buffer.count)
        }
        guard let decoded else { throw Invalid() }
        self.init(owning: decoded, x: x, y: y)
    }

    /// A key from a JWK's base64url `x` and `y`.
    public convenience init(jwkX: String, jwkY: String) throws(Invalid) {
        guard let x = Base64URL.decode(jwkX), let y = Base64URL.decode(jwkY) else { throw Invalid() }
        try self.init(x: x, y: y)
    }

    init(owning key: OpaquePointer, x: [UInt8], y: [UInt8]) {
        self.key = key
        self.x = x
        self.y = y
    }

    /// The public half of `key` (an `EVP_PKEY` holding a P-256 key), with its own reference.
    static func publicHalf(of key: OpaquePointer) throws(Invalid) -> ES256PublicKey {
        let length = i2d_PUBKEY(key, nil)
        guard length == Int32(subjectPublicKeyInfoPrefix.count + 64) else { throw Invalid() }
        var der = [UInt8](repeating: 0, count: Int(length))
        let written = der.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_PUBKEY(key, &cursor)
        }
        // Anything but P-256 with an uncompressed point has another prefix.
        guard written == length, der.starts(with: subjectPublicKeyInfoPrefix) else { throw Invalid() }
        let point = der.dropFirst(subjectPublicKeyInfoPrefix.count)
        return try ES256PublicKey(x: Array(point.prefix(32)), y: Array(point.suffix(32)))
    }

    deinit { EVP_PKEY_free(key) }

    /// The key as a JWK (RFC 7517, RFC 7518 §6.2): `kty` EC, `crv` P-256, `x`, `y`, and the
    /// `kid`, `alg` ES256 and `use` sig a JWKS entry carries.
    public func jwk(kid: String) -> [String: String] {
        ["kty": "EC", "crv": "P-256", "x": Base64URL.encode(x), "y": Base64URL.encode(y), "kid": kid, "alg": "ES256", "use": "sig"]
    }

    /// Whether `signature` (raw 64 bytes `r ‖ s`) is this key's ES256 signature of `message`.
    /// False for anything else: another length, altered bytes, another key.
    public func verify(signature: [UInt8], of message: [UInt8]) -> Bool {
        guard let der = try? ES256Signature.der(fromRaw: signature), let context = EVP_MD_CTX_new() else { return false }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestVerifyInit(context, nil, EVP_sha256(), nil, key) == 1 else { return false }
        return der.withUnsafeBufferPointer { signatureBytes in
            message.withUnsafeBufferPointer { messageBytes in
                EVP_DigestVerify(context, signatureBytes.baseAddress, signatureBytes.count, messageBytes.baseAddress, messageBytes.count)
            }
        } == 1
    }
}
