import Foundation

/// `application/x-www-form-urlencoded`: query strings and form bodies.
public enum FormURLEncoded {
    /// Every byte but the unreserved ones (RFC 3986) percent-encoded; a safe query string.
    public static func encode(_ pairs: [(String, String)]) -> String {
        pairs.map { escape($0.0) + "=" + escape($0.1) }.joined(separator: "&")
    }

    /// The pairs of a form body or query, decoded; nil when an escape is not valid UTF-8.
    public static func decode(_ bytes: [UInt8]) -> [(name: String, value: String)]? {
        guard String(bytes: bytes, encoding: .utf8) != nil else { return nil }
        var pairs: [(name: String, value: String)] = []
        // Split on the bytes `&` and `=`, not on Characters: a combining mark after either would
        // make it part of one Character and hide it (a reading no other parser shares).
        for pair in bytes.split(separator: UInt8(ascii: "&")) where !pair.isEmpty {
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            guard let name = Request.formDecode(String(decoding: parts[0], as: UTF8.self)),
                  let value = Request.formDecode(parts.count > 1 ? String(decoding: parts[1], as: UTF8.self) : "")
            else { return nil }
            pairs.append((name, value))
        }
        return pairs
    }

    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    private static func escape(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
