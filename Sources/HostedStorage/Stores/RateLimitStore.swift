import Foundation

/// Rate limits kept in the database, so they hold across processes: a generic cell-rate
/// algorithm with one "theoretical arrival time" per bucket, updated in a single statement.
public struct RateLimitStore: Sendable {
    private let database: any Database
    /// `rate_limits`, or `poll_limits` (unlogged on PostgreSQL) for the poll limit.
    let table: Table

    /// Where a store's buckets live.
    public enum Table: String, Sendable {
        case rateLimits = "rate_limits"
        case pollLimits = "poll_limits"
    }

    public init(database: any Database, table: Table = .rateLimits) {
        self.database = database
        self.table = table
    }

    /// The outcome of one request against a bucket.
    public struct Decision: Equatable, Sendable {
        public let allowed: Bool
        /// Seconds until a request would be allowed (0 when allowed).
        public let retryAfterSeconds: Int

        /// Allowed (e.g. from polls already taken from the bucket).
        public static let allowed = Decision(allowed: true, retryAfterSeconds: 0)
    }

    /// Deletes buckets whose theoretical arrival time has passed: such a bucket allows a full
    /// burst, exactly as a missing row does, so nothing is lost and the table stays small.
    @discardableResult
    public func prune(before time: Date) throws -> Int {
        try database.query("DELETE FROM \(unsafeSQL: table.rawValue) WHERE tat < \(time.unixMilliseconds) RETURNING bucket").count
    }

    /// Buckets stored.
    public func count() throws -> Int {
        Int(try database.query("SELECT count(*) AS n FROM \(unsafeSQL: table.rawValue)")[0].int("n"))
    }

    /// Counts `cost` requests (usually one) against `bucket`: `interval` between requests sustained, `burst` at once.
    public func take(bucket: String, at time: Date, interval: TimeInterval, burst: Int, cost: Int = 1) throws -> Decision {
        let cell = Cell(bucket: bucket, at: time, interval: interval, burst: burst, cost: cost)
        guard let row = try database.query(cell.statement(table)).first else { throw DatabaseError.serializationFailure }
        return try cell.decision(row)
    }

    /// One request against one bucket, as a statement and the reading of its answer, so a caller
    /// can put the statement in front of another in one round trip (`VerificationStore.polled`).
    struct Cell {
        let bucket: String
        let now: Int64
        let step: Int64
        let tolerance: Int64
        /// Requests taken at once (a poll lease takes several): the arrival time moves by
        /// `cost` steps, and the whole cost must fit, or nothing is taken.
        let cost: Int64

        init(bucket: String, at time: Date, interval: TimeInterval, burst: Int, cost: Int = 1) {
            self.bucket = bucket
            now = time.unixMilliseconds
            // Whole milliseconds, rounded up: a sub-millisecond interval must not become 0 (no
            // limit at all, and no tolerance either).
            step = max(1, Int64((min(interval, 1e9) * 1000).rounded(.up)))
            tolerance = step.multipliedReportingOverflow(by: Int64(max(0, burst))).overflow
                ? Int64.max / 4 : step * Int64(max(0, burst))
            self.cost = Int64(max(1, cost))
        }

        /// The upsert; it returns `tat` and `allowed`. Its text is built once per table (this
        /// runs on every poll); only the values change.
        func statement(_ table: Table) -> SQL {
            Self.upsert(table).bind(value)
        }

        /// The upsert's values, by name.
        enum Parameter: Hashable, Sendable {
            case bucket, now, increment, tolerance
        }

        /// This request's value for each of the upsert's slots.
        func value(_ parameter: Parameter) -> SQLValue {
            switch parameter {
            case .bucket: return .text(bucket)
            case .now: return .integer(now)
            case .increment:
                // The step times the cost.
                let increment = step.multipliedReportingOverflow(by: cost)
                return .integer(increment.overflow ? Int64.max / 4 : increment.partialValue)
            case .tolerance: return .integer(tolerance)
            }
        }

        static func upsert(_ table: Table) -> SQL.Template<Parameter> {
            switch table {
            case .rateLimits: rateLimitsUpsert
            case .pollLimits: pollLimitsUpsert
            }
        }

        private static let rateLimitsUpsert = upsert(named: Table.rateLimits.rawValue)
        private static let pollLimitsUpsert = upsert(named: Table.pollLimits.rawValue)

        private static func upsert(named name: String) -> SQL.Template<Parameter> {
            // Every SET expression reads the old row, so `allowed` and `tat` agree. The integers
            // are cast because PostgreSQL infers one type per placeholder, wherever it is used.
            let next: SQL.Template<Parameter> = """
                (CASE WHEN \(unsafeSQL: name).tat > CAST(\(parameter: .now) AS BIGINT) THEN \(unsafeSQL: name).tat \
                ELSE CAST(\(parameter: .now) AS BIGINT) END + CAST(\(parameter: .increment) AS BIGINT))
                """
            return """
                INSERT INTO \(unsafeSQL: name) (bucket, tat, allowed) VALUES (\(parameter: .bucket), CAST(\(parameter: .now) AS BIGINT) + CAST(\(parameter: .increment) AS BIGINT), 1)
                ON CONFLICT (bucket) DO UPDATE SET
                    tat = CASE WHEN \(next) - CAST(\(parameter: .now) AS BIGINT) <= CAST(\(parameter: .tolerance) AS BIGINT) THEN \(next) ELSE \(unsafeSQL: name).tat END,
                    allowed = CASE WHEN \(next) - CAST(\(parameter: .now) AS BIGINT) <= CAST(\(parameter: .tolerance) AS BIGINT) THEN 1 ELSE 0 END
                RETURNING tat, allowed
                """
        }

        func decision(_ row: Row, tat: String = "tat", allowed: String = "allowed") throws -> Decision {
            if try row.int(allowed) == 1 { return Decision(allowed: true, retryAfterSeconds: 0) }
            let waitMilliseconds = try row.int(tat) + step - tolerance - now
            return Decision(allowed: false, retryAfterSeconds: max(1, Int((waitMilliseconds + 999) / 1000)))
        }
    }
}
