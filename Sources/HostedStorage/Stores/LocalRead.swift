import Foundation

/// When a read ran, by the clock and by the count of changes this process had committed
/// (`Database.localCommits`): what a result kept from that read is checked against before it is
/// taken again.
public struct LocalRead: Sendable {
    public let commits: UInt64
    public let time: Date

    /// Nothing was committed here between this read and `now`, and it is younger than
    /// `VerificationStore.recentPollLifetime`.
    public func isRecent(_ now: Self) -> Bool {
        let age = now.time.timeIntervalSince(time)
        return commits == now.commits && age >= 0 && age < VerificationStore.recentPollLifetime
    }
}
