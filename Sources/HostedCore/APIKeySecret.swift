/// A freshly generated API key secret (`sk_` + 256 random bits, base64url). Shown once, then only hashed.
public struct APIKeySecret: Sendable {
    public static let prefix = "sk_"
    /// Random bytes in a key: 32, i.e. 256 bits.
    static let randomByteCount = 32
    static let encodedLength = 43

    public let value: String

    public init(using random: any RandomSource) {
        value = Self.prefix + Base64URL.encode(random.bytes(Self.randomByteCount))
    }

    /// Accepts a presented key only if it has the shape of one, so junk never reaches the database.
    public init?(presented: String) {
        // Over the contiguous bytes (every API request presents one).
        var presented = presented
        var prefix = Self.prefix
        let wellFormed = presented.withUTF8 { bytes in
            prefix.withUTF8 { prefix in
                bytes.count == prefix.count + Self.encodedLength && bytes[..<prefix.count].elementsEqual(prefix)
                    && Base64URL.isCanonical(bytes[prefix.count...])
            }
        }
        guard wellFormed else { return nil }
        value = presented
    }

    /// What may be shown of the key: `sk_` and its first eight characters.
    public var displayPrefix: String { String(value.prefix(Self.prefix.count + 8)) }
}
