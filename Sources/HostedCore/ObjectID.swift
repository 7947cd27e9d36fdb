/// An opaque, URL-safe, prefixed identifier with 128 random bits, such as `acct_…` or `ver_…`.
public struct ObjectID: Hashable, Sendable, CustomStringConvertible {
    /// The kinds of object Hosted names, by their ID prefix.
    public enum Kind: String, Sendable, CaseIterable {
        case account = "acct"
        case apiKey = "key"
        case verification = "ver"
        case handoff = "hnd"
        case artifact = "art"
        case returnURL = "rurl"
        case message = "msg"
        case event = "evt"
        case webhookEndpoint = "we"
        case `operator` = "op"
        case reviewNote = "note"
        case operatorEvent = "oev"
        case continuation = "cnt"
    }

    public let kind: Kind
    public let rawValue: String
    public var description: String { rawValue }

    /// Bytes of randomness in every ID: 16 bytes, 128 bits, 26 base32 characters.
    static let randomByteCount = 16
    static let encodedLength = 26

    public init(_ kind: Kind, using random: any RandomSource) {
        self.kind = kind
        self.rawValue = kind.rawValue + "_" + Base32.encode(random.bytes(Self.randomByteCount))
    }

    /// Parses an ID of the given kind; nil when the text is not one (wrong prefix, length or alphabet).
    public init?(_ kind: Kind, parsing text: String) {
        // Over the contiguous bytes: an ID is ASCII, and a poll parses two of them.
        var text = text
        guard text.withUTF8({ Self.isValid($0, kind: kind) }) else { return nil }
        self.kind = kind
        self.rawValue = text
    }

    /// `<prefix>_` and 26 characters of the lower-case base32 alphabet.
    private static func isValid(_ bytes: UnsafeBufferPointer<UInt8>, kind: Kind) -> Bool {
        var prefix = kind.rawValue
        return prefix.withUTF8 { prefix in
            guard bytes.count == prefix.count + 1 + encodedLength,
                  bytes[..<prefix.count].elementsEqual(prefix),
                  bytes[prefix.count] == UInt8(ascii: "_")
            else { return false }
            return bytes[(prefix.count + 1)...].allSatisfy { ($0 >= 0x61 && $0 <= 0x7A) || ($0 >= 0x32 && $0 <= 0x37) }
        }
    }
}
