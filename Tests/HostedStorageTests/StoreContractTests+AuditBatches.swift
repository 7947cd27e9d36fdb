import Foundation
import HostedCore
@testable import HostedStorage
import Testing

extension StoreContractTests.LifecycleTests {
    /// `hosted audit verify` reads chains in batches, several at once on other threads: the
    /// counts cover every batch, and the broken link named is the first in id order even when a
    /// later batch (checked at the same time) is broken too.
    @Test(arguments: Backend.allCases)
    func theAuditInBatchesCountsEveryChainAndNamesTheFirstBrokenOneInOrder(_ backend: Backend) throws {
        guard backend.isAvailable else { return }
        try withStore(backend) { db, store, _, account in
            var ids: [ObjectID] = []
            for index in 0..<9 {
                var v = try create(store, account, user: "batch-\(index)")
                v = try change(store, v, .signedIn(method: .sms))
                ids.append(v.id)
            }
            let audit = EventStore(database: db)
            let whole = try audit.audit(accountID: nil, batch: 1_000)
            #expect(whole.broken == nil && whole.chains == 9 && whole.events == 18)
            for batch in [1, 2, 4] {
                let report = try audit.audit(accountID: account, batch: batch)
                #expect(report.broken == nil && report.chains == 9 && report.events == 18, "batches of \(batch)")
            }
            // Two chains broken, in different batches: the earlier (by id) is named, with the
            // counts up to it.
            let sorted = ids.sorted { $0.rawValue < $1.rawValue }
            for id in [sorted[2], sorted[7]] {
                try db.query("UPDATE events SET data = '{\"method\":\"handoff\"}' WHERE verification_id = \(id.rawValue) AND sequence = 2")
            }
            for batch in [1, 2, 4, 1_000] {
                let report = try audit.audit(accountID: nil, batch: batch)
                let broken = try #require(report.broken, "batches of \(batch)")
                #expect(broken.verificationID == sorted[2].rawValue && broken.sequence == 2, "batches of \(batch)")
                #expect(report.chains == 3 && report.events == 6, "batches of \(batch)")
            }
        }
    }
}
