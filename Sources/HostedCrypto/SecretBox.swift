import CCrypto

/// Authenticated encryption for what must be stored recoverable (a queued SMS holding a sign-in
/// code; later webhook signing secrets and TOTP seeds): AES-256-GCM from libcrypto, a random
/// 96-bit nonce per message, sealed as `nonce ‖ ciphertext ‖ 16-byte tag`. `context` is bound
/// as associated data, so a sealed value cannot be moved to another row or purpose.
public struct SecretBox: Sendable {
    private let key: [UInt8]

    static let nonceLength = 12
    static let tagLength = 16

    /// `key` must be 32 bytes (derive one with `SecretBox.derive`).
    public init(key: [UInt8]) {
        precondition(key.count == 32, "AES-256 takes a 32-byte key")
        self.key = key
    }

    /// A purpose-bound 32-byte key from the service's secret key: HMAC-SHA-256(secret, label).
    public static func derive(from secret: [UInt8], label: String) -> SecretBox {
        SecretBox(key: Digest.hmacSHA256(key: secret, message: Array(label.utf8)))
    }

    /// Thrown when libcrypto fails (allocation) — never for caller input.
    public struct Failure: Error {}

    public func seal(_ plaintext: [UInt8], context: String, random: [UInt8]) throws(Failure) -> [UInt8] {
        guard random.count == Self.nonceLength else { throw Failure() }
        guard let cipher = EVP_CIPHER_CTX_new() else { throw Failure() }
        defer { EVP_CIPHER_CTX_free(cipher) }
        let aad = Array(context.utf8)
        var output = [UInt8](repeating: 0, count: plaintext.count + Self.tagLength)
        var length: Int32 = 0
        var tail: Int32 = 0
        guard EVP_EncryptInit_ex(cipher, EVP_aes_256_gcm(), nil, key, random) == 1,
              aad.isEmpty || EVP_EncryptUpdate(cipher, nil, &length, aad, Int32(aad.count)) == 1,
              EVP_EncryptUpdate(cipher, &output, &length, plaintext, Int32(plaintext.count)) == 1,
              output.withUnsafeMutableBufferPointer({ EVP_EncryptFinal_ex(cipher, $0.baseAddress! + Int(length), &tail) }) == 1,
              output.withUnsafeMutableBufferPointer({
                  EVP_CIPHER_CTX_ctrl(cipher, EVP_CTRL_GCM_GET_TAG, Int32(Self.tagLength), $0.baseAddress! + plaintext.count)
              }) == 1
        else { throw Failure() }
        return random + output
    }

    /// The plaintext, or nil when the sealed bytes were altered, truncated, sealed under another
    /// key or for another context.
    public func open(_ sealed: [UInt8], context: String) -> [UInt8]? {
        guard sealed.count >= Self.nonceLength + Self.tagLength, let cipher = EVP_CIPHER_CTX_new() else { return nil }
        defer { EVP_CIPHER_CTX_free(cipher) }
        let nonce = Array(sealed.prefix(Self.nonceLength))
        let body = Array(sealed.dropFirst(Self.nonceLength).dropLast(Self.tagLength))
        var tag = Array(sealed.suffix(Self.tagLength))
        let aad = Array(context.utf8)
        var output = [UInt8](repeating: 0, count: body.count + Self.tagLength)
        var length: Int32 = 0
        var tail: Int32 = 0
        guard EVP_DecryptInit_ex(cipher, EVP_aes_256_gcm(), nil, key, nonce) == 1,
              aad.isEmpty || EVP_DecryptUpdate(cipher, nil, &length, aad, Int32(aad.count)) == 1,
              body.isEmpty || EVP_DecryptUpdate(cipher, &output, &length, body, Int32(body.count)) == 1,
              EVP_CIPHER_CTX_ctrl(cipher, EVP_CTRL_GCM_SET_TAG, Int32(Self.tagLength), &tag) == 1,
              output.withUnsafeMutableBufferPointer({ EVP_DecryptFinal_ex(cipher, $0.baseAddress! + Int(body.isEmpty ? 0 : length), &tail) }) == 1
        else { return nil }
        return Array(output.prefix(body.count))
    }
}
