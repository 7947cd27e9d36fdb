import Foundation

/// Rate limits kept in the database, so they hold across processes: a generic cell-rate
/// algorithm with one "theoretical arrival time" per bucket, updated in a single statement.
public struct RateLimitStore: Sendable {
    private let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// The outcome of one request against a bucket.
    public struct Decision: Equatable, Sendable {
        public let allowed: Bool
        /// Seconds until a request would be allowed (0 when allowed).
        public let retryAfterSeconds: Int
    }

    /// Deletes buckets whose theoretical arrival time has passed: such a bucket allows a full
    /// burst, exactly as a missing row does, so nothing is lost and the table stays small.
    @discardableResult
    public func prune(before time: Date) throws -> Int {
        try database.query("DELETE FROM rate_limits WHERE tat < \(time.unixMilliseconds) RETURNING bucket").count
    }

    /// Buckets stored.
    public func count() throws -> Int {
        Int(try database.query("SELECT count(*) AS n FROM rate_limits")[0].int("n"))
    }

    /// Counts one request against `bucket`: `interval` between requests sustained, `burst` at once.
    public func take(bucket: String, at time: Date, interval: TimeInterval, burst: Int) throws -> Decision {
        let now = time.unixMilliseconds
        // Whole milliseconds, rounded up: a sub-millisecond interval must not become 0 (no limit
        // at all, and no tolerance either).
        let step = max(1, Int64((interval * 1000).rounded(.up)))
        let tolerance = step * Int64(burst)
        // Every SET expression reads the old row, so `allowed` and `tat` agree.
        let next: SQL = "(CASE WHEN rate_limits.tat > CAST(\(now) AS BIGINT) THEN rate_limits.tat ELSE CAST(\(now) AS BIGINT) END + CAST(\(step) AS BIGINT))"
        let rows = try database.query("""
            INSERT INTO rate_limits (bucket, tat, allowed) VALUES (\(bucket), CAST(\(now) AS BIGINT) + CAST(\(step) AS BIGINT), 1)
            ON CONFLICT (bucket) DO UPDATE SET
                tat = CASE WHEN \(next) - CAST(\(now) AS BIGINT) <= CAST(\(tolerance) AS BIGINT) THEN \(next) ELSE rate_limits.tat END,
                allowed = CASE WHEN \(next) - CAST(\(now) AS BIGINT) <= CAST(\(tolerance) AS BIGINT) THEN 1 ELSE 0 END
            RETURNING tat, allowed
            """)
        guard let row = rows.first else { throw DatabaseError.serializationFailure }
        if try row.int("allowed") == 1 { return Decision(allowed: true, retryAfterSeconds: 0) }
        let waitMilliseconds = try row.int("tat") + step - tolerance - now
        return Decision(allowed: false, retryAfterSeconds: max(1, Int((waitMilliseconds + 999) / 1000)))
    }
}
