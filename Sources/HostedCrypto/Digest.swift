import CCrypto

/// SHA-256, HMAC-SHA-256 and constant-time comparison from OpenSSL libcrypto.
public enum Digest {
    public static func sha256(_ data: some Collection<UInt8>) -> [UInt8] {
        let input = Array(data)
        var out = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_LENGTH))
        let result = input.withUnsafeBufferPointer { inBuf in
            out.withUnsafeMutableBufferPointer { outBuf in
                EVP_Digest(inBuf.baseAddress, inBuf.count, outBuf.baseAddress, nil, sha256Algorithm, nil)
            }
        }
        precondition(result == 1, "OpenSSL SHA-256 failed")  // only on allocation failure
        return out
    }

    /// SHA-256 fetched from the default provider once. `SHA256()` and `EVP_sha256()` look the
    /// algorithm up again on every call (OpenSSL 3), which cost more than hashing an API key;
    /// a fetched `EVP_MD` is immutable and may be shared by every thread.
    private nonisolated(unsafe) static let sha256Algorithm: OpaquePointer = {
        guard let algorithm = EVP_MD_fetch(nil, "SHA256", nil) else { preconditionFailure("OpenSSL has no SHA-256") }
        return algorithm
    }()

    public static func sha256(_ text: String) -> [UInt8] { sha256(Array(text.utf8)) }

    /// Lower-case hex of SHA-256: how hashed secrets are stored and looked up.
    public static func sha256Hex(_ text: String) -> String { hex(sha256(text)) }

    public static func hmacSHA256(key: [UInt8], message: some Collection<UInt8>) -> [UInt8] {
        let input = Array(message)
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBufferPointer { keyBuf in
            input.withUnsafeBufferPointer { inBuf in
                out.withUnsafeMutableBufferPointer { outBuf in
                    HMAC(EVP_sha256(), keyBuf.baseAddress, Int32(keyBuf.count),
                         inBuf.baseAddress, inBuf.count, outBuf.baseAddress, &length)
                }
            }
        }
        precondition(result != nil, "OpenSSL HMAC failed")  // only on allocation failure
        return Array(out.prefix(Int(length)))
    }

    /// HMAC-SHA-1: only for TOTP (RFC 6238 fixes the hash authenticator apps use).
    public static func hmacSHA1(key: [UInt8], message: some Collection<UInt8>) -> [UInt8] {
        let input = Array(message)
        var out = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        let result = key.withUnsafeBufferPointer { keyBuf in
            input.withUnsafeBufferPointer { inBuf in
                out.withUnsafeMutableBufferPointer { outBuf in
                    HMAC(EVP_sha1(), keyBuf.baseAddress, Int32(keyBuf.count), inBuf.baseAddress, inBuf.count, outBuf.baseAddress, &length)
                }
            }
        }
        precondition(result != nil, "OpenSSL HMAC failed")  // only on allocation failure
        return Array(out.prefix(Int(length)))
    }

    /// Compares in time that depends only on the length, never on where the inputs differ.
    public static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { pa in
            b.withUnsafeBytes { pb in CRYPTO_memcmp(pa.baseAddress, pb.baseAddress, a.count) == 0 }
        }
    }

    public static func hex(_ bytes: [UInt8]) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            for (index, byte) in bytes.enumerated() {
                out[2 * index] = hexDigit(byte >> 4)
                out[2 * index + 1] = hexDigit(byte & 0x0F)
            }
            return bytes.count * 2
        }
    }

    @inline(__always)
    private static func hexDigit(_ nibble: UInt8) -> UInt8 { nibble < 10 ? 0x30 + nibble : 0x57 + nibble }
}
