import Foundation
import HostedCore

/// Deletes what no process needs any more from the internal tables, so none grows without
/// bound. Safe from any number of processes at once: each statement deletes only rows past
/// their use, and deleting a row twice is deleting it once.
public struct PruningStore: Sendable {
    private let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// Rows deleted per table, for the log and the tests.
    public func prune(at time: Date) throws -> [String: Int] {
        let now = time.unixMilliseconds
        let idempotencyCutoff = now - Int64(IdempotencyStore.retention * 1000)
        // A handoff or session is kept a day past its end, so a late request still gets the
        // same answer as an expired one rather than an unknown one.
        let dayAgo = now - 86_400_000
        let statements: [(String, SQL)] = [
            ("idempotency_keys", "DELETE FROM idempotency_keys WHERE created_at < \(idempotencyCutoff) RETURNING 1 AS n"),
            ("otp_codes", "DELETE FROM otp_codes WHERE used_at IS NOT NULL OR expires_at < \(now) RETURNING 1 AS n"),
            ("handoffs", "DELETE FROM handoffs WHERE expires_at < \(dayAgo) RETURNING 1 AS n"),
            ("journey_sessions", "DELETE FROM journey_sessions WHERE expires_at < \(dayAgo) OR revoked_at < \(dayAgo) RETURNING 1 AS n"),
            // Console sessions end 12 hours after sign-in at the latest.
            ("console_sessions", "DELETE FROM console_sessions WHERE created_at < \(now - 13 * 3_600_000) OR revoked_at < \(dayAgo) RETURNING 1 AS n"),
            ("continuations", "DELETE FROM continuations WHERE expires_at < \(dayAgo) RETURNING 1 AS n"),
            ("digilocker_states", "DELETE FROM digilocker_states WHERE expires_at < \(now) RETURNING 1 AS n"),
            ("digilocker_sim_codes", "DELETE FROM digilocker_sim_codes WHERE expires_at < \(now) RETURNING 1 AS n"),
            ("digilocker_sim_tokens", "DELETE FROM digilocker_sim_tokens WHERE expires_at < \(now) RETURNING 1 AS n"),
        ]
        var deleted: [String: Int] = ["rate_limits": try RateLimitStore(database: database).prune(before: time),
                                      "poll_limits": try RateLimitStore(database: database, table: .pollLimits).prune(before: time)]
        for (table, statement) in statements {
            deleted[table] = try database.query(statement).count
        }
        // Journey analytics: kept 400 days (docs/analytics.md).
        (deleted["journey_counts"], deleted["journey_firsts"]) = try AnalyticsStore(database: database).prune(at: time)
        return deleted
    }
}
