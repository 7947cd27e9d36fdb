import HostedCore

/// A verification a read found, and where this process stood when that read ran (nil on
/// PostgreSQL): something made from it may be kept and used again while `asOf` is recent.
public struct FoundVerification: Sendable {
    public let verification: Verification
    public let asOf: LocalRead?
}
