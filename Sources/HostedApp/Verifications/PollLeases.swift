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
final class PollLeases: Sendable {
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

    /// Polls one statement takes: `size(rate:burst:)` of the configured limit.
    let size: Int
    /// `Guarded`, not `Mutex`: the live tests run this under ThreadSanitizer (see `Guarded`).
    private let leases = Guarded<[String: Lease]>([:])

    init(size: Int) {
        self.size = max(1, size)
    }

    /// Leases sized for the configured poll limit.
    convenience init(rate: Double, burst: Int) {
        self.init(size: Self.size(rate: rate, burst: burst))
    }

    private struct Lease {
        var remaining: Int
        let until: Date
        /// One poll is taking the next lease; the others go on using this one meanwhile.
        var renewing: Bool
    }

    /// What a poll may do with this process's lease on its bucket.
    enum Take: Equatable {
        /// Answer from the lease: one poll was taken from it.
        case leased
        /// Take a new lease now: the current one runs low, and no other poll is renewing it
        /// (its leftover stays usable if the bucket refuses, see `renewalRefused`).
        case renew
        /// No lease: take one.
        case none
    }

    /// Takes one poll from this process's lease on `bucket`, or says to take a new lease. One
    /// poll renews a lease when a quarter of it is left, while the others go on using it: they
    /// do not all find it empty at once and queue on the bucket's row.
    func take(_ bucket: String, at now: Date) -> Take {
        leases.withLock { leases in Self.take(bucket, at: now, size: size, from: &leases) }
    }

    private static func take(_ bucket: String, at now: Date, size: Int, from leases: inout [String: Lease]) -> Take {
        guard var lease = leases[bucket], lease.until > now, lease.remaining > 0 else {
            leases[bucket] = nil
            return .none
        }
        if !lease.renewing && lease.remaining <= max(1, size / 4) {
            lease.renewing = true
            leases[bucket] = lease
            return .renew
        }
        lease.remaining -= 1
        leases[bucket] = lease
        return .leased
    }

    /// Keeps `count` polls taken from `bucket` at `now` (beyond the poll being answered), plus
    /// what is left of the lease they replace.
    func grant(_ bucket: String, count: Int, at now: Date) {
        leases.withLock { leases in Self.grant(bucket, count: count, at: now, to: &leases) }
    }

    private static func grant(_ bucket: String, count: Int, at now: Date, to leases: inout [String: Lease]) {
        let leftover = leases[bucket].map { $0.until > now ? $0.remaining : 0 } ?? 0
        let total = count + leftover
        guard total > 0 else {
            leases[bucket] = nil
            return
        }
        if leases[bucket] == nil, leases.count >= Self.capacity { leases.removeAll(keepingCapacity: true) }
        leases[bucket] = Lease(remaining: total, until: now.addingTimeInterval(Self.lifetime), renewing: false)
    }

    /// A renewal the bucket refused: the current lease may be renewed again later. Takes one of
    /// its leftover polls for the poll that asked, if any is left (false: none).
    func renewalRefused(_ bucket: String, at now: Date) -> Bool {
        leases.withLock { leases in Self.renewalRefused(bucket, at: now, in: &leases) }
    }

    private static func renewalRefused(_ bucket: String, at now: Date, in leases: inout [String: Lease]) -> Bool {
        guard var lease = leases[bucket], lease.until > now, lease.remaining > 0 else {
            leases[bucket] = nil
            return false
        }
        lease.renewing = false
        lease.remaining -= 1
        leases[bucket] = lease.remaining == 0 ? nil : lease
        return true
    }
}
