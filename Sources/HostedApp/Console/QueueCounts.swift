import Dispatch
import Foundation
import HostedCore

/// The queue's counts by status (the console's tabs), per account and mode. Each status is
/// counted up to `cap` + 1 (`VerificationStore.counts(tenancy:cappedAt:)`; the console shows
/// "10000+"), so a count costs at most that many index entries per status however large the
/// account: counting every verification took 364 ms at a million, and its recount every five
/// seconds was what held the queue's p99 over 5 ms (docs/performance.md, "Figures at scale").
/// An account with at least `exactBelow` verifications is shown counts at most `maximumAge`
/// old: a page past that age answers with the last counts at once and has them counted again in
/// the background (one recount at a time per account and mode). Smaller accounts are counted on
/// every page.
///
/// `@unchecked Sendable`: `entries` is only touched while holding `lock`.
final class QueueCounts: @unchecked Sendable {
    static let exactBelow = 10_000
    /// Counts above this are shown as "more than this" (`counts_limit` in the queue's answer).
    static let cap = 10_000
    static let maximumAge: TimeInterval = 5

    private struct Entry {
        var counts: [VerificationStatus: Int]
        var at: Date
        var recounting = false
    }

    private let lock = NSLock()
    private var entries: [Tenancy: Entry] = [:]

    /// The counts of `tenancy`, from `count` (run now, or in the background as above).
    func counts(of tenancy: Tenancy, _ count: @escaping @Sendable () throws -> [VerificationStatus: Int]) throws -> [VerificationStatus: Int] {
        let now = Date()
        lock.lock()
        if let entry = entries[tenancy], entry.counts.values.reduce(0, +) >= Self.exactBelow {
            if now.timeIntervalSince(entry.at) > Self.maximumAge && !entry.recounting {
                entries[tenancy]?.recounting = true
                DispatchQueue.global().async { [self] in recount(tenancy, count) }
            }
            lock.unlock()
            return entry.counts
        }
        lock.unlock()
        let counted = try count()
        store(counted, for: tenancy, at: now)
        return counted
    }

    private func recount(_ tenancy: Tenancy, _ count: () throws -> [VerificationStatus: Int]) {
        let started = Date()
        if let counted = try? count() {
            store(counted, for: tenancy, at: started)
        } else {
            lock.lock()
            entries[tenancy]?.recounting = false  // the next page past the age tries again
            lock.unlock()
        }
    }

    private func store(_ counts: [VerificationStatus: Int], for tenancy: Tenancy, at time: Date) {
        lock.lock()
        entries[tenancy] = Entry(counts: counts, at: time)
        lock.unlock()
    }
}
