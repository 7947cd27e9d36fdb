import Foundation

/// A 256-bit secret shown once (a handoff secret or a session token), base64url without padding.
public struct BearerSecret: Sendable, Equatable {
    public static let byteCount = 32
    public static let encodedLength = 43
    public let value: String

    public init(using random: any RandomSource) {
        value = Base64URL.encode(random.bytes(Self.byteCount))
    }

    /// Accepts only text of the exact shape, so junk never reaches a hash lookup.
    public init?(presented: String) {
        guard presented.utf8.count == Self.encodedLength, Base64URL.decode(presented)?.count == Self.byteCount else { return nil }
        value = presented
    }
}
