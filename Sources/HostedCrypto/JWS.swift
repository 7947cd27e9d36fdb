import Foundation
import HostedCore

/// JSON Web Signatures (RFC 7515) with ES256: the compact serialization
/// (`base64url(header).base64url(payload).base64url(signature)`), the detached one of appendix
/// F (`base64url(header)..base64url(signature)`, the payload kept elsewhere) and checking both.
/// The signing input is always `base64url(header) "." base64url(payload)`.
public enum JWS {
    /// The protected header `{"alg":"ES256","kid":…,"typ":…}` (`typ` when given), serialised the
    /// same way every time: keys in this order, no spaces, JSON string escaping.
    public static func header(kid: String, type: String? = nil) -> [UInt8] {
        var text = #"{"alg":"ES256","kid":"# + JSONText.quoted(kid)
        if let type { text += #","typ":"# + JSONText.quoted(type) }
        return Array((text + "}").utf8)
    }

    /// The compact JWS of `payload` under `header` (the header's bytes as given).
    public static func compact(header: [UInt8], payload: [UInt8], key: ES256PrivateKey) throws -> String {
        var encodedHeader: [UInt8] = []
        Base64URL.append(header, to: &encodedHeader)
        return try compact(encodedHeader: encodedHeader, payload: payload, key: key)
    }

    /// The compact JWS of `payload` under a header already in base64url (a signer that keeps
    /// its header's encoding), written into one buffer: the signing input, then the signature.
    public static func compact(encodedHeader: [UInt8], payload: [UInt8], key: ES256PrivateKey) throws -> String {
        var text: [UInt8] = []
        text.reserveCapacity(encodedHeader.count + (payload.count * 4 + 2) / 3 + 2 + 86)
        text.append(contentsOf: encodedHeader)
        text.append(UInt8(ascii: "."))
        Base64URL.append(payload, to: &text)
        let signature = try key.sign(text)
        text.append(UInt8(ascii: "."))
        Base64URL.append(signature, to: &text)
        return String(decoding: text, as: UTF8.self)
    }

    /// The detached JWS (RFC 7515 appendix F) of `payload`: the compact form with its middle
    /// part left empty; whoever checks it brings the payload's bytes.
    public static func detached(header: [UInt8], payload: [UInt8], key: ES256PrivateKey) throws -> String {
        let parts = try compact(header: header, payload: payload, key: key).split(separator: ".", omittingEmptySubsequences: false)
        return parts[0] + ".." + parts[2]
    }

    /// What a checked JWS holds.
    public struct Verified: Equatable, Sendable {
        /// The protected header's bytes, as signed.
        public let header: [UInt8]
        /// The payload's bytes (for a detached JWS, the ones given).
        public let payload: [UInt8]
    }

    /// The protected header of a compact or detached JWS as a JSON object, unchecked (to pick the
    /// key by its `kid` before verifying); nil when it is no such text.
    public static func unverifiedHeader(of jws: String) -> [String: Any]? {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = Base64URL.decode(String(parts[0])) else { return nil }
        return (try? JSONSerialization.jsonObject(with: Data(bytes))) as? [String: Any]
    }

    /// Checks a compact JWS, or a detached one with `detachedPayload`: three parts, canonical
    /// base64url, a JSON header whose `alg` is `ES256` (never `none` or another algorithm a
    /// header could ask for), and `key`'s signature over the signing input. Nil otherwise.
    public static func verify(_ jws: String, key: ES256PublicKey, detachedPayload: [UInt8]? = nil) -> Verified? {
        let parts = jws.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        guard parts.count == 3,
              let header = Base64URL.decode(parts[0]),
              let signature = Base64URL.decode(parts[2]), signature.count == ES256Signature.rawLength,
              let fields = (try? JSONSerialization.jsonObject(with: Data(header))) as? [String: Any],
              fields["alg"] as? String == "ES256",
              // RFC 7515 §4.1.11: a header that names extensions we do not know is refused.
              fields["crit"] == nil
        else { return nil }
        let payload: [UInt8]
        let encodedPayload: String
        if let detachedPayload {
            guard parts[1].isEmpty else { return nil }
            payload = detachedPayload
            encodedPayload = Base64URL.encode(detachedPayload)
        } else {
            guard let decoded = Base64URL.decode(parts[1]) else { return nil }
            payload = decoded
            encodedPayload = parts[1]
        }
        guard key.verify(signature: signature, of: Array((parts[0] + "." + encodedPayload).utf8)) else { return nil }
        return Verified(header: header, payload: payload)
    }
}
