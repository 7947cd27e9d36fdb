import Foundation
import HostedCore

/// Polls a process has already taken from a verification's shared poll bucket and not yet
/// answered: a lease. When a verification is polled faster than a tenth of the configured rate
/// allows, one database statement takes several polls from the bucket at once (its arrival
/// time moves by all of them), and the next polls in this process are answered from the lease
/// with a plain read: the poll stays one round trip, and most polls write nothing.
///
/// The bucket is still the only authority: a lease holds polls already counted there, so all
/// processes together never allow more than the limit; polls a lease does not use within
/// `lifetime` are simply lost (the limit errs towards refusing). At the default limit (1 per
/// second, bursts of 10) a lease is one poll, i.e. no lease at all.
///
/// `@unchecked Sendable`: `leases` is only touched while holding `lock`.
final class PollLeases: @unchecked Sendable {
    /// How long taken polls stay usable.
    static let lifetime: TimeInterval = 1
    /// Leases kept at most (emptied when full; a miss costs one upsert).
    static let capacity = 10_000

    /// Polls taken by one statement: a tenth of a second of the sustained rate, at most half the
    /// burst, at least one.
    static func size(rate: Double, burst: Int) -> Int {
        guard rate.isFinite, rate > 0 else { return 1 }
        return max(1, min(Int(min(rate / 10, 1e6)), burst / 2))
    }

    private let lock = NSLock()
    private var leases: [String: (remaining: Int, until: Date)] = [:]

    /// Takes one poll from this process's lease on `bucket`, if it has one left.
    func take(_ bucket: String, at now: Date) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        guard let lease = leases[bucket] else { return false }
        guard lease.until > now, lease.remaining > 0 else {
            leases[bucket] = nil
            return false
        }
        leases[bucket] = lease.remaining == 1 ? nil : (lease.remaining - 1, lease.until)
        return true
    }

    /// Keeps `count` polls taken from `bucket` at `now` (one more than the poll being answered).
    func grant(_ bucket: String, count: Int, at now: Date) {
        guard count > 0 else { return }
        lock.lock()
        defer { lock.unlock() }
        if leases.count >= Self.capacity { leases.removeAll(keepingCapacity: true) }
        leases[bucket] = (count, now.addingTimeInterval(Self.lifetime))
    }
}
