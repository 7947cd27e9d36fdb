import CCrypto
import Foundation

/// A P-256 private key that makes ES256 signatures (ECDSA over SHA-256) in JOSE's raw 64-byte
/// `r ‖ s`, through libcrypto. Kept outside memory only as `derRepresentation`, sealed.
///
/// `@unchecked Sendable`: the `EVP_PKEY` is never changed after `init`, and OpenSSL 3 allows
/// one key to be used by many threads at once for read-only work such as signing
/// (openssl-threads(7)); a signing context is used by one call at a time (taken from `idle`
/// under `lock`, or made for the call). ECDSA's per-signature nonce comes from OpenSSL's CSPRNG.
public final class ES256PrivateKey: @unchecked Sendable {
    private let key: OpaquePointer
    public let publicKey: ES256PublicKey
    /// Whether signing contexts are kept for the next signature (`idle`) or made for each one.
    public let reusesContexts: Bool
    /// Signing contexts of this key with `EVP_PKEY_sign_init` done, each waiting for its next
    /// signature. EVP_PKEY_sign(3): `EVP_PKEY_sign` "can be called more than once on the same
    /// context if several operations are performed using the same parameters"; every call
    /// still draws its own nonce (nothing is precomputed: docs/decisions.md). Making and
    /// initialising a context (a provider fetch, the key's export to it) cost about 6 µs of a
    /// signature in the server (docs/performance.md, "Signed results").
    private var idle: [OpaquePointer] = []
    private let lock = NSLock()
    /// At most this many contexts wait (one per thread signing at the same moment).
    static let keptContexts = 16

    /// Thrown when bytes are no P-256 private key, or libcrypto fails.
    public struct Failure: Error {}

    private init(owning key: OpaquePointer, reusesContexts: Bool) throws(Failure) {
        self.key = key
        self.reusesContexts = reusesContexts
        do {
            publicKey = try ES256PublicKey.publicHalf(of: key)
        } catch {
            EVP_PKEY_free(key)
            throw Failure()
        }
    }

    deinit {
        idle.forEach { EVP_PKEY_CTX_free($0) }
        EVP_PKEY_free(key)
    }

    /// A new random key on P-256.
    public static func generate(reusesContexts: Bool = true) throws(Failure) -> ES256PrivateKey {
        guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_EC, nil) else { throw Failure() }
        defer { EVP_PKEY_CTX_free(context) }
        var key: OpaquePointer?
        guard EVP_PKEY_keygen_init(context) == 1,
              EVP_PKEY_CTX_set_ec_paramgen_curve_nid(context, NID_X9_62_prime256v1) == 1,
              EVP_PKEY_keygen(context, &key) == 1, let key
        else { throw Failure() }
        return try ES256PrivateKey(owning: key, reusesContexts: reusesContexts)
    }

    /// The key from its `derRepresentation`; throws for anything that is not a P-256 private key.
    /// `reusesContexts: false` makes a signing context for every signature (to measure).
    public convenience init(der: [UInt8], reusesContexts: Bool = true) throws(Failure) {
        guard !der.isEmpty else { throw Failure() }
        let decoded: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            return d2i_PrivateKey(EVP_PKEY_EC, nil, &cursor, buffer.count)
        }
        guard let decoded else { throw Failure() }
        // The public half's prefix names P-256, so a key on another curve is refused there.
        try self.init(owning: decoded, reusesContexts: reusesContexts)
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
    /// digest, which skips the digest context `EVP_DigestSign` would set up on every call, on a
    /// context kept from an earlier signature when there is one.
    public func sign(_ message: [UInt8]) throws(Failure) -> [UInt8] {
        let digest = Digest.sha256(message)
        let context = try takeContext()
        // A DER P-256 signature is at most 72 bytes.
        var der = [UInt8](repeating: 0, count: 80)
        var length = der.count
        guard der.withUnsafeMutableBufferPointer({ EVP_PKEY_sign(context, $0.baseAddress, &length, digest, digest.count) }) == 1 else {
            EVP_PKEY_CTX_free(context)  // a context that failed is not used again
            throw Failure()
        }
        giveBack(context)
        do {
            return try ES256Signature.raw(fromDER: Array(der.prefix(length)))
        } catch {
            throw Failure()
        }
    }

    /// A signing context for one signature: a waiting one, else a new one.
    private func takeContext() throws(Failure) -> OpaquePointer {
        if reusesContexts {
            lock.lock()
            let waiting = idle.popLast()
            lock.unlock()
            if let waiting { return waiting }
        }
        guard let context = EVP_PKEY_CTX_new_from_pkey(nil, key, nil) else { throw Failure() }
        guard EVP_PKEY_sign_init(context) == 1 else {
            EVP_PKEY_CTX_free(context)
            throw Failure()
        }
        return context
    }

    /// A context whose signature went well: kept for the next one, or freed.
    private func giveBack(_ context: OpaquePointer) {
        if reusesContexts {
            lock.lock()
            let kept = idle.count < Self.keptContexts
            if kept { idle.append(context) }
            lock.unlock()
            if kept { return }
        }
        EVP_PKEY_CTX_free(context)
    }
}
