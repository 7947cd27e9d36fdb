/// A customer API key as issued: `sk_` (live) or `sk_test_` (test) followed by 256 random bits
/// in base64url. Only its hash is stored; the mode is stored with the key, the prefix only tells
/// a person which kind they hold.
public struct APIKeySecret: Sendable {
    public static let prefix = "sk_"
    public static let testPrefix = "sk_test_"
    /// Random bytes in a key: 32, i.e. 256 bits.
    static let randomByteCount = 32
    static let encodedLength = 43

    public let value: String

    public init(using random: any RandomSource, livemode: Bool = true) {
        value = (livemode ? Self.prefix : Self.testPrefix) + Base64URL.encode(random.bytes(Self.randomByteCount))
    }

    /// Accepts a presented key only if it has the shape of one, so junk never reaches the database.
    public init?(presented: String) {
        // Over the contiguous bytes (every API request presents one).
        var presented = presented
        var live = Self.prefix
        var test = Self.testPrefix
        let wellFormed = presented.withUTF8 { bytes in
            live.withUTF8 { live in
                test.withUTF8 { test in
                    Self.wellFormed(bytes, prefix: live) || Self.wellFormed(bytes, prefix: test)
                }
            }
        }
        guard wellFormed else { return nil }
        value = presented
    }

    private static func wellFormed(_ bytes: UnsafeBufferPointer<UInt8>, prefix: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count == prefix.count + encodedLength && bytes[..<prefix.count].elementsEqual(prefix)
            && Base64URL.isCanonical(bytes[prefix.count...])
    }

    /// Whether the key's text says test mode (the stored key's mode is what counts). By its length
    /// too: a live key's random part may itself begin with "test_".
    public var saysTest: Bool { value.utf8.count == Self.testPrefix.utf8.count + Self.encodedLength }

    /// What may be shown of the key: its prefix (`sk_` or `sk_test_`) and eight characters more.
    public var displayPrefix: String { String(value.prefix((saysTest ? Self.testPrefix : Self.prefix).count + 8)) }
}
