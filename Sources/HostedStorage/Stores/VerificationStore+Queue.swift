import Foundation
import HostedCore

/// The console's review queue.
extension VerificationStore {
    /// One page of the account's verifications of one mode in the given statuses, oldest first (by when they
    /// were submitted, else created), filtered by workflow and user id; `startingAfter` continues
    /// after that verification. Throws `UnknownCursor` when the cursor is not the account's.
    public func queue(tenancy: Tenancy, statuses: [VerificationStatus], workflowKey: String?, userID: String?,
                      limit: Int, startingAfter: ObjectID?) throws -> ([Verification], hasMore: Bool) {
        let accountID = tenancy.accountID
        var cursorTime: Int64 = -1
        var cursorID = ""
        if let startingAfter {
            guard let cursor = try database.query("""
                SELECT COALESCE(submitted_at, created_at) AS queued_at FROM verifications
                WHERE id = \(startingAfter.rawValue) AND account_id = \(accountID.rawValue) AND livemode = \(tenancy.mode)
                """).first
            else { throw UnknownCursor() }
            cursorTime = try cursor.int("queued_at")
            cursorID = startingAfter.rawValue
        }
        let names = statuses.map(\.rawValue)
        // One status (the usual queue) is an equality, so the queue's index (migration 0026: by
        // status, then the queue's order) hands the page over in order; the cursor is a row
        // comparison the index starts at; a filter is in the statement only when given (as in
        // `list`: no generic plan that cannot use an index).
        var filters: SQL = names.count == 1 ? "AND status = \(names[0])"
            : names.isEmpty ? "" : "AND status IN (\(values: names.map(SQLValue.text)))"
        if let workflowKey { filters = "\(filters) AND workflow_key = \(workflowKey)" }
        if let userID { filters = "\(filters) AND user_key = \(sealing.userKey(accountID: accountID, userID: userID))" }
        let rows = try database.query("""
            SELECT \(unsafeSQL: Self.columns) FROM verifications
            WHERE account_id = \(accountID.rawValue) AND livemode = \(tenancy.mode) \(filters)
              AND (COALESCE(submitted_at, created_at), id) > (\(cursorTime), \(cursorID))
            ORDER BY COALESCE(submitted_at, created_at), id
            LIMIT \(Int64(limit + 1))
            """)
        let page = try rows.prefix(limit).map(verification(from:)).map(expireIfDue)
        return (page, rows.count > limit)
    }

    /// How many of the account's verifications of one mode are in each status, each counted up to
    /// `cappedAt + 1`: a count above `cappedAt` means "more than `cappedAt`". Each status is a
    /// range of the queue's index (migration 0026: account, mode, status first) read at most that
    /// far, so the cost stays flat however many verifications the account has (counting them all
    /// read every row of the account: 364 ms at a million; docs/performance.md).
    public func counts(tenancy: Tenancy, cappedAt cap: Int) throws -> [VerificationStatus: Int] {
        let statement = Self.countsTemplate.bind { parameter in
            switch parameter {
            case .accountID: .text(tenancy.accountID.rawValue)
            case .mode: .integer(tenancy.mode)
            case .limit: .integer(Int64(min(max(cap, 0), 1 << 30)) + 1)
            }
        }
        var counts: [VerificationStatus: Int] = [:]
        for row in try database.query(statement) {
            if let status = VerificationStatus(rawValue: try row.string("status")) { counts[status] = Int(try row.int("n")) }
        }
        return counts
    }

    private enum CountParameter: Hashable, Sendable {
        case accountID, mode, limit
    }

    /// `counts`' one statement (built once): a capped count per status, joined by `UNION ALL`.
    /// Each status is a constant of the statement (the enum's own names, never a value from
    /// outside), so PostgreSQL plans each range by that status's own frequency even in a
    /// generic plan: a status no row has is an empty index range, never a scan of the table
    /// looking for its first row.
    private static let countsTemplate: SQL.Template<CountParameter> = {
        var statement: SQL.Template<CountParameter> = ""
        for (index, status) in VerificationStatus.allCases.enumerated() {
            let name = "'\(status.rawValue)'"
            let count: SQL.Template<CountParameter> = """
                SELECT CAST(\(unsafeSQL: name) AS TEXT) AS status, (SELECT COUNT(*) FROM (
                    SELECT 1 FROM verifications
                    WHERE account_id = \(parameter: .accountID) AND livemode = \(parameter: .mode) AND status = \(unsafeSQL: name)
                    LIMIT \(parameter: .limit)) AS capped) AS n
                """
            statement = index == 0 ? count : "\(statement) UNION ALL \(count)"
        }
        return statement
    }()
}
