import Dispatch
import HostedCore

/// `hosted audit verify`: every chain recomputed.
extension EventStore {
    /// Verifications whose chains are read together: one statement for their heads, one for
    /// their events. A statement per chain cost a round trip per verification (47,500 events/s
    /// over 100,000; docs/performance.md, "Figures at scale").
    static let auditBatch = 1_000

    /// Recomputes every chain (of one account, or all), a thousand verifications at a time, and
    /// stops at the first link that does not hold: a hash that does not match, a previous hash
    /// that is not the previous event's, a sequence with a gap, or a chain that ends before the
    /// newest event its verification's row records (events deleted from its end).
    public func audit(accountID: ObjectID?) throws -> AuditReport {
        try audit(accountID: accountID, batch: Self.auditBatch)
    }

    /// `audit` in batches of `batch` verifications (tests make them small).
    func audit(accountID: ObjectID?, batch: Int) throws -> AuditReport {
        var report = AuditReport()
        let account: SQL = accountID.map { id in "AND account_id = \(id.rawValue)" } ?? ""
        var after = ""
        var exhausted = false
        // Batches are read, decoded and checked on other threads, a few at once, while this
        // one reads the next batches' heads; their results are added up in order, so the first
        // broken link reported is the first in id order, with the counts up to it, as when one
        // thread did it all.
        var inFlight: [Batch] = []
        while true {
            while !exhausted && inFlight.count < Self.auditBatchesInFlight {
                let heads = try self.heads(after: after, account: account, limit: batch)
                guard let last = heads.last else {
                    exhausted = true
                    break
                }
                after = try last.string("id")
                inFlight.append(Batch { try self.verify(heads) })
            }
            guard !inFlight.isEmpty else { return report }
            let batch = try inFlight.removeFirst().get()
            report.chains += batch.chains
            report.events += batch.events
            if let broken = batch.broken {
                report.broken = broken
                for other in inFlight { _ = try? other.get() }
                return report
            }
        }
    }

    /// How many batches are read and checked at once. Four rather than three was measured to
    /// change nothing by itself at a million verifications (docs/performance.md, "Figures at
    /// scale, third time", run C); the audit's gain there came from `Event.chainInput`.
    static let auditBatchesInFlight = 4

    /// One batch's chains checked, stopping at its first broken link.
    private func verify(_ heads: [Row]) throws -> AuditReport {
        var report = AuditReport()
        let chains = try chains(of: heads)
        for row in heads {
            guard let id = ObjectID(.verification, parsing: try row.string("id")) else {
                throw DatabaseError.decoding(column: "id")
            }
            if let broken = try Self.check(chains[id.rawValue] ?? [], of: id, head: try ChainHead(row), into: &report) {
                report.broken = broken
                return report
            }
        }
        return report
    }

    /// The next batch of verifications (id and chain head) after `after`, in id order.
    private func heads(after: String, account: SQL, limit: Int) throws -> [Row] {
        try database.query("""
            SELECT id, event_sequence, event_hash FROM verifications
            WHERE id > \(after) \(account)
            ORDER BY id LIMIT \(Int64(limit))
            """)
    }

    /// The events of a batch of verifications, by verification, in sequence order: one range of
    /// the (verification_id, sequence) key; events of verifications outside the batch (another
    /// account's) are read and left aside.
    private func chains(of heads: [Row]) throws -> [String: [Event]] {
        guard let first = heads.first, let last = heads.last else { return [:] }
        var chains: [String: [Event]] = [:]
        chains.reserveCapacity(heads.count)
        for row in try database.query("""
            SELECT \(unsafeSQL: Self.columns) FROM events
            WHERE verification_id >= \(try first.string("id")) AND verification_id <= \(try last.string("id"))
            ORDER BY verification_id, sequence
            """) {
            let event = try Self.event(from: row)
            chains[event.verificationID.rawValue, default: []].append(event)
        }
        return chains
    }

    /// A batch's check started on another thread now, its result waited for by `get()`.
    private final class Batch: @unchecked Sendable {  // `result` is written before `done` is signalled, read after
        private var result: Result<AuditReport, any Error> = .success(AuditReport())
        private let done = DispatchSemaphore(value: 0)

        init(_ work: @escaping @Sendable () throws -> AuditReport) {
            DispatchQueue.global().async { [self] in
                result = Result { try work() }
                done.signal()
            }
        }

        func get() throws -> AuditReport {
            done.wait()
            return try result.get()
        }
    }

    /// Checks one chain, counting it into `report`; the first link that does not hold, if any.
    private static func check(_ chain: [Event], of id: ObjectID, head: ChainHead?, into report: inout AuditReport)
        throws -> (event: String, verificationID: String, sequence: Int64, reason: String)? {
        if chain.isEmpty && head == nil { return nil }  // created before the event log
        report.chains += 1
        var previous: Event?
        for event in chain {
            report.events += 1
            let reason: String? =
                if event.sequence != (previous?.sequence ?? 0) + 1 { "sequence \(event.sequence) follows \(previous?.sequence ?? 0)" }
                else if event.previousHash != previous?.hash { "previous_hash is not the hash of the event before it" }
                else if hash(of: event) != event.hash { "hash does not match the event's content" }
                else { nil }
            if let reason { return (event.id.rawValue, id.rawValue, event.sequence, reason) }
            previous = event
        }
        let end = previous.map { ChainHead(sequence: $0.sequence, hash: $0.hash) }
        guard end != head else { return nil }
        return (previous?.id.rawValue ?? "", id.rawValue, previous?.sequence ?? 0,
                "the chain ends at sequence \(end?.sequence ?? 0) but the verification records its newest event as sequence \(head?.sequence ?? 0)")
    }
}
