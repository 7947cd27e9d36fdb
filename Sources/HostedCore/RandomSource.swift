/// A cryptographically secure source of random bytes, injected so tokens are testable.
public protocol RandomSource: Sendable {
    func bytes(_ count: Int) -> [UInt8]
}
