import Foundation
import HostedCore

/// Test data's end: a test verification is deleted, with everything that names it, seven days
/// after it was created (docs/test-mode.md). Live data is never touched here.
extension VerificationStore {
    /// How long test data is kept.
    public static let testDataLifetime: TimeInterval = 7 * 24 * 3600

    /// The tables that hold rows of one verification, deleted with it (children first).
    static let testDataTables = ["otp_codes", "handoffs", "journey_sessions", "sms_queue", "sms_outbox", "digilocker_states",
                                 "continuations", "review_notes", "journey_firsts", "artifacts", "events"]

    /// Deletes up to `limit` test verifications created more than `testDataLifetime` before
    /// `time`, each in its own transaction; returns how many. Their objects in object storage are
    /// queued for the sweeper's deletion in the same transaction.
    public func deleteTestData(at time: Date, limit: Int = 100) throws -> Int {
        let cutoff = time.addingTimeInterval(-Self.testDataLifetime)
        let due = try database.query("""
            SELECT id FROM verifications WHERE livemode = 0 AND created_at < \(cutoff)
            ORDER BY created_at LIMIT \(Int64(limit))
            """)
        var deleted = 0
        for row in due {
            let id = try row.string("id")
            let gone = try database.transaction { connection -> Bool in
                let lock = database.dialect == .postgres ? " FOR UPDATE SKIP LOCKED" : ""
                guard !(try connection.query("""
                    SELECT id FROM verifications WHERE id = \(id) AND livemode = 0\(unsafeSQL: lock)
                    """)).isEmpty
                else { return false }  // gone already, or another process holds it
                try connection.query("""
                    INSERT INTO artifact_object_deletions (object_key, available_at, attempts, created_at)
                    SELECT object_key, \(time), 0, \(time) FROM artifacts WHERE verification_id = \(id) AND object_key IS NOT NULL
                    ON CONFLICT (object_key) DO NOTHING
                    """)
                try connection.query("""
                    DELETE FROM webhook_deliveries WHERE event_id IN (SELECT id FROM events WHERE verification_id = \(id))
                    """)
                for table in Self.testDataTables {
                    try connection.query("DELETE FROM \(unsafeSQL: table) WHERE verification_id = \(id)")
                }
                try connection.query("DELETE FROM verifications WHERE id = \(id)")
                return true
            }
            if gone {
                decoding.memo.forget(id)
                deleted += 1
            }
        }
        return deleted
    }
}
