import HostedCore

/// Proof Key for Code Exchange (RFC 7636) with the S256 method.
public enum PKCE {
    /// The challenge sent with the authorization request: base64url(SHA-256(verifier)).
    public static func challenge(for verifier: String) -> String {
        Base64URL.encode(Digest.sha256(verifier))
    }

    /// A verifier derived from the round trip's `state` with a server key, so no verifier is ever
    /// stored: 43 base64url characters (256 bits), within RFC 7636's 43…128 unreserved characters.
    public static func verifier(key: [UInt8], state: String) -> String {
        Base64URL.encode(Digest.hmacSHA256(key: key, message: Array("digilocker-pkce:\(state)".utf8)))
    }

    /// Whether `verifier` is well formed (RFC 7636 §4.1) and hashes to `challenge`, compared in
    /// constant time.
    public static func verify(verifier: String, challenge: String) -> Bool {
        let allowed = verifier.utf8.allSatisfy { c in
            (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || (c >= 0x30 && c <= 0x39)
                || c == 0x2D || c == 0x2E || c == 0x5F || c == 0x7E
        }
        guard allowed, (43...128).contains(verifier.utf8.count) else { return false }
        return Digest.constantTimeEquals(Array(Self.challenge(for: verifier).utf8), Array(challenge.utf8))
    }
}
