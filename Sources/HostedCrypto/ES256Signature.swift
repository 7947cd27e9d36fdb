import CCrypto

/// ECDSA P-256 signatures in the two encodings that meet here: OpenSSL's DER `ECDSA-Sig-Value`
/// (`SEQUENCE { r INTEGER, s INTEGER }`) and JOSE's raw 64 bytes `r ‖ s`, each a 32-byte
/// big-endian number left-padded with zeros (RFC 7518 §3.4). Converted through libcrypto's
/// `ECDSA_SIG`, never by hand.
public enum ES256Signature {
    /// Bytes of each of r and s in the raw form (P-256's order is 256 bits).
    public static let coordinateLength = 32
    public static let rawLength = 64

    /// Thrown when bytes are no signature of this shape (or libcrypto fails to allocate).
    public struct Malformed: Error {}

    /// The raw `r ‖ s` of a DER signature; throws when it is no DER ECDSA signature, has bytes
    /// after it, or r or s does not fit 32 bytes.
    public static func raw(fromDER der: [UInt8]) throws(Malformed) -> [UInt8] {
        guard !der.isEmpty, der.count < 256 else { throw Malformed() }
        let parsed: OpaquePointer? = der.withUnsafeBufferPointer { buffer in
            var cursor: UnsafePointer<UInt8>? = buffer.baseAddress
            let signature = d2i_ECDSA_SIG(nil, &cursor, buffer.count)
            // Trailing bytes would let two DER texts stand for one signature.
            if let signature, cursor != buffer.baseAddress! + buffer.count {
                ECDSA_SIG_free(signature)
                return nil
            }
            return signature
        }
        guard let signature = parsed else { throw Malformed() }
        defer { ECDSA_SIG_free(signature) }
        var r: OpaquePointer?
        var s: OpaquePointer?
        ECDSA_SIG_get0(signature, &r, &s)
        guard let r, let s, BN_is_negative(r) == 0, BN_is_negative(s) == 0 else { throw Malformed() }
        var out = [UInt8](repeating: 0, count: rawLength)
        // BN_bn2binpad fails (-1) when the number does not fit the width: more than 32 bytes.
        let written = out.withUnsafeMutableBufferPointer { buffer in
            (BN_bn2binpad(r, buffer.baseAddress!, Int32(coordinateLength)),
             BN_bn2binpad(s, buffer.baseAddress! + coordinateLength, Int32(coordinateLength)))
        }
        guard written.0 == Int32(coordinateLength), written.1 == Int32(coordinateLength) else { throw Malformed() }
        return out
    }

    /// The DER form of a raw `r ‖ s` (what `EVP_DigestVerify` takes); throws unless it is 64 bytes.
    public static func der(fromRaw raw: [UInt8]) throws(Malformed) -> [UInt8] {
        guard raw.count == rawLength, let signature = ECDSA_SIG_new() else { throw Malformed() }
        defer { ECDSA_SIG_free(signature) }
        let numbers = raw.withUnsafeBufferPointer { buffer in
            (BN_bin2bn(buffer.baseAddress!, Int32(coordinateLength), nil),
             BN_bin2bn(buffer.baseAddress! + coordinateLength, Int32(coordinateLength), nil))
        }
        guard let r = numbers.0, let s = numbers.1 else {
            BN_free(numbers.0)
            BN_free(numbers.1)
            throw Malformed()
        }
        // ECDSA_SIG_set0 takes ownership of both numbers on success.
        guard ECDSA_SIG_set0(signature, r, s) == 1 else {
            BN_free(r)
            BN_free(s)
            throw Malformed()
        }
        let length = i2d_ECDSA_SIG(signature, nil)
        guard length > 0 else { throw Malformed() }
        var out = [UInt8](repeating: 0, count: Int(length))
        let written = out.withUnsafeMutableBufferPointer { buffer in
            var cursor: UnsafeMutablePointer<UInt8>? = buffer.baseAddress
            return i2d_ECDSA_SIG(signature, &cursor)
        }
        guard written == length else { throw Malformed() }
        return out
    }
}
