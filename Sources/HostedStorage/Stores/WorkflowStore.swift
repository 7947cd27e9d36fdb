import Foundation
import HostedCore

/// Workflows, versioned per account and key.
public struct WorkflowStore: Sendable {
    private let database: any Database
    /// Decoded steps by their text: the process's shared memo, or none (`keepsDecodedSteps: false`,
    /// for measuring what it buys).
    private let decodedSteps: StepsCache

    public init(database: any Database, keepsDecodedSteps: Bool = true) {
        self.database = database
        self.decodedSteps = keepsDecodedSteps ? .shared : StepsCache(capacity: 0)
    }

    /// Stores a new version of `key` (1 for a new key) and returns it.
    public func createVersion(accountID: ObjectID, key: String, name: String, steps: [WorkflowStep],
                              lifecycle: WorkflowLifecycle = WorkflowLifecycle(), review: WorkflowReview = WorkflowReview(),
                              continuation: WorkflowContinuation = WorkflowContinuation(), at time: Date) throws -> Workflow {
        // Two concurrent posts of one key race for the same version number; the primary key
        // refuses the loser, which simply takes the next number.
        for _ in 0..<5 {
            do {
                return try database.transaction { connection in
                    let current = try connection.query(
                        "SELECT COALESCE(MAX(version), 0) AS v FROM workflows WHERE account_id = \(accountID.rawValue) AND key = \(key)")
                    let version = Int(try current.first?.int("v") ?? 0) + 1
                    try connection.query(
                        "INSERT INTO workflows (account_id, key, version, name, steps, created_at, expires_after_seconds, redact_after_seconds, approvals_required, max_resubmissions, continuation_matching, continuation_on_report) VALUES (\(accountID.rawValue), \(key), \(Int64(version)), \(name), \(try JSONColumn.encode(steps)), \(time), \(lifecycle.expiresAfterSeconds), \(lifecycle.redactAfterSeconds), \(Int64(review.approvalsRequired)), \(Int64(review.maxResubmissions)), \(continuation.matching.rawValue), \(continuation.onReport.rawValue))")
                    return Workflow(accountID: accountID, key: key, name: name, version: version, steps: steps, createdAt: time,
                                    lifecycle: lifecycle, review: review, continuation: continuation)
                }
            } catch DatabaseError.uniqueViolation {
                continue
            }
        }
        throw DatabaseError.serializationFailure
    }

    /// The latest version of `key`, or a given version.
    public func workflow(accountID: ObjectID, key: String, version: Int? = nil) throws -> Workflow? {
        let rows: [Row]
        if let version {
            rows = try database.query(
                "SELECT * FROM workflows WHERE account_id = \(accountID.rawValue) AND key = \(key) AND version = \(Int64(version))")
        } else {
            rows = try database.query(
                "SELECT * FROM workflows WHERE account_id = \(accountID.rawValue) AND key = \(key) ORDER BY version DESC LIMIT 1")
        }
        return try rows.first.map { try workflow(from: $0, accountID: accountID) }
    }

    /// The latest version of every workflow of the account, by key.
    public func latestWorkflows(accountID: ObjectID) throws -> [Workflow] {
        let rows = try database.query("""
            SELECT w.* FROM workflows w
            WHERE w.account_id = \(accountID.rawValue)
              AND w.version = (SELECT MAX(version) FROM workflows v WHERE v.account_id = w.account_id AND v.key = w.key)
            ORDER BY w.key
            """)
        return try rows.map { try workflow(from: $0, accountID: accountID) }
    }

    func workflow(from row: Row, accountID: ObjectID) throws -> Workflow {
        Workflow(accountID: accountID, key: try row.string("key"), name: try row.string("name"),
                 version: Int(try row.int("version")),
                 steps: try decodedSteps.steps(try row.string("steps")),
                 createdAt: try row.date("created_at"),
                 lifecycle: WorkflowLifecycle(expiresAfterSeconds: try row.optionalInt("expires_after_seconds") ?? WorkflowLifecycle.defaultExpiresAfterSeconds,
                                              redactAfterSeconds: try row.optionalInt("redact_after_seconds")),
                 review: WorkflowReview(approvalsRequired: Int(try row.optionalInt("approvals_required") ?? 1),
                                        maxResubmissions: Int(try row.optionalInt("max_resubmissions") ?? 2)),
                 continuation: WorkflowContinuation(
                    matching: (try row.optionalString("continuation_matching")).flatMap(WorkflowContinuation.Matching.init) ?? .choose,
                    onReport: (try row.optionalString("continuation_on_report")).flatMap(WorkflowContinuation.OnReport.init) ?? .flag))
    }
}
