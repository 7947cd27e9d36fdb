import CCrypto

/// A P-256 private key that makes ES256 signatures (ECDSA over SHA-256) in JOSE's raw 64-byte
/// `r ‖ s`, through libcrypto. Kept outside memory only as `derRepresentation`, sealed.
///
/// `@unchecked Sendable`: the `EVP_PKEY` is never changed after `init`, and OpenSSL 3 allows
/// one key to be used by many threads at once for read-only work such as signing
/// (openssl-threads(7)); each call makes its own `EVP_MD_CTX`. ECDSA's per-signature nonce
/// comes from OpenSSL's CSPRNG.
public final class ES256PrivateKey: @unchecked Sendable {
    private let key: OpaquePointer
    public let publicKey: ES256PublicKey

    /// Thrown when bytes are no P-256 private key, or libcrypto fails.
    public struct Failure: Error {}

    private init(owning key: OpaquePointer) throws(Failure) {
        self.key = key
        do {
            publicKey = try ES256PublicKey.publicHalf(of: key)
        } catch {
            EVP_PKEY_free(key)
            throw Failure()
        }
    }

    deinit { EVP_PKEY_free(key) }

    /// A new random key on P-256.
    public static func generate() throws(Failure) -> ES256PrivateKey {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else { throw Failure() }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
              EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, NID_X9_62_prime256v1) == 1,
              EVP_PKEY_keygen(context, &key) == 1, let key
        else { throw Failure() }
        return try ES256PrivateKey(owning: key)
    }

    /// The key from its `derRepresentation`; throws for anything that is not a P-256 private key.
    public convenience init(der: [UInt8]) throws(Failure) {
        guard !der.isEmpty else { throw Failure() }
        let decoded: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PrivateKey(EVP_PKEY_EC, nil, &cursor, buffer.count)
        }
        guard let decoded else { throw Failure() }
        // The public half's prefix names P-256, so a key on another curve is refused there.
        try self.init(owning: decoded)
    }

    /// The key as DER (SEC 1 `ECPrivateKey`, naming the curve): what is sealed and stored.
    public func derRepresentation() throws(Failure) -> [UInt8] {
        let length = i2d_PrivateKey(key, nil)
        guard length > 0 else { throw Failure() }
        var out = [UInt8](repeating: 0, count: Int(length))
        let written = out.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_PrivateKey(key, &cursor)
        }
        guard written == length else { throw Failure() }
        return out
    }

    /// The ES256 signature of `message`: 64 bytes, `r ‖ s` (converted from OpenSSL's DER).
    /// SHA-256 comes from `Digest` (an algorithm fetched once); `EVP_PKEY_sign` then signs that
    /// digest, which skips the digest context `EVP_DigestSign` would set up on every call.
    public func sign(_ message: [UInt8]) throws(Failure) -> [UInt8] {
        let digest = Digest.sha256(message)
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { throw Failure() }
        defer { EVP_PKEY_CTX_free(context) }
        // A DER P-256 signature is at most 72 bytes.
        var der = [UInt8](repeating: 0, count: 80)
        var length = der.count
        guard EVP_PKEY_sign_init(context) == 1,
              der.withUnsafeMutableBufferPointer({ EVP_PKEY_sign(context, $0.baseAddress, &length, digest, digest.count) }) == 1
        else { throw Failure() }
        do {
            return try ES256Signature.raw(fromDER: Array(der.prefix(length)))
        } catch {
            throw Failure()
        }
    }
}
