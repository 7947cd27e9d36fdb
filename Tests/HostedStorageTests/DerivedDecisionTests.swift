import Foundation
import HostedCore
import HostedStorage
import HostedTestSupport
import Testing

/// A verification's decision is derived from its status, never stored beside it (migration
/// 0016), on SQLite and PostgreSQL: a decided verification reads back with the decision its
/// status says, and the table has no column that could disagree.
@Suite struct DerivedDecisionTests {
    @Test(arguments: Backend.allCases)
    func decisionFollowsTheStatus_andIsNotAColumn(_ backend: Backend) throws {
        try withMigratedDatabase(backend) { (db: any Database) throws in
            let accountID = try makeAccount(db)
            let id = try storeVerification(db, accountID: accountID)
            let store = VerificationStore(database: db, changes: LocalChangeFeed())
            #expect(try store.verification(accountID: accountID, id: id)?.decision == nil)
            try db.query("UPDATE verifications SET status = 'rejected' WHERE id = \(id.rawValue)")
            #expect(try store.verification(accountID: accountID, id: id)?.decision == "rejected")
            try db.query("UPDATE verifications SET status = 'approved' WHERE id = \(id.rawValue)")
            #expect(try store.verification(accountID: accountID, id: id)?.decision == "approved")
            #expect(throws: (any Error).self) { try db.query("SELECT decision FROM verifications") }
        }
    }
}
